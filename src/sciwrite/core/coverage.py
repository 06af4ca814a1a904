"""One rule for partial coverage: a score over fewer papers than its split says ``n/N papers`` wherever it is shown.

A prediction file for 3 of 144 papers can score a perfect precision; the number is right for those 3 papers and
misleading as a system's result. So every summary records its ``coverage`` (papers scored, papers in the split),
and every place that shows a system's scores (the printed tables, the CSV rows, the plots, the leaderboard) labels
a partial one with `with_coverage`. ``--require-complete`` turns missing papers into an error (`check_complete`);
the leaderboard always requires every paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Coverage:
    """How many of a split's papers a system was scored on.

    Attributes:
        scored: The papers scored.
        total: The papers in the split; None when unknown (a summary written before coverage was recorded).
    """

    scored: int
    total: int | None

    @property
    def complete(self) -> bool:
        """Whether every paper of the split was scored (True when the split's size is unknown)."""
        return self.total is None or self.scored >= self.total

    @property
    def fraction(self) -> str:
        """``"3/144"`` (the scored count alone when the split's size is unknown)."""
        return f"{self.scored}/{self.total}" if self.total is not None else str(self.scored)

    @property
    def text(self) -> str:
        """``"3/144 papers"`` when partial, ``""`` when complete: what labels append."""
        return "" if self.complete else f"{self.fraction} papers"

    def as_dict(self) -> dict[str, Any]:
        """The summary's ``coverage`` record: ``n_scored``, ``n_split`` and ``complete``."""
        return {"n_scored": self.scored, "n_split": self.total, "complete": self.complete}


def with_coverage(label: str, coverage: Coverage | None) -> str:
    """`label`, followed by ``(3/144 papers)`` when `coverage` is not the whole split (None: as is); a summary's is
    `sciwrite.core.summary.Summary.scored`."""
    text = coverage.text if coverage is not None else ""
    return f"{label} ({text})" if text else label


def check_complete(scored: Mapping[str, Sequence[str]], split_ids: Sequence[str]) -> None:
    """Raise `ValueError` naming each prediction file (key of `scored`, its scored paper_ids) that leaves papers of
    the split out: how many, and the first few."""
    problems = []
    for name, ids in scored.items():
        have = set(ids)
        missing = [pid for pid in split_ids if pid not in have]
        if missing:
            problems.append(f"{name}: {len(split_ids) - len(missing)}/{len(split_ids)} papers predicted, "
                            f"{len(missing)} missing (e.g. {missing[:5]})")
    if problems:
        raise ValueError("--require-complete: not every paper of the split has a prediction:\n  "
                         + "\n  ".join(problems))


__all__ = ["Coverage", "check_complete", "with_coverage"]
