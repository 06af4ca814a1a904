"""Input checks and per-paper rows into summaries, shared by every benchmark's metrics and suites."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sciwrite.core.paper_row import PAPER_ID

#: The summary's share of papers whose prediction cites nothing, and its count of markers no candidate resolves.
EMPTY_CITATION_RATE = "empty_citation_rate"
UNRESOLVED_MARKERS = "unresolved_markers"
#: The summary's count of papers the LLM judge failed on, and its count of papers each backend fingerprint answered.
JUDGE_FAILURES = "judge_failures"
JUDGE_SYSTEM_FINGERPRINTS = "judge_system_fingerprints"
#: A per-paper row's flag: the prediction cites nothing (its count of unresolved markers is `UNRESOLVED_MARKERS`).
EMPTY_CITATION_OUTPUT = "empty_citation_output"


def summarize(rows: Sequence[Mapping[str, Any]], *keys: str, citations: bool = True) -> dict[str, Any]:
    """Means over papers of the per-paper scores `keys` (0 for no rows); with `citations`, also the
    empty-citation rate and the total of unresolved markers."""
    n = len(rows)
    summary = {key: sum(r[key] for r in rows) / n if n else 0.0 for key in keys}
    if citations:
        summary[EMPTY_CITATION_RATE] = sum(r[EMPTY_CITATION_OUTPUT] for r in rows) / n if n else 0.0
        summary[UNRESOLVED_MARKERS] = sum(r[UNRESOLVED_MARKERS] for r in rows)
    return summary


def paper_name(i: int, paper: Mapping[str, Any]) -> str:
    """How errors name a paper: its position and its id."""
    return f"paper {i} ({paper.get('paper_id', '?')})"


def check_string_fields(papers: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> None:
    """Each paper's `keys` must be strings; the error names the paper and the field."""
    for i, paper in enumerate(papers):
        for key in keys:
            if not isinstance(paper.get(key), str):
                raise ValueError(f"{paper_name(i, paper)}: field {key!r} must be a string")


def check_pairs(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    """Predictions and references are matched by position: unequal lengths are an error, never a zip that drops."""
    if len(predictions) != len(references):
        raise ValueError(f"predictions ({len(predictions)}) and references ({len(references)}) must have the same length")


def merge_row(row: dict[str, Any], extra: Mapping[str, Any], stage: str, keep_first: Iterable[str] = ()) -> None:
    """Add one scorer's per-paper fields to the paper's row. A key another scorer already set is kept as it is
    when listed in `keep_first` (a diagnostic several scorers report), else stored as ``<stage>.<key>``."""
    keep_first = set(keep_first)
    for key, value in extra.items():
        if key in keep_first and key in row:
            continue
        if key in row and key != PAPER_ID:
            key = f"{stage}.{key}"
        row[key] = value
