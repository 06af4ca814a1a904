"""SciIG citation correctness: do a generated introduction's author–year citations name the paper's cited works?

Per paper, the generation's in-text citation keys (found by `sciwrite.sources.apa.extract_citation_keys`) are
compared as sets with the keys of the paper's ``neighbors``. Keys match when they agree up to case, accents,
"&" vs "and", spacing, punctuation and the year's suffix letter ("Li et al., 2022b" = "li et al. 2022"), so two
works of one first author in one year count as one key. Precision is |cited ∩ neighbors| / |cited| (a citation
to a work outside the neighbors counts against it), recall |cited ∩ neighbors| / |neighbors|. A generation with
no citation scores 0 on both and is flagged; a paper without neighbors is an error, since recall is undefined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sciwrite.sources.apa import comparison_key, extract_citation_keys, first_author


def _neighbor_keys(neighbors: Sequence[Any]) -> list[str]:
    """Keys from a list of key strings or of ``{"key": ...}`` neighbor records."""
    return [n["key"] if isinstance(n, dict) else n for n in neighbors]


def citation_correctness(prediction: str, neighbors: Sequence[Any], record: str = "paper") -> dict[str, Any]:
    """Precision, recall and counts for one generation against one paper's neighbors (keys or records)."""
    if not isinstance(prediction, str):
        raise TypeError(f"{record}: the prediction must be a string, got {type(prediction).__name__}")
    gold = {comparison_key(k) for k in _neighbor_keys(neighbors) if isinstance(k, str) and k.strip()}
    if not gold:
        raise ValueError(f"{record}: `neighbors` has no citation key, so citation recall is undefined; "
                         "leave the paper out or give its cited works")
    cited_keys = extract_citation_keys(prediction)
    # Author-year extraction reads the last word of a multi-word surname ("(Kumar Bodigutla et al., 2020)" ->
    # "Bodigutla et al., 2020") while the neighbor's key keeps all of it: such a tail counts as that key when it
    # stands for exactly one neighbor (same year, same "et al." / second author) and no neighbor is the tail itself.
    tails = _surname_tails([k for k in _neighbor_keys(neighbors) if isinstance(k, str)])
    resolve = lambda key: key if key in gold else tails.get(key, key)
    cited = {resolve(comparison_key(k)) for k in cited_keys}
    correct = cited & gold
    return {
        "precision": len(correct) / len(cited) if cited else 0.0,
        "recall": len(correct) / len(gold),
        "n_cited": len(cited),
        "n_correct": len(correct),
        "n_neighbors": len(gold),
        "no_citation": not cited,
        "not_in_neighbors": sorted(k for k in cited_keys if resolve(comparison_key(k)) not in gold),
    }


def _surname_tails(keys: Sequence[str]) -> dict[str, str]:
    """comparison key with only the last word of a multi-word first surname -> the full key's comparison key, for
    the tails that stand for exactly one key."""
    tails: dict[str, list[str]] = {}
    for key in keys:
        first = first_author(key)
        words = first.split() if first else []
        if len(words) > 1:
            tail = key.replace(first, words[-1], 1)
            tails.setdefault(comparison_key(tail), []).append(comparison_key(key))
    return {tail: full[0] for tail, full in tails.items() if len(set(full)) == 1}


def score_citation_correctness(predictions: Sequence[str], neighbors: Sequence[Sequence[Any]],
                               paper_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """`citation_correctness` for each paper; errors name the paper (its id, else its position)."""
    if len(predictions) != len(neighbors):
        raise ValueError(f"predictions ({len(predictions)}) and neighbors ({len(neighbors)}) must have the same length")
    if paper_ids is not None and len(paper_ids) != len(predictions):
        raise ValueError(f"paper_ids ({len(paper_ids)}) and predictions ({len(predictions)}) must have the same length")
    names = [f"paper {p!r}" for p in paper_ids] if paper_ids is not None else [f"record {i}" for i in range(len(predictions))]
    return [citation_correctness(p, n, name) for p, n, name in zip(predictions, neighbors, names)]


def summarize_citation_correctness(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Macro means of precision and recall (no-citation generations count as 0), and the no-citation rate."""
    n = len(rows)
    if not n:
        return {"precision": 0.0, "recall": 0.0, "no_citation_rate": 0.0}
    return {"precision": sum(r["precision"] for r in rows) / n, "recall": sum(r["recall"] for r in rows) / n,
            "no_citation_rate": sum(r["no_citation"] for r in rows) / n}
