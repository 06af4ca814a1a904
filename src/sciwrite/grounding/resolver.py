"""A verdict for each reference: ``found`` (the corpus paper it names), ``ambiguous`` (several papers score within
`margin` of each other) or ``not_found``, with the evidence behind it.

A candidate's score is the title similarity (rapidfuzz's normalised Indel similarity, `fuzz.ratio`, of the
normalised titles, or of the reference against the corpus title's main part before its subtitle, or the other way
round), moved by the evidence a reference carries: a shared author surname adds `SURNAME_BONUS`, surnames that share
nothing subtract `SURNAME_PENALTY`; the same year (within one: preprint and proceedings) adds `YEAR_BONUS`, a year
further off subtracts `YEAR_PENALTY` (so a score runs from 0 to 1.06, and two papers of one title are told apart by
their authors). Evidence that is absent moves nothing, and a penalty never applies to a title
written exactly: a real paper with a wrong year or authors is still that paper (the evidence says what differs). The threshold is calibrated on the
corpus (`sciwrite.grounding.calibration`); `DEFAULT_THRESHOLD` is the value chosen there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from sciwrite.grounding.index import IndexedPaper, TitleIndex
from sciwrite.grounding.normalize import normalize_reference_title, surname, without_subtitle

FOUND, AMBIGUOUS, NOT_FOUND = "found", "ambiguous", "not_found"
VERDICTS = (FOUND, AMBIGUOUS, NOT_FOUND)
#: The fourth verdict, given only by the optional second opinion online (`sciwrite.grounding.online`): the corpus
#: lacks the paper, a bibliographic service has it.
EXISTS_OUTSIDE_CORPUS = "exists_outside_corpus"
#: The score at or above which a candidate is the paper a reference names: `calibration.choose_threshold` on the
#: offline sample corpus (300 titles, 4,268 references, seed 0; scripts/bench/grounding.py): precision 0.991,
#: recall 0.967 (0.80: 0.979 / 0.974; 0.90: 0.9995 / 0.940).
DEFAULT_THRESHOLD = 0.83
#: Candidates within this much of the best one, and above the threshold, make the reference ambiguous.
DEFAULT_MARGIN = 0.02
SURNAME_BONUS, SURNAME_PENALTY = 0.04, 0.08
YEAR_BONUS, YEAR_PENALTY = 0.02, 0.04
#: Longest title compared (characters); a longer one is cut there, and the evidence says so.
MAX_TITLE_CHARS = 500


@dataclass(frozen=True)
class Reference:
    """What a generated reference says: a title, and optionally its authors (any name format), year, venue, DOI,
    arXiv id and entry type. The resolver reads the first three; the checker (`sciwrite.grounding.checker`)
    compares every field given with the record it matches.

    Attributes:
        title: The title as written.
        authors: Author names, in any format ("Jacob Devlin", "Devlin, J.").
        year: The year, when given.
        venue: Where it says the work appeared (a booktitle or journal), when given.
        doi: Its DOI, when given (any form: ``10.x/y``, ``https://doi.org/10.x/y``).
        arxiv_id: Its arXiv id, when given.
        entry_type: Its BibTeX entry type, when given.
    """

    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    entry_type: str | None = None

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | str) -> Reference:
        """A reference from a string (the title) or a mapping with ``title`` and optional ``authors``, ``year``.

        ``authors`` may be one string of names separated by ";" or " and "; ``year`` may be a numeric string.

        Raises:
            ValueError: A field of the wrong type, named.
        """
        if isinstance(record, str):
            return cls(record)
        if not isinstance(record, Mapping):
            raise ValueError(f"a reference must be a title or an object with a 'title', got {type(record).__name__}")
        title = record.get("title")
        if not isinstance(title, str):
            raise ValueError(f"field 'title' must be a string, got {type(title).__name__}")
        authors = record.get("authors") or ()
        if isinstance(authors, str):
            authors = [a for a in authors.replace(" and ", ";").split(";") if a.strip()]
        if not isinstance(authors, (list, tuple)) or not all(isinstance(a, str) for a in authors):
            raise ValueError("field 'authors' must be a list of names (or one string of names)")
        year = record.get("year")
        if isinstance(year, str) and year.strip().isdigit():
            year = int(year)
        if year is not None and not isinstance(year, int):
            raise ValueError(f"field 'year' must be a number, got {year!r}")
        extra = {}
        for name in ("venue", "doi", "arxiv_id", "entry_type"):
            value = record.get(name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"field {name!r} must be a string, got {type(value).__name__}")
            extra[name] = value.strip() or None if isinstance(value, str) else None
        return cls(title, tuple(authors), year, **extra)


@dataclass(frozen=True)
class Candidate:
    """One corpus paper scored against a reference, with the evidence.

    Attributes:
        doc_id: The corpus paper.
        title: Its title.
        title_similarity: The best rapidfuzz similarity (0-1) of the two titles.
        surnames_match: Whether an author surname is shared; None when either names no author.
        year_match: Whether the years are within one; None when either has no year.
        score: The title similarity moved by the evidence (0 to 1.06).
    """

    doc_id: str
    title: str
    title_similarity: float
    surnames_match: bool | None  # None: the reference or the paper names no author
    year_match: bool | None  # None: one of them has no year
    score: float

    def as_dict(self) -> dict[str, Any]:
        """The candidate as a JSON object."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Verdict:
    """A reference's verdict, with the evidence behind it.

    Attributes:
        reference: The reference resolved.
        verdict: ``found``, ``ambiguous``, ``not_found`` or (online only) ``exists_outside_corpus``.
        doc_id: The corpus paper it names (``found`` only).
        score: The best candidate's score; None when nothing scored at the threshold.
        why: The evidence in words.
        candidates: The best candidates, best first.
        outside: The paper a service online has (``exists_outside_corpus`` only).
    """

    reference: Reference
    verdict: str
    doc_id: str | None
    score: float | None
    why: str
    candidates: tuple[Candidate, ...] = field(default=())
    outside: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The verdict as a JSON object, as per-paper rows and `sciwrite verify-references` write it."""
        return {"title": self.reference.title, "verdict": self.verdict, "doc_id": self.doc_id, "score": self.score,
                "why": self.why, "candidates": [c.as_dict() for c in self.candidates],
                **({"outside": dict(self.outside)} if self.outside else {})}


@dataclass(frozen=True)
class ScoredReference:
    """A reference, its normalised title and its candidates scored, best first (`ReferenceResolver.score`)."""

    reference: Reference
    key: str
    candidates: tuple[Candidate, ...]


def title_similarity(key: str, head: str, paper: IndexedPaper) -> float:
    """The best rapidfuzz similarity (0-1) of a reference's title keys against a paper's: whole to whole, and the
    main title (before a subtitle) of either against the other whole."""
    pairs = [(key, paper.key)] + ([(key, paper.head)] if paper.head else []) + ([(head, paper.key)] if head else [])
    return max(fuzz.ratio(a, b) for a, b in pairs) / 100.0


def score_candidate(reference: Reference, key: str, head: str, paper: IndexedPaper) -> Candidate:
    """`paper` scored against `reference` (normalised title `key`, main title `head`): title similarity and
    evidence."""
    similarity = title_similarity(key, head, paper)
    names = {s for s in map(surname, reference.authors) if s}
    surnames_match = bool(names & paper.surnames) if names and paper.surnames else None
    year_match = abs(reference.year - paper.year) <= 1 if reference.year and paper.year else None
    score = similarity + (SURNAME_BONUS if surnames_match else 0.0) + (YEAR_BONUS if year_match else 0.0)
    if similarity < 1.0:  # a title written exactly is the paper even with wrong metadata (a misremembered year)
        score -= (SURNAME_PENALTY if surnames_match is False else 0.0) + (YEAR_PENALTY if year_match is False else 0.0)
    return Candidate(paper.doc_id, paper.title, round(similarity, 4), surnames_match, year_match,
                     round(max(score, 0.0), 4))


class ReferenceResolver:
    """Resolves free-form references against a `TitleIndex`: ``found``, ``ambiguous`` or ``not_found``.

    A candidate's score is rapidfuzz's title similarity, moved by the evidence the reference carries: a shared
    author surname adds 0.04 and surnames that share nothing subtract 0.08; a year within one adds 0.02 and one
    further off subtracts 0.04. A penalty never applies to a title written exactly.

    Args:
        index: The corpus's title index.
        threshold: The score at or above which a candidate is the paper a reference names (0, 1];
            `DEFAULT_THRESHOLD` is the value calibrated on the sample corpus.
        margin: Candidates within this much of the best one, and above the threshold, make the reference
            ambiguous.
        k: Candidates scored per reference (besides exact title matches).
        kept: Candidates kept in each verdict, as evidence.
    """

    def __init__(self, index: TitleIndex, threshold: float = DEFAULT_THRESHOLD, margin: float = DEFAULT_MARGIN,
                 k: int = 10, kept: int = 3):
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.index, self.threshold, self.margin, self.k, self.kept = index, threshold, margin, k, kept

    def resolve(self, references: Sequence[Reference | Mapping[str, Any] | str]) -> list[Verdict]:
        """One verdict per reference, in order.

        Args:
            references: Each a `Reference`, a title, or a mapping with ``title`` and optional ``authors``,
                ``year``.

        Raises:
            ValueError: A reference that is not a title or an object with one, named by its position.
        """
        return [self.decide(scored) for scored in self.score(references)]

    def score(self, references: Sequence[Reference | Mapping[str, Any] | str]) -> list[ScoredReference]:
        """Each reference with its candidates scored, best first: the part of resolving no threshold changes.

        The calibration scores once and decides at every threshold (`decide`).
        """
        refs = []
        for i, item in enumerate(references):
            try:
                refs.append(item if isinstance(item, Reference) else Reference.from_record(item))
            except ValueError as err:
                raise ValueError(f"reference {i + 1}: {err}") from None
        keys = [normalize_reference_title(r.title[:MAX_TITLE_CHARS]) for r in refs]
        heads = [without_subtitle(r.title[:MAX_TITLE_CHARS]) for r in refs]
        out = []
        for ref, key, head, positions in zip(refs, keys, heads, self.index.candidates(keys, k=self.k)):
            scored = sorted((score_candidate(ref, key, head, self.index.papers[p]) for p in positions),
                            key=lambda c: (-c.score, -c.title_similarity, c.doc_id))
            out.append(ScoredReference(ref, key, tuple(scored)))
        return out

    def decide(self, scored: ScoredReference, threshold: float | None = None) -> Verdict:
        """The verdict on a scored reference at `threshold` (default: the resolver's)."""
        threshold = self.threshold if threshold is None else threshold
        reference, ranked = scored.reference, scored.candidates
        if not scored.key:
            return Verdict(reference, NOT_FOUND, None, None, "the reference has no title to look up")
        kept = ranked[:self.kept]
        cut = " (its title cut at 500 characters)" if len(reference.title) > MAX_TITLE_CHARS else ""
        if not ranked or ranked[0].score < threshold:
            closest = f"; the best candidate scores {ranked[0].score:.3f}" if ranked else "; no title shares a word"
            return Verdict(reference, NOT_FOUND, None, None, f"no corpus title scores {threshold:.2f} or more"
                           f"{closest}{cut}", kept)
        best = ranked[0]
        rivals = [c for c in ranked[1:] if c.score >= threshold and best.score - c.score <= self.margin]
        if rivals:
            names = ", ".join(c.doc_id for c in [best, *rivals])
            return Verdict(reference, AMBIGUOUS, None, best.score, f"{len(rivals) + 1} corpus papers score within "
                           f"{self.margin:.2f} of each other ({names}){cut}", kept)
        return Verdict(reference, FOUND, best.doc_id, best.score, evidence(best) + cut, kept)


def evidence(candidate: Candidate) -> str:
    """A scored candidate's evidence in words: its title similarity, and whether the surnames and year agree."""
    parts = [f"title similarity {candidate.title_similarity:.3f}"]
    if candidate.surnames_match is not None:
        parts.append("an author surname matches" if candidate.surnames_match else "no author surname matches")
    if candidate.year_match is not None:
        parts.append("the year matches" if candidate.year_match else "the year differs")
    return "; ".join(parts)


def lazy_resolver(corpus: Any, show_progress: bool = False, **options: Any) -> Callable[[], ReferenceResolver]:
    """A resolver over `corpus`'s titles (`TitleIndex.from_corpus`), built at its first call and reused after:
    indexing 1.09M titles takes about a minute, which a run whose predictions list no reference never spends."""
    built: list[ReferenceResolver] = []

    def resolver() -> ReferenceResolver:
        if not built:
            built.append(ReferenceResolver(TitleIndex.from_corpus(corpus, show_progress=show_progress), **options))
        return built[0]

    return resolver


__all__ = ["AMBIGUOUS", "DEFAULT_MARGIN", "DEFAULT_THRESHOLD", "EXISTS_OUTSIDE_CORPUS", "FOUND", "NOT_FOUND", "VERDICTS", "Candidate",
           "Reference", "ReferenceResolver", "ScoredReference", "Verdict", "evidence", "lazy_resolver", "score_candidate", "title_similarity"]
