"""Retrieval quality on a split: recall@k and nDCG@10 of each target paper's gold citations."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sciwrite.retrieval.query import build_query

logger = logging.getLogger(__name__)

DEFAULT_KS = (10, 20, 50)


def recall_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Share of the gold documents found in the first k hits (gold must be non-empty)."""
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("recall is undefined without gold documents")
    return len(gold_set.intersection(ranked[:k])) / len(gold_set)


def ndcg_at_k(ranked: Sequence[str], gold: Iterable[str], k: int = 10) -> float:
    """Binary-relevance nDCG@k: DCG = sum over relevant hits at rank r of 1 / log2(r + 1)."""
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("nDCG is undefined without gold documents")
    dcg = sum(1.0 / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]) if doc in gold_set)
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(k, len(gold_set))))
    return dcg / ideal


@dataclass
class RetrievalReport:
    """Per-paper and mean retrieval quality of one retriever on one split.

    Attributes:
        retriever: The name the report was given.
        ks: The cut-offs of recall@k.
        per_paper: One row per paper scored: ``paper_id``, ``n_gold``, ``recall@<k>`` per k and ``ndcg@10``.
        skipped: Why -> the paper_ids left out (``no-citations``, ``no-query-text``).
    """

    retriever: str
    ks: tuple[int, ...]
    per_paper: list[dict[str, Any]] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)

    @property
    def means(self) -> dict[str, float]:
        """Each measure's mean over the papers scored (``recall@<k>`` per k, ``ndcg@10``); NaN with no paper."""
        keys = [f"recall@{k}" for k in self.ks] + ["ndcg@10"]
        n = len(self.per_paper)
        return {key: (sum(row[key] for row in self.per_paper) / n if n else float("nan")) for key in keys}

    def summary_row(self) -> dict[str, Any]:
        """One table row: the retriever's name, the number of papers scored and the means."""
        return {"retriever": self.retriever, "papers": len(self.per_paper), **self.means}


def evaluate_retrieval(retriever: Any, papers: Iterable[Mapping[str, Any]], name: str, ks: Sequence[int] = DEFAULT_KS,
                       include_introduction: bool = False, exclude_self: bool = True,
                       show_progress: bool = True) -> RetrievalReport:
    """Search with every target paper and score the hits against its `citations`.

    Papers without citations or without query text are skipped and listed in the report, never silently dropped.

    Args:
        retriever: Anything with a `Retriever`'s `search` (`BM25Retriever`, `DenseRetriever`).
        papers: RWGBench paper records (``paper_id``, ``title``, ``abstract``, ``citations``).
        name: The retriever's name in the report.
        ks: The cut-offs of recall@k (nDCG is always at 10).
        include_introduction: Query with title + abstract + introduction instead of title + abstract.
        exclude_self: Drop the target paper's own corpus record (doc_id == paper_id) from its hits: a paper
            cannot cite itself.
        show_progress: Show the retriever's progress bar.

    Returns:
        The per-paper scores, their means (`RetrievalReport.means`) and the papers skipped.
    """
    report = RetrievalReport(retriever=name, ks=tuple(ks))
    queries, kept = [], []
    for paper in papers:
        if not paper.get("citations"):
            report.skipped.setdefault("no-citations", []).append(paper["paper_id"])
            continue
        query = build_query(paper, include_introduction)
        if not query:
            report.skipped.setdefault("no-query-text", []).append(paper["paper_id"])
            continue
        queries.append(query)
        kept.append(paper)
    for reason, ids in report.skipped.items():
        logger.warning("skipped %d paper(s) (%s), e.g. %s", len(ids), reason, ids[:3])
    if not queries:
        return report
    depth = max(max(ks), 10) + (1 if exclude_self else 0)
    results = retriever.search(queries, k=depth, show_progress=show_progress)
    for paper, result in zip(kept, results):
        ranked = [d for d in result.doc_ids if not (exclude_self and d == paper["paper_id"])]
        gold = paper["citations"]
        row = {"paper_id": paper["paper_id"], "n_gold": len(set(gold))}
        row.update({f"recall@{k}": recall_at_k(ranked, gold, k) for k in ks})
        row["ndcg@10"] = ndcg_at_k(ranked, gold, 10)
        report.per_paper.append(row)
    return report
