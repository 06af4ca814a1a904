"""The corpus's titles, indexed for reference lookup: exact normalised titles (and main titles) in a dict, and an
inverted index of title words for everything else.

A reference's candidates are the papers sharing the most of its rarest words. Why not BM25 (bm25s) over the titles:
it scores every query against the whole vocabulary's postings, about 11 ms a reference at 200,000 titles, while a
title is a dozen words, of which the rarest few already single out the paper; looking up at most `MAX_POSTINGS`
postings of the rarest words and counting shared words with numpy takes well under a millisecond. The scoring that
decides (`sciwrite.grounding.resolver`) is rapidfuzz's, on these candidates."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from tqdm.auto import tqdm

from sciwrite.grounding.normalize import normalize_reference_title, surname, without_subtitle


@dataclass(frozen=True)
class IndexedPaper:
    """One corpus paper as the resolver compares it: its title's keys, surnames and year."""

    doc_id: str
    title: str
    key: str  # the normalised title
    head: str  # the normalised title before its subtitle ('' without one)
    surnames: frozenset[str]
    year: int | None


#: The most postings (paper positions) read for one reference: its rarest words first, common words only while
#: the total stays under this.
MAX_POSTINGS = 20_000


@runtime_checkable
class ColumnTable(Protocol):
    """A table read by columns, as a `datasets.Dataset` is: its records iterate as dicts."""

    @property
    def column_names(self) -> list[str] | None:
        """The table's columns (None: not known yet, as for some streamed tables)."""

    def select_columns(self, column_names: list[str]) -> ColumnTable:
        """The table with only these columns."""

    def __iter__(self) -> Iterator[Mapping[str, Any]]: ...


def title_records(corpus: ColumnTable | Iterable[Mapping[str, Any]] | Mapping[str, Any]
                   ) -> Iterable[Mapping[str, Any]]:
    """The records of a corpus as `TitleIndex.from_corpus` (and the checker's `RecordIndex.from_corpus`) reads them:
    a table's title columns only; a doc_id -> record (or -> title) mapping as records with their doc_id."""
    if isinstance(corpus, ColumnTable) and corpus.column_names is not None:
        names = corpus.column_names
        return corpus.select_columns([c for c in ("doc_id", "title", "authors", "year") if c in names])
    if isinstance(corpus, Mapping):
        return [{**v, "doc_id": d} if isinstance(v, Mapping) else {"doc_id": d, "title": v}
                for d, v in corpus.items()]
    return corpus


class TitleIndex:
    """Every titled paper of a corpus, indexed for reference lookup; build it with `from_corpus`.

    Exact normalised titles (and main titles, before a subtitle) are looked up in a dict, everything else in an
    inverted index of title words, rarest first.
    """

    def __init__(self, papers: Sequence[IndexedPaper]):
        if not papers:
            raise ValueError("cannot index a corpus without titled papers")
        self.papers = list(papers)
        self.by_key: dict[str, list[int]] = {}
        for i, paper in enumerate(self.papers):
            self.by_key.setdefault(paper.key, []).append(i)
            if paper.head:
                self.by_key.setdefault(paper.head, []).append(i)
        # The inverted index as two arrays (CSR): the positions of the papers holding word w are
        # postings[offsets[w]:offsets[w + 1]], in position order.
        self.vocab: dict[str, int] = {}
        words, positions = array("i"), array("i")
        for i, paper in enumerate(self.papers):
            for word in set(paper.key.split()):
                words.append(self.vocab.setdefault(word, len(self.vocab)))
                positions.append(i)
        word_ids = np.frombuffer(words, dtype=np.int32)
        order = np.argsort(word_ids, kind="stable")
        self.postings = np.frombuffer(positions, dtype=np.int32)[order]
        self.offsets = np.zeros(len(self.vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(word_ids, minlength=len(self.vocab)), out=self.offsets[1:])

    @classmethod
    def from_corpus(cls, corpus: ColumnTable | Iterable[Mapping[str, Any]] | Mapping[str, Any],
                    show_progress: bool = False) -> TitleIndex:
        """The index of a corpus's records: a `datasets.Dataset` (read for its title fields only, not its
        abstracts), an iterable of records, or a doc_id -> record (or -> title) mapping."""
        records = title_records(corpus)
        papers = []
        for record in tqdm(records, desc="title index", unit=" papers", disable=not show_progress,
                           total=len(records) if isinstance(records, Sized) else None):
            key = normalize_reference_title(record.get("title"))
            if not key:
                continue  # a corpus paper without a title cannot be named by one
            papers.append(IndexedPaper(str(record["doc_id"]), str(record["title"]), key,
                                       without_subtitle(record.get("title")),
                                       frozenset(s for s in map(surname, record.get("authors") or []) if s),
                                       record.get("year")))
        return cls(papers)

    def __len__(self) -> int:
        """The number of titled papers indexed."""
        return len(self.papers)

    def candidates(self, keys: Sequence[str], k: int = 10) -> list[list[int]]:
        """For each normalised title, the positions of the papers worth scoring: those with that exact title (or
        main title), then the `k` sharing the most of its words (read rarest first, at most `MAX_POSTINGS`)."""
        return [list(dict.fromkeys([*self.by_key.get(key, []), *self._sharing_words(key, k)])) if key else []
                for key in keys]

    def _sharing_words(self, key: str, k: int) -> list[int]:
        ids = [self.vocab[w] for w in set(key.split()) if w in self.vocab]
        if not ids:
            return []
        starts, ends = self.offsets[ids], self.offsets[np.asarray(ids) + 1]
        read: list[np.ndarray] = []
        total = 0
        for i in np.argsort(ends - starts, kind="stable"):  # the rarest words first
            size = int(ends[i] - starts[i])
            if read and total + size > MAX_POSTINGS:
                break
            read.append(self.postings[starts[i]:ends[i]])
            total += size
        hits, counts = np.unique(np.concatenate(read), return_counts=True)
        best = np.argsort(-counts, kind="stable")[:k]  # most shared words; ties: the earlier paper
        return hits[best].tolist()


__all__ = ["ColumnTable", "IndexedPaper", "TitleIndex", "title_records"]
