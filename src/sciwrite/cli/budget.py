"""What a command that spends on a language model says of its budget: the exit statuses of a run ``--max-cost``
stopped (or whose budget an endpoint broke) or that left papers failed, the last line that says by how much and why
a budget was not kept, and where the usage ledger is written."""

from __future__ import annotations

from collections.abc import Sequence

from sciwrite.generation.runner import RunReport
from sciwrite.generation.writer import LEDGER_NAME

#: A command's exit status when --max-cost kept requests from being sent, or was not kept because an endpoint billed
#: more than its requests allowed (what was written is kept; a rerun resumes).
EXIT_BUDGET = 3
#: `sciwrite generate`'s exit status when some papers failed (written to the failures file; rerun with
#: --retry-failed), so that a script or make does not carry on as if the run had worked.
EXIT_FAILED = 4
#: What `sciwrite generate --help` says of its exit statuses.
EXIT_STATUSES = (f"exit status: 0 every paper written; 2 usage or input error; {EXIT_BUDGET} stopped at --max-cost "
                 "(rerun with a higher budget to resume), or the endpoint billed past it (the last line says by how "
                 f"much and why); {EXIT_FAILED} some papers failed (see the failures file; rerun with --retry-failed)")


def exit_status(reports: Sequence[RunReport | None]) -> int:
    """`EXIT_BUDGET` when --max-cost stopped any of the runs or was not kept, else `EXIT_FAILED` when any paper
    failed, else 0."""
    if any(r is not None and (r.stopped == "max_cost" or r.budget_breach) for r in reports):
        return EXIT_BUDGET
    return EXIT_FAILED if any(r is not None and r.n_failed for r in reports) else 0


def breach_lines(reports: Sequence[RunReport | None]) -> list[str]:
    """Each distinct "budget exceeded by $X: why" line of `reports` (jobs sharing a ledger say it once)."""
    return list(dict.fromkeys(r.budget_breach for r in reports if r is not None and r.budget_breach))


__all__ = ["EXIT_BUDGET", "EXIT_FAILED", "EXIT_STATUSES", "LEDGER_NAME", "breach_lines", "exit_status"]
