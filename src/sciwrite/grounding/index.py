"""The corpus's titles, indexed for reference lookup: exact normalised titles in a dict, everything else through BM25
over the normalised titles (`sciwrite.retrieval.bm25.BM25Retriever`, bm25s)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.grounding.normalize import normalize_reference_title, surname, without_subtitle
from sciwrite.retrieval.bm25 import BM25Retriever


@dataclass(frozen=True)
class IndexedPaper:
    """One corpus paper as the resolver compares it: its title's keys, surnames and year."""

    doc_id: str
    title: str
    key: str  # the normalised title
    head: str  # the normalised title before its subtitle ('' without one)
    surnames: frozenset[str]
    year: int | None


class TitleIndex:
    """Every titled paper of a corpus (records with ``doc_id`` and ``title``, optionally ``authors`` and ``year``)."""

    def __init__(self, papers: Sequence[IndexedPaper], show_progress: bool = False):
        if not papers:
            raise ValueError("cannot index a corpus without titled papers")
        self.papers = list(papers)
        self.by_key: dict[str, list[int]] = {}
        for i, paper in enumerate(self.papers):
            self.by_key.setdefault(paper.key, []).append(i)
            if paper.head:
                self.by_key.setdefault(paper.head, []).append(i)
        positions = [str(i) for i in range(len(self.papers))]
        self.bm25 = BM25Retriever(stemmer=None, stopwords=None).index(positions, [p.key for p in self.papers],
                                                                      show_progress=show_progress)

    @classmethod
    def from_corpus(cls, corpus: Iterable[Mapping[str, Any]], show_progress: bool = False) -> TitleIndex:
        papers = []
        for record in corpus:
            key = normalize_reference_title(record.get("title"))
            if not key:
                continue  # a corpus paper without a title cannot be named by one
            papers.append(IndexedPaper(str(record["doc_id"]), str(record["title"]), key,
                                       without_subtitle(record.get("title")),
                                       frozenset(s for s in map(surname, record.get("authors") or []) if s),
                                       record.get("year")))
        return cls(papers, show_progress=show_progress)

    def __len__(self) -> int:
        return len(self.papers)

    def candidates(self, keys: Sequence[str], k: int = 10) -> list[list[int]]:
        """For each normalised title, the positions of the papers worth scoring: those with that exact title (or
        main title) and BM25's top `k` over the titles."""
        found = [list(dict.fromkeys(self.by_key.get(key, []))) for key in keys]
        ask = [i for i, key in enumerate(keys) if key]
        if ask:
            hits = self.bm25.search([keys[i] for i in ask], k=k, show_progress=False)
            for i, hit in zip(ask, hits):
                found[i] = list(dict.fromkeys([*found[i], *(int(d) for d in hit.doc_ids)]))
        return found


__all__ = ["IndexedPaper", "TitleIndex"]
