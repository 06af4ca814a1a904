"""Citation scores over a batch of predictions, with the per-paper diagnostics the suite reports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sciwrite.metrics.rwg import (
    citation_counts,
    citation_distribution_balance,
    citation_precision_recall,
    resolve_citations,
)


@dataclass
class CitationScores:
    """Per-paper citation precision / recall and what each section's markers resolved to."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        n = len(self.rows)
        mean = lambda key: sum(r[key] for r in self.rows) / n if n else 0.0  # noqa: E731
        return {"precision": mean("precision"), "recall": mean("recall"),
                "empty_citation_rate": mean("empty_citation_output"),
                "unresolved_markers": sum(r["unresolved_markers"] for r in self.rows)}


def check_batch(predictions: Sequence[str], references: Sequence[Any], candidates: Sequence[Sequence[str]] | None) -> None:
    """Lists of unequal length, or a missing candidate list, name the problem instead of misaligning papers."""
    if candidates is None:
        raise ValueError("`candidates` is required: for each prediction, the ordered doc_ids its markers [i] index into")
    if not len(predictions) == len(references) == len(candidates):
        raise ValueError(f"predictions ({len(predictions)}), references ({len(references)}) and candidates "
                         f"({len(candidates)}) must have the same length")
    for i, text in enumerate(predictions):
        if not isinstance(text, str):
            raise ValueError(f"record {i}: field 'predictions' must be a string, got {type(text).__name__}")


def score_citation_precision_recall(predictions: Sequence[str], references: Sequence[Sequence[str]],
                                    candidates: Sequence[Sequence[str]] | None) -> CitationScores:
    """Resolve each prediction's markers through its candidates and score the cited set against the gold set."""
    check_batch(predictions, references, candidates)
    scores = CitationScores()
    for i, (text, gold, cands) in enumerate(zip(predictions, references, candidates)):
        if not gold:
            raise ValueError(f"record {i}: field 'references' is empty; citation recall needs gold citations")
        resolved = resolve_citations(text, list(cands))
        precision, recall = citation_precision_recall(resolved.unique_ids, gold)
        scores.rows.append({"precision": precision, "recall": recall,
                            "empty_citation_output": resolved.is_empty_citation_output,
                            "n_cited": len(resolved.unique_ids), "unresolved_markers": resolved.n_unresolved})
    return scores


def score_citation_distribution_balance(predictions: Sequence[str],
                                        candidates: Sequence[Sequence[str]] | None) -> list[dict[str, Any]]:
    """Per paper: the share of its cited papers cited exactly once (0 for an empty-citation output)."""
    check_batch(predictions, predictions, candidates)
    rows = []
    for text, cands in zip(predictions, candidates):
        resolved = resolve_citations(text, list(cands))
        counts = citation_counts(resolved.doc_ids)
        rows.append({"citation_distribution_balance": citation_distribution_balance(counts),
                     "n_cited": len(counts), "cited_once": sum(1 for c in counts.values() if c == 1),
                     "empty_citation_output": resolved.is_empty_citation_output,
                     "unresolved_markers": resolved.n_unresolved})
    return rows
