"""What a dataset build skipped, on one line: the reasons, the papers and, for a paper that could not be read, why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: Papers named per reason before the rest are counted ("and 12 more").
SHOWN = 3


def describe_skips(skipped: Mapping[str, Sequence[str]], why: Mapping[str, str] | None = None,
                   shown: int = SHOWN) -> str:
    """``unreadable: D/a.json: not UTF-8 ...; no-title: B, C and 4 more``: each reason and its first `shown` papers
    (a paper's entry in `why`, which names its file, in place of its id), so a user sees what to fix first."""
    why = why or {}
    parts = []
    for reason, ids in skipped.items():
        named = ", ".join(why.get(paper_id, paper_id) for paper_id in ids[:shown])
        more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
        parts.append(f"{reason}: {named}{more}")
    return "; ".join(parts) or "none skipped"


__all__ = ["SHOWN", "describe_skips"]
