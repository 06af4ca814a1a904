"""The reference checker: for each reference, the known work it names (by title, DOI or authors) and, field by
field, what differs from it, as a verdict of `sciwrite.grounding.taxonomy` with a confidence and its evidence.

Known works come from a `RecordIndex` (a local snapshot or a benchmark's corpus, offline) and from bibliographic
services online (`BibServiceLike`: Crossref, DBLP, Semantic Scholar, OpenAlex, arXiv; their answers cached). The
decision, in order:

1. a reference dated after the cutoff (the citing paper's date, or the benchmark's) is ``anachronistic``;
2. a work whose title is the reference's (normalised titles equal, or the reference gives its main title) is the
   work named; every field the reference gives is compared with it (`compare_fields`): none differs ->
   ``verified``, some differ -> ``metadata_mismatch``, each difference named;
3. otherwise a work whose title is within `NEAR_TITLE` similarity and shares an author (or that the cited DOI
   names, sharing an author) -> ``title_mismatch`` (a near miss); a work that shares at least two of the cited
   authors -> ``title_mismatch`` (a chimera: real authors, a title not theirs);
4. otherwise, when every source consulted answered and the world they cover is complete (a closed-world snapshot,
   or the services online) -> ``fabricated``; when a source could not be reached, or an open snapshot lacks it ->
   ``unresolved``, never fabricated.

Confidences are the checker's belief in the label wrong/right, one per decision path (`CONFIDENCE`), set by hand
and checked on HALLMARK's dev_public split (`sciwrite meta-eval hallmark` prints their ECE: 0.070 under HALLMARK's
conservative treatment).
"""

from __future__ import annotations

import datetime
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz

from sciwrite.grounding.normalize import normalize_reference_title, surname, without_subtitle
from sciwrite.grounding.record_index import KnownWork, RecordIndex, name_key
from sciwrite.grounding.resolver import MAX_TITLE_CHARS, Reference
from sciwrite.grounding.taxonomy import (
    ANACHRONISTIC,
    ARXIV_VERSION,
    AUTHORS_DIFFER,
    AUTHORS_PARTIAL,
    AUTHORS_PLACEHOLDER,
    AUTHORS_REPLACED,
    CHIMERA,
    DOI_OTHER_WORK,
    DOI_UNRESOLVED,
    FABRICATED,
    METADATA_MISMATCH,
    NEAR_MISS,
    PREPRINT_AS_PUBLISHED,
    TITLE_MISMATCH,
    UNRESOLVED,
    VENUE_DIFFERS,
    VENUE_NONEXISTENT,
    VERIFIED,
    YEAR_DIFFERS,
    Check,
    FieldMismatch,
)
from sciwrite.grounding.venues import VenueBook, is_preprint, same_venue
from sciwrite.sources.api_client import ApiError
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.identifiers import arxiv_id_of, doi_prefix, normalize_doi, same_doi

logger = logging.getLogger(__name__)

#: A title at least this similar (rapidfuzz ratio of the normalised titles, 0-1) to a known work's, and not equal
#: to it, is a near miss of it; below it, a different title.
NEAR_TITLE = 0.80
#: Cited authors that name a work when they share this many surnames with it (a chimera's real authors).
CHIMERA_SHARED_AUTHORS = 2
# "and others", "et al.": an author list cut short on purpose.
_TRUNCATED = re.compile(r"^(?:others|et\.?\s*al\.?|and\s+others|\.\.\.|…)$", re.IGNORECASE)

# Confidence per path (belief in the label wrong/right), set by hand; their ECE on HALLMARK's dev_public is 0.070.
CONFIDENCE = {
    "verified_full": 0.95, "verified_partial": 0.85, "mismatch": 0.9, "mismatch_weak": 0.75,
    "anachronistic": 0.97, "near_miss": 0.85, "near_miss_slight": 0.7, "chimera": 0.75,
    "fabricated_closed": 0.85, "fabricated_online": 0.75, "fabricated_doi_other": 0.85, "unresolved": 0.5,
}


class BibServiceLike(Protocol):
    """What the checker asks of a bibliographic service (`sciwrite.sources.bib_services`)."""

    name: str
    resolves_dois: bool
    resolves_arxiv_ids: bool

    def search(self, title: str, authors: Sequence[str], year: int | None) -> list[BibRecord]:
        """The works the service has for a reference, closest first."""
        ...

    def by_doi(self, doi: str) -> BibRecord | None:
        """The work a DOI names, or None when it does not resolve."""
        ...

    def by_arxiv_id(self, arxiv_id: str) -> BibRecord | None:
        """The work an arXiv id names, or None when arXiv has no such paper."""
        ...


def cited_surnames(authors: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """The cited authors' surnames in order (DBLP homonym numbers removed), and whether the list is cut short on
    purpose ("and others", "et al.")."""
    names, truncated = [], False
    for name in authors:
        if _TRUNCATED.match(name.strip()):
            truncated = True
            continue
        key = surname(name)
        if key:
            names.append(key)
    return tuple(names), truncated


@dataclass(frozen=True)
class _Scored:
    work: KnownWork
    similarity: float
    exact: bool


class ReferenceChecker:
    """Checks references against known works: a `RecordIndex` offline and, optionally, services online.

    Args:
        index: The local records (a snapshot or a corpus); None to ask the services only.
        services: Bibliographic services asked for what the index does not settle, in order.
        cutoff_year: References (and the works they name) dated after this year are anachronistic (default: this
            year). A call to `check` may give each reference its own (the citing paper's year).
        k: Title candidates scored per reference.
    """

    def __init__(self, index: RecordIndex | None, services: Sequence[BibServiceLike] = (),
                 cutoff_year: int | None = None, k: int = 10) -> None:
        if index is None and not services:
            raise ValueError("a reference checker needs a snapshot or corpus, or a service online")
        self.index, self.services, self.k = index, list(services), k
        self.cutoff_year = cutoff_year or datetime.date.today().year
        self.venues = index.venues if index is not None else VenueBook()
        # venues are compared when some source names venues (a benchmark corpus names none: titles, authors, years)
        self.check_venues = index is None or any(w.record.venue is not None for w in index.works)
        self.service_failures: dict[str, int] = {}

    @property
    def absent_is_fabricated(self) -> bool:
        """Whether a title no source has is ``fabricated`` (services online answered for it, or the index is the
        whole world) rather than ``unresolved``."""
        return bool(self.services) or (self.index is not None and self.index.complete)

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources consulted, local first."""
        return ((self.index.name,) if self.index is not None else ()) + tuple(s.name for s in self.services)

    def check(self, references: Sequence[Reference], cutoff_years: Sequence[int | None] | None = None) -> list[Check]:
        """One check per reference, in order; `cutoff_years` gives each its own cutoff (None: the checker's)."""
        keys = [normalize_reference_title(r.title[:MAX_TITLE_CHARS]) for r in references]
        offline = (self.index.title_candidates(keys, k=self.k) if self.index is not None
                   else [[] for _ in references])
        cutoffs = list(cutoff_years) if cutoff_years is not None else [None] * len(references)
        return [self._check_one(ref, key, works, cutoff or self.cutoff_year)
                for ref, key, works, cutoff in zip(references, keys, offline, cutoffs)]

    # -- one reference ------------------------------------------------------------------------------------------
    def _check_one(self, ref: Reference, key: str, works: list[KnownWork], cutoff: int) -> Check:
        if not key:
            return Check(ref, UNRESOLVED, CONFIDENCE["unresolved"], "the reference has no title to look up",
                         sources=self.sources)
        head = without_subtitle(ref.title[:MAX_TITLE_CHARS])
        scored = [self._score(key, head, w) for w in works]
        cited, truncated = cited_surnames(ref.authors)
        doi = normalize_doi(ref.doi)
        doi_works = self.index.with_doi(doi) if doi and self.index is not None else []
        arxiv = arxiv_id_of(ref.arxiv_id)[0] if ref.arxiv_id else None
        if arxiv and self.index is not None:
            doi_works = doi_works or self.index.with_arxiv_id(arxiv)
        unreachable: list[str] = []
        doi_resolves: bool | None = True if doi_works else None
        if self.services and not any(s.exact for s in scored):
            online, doi_online, doi_resolves_online = self._ask_services(ref, doi, unreachable)
            scored += [self._score(key, head, w) for w in online]
            doi_works = doi_works or doi_online
            doi_resolves = doi_resolves if doi_resolves else doi_resolves_online
        sources = self.sources
        if ref.year and ref.year > cutoff:
            best = self._best_exact(scored, ref, cited, truncated, doi)
            return Check(ref, ANACHRONISTIC, CONFIDENCE["anachronistic"],
                         f"dated {ref.year}, after the cutoff {cutoff}", best.work.record if best else None,
                         best.similarity if best else None, kind="after_cutoff", sources=sources,
                         unreachable=tuple(unreachable))
        exact = self._best_exact(scored, ref, cited, truncated, doi)
        if exact is not None:
            return self._compare(ref, exact, cited, truncated, doi, doi_resolves, cutoff, sources, unreachable)
        return self._unmatched(ref, scored, cited, doi, doi_works, sources, unreachable)

    def _score(self, key: str, head: str, work: KnownWork) -> _Scored:
        record_key, record_head = work.key, work.head
        exact = key == record_key or (bool(record_head) and key == record_head) or \
            key.replace(" ", "") == record_key.replace(" ", "")
        pairs = [(key, record_key)] + ([(key, record_head)] if record_head else []) + ([(head, record_key)] if head
                                                                                      else [])
        similarity = 1.0 if exact else max(fuzz.ratio(a, b) for a, b in pairs) / 100.0
        return _Scored(work, round(similarity, 4), exact)

    def _best_exact(self, scored: list[_Scored], ref: Reference, cited: tuple[str, ...], truncated: bool,
                    doi: str | None) -> _Scored | None:
        """Of the works with the reference's title, the one it agrees with best: fewest differing fields, then the
        most fields known (a record with a venue and a DOI over a bare corpus title)."""
        exact = [s for s in scored if s.exact]
        if len(exact) <= 1:
            return exact[0] if exact else None

        def agreement(s: _Scored) -> tuple[int, int]:
            record = s.work.record
            differing = len(self.compare_fields(ref, s.work, cited, truncated, doi, None))
            known = sum(x not in (None, ()) for x in (record.authors, record.year, record.venue, record.doi))
            return (-differing, known)
        return max(exact, key=agreement)

    def _ask_services(self, ref: Reference, doi: str | None,
                      unreachable: list[str]) -> tuple[list[KnownWork], list[KnownWork], bool | None]:
        """The works the services have for this reference, those its DOI names, and whether the DOI resolves (None:
        no service could say)."""
        found: list[KnownWork] = []
        doi_works: list[KnownWork] = []
        doi_resolves: bool | None = None
        # An arXiv DOI (10.48550/arXiv.X) is DataCite's, which Crossref does not resolve: it is looked up as the
        # arXiv id it names, by a service that knows arXiv ids, or left undecided.
        arxiv = arxiv_id_of(doi)[0] if doi else None
        for service in self.services:
            try:
                found += [KnownWork.of(r) for r in service.search(ref.title[:MAX_TITLE_CHARS], ref.authors, ref.year)]
                if doi and doi_resolves is None and (service.resolves_arxiv_ids if arxiv else service.resolves_dois):
                    record = service.by_arxiv_id(arxiv) if arxiv else service.by_doi(doi)
                    doi_resolves = record is not None
                    if record is not None:
                        doi_works.append(KnownWork.of(record))
            except ApiError as err:
                unreachable.append(service.name)
                self.service_failures[service.name] = self.service_failures.get(service.name, 0) + 1
                logger.warning("%s", err)
        return found, doi_works, doi_resolves

    # -- the title names a known work -----------------------------------------------------------------------------
    def _compare(self, ref: Reference, match: _Scored, cited: tuple[str, ...], truncated: bool, doi: str | None,
                 doi_resolves: bool | None, cutoff: int, sources: tuple[str, ...], unreachable: list[str]) -> Check:
        record = match.work.record
        if record.year and record.year > cutoff:
            return Check(ref, ANACHRONISTIC, CONFIDENCE["anachronistic"],
                         f"the work it names ({record.source} {record.id}) appeared in {record.year}, after the "
                         f"cutoff {cutoff}", record, match.similarity, kind="work_after_cutoff", sources=sources,
                         unreachable=tuple(unreachable))
        mismatches = self.compare_fields(ref, match.work, cited, truncated, doi, doi_resolves)
        where = f"{record.source} {record.id}"
        if not mismatches:
            given = sum(x is not None and x != () for x in (ref.authors, ref.year, ref.venue, ref.doi))
            confidence = CONFIDENCE["verified_full" if given >= 3 else "verified_partial"]
            return Check(ref, VERIFIED, confidence, f"title matches {where}; "
                         f"{given} other field(s) given, all agree", record, match.similarity, sources=sources,
                         unreachable=tuple(unreachable))
        weak = all(m.kind == DOI_UNRESOLVED and "prefix" not in m.detail for m in mismatches)
        return Check(ref, METADATA_MISMATCH, CONFIDENCE["mismatch_weak" if weak else "mismatch"],
                     f"title matches {where}; " + "; ".join(m.detail for m in mismatches), record, match.similarity,
                     tuple(mismatches), sources=sources, unreachable=tuple(unreachable))

    def compare_fields(self, ref: Reference, work: KnownWork, cited: tuple[str, ...], truncated: bool,
                       doi: str | None, doi_resolves: bool | None) -> list[FieldMismatch]:
        """Every field the reference gives that differs from `work`'s record, each with its evidence."""
        record = work.record
        out: list[FieldMismatch] = []
        authors = self._compare_authors(ref, work, cited, truncated)
        if authors:
            out.append(authors)
        if ref.year and record.year and ref.year != record.year:
            out.append(FieldMismatch("year", YEAR_DIFFERS, str(ref.year), str(record.year),
                                     f"year {ref.year}, the record says {record.year}"))
        venue = self._compare_venue(ref, record)
        if venue:
            out.append(venue)
        doi_mismatch = self._compare_doi(ref, record, doi, doi_resolves)
        if doi_mismatch:
            out.append(doi_mismatch)
        _, version = arxiv_id_of(ref.arxiv_id)
        _, record_version = arxiv_id_of(record.arxiv_id)
        if version and record_version and version != record_version:
            out.append(FieldMismatch("arxiv_id", ARXIV_VERSION, str(ref.arxiv_id), record.arxiv_id,
                                     f"arXiv version {version}, the record is {record_version}"))
        return out

    def _compare_authors(self, ref: Reference, work: KnownWork, cited: tuple[str, ...],
                         truncated: bool) -> FieldMismatch | None:
        known = work.surnames
        if not cited or not known:
            return None
        shown, record_shown = "; ".join(ref.authors), "; ".join(work.record.authors) or None
        shared = set(cited) & set(known)
        if not shared:
            nowhere = self.index is not None and not any(self.index.knows_surname(s) for s in cited)
            kind = AUTHORS_PLACEHOLDER if nowhere else AUTHORS_REPLACED
            what = ("none of the cited authors is an author of any known work (placeholders)" if nowhere
                    else "none of the cited authors is an author of the record")
            return FieldMismatch("authors", kind, shown, record_shown, what)
        missing = [s for s in cited if s not in known]
        if missing:
            return FieldMismatch("authors", AUTHORS_DIFFER, shown, record_shown,
                                 f"{len(missing)} of {len(cited)} cited authors are not authors of the record "
                                 f"({', '.join(missing[:4])})")
        if len(set(cited)) < len(set(known)) and not truncated:
            return FieldMismatch("authors", AUTHORS_PARTIAL, shown, record_shown,
                                 f"{len(set(cited))} of the record's {len(set(known))} authors, without \"and "
                                 "others\"")
        return None

    def _compare_venue(self, ref: Reference, record: BibRecord) -> FieldMismatch | None:
        venue = (ref.venue or "").strip()
        if not venue or not self.check_venues:
            return None
        if not self.venues.knows(venue):
            return FieldMismatch("venue", VENUE_NONEXISTENT, venue, record.venue,
                                 f"venue {venue!r} is not a venue any known source names")
        if record.venue is None and record.entry_type not in ("misc",):
            return None
        record_preprint = not (record.venue or "").strip() or is_preprint(record.venue) or record.entry_type == "misc"
        if record_preprint and not is_preprint(venue):
            return FieldMismatch("venue", PREPRINT_AS_PUBLISHED, venue, record.venue or "preprint",
                                 f"cited as published in {venue!r}; the record is a preprint")
        if same_venue(venue, record.venue) is False:
            return FieldMismatch("venue", VENUE_DIFFERS, venue, record.venue,
                                 f"venue {venue!r}, the record says {record.venue!r}")
        return None

    def _compare_doi(self, ref: Reference, record: BibRecord, doi: str | None,
                     doi_resolves: bool | None) -> FieldMismatch | None:
        if not doi:
            if ref.doi:
                return FieldMismatch("doi", DOI_UNRESOLVED, ref.doi, record.doi, f"{ref.doi!r} is not a DOI")
            return None
        if same_doi(doi, record.doi) or (record.arxiv_id and arxiv_id_of(doi)[0] == arxiv_id_of(record.arxiv_id)[0]):
            return None
        if arxiv_id_of(doi)[0] and not record.arxiv_id and doi_resolves is None:
            return None  # a preprint's DOI beside the published version's record: nothing says they differ
        other = [w for w in self.index.with_doi(doi) if w.record is not record] if self.index is not None else []
        if other:
            named = other[0].record
            return FieldMismatch("doi", DOI_OTHER_WORK, ref.doi or doi, record.doi,
                                 f"DOI {doi} is that of another work ({named.title!r}, {named.source} {named.id})")
        if doi_resolves is False:
            return FieldMismatch("doi", DOI_UNRESOLVED, ref.doi or doi, record.doi, f"DOI {doi} does not resolve")
        prefix_known = self.index is None or doi_prefix(doi) in self.index.doi_prefixes
        if not prefix_known:
            return FieldMismatch("doi", DOI_UNRESOLVED, ref.doi or doi, record.doi,
                                 f"DOI {doi} cannot resolve: no registration agency has issued the prefix "
                                 f"{doi_prefix(doi)}")
        if record.doi:
            return FieldMismatch("doi", DOI_UNRESOLVED, ref.doi or doi, record.doi,
                                 f"DOI {doi}, the record's is {normalize_doi(record.doi)}")
        return None

    # -- the title names no known work ---------------------------------------------------------------------------
    def _unmatched(self, ref: Reference, scored: list[_Scored], cited: tuple[str, ...], doi: str | None,
                   doi_works: list[KnownWork], sources: tuple[str, ...], unreachable: list[str]) -> Check:
        best = max(scored, key=lambda s: s.similarity, default=None)
        shares = (lambda w: not cited or bool(set(cited) & set(w.surnames)) or not w.surnames)
        if best is not None and best.similarity >= NEAR_TITLE and shares(best.work):
            confidence = CONFIDENCE["near_miss" if best.similarity < 0.97 else "near_miss_slight"]
            return Check(ref, TITLE_MISMATCH, confidence, f"title is a near miss of {best.work.record.title!r} "
                         f"({best.work.record.source} {best.work.record.id}; similarity {best.similarity:.3f})",
                         best.work.record, best.similarity, kind=NEAR_MISS, sources=sources,
                         unreachable=tuple(unreachable))
        if doi_works:
            named = doi_works[0]
            similarity = self._score(normalize_reference_title(ref.title), "", named).similarity
            if cited and set(cited) & set(named.surnames):
                return Check(ref, TITLE_MISMATCH, CONFIDENCE["near_miss"],
                             f"its DOI names {named.record.title!r} ({named.record.source} {named.record.id}), by "
                             "the same authors, under another title", named.record, similarity, kind=NEAR_MISS,
                             sources=sources, unreachable=tuple(unreachable))
            return Check(ref, FABRICATED, CONFIDENCE["fabricated_doi_other"],
                         f"no known work has this title; its DOI names another work ({named.record.title!r}) whose "
                         "authors it does not share", named.record, similarity, sources=sources,
                         unreachable=tuple(unreachable))
        names = {k for k in map(name_key, ref.authors) if k}
        if len(names) >= CHIMERA_SHARED_AUTHORS and self.index is not None:
            theirs = [w for w in self.index.by_authors(names, least=CHIMERA_SHARED_AUTHORS)
                      if 2 * len(names & w.names) >= len(names)]
            if theirs:
                work = theirs[0]
                return Check(ref, TITLE_MISMATCH, CONFIDENCE["chimera"],
                             f"no known work has this title, but {len(names & work.names)} of its "
                             f"{len(names)} authors wrote {work.record.title!r} ({work.record.source} {work.record.id})",
                             work.record, self._score(normalize_reference_title(ref.title), "", work).similarity,
                             kind=CHIMERA, sources=sources, unreachable=tuple(unreachable))
        closest = (f"; the closest title is {best.work.record.title!r} ({best.similarity:.3f})" if best
                   else "; no known title shares a word")
        if unreachable:
            return Check(ref, UNRESOLVED, CONFIDENCE["unresolved"],
                         f"not found in {', '.join(s for s in sources if s not in unreachable) or 'any source'}, and "
                         f"{', '.join(unreachable)} could not be reached{closest}", sources=sources,
                         unreachable=tuple(unreachable))
        if not self.absent_is_fabricated:
            return Check(ref, UNRESOLVED, CONFIDENCE["unresolved"],
                         f"no work in {', '.join(sources)} has this title, and the snapshot is not the whole "
                         f"world{closest}", best.work.record if best else None, best.similarity if best else None,
                         sources=sources)
        confidence = CONFIDENCE["fabricated_online" if self.services else "fabricated_closed"]
        return Check(ref, FABRICATED, confidence, f"no work in {', '.join(sources)} has this title{closest}",
                     None, best.similarity if best else None, sources=sources)


__all__ = ["CHIMERA_SHARED_AUTHORS", "CONFIDENCE", "NEAR_TITLE", "BibServiceLike", "ReferenceChecker",
           "cited_surnames"]
