"""What an RWGBench method reads: a paper's inputs without the answer, and its ordered candidate papers.

A record (`prepare_records`) holds the paper's fields except the answer (`ANSWER_FIELDS`: ``related_work`` and
``citations`` are dropped so that no method can read them) plus ``candidate_docs``, the ordered list of
``{"doc_id", "title", "abstract"}`` that marker ``[i]`` resolves into (``candidates[i-1]``). The candidates are
the retriever's top-k (§5.1: k = 50), the Oracle's gold citations in a seeded order, or none (Direct, and
Workflow, which retrieves by itself). The extractive floor (`sciwrite.generation.extractive.ExtractiveRWGBench`)
runs on the same records. `CandidatesMethod` is what every method's output says of them. The corpus is read through
a `sciwrite.generation.corpus_lookup.CorpusLookup`.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sciwrite.generation.corpus_lookup import as_lookup
from sciwrite.retrieval.query import build_query

logger = logging.getLogger(__name__)

#: Papers retrieved per target for RAG, ALCE and TAG (§5.1: "Both retrieve k=50 papers").
DEFAULT_K = 50
#: Fields of a paper record that are the answer, never shown to (or kept for) a method.
ANSWER_FIELDS = ("related_work", "citations")


def oracle_order(doc_ids: Sequence[str], seed: int | None, paper_id: str) -> list[str]:
    """The gold doc_ids (de-duplicated) shuffled by an RNG seeded with (seed, paper_id): position is no signal,
    and the order of one paper does not depend on which other papers are in the run."""
    ids = list(dict.fromkeys(doc_ids))
    random.Random(f"{seed}:{paper_id}").shuffle(ids)
    return ids


def paper_inputs(paper: Mapping[str, Any]) -> dict[str, Any]:
    """A paper's fields without the answer (`ANSWER_FIELDS`)."""
    return {key: value for key, value in dict(paper).items() if key not in ANSWER_FIELDS}


def prepare_records(papers: Iterable[Mapping[str, Any]], corpus: Any, retriever: Any = None, k: int = DEFAULT_K,
                    oracle: bool = False, *, seed: int | None = 42, include_introduction: bool = False,
                    show_progress: bool = False) -> list[dict[str, Any]]:
    """One record per paper: its inputs plus ``candidate_docs`` (ordered ``{"doc_id", "title", "abstract"}``).

    - ``oracle=True``: the gold citations present in the corpus, in `oracle_order`;
    - else with a `retriever`: its top-`k` for the query `build_query(paper, include_introduction)`, the target
      paper itself excluded; all papers are searched in ONE `search` call;
    - else (Direct, or Workflow, which retrieves by itself): no candidates.

    A paper with no query text or no gold citation in the corpus gets an empty list (the method then fails it
    with a clear error, so it is recorded rather than lost). `corpus` may be a `CorpusLookup`.
    """
    papers = [dict(p) for p in papers]
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    records = [paper_inputs(p) for p in papers]
    for record in records:
        record["candidate_docs"] = []
    if not oracle and retriever is None:
        return records
    lookup = as_lookup(corpus)
    if oracle:
        for paper, record in zip(papers, records):
            gold = [d for d in paper.get("citations") or [] if d != paper["paper_id"]]
            record["candidate_docs"] = lookup.docs(oracle_order(gold, seed, paper["paper_id"]),
                                                   f"gold citations of {paper['paper_id']}")
        return records

    queries = {i: build_query(p, include_introduction) for i, p in enumerate(papers)}
    queries = {i: q for i, q in queries.items() if q}
    for i in set(range(len(papers))) - set(queries):
        logger.warning("paper %s has no title or abstract to search with: it gets no candidates",
                       papers[i]["paper_id"])
    if not queries:
        return records
    order = sorted(queries)
    # One more hit than asked for, so that dropping the target paper still leaves k.
    results = retriever.search([queries[i] for i in order], k=k + 1, show_progress=show_progress)
    for i, result in zip(order, results):
        paper_id = papers[i]["paper_id"]
        ranked = [d for d in result.doc_ids if d != paper_id][:k]
        records[i]["candidate_docs"] = lookup.docs(ranked, f"retrieved for {paper_id}")
    return records


def require_candidates(record: Mapping[str, Any], method: str) -> list[dict[str, Any]]:
    """The record's candidates; none raises a `ValueError` saying why a paper can have none."""
    docs = list(record.get("candidate_docs") or [])
    if not docs:
        raise ValueError(f"paper {record.get('paper_id')!r} has no candidate papers for method {method!r}: the "
                         "retriever found none (or the paper has no title/abstract to search with), or, with "
                         "--oracle, none of its gold citations is in the corpus")
    return docs


class CandidatesMethod:
    """What every method adds to its output: the candidate doc_ids (in marker order), the retriever and k."""

    name = "method"

    def __init__(self, retriever: str | None = None, k: int | None = DEFAULT_K) -> None:
        self.retriever_name = retriever
        self.k = k

    def _extra(self, candidates: Sequence[Mapping[str, Any]], **more: Any) -> dict[str, Any]:
        return {"candidates": [d["doc_id"] for d in candidates], "retriever": self.retriever_name, "k": self.k, **more}


__all__ = ["ANSWER_FIELDS", "DEFAULT_K", "CandidatesMethod", "oracle_order", "paper_inputs", "prepare_records",
           "require_candidates"]
