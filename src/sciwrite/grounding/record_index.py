"""Known works, indexed for the reference checker: by title (the resolver's `TitleIndex`), DOI, arXiv id and author
surname, with the venues and DOI prefixes they name.

Built from full bibliographic records (a snapshot, `sciwrite.grounding.snapshot`) or from a benchmark corpus's
records (title, authors, year: venue and identifiers unknown), and reused for every reference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.grounding.index import ColumnTable, IndexedPaper, TitleIndex, title_records
from sciwrite.grounding.normalize import normalize_reference_title, surname, without_subtitle
from sciwrite.grounding.venues import VenueBook
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.identifiers import KNOWN_DOI_PREFIXES, arxiv_id_of, doi_prefix, normalize_doi
from sciwrite.sources.titles import normalize_title


@dataclass(frozen=True)
class KnownWork:
    """A record with what the checker compares precomputed: its authors' surnames in order."""

    record: BibRecord
    surnames: tuple[str, ...]
    names: frozenset[str]  # each author as initial + surname (`name_key`)
    key: str  # the normalised title
    head: str  # the normalised title before its subtitle ('' without one)

    @classmethod
    def of(cls, record: BibRecord) -> KnownWork:
        """A record with its title keys, surnames and name keys, computed once (each author's surname once)."""
        surnames = [surname(name) for name in record.authors]
        return cls(record, tuple(s for s in surnames if s),
                   frozenset(name_key(name, last) for name, last in zip(record.authors, surnames) if last),
                   normalize_reference_title(record.title), without_subtitle(record.title))


def name_key(name: str, last: str | None = None) -> str:
    """An author as the initial of the given name and the surname ("Jacob Devlin", "Devlin, J." -> "j devlin"):
    finer than a surname alone, which many authors share. `last`: the name's `surname`, when already known."""
    last = surname(name) if last is None else last
    text = name.strip()
    given = text.split(",", 1)[1].split() if "," in text else text.split()[:-1]
    initial = normalize_title(given[0])[:1] if given else ""
    return f"{initial} {last}" if last else ""


def corpus_records(corpus: ColumnTable | Iterable[Mapping[str, Any]] | Mapping[str, Any],
                   source: str = "corpus") -> list[BibRecord]:
    """A benchmark corpus's titled records (``doc_id``, ``title``, ``authors``, ``year``) as `BibRecord`s, read as
    the resolver's title index reads them (`title_records`: a table's title columns only, never its abstracts)."""
    return [BibRecord(source, str(r["doc_id"]), str(r["title"]), tuple(r.get("authors") or ()), r.get("year"))
            for r in title_records(corpus) if r.get("title")]


class RecordIndex:
    """Works a checker can match references to, looked up by title, DOI, arXiv id and surname.

    Args:
        records: The works, each a `BibRecord`.
        name: How verdicts name this source (``snapshot:FILE``, ``corpus``).
        complete: Whether the records are the whole world the references may cite (closed world): then a title no
            record has is fabricated; otherwise it is unresolved.
    """

    def __init__(self, records: Sequence[BibRecord], name: str, complete: bool = False) -> None:
        self.works = [w for w in map(KnownWork.of, records) if w.key]  # a work without a title cannot be named
        self.name, self.complete = name, complete
        self.titles = TitleIndex([IndexedPaper(str(i), w.record.title, w.key, w.head, frozenset(w.surnames),
                                               w.record.year) for i, w in enumerate(self.works)])
        self.by_doi: dict[str, list[int]] = {}
        self.by_arxiv: dict[str, list[int]] = {}
        self.by_surname: dict[str, list[int]] = {}
        self.by_name: dict[str, list[int]] = {}
        for i, work in enumerate(self.works):
            doi = normalize_doi(work.record.doi)
            if doi:
                self.by_doi.setdefault(doi, []).append(i)
            arxiv = work.record.arxiv_id or (arxiv_id_of(doi)[0] if doi else None)
            if arxiv:
                self.by_arxiv.setdefault(arxiv_id_of(arxiv)[0] or arxiv, []).append(i)
            for last in set(work.surnames):
                self.by_surname.setdefault(last, []).append(i)
            for name in work.names:
                self.by_name.setdefault(name, []).append(i)
        self.venues = VenueBook(w.record.venue for w in self.works)
        self.doi_prefixes = KNOWN_DOI_PREFIXES | {doi_prefix(d) for d in self.by_doi}

    @classmethod
    def from_corpus(cls, corpus: ColumnTable | Iterable[Mapping[str, Any]] | Mapping[str, Any],
                    name: str = "corpus", complete: bool = False) -> RecordIndex:
        """The index of a benchmark corpus's records (``doc_id``, ``title``, ``authors``, ``year``), read as the
        resolver's title index reads them (`title_records`: a table's title columns only, never its abstracts; a
        doc_id -> record or -> title mapping)."""
        return cls(corpus_records(corpus, name), name, complete)

    def __len__(self) -> int:
        return len(self.works)

    def title_candidates(self, keys: Sequence[str], k: int = 10) -> list[list[KnownWork]]:
        """For each normalised title, the works worth scoring against it: the works of that exact title (or main
        title) alone when there are some, since the checker then compares the reference with one of them and scores
        no other; else the `k` sharing the most of its words (`TitleIndex.candidates`, the costly part: a sort of up
        to `MAX_POSTINGS` postings per title)."""
        exact = [self.titles.by_key.get(key, []) if key else [] for key in keys]
        rest = [i for i, positions in enumerate(exact) if not positions]
        for i, positions in zip(rest, self.titles.candidates([keys[i] for i in rest], k=k)):
            exact[i] = positions
        return [[self.works[p] for p in dict.fromkeys(positions)] for positions in exact]

    def with_doi(self, doi: str) -> list[KnownWork]:
        """The works with this (normalised) DOI, or with the arXiv id an arXiv DOI names."""
        found = [self.works[i] for i in self.by_doi.get(doi, [])]
        arxiv = arxiv_id_of(doi)[0]
        if not found and arxiv:
            found = [self.works[i] for i in self.by_arxiv.get(arxiv, [])]
        return found

    def with_arxiv_id(self, arxiv_id: str) -> list[KnownWork]:
        """The works with this arXiv id (without version)."""
        return [self.works[i] for i in self.by_arxiv.get(arxiv_id, [])]

    def by_authors(self, names: Iterable[str], least: int) -> list[KnownWork]:
        """The works sharing at least `least` of these authors (`name_key`s), most shared first."""
        counts: dict[int, int] = {}
        for name in set(names):
            for i in self.by_name.get(name, ()):
                counts[i] = counts.get(i, 0) + 1
        ranked = sorted((i for i, n in counts.items() if n >= least), key=lambda i: (-counts[i], i))
        return [self.works[i] for i in ranked[:20]]

    def knows_surname(self, last: str) -> bool:
        """Whether any work has an author of this surname."""
        return last in self.by_surname


__all__ = ["KnownWork", "RecordIndex", "corpus_records", "name_key"]
