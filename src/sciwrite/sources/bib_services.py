"""The bibliographic services the reference checker asks, behind one interface (`BibService`): Crossref, DBLP,
Semantic Scholar, OpenAlex and arXiv, each at its documented pace, retried, and all cached in one SQLite file
(`sciwrite.sources.response_cache`), so that a rerun sends nothing it sent before and answers the same.

``open_services(["crossref", "dblp"])`` gives the adapters in the order named. A service answers a title search
(`BibService.search`, best first) and, when it can (`resolves_dois`, `resolves_arxiv_ids`), a lookup by DOI or
arXiv id; one that cannot answers None without asking. Each adapter counts its lookups, the requests its client
sent (retries included) and the answers read from the cache instead (`BibService.counts`). A failed request raises
the client's `sciwrite.sources.api_client.ApiError` (`QuotaExceededError` when OpenAlex's day is spent): the caller
decides whether to go on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sciwrite.sources.arxiv import ArxivClient, ArxivError, ArxivPaper, split_arxiv_id
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.crossref import CrossrefClient
from sciwrite.sources.dblp import DblpClient
from sciwrite.sources.identifiers import normalize_doi
from sciwrite.sources.openalex import OpenAlexClient
from sciwrite.sources.response_cache import SqliteResponseCache
from sciwrite.sources.semantic_scholar import SemanticScholarClient

#: Works a title search reads, best first.
ROWS = 5
#: A reference title longer than this is cut before it is sent (a run-on "title" is a parsing accident).
MAX_TITLE_CHARS = 300
#: Options `open_services` gives every client (the others are named per service).
COMMON_OPTIONS = frozenset({"min_interval", "max_retries", "backoff", "timeout"})


@dataclass(frozen=True)
class ServiceCounts:
    """What one service did: `lookups` asked of it, `requests` sent over the network (retries included) and
    answers read `from_cache` instead."""

    lookups: int
    requests: int
    from_cache: int


class BibService(Protocol):
    """One bibliographic service, as the reference checker asks it."""

    name: str  # a `SERVICES` key
    resolves_dois: bool
    resolves_arxiv_ids: bool

    def search(self, reference_title: str, authors: Sequence[str] = (), year: int | None = None) -> list[BibRecord]:
        """The works the service finds for a cited title (its authors and year may help), best first."""
        ...

    def by_doi(self, doi: str) -> BibRecord | None:
        """The work with this DOI; None when there is none, or when the service cannot resolve DOIs."""
        ...

    def by_arxiv_id(self, arxiv_id: str) -> BibRecord | None:
        """The work with this arXiv id; None when there is none, or when the service cannot resolve arXiv ids."""
        ...

    def counts(self) -> ServiceCounts:
        """Lookups, requests sent and answers from the cache so far."""
        ...


class _Counted(Protocol):
    n_requests: int
    n_cached: int


class _Adapter:
    """What every adapter shares: the title cut, DOI and arXiv id clean-up, counting."""

    name = ""
    resolves_dois = False
    resolves_arxiv_ids = False

    def __init__(self, client: _Counted, rows: int = ROWS) -> None:
        self.client, self.rows = client, rows
        self.lookups = 0

    def search(self, reference_title: str, authors: Sequence[str] = (), year: int | None = None) -> list[BibRecord]:
        title = " ".join(reference_title.split())[:MAX_TITLE_CHARS]
        if not title:
            return []
        self.lookups += 1
        return self._search(title, tuple(authors), year)

    def by_doi(self, doi: str) -> BibRecord | None:
        bare = normalize_doi(doi)
        if not self.resolves_dois or bare is None:
            return None
        self.lookups += 1
        return self._by_doi(bare)

    def by_arxiv_id(self, arxiv_id: str) -> BibRecord | None:
        try:
            bare, _ = split_arxiv_id(arxiv_id)
        except ArxivError:
            return None
        if not self.resolves_arxiv_ids:
            return None
        self.lookups += 1
        return self._by_arxiv_id(bare)

    def counts(self) -> ServiceCounts:
        return ServiceCounts(self.lookups, self.client.n_requests, self.client.n_cached)

    def _search(self, title: str, authors: tuple[str, ...], year: int | None) -> list[BibRecord]:
        raise NotImplementedError

    def _by_doi(self, doi: str) -> BibRecord | None:
        return None

    def _by_arxiv_id(self, arxiv_id: str) -> BibRecord | None:
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class CrossrefService(_Adapter):
    """Crossref: citation search (title, authors and year together) and DOIs."""

    name = "crossref"
    resolves_dois = True

    def __init__(self, client: CrossrefClient, rows: int = ROWS) -> None:
        super().__init__(client, rows)
        self.crossref = client

    def _search(self, title: str, authors: tuple[str, ...], year: int | None) -> list[BibRecord]:
        return self.crossref.search(title, authors, year, rows=self.rows)

    def _by_doi(self, doi: str) -> BibRecord | None:
        return self.crossref.by_doi(doi)


class DblpService(_Adapter):
    """DBLP: title search only (its search API does not look DOIs up)."""

    name = "dblp"

    def __init__(self, client: DblpClient, rows: int = ROWS) -> None:
        super().__init__(client, rows)
        self.dblp = client

    def _search(self, title: str, authors: tuple[str, ...], year: int | None) -> list[BibRecord]:
        return self.dblp.search(title, hits=self.rows)


class SemanticScholarService(_Adapter):
    """Semantic Scholar: relevance search by title, DOIs and arXiv ids."""

    name = "semantic_scholar"
    resolves_dois = resolves_arxiv_ids = True

    def __init__(self, client: SemanticScholarClient, rows: int = ROWS) -> None:
        super().__init__(client, rows)
        self.s2 = client

    def _search(self, title: str, authors: tuple[str, ...], year: int | None) -> list[BibRecord]:
        return self.s2.search(title, limit=self.rows)

    def _by_doi(self, doi: str) -> BibRecord | None:
        return self.s2.by_doi(doi)

    def _by_arxiv_id(self, arxiv_id: str) -> BibRecord | None:
        return self.s2.by_arxiv_id(arxiv_id)


class OpenAlexService(_Adapter):
    """OpenAlex: title search and DOIs (a DOI lookup is a free singleton; a title search is priced)."""

    name = "openalex"
    resolves_dois = True

    def __init__(self, client: OpenAlexClient, rows: int = ROWS) -> None:
        super().__init__(client, rows)
        self.openalex = client

    def _search(self, title: str, authors: tuple[str, ...], year: int | None) -> list[BibRecord]:
        return self.openalex.search(title, limit=self.rows)

    def _by_doi(self, doi: str) -> BibRecord | None:
        return self.openalex.by_doi(doi)


class ArxivService(_Adapter):
    """arXiv: title search and arXiv ids (one request every 3 s)."""

    name = "arxiv"
    resolves_arxiv_ids = True

    def __init__(self, client: ArxivClient, rows: int = ROWS) -> None:
        super().__init__(client, rows)
        self.arxiv = client

    def _search(self, title: str, authors: tuple[str, ...], year: int | None) -> list[BibRecord]:
        return [arxiv_record(p) for p in self.arxiv.title_search(title, max_results=self.rows)]

    def _by_arxiv_id(self, arxiv_id: str) -> BibRecord | None:
        paper = self.arxiv.by_id(arxiv_id)
        return arxiv_record(paper) if paper else None


def arxiv_record(paper: ArxivPaper) -> BibRecord:
    """An arXiv paper as a `BibRecord`: a preprint (venue ``""``) unless its journal reference says where it was
    published."""
    year = paper.published[:4]
    return BibRecord("arxiv", paper.arxiv_id, paper.title, tuple(paper.authors), int(year) if year.isdigit() else None,
                     f"https://arxiv.org/abs/{paper.arxiv_id}", venue=paper.journal_ref or "", doi=paper.doi or None,
                     arxiv_id=paper.arxiv_id, entry_type=None if paper.journal_ref else "misc")


def _open_crossref(cache: SqliteResponseCache, options: Mapping[str, Any]) -> BibService:
    return CrossrefService(CrossrefClient(cache=cache, **options))


def _open_dblp(cache: SqliteResponseCache, options: Mapping[str, Any]) -> BibService:
    return DblpService(DblpClient(cache=cache, **options))


def _open_semantic_scholar(cache: SqliteResponseCache, options: Mapping[str, Any]) -> BibService:
    return SemanticScholarService(SemanticScholarClient(cache=cache, **options))


def _open_openalex(cache: SqliteResponseCache, options: Mapping[str, Any]) -> BibService:
    return OpenAlexService(OpenAlexClient(cache=cache, **options))


def _open_arxiv(cache: SqliteResponseCache, options: Mapping[str, Any]) -> BibService:
    return ArxivService(ArxivClient(cache=cache, **options))


#: Service name -> factory(cache, client options) -> `BibService`.
SERVICES: dict[str, Callable[[SqliteResponseCache, Mapping[str, Any]], BibService]] = {
    "crossref": _open_crossref, "dblp": _open_dblp, "semantic_scholar": _open_semantic_scholar,
    "openalex": _open_openalex, "arxiv": _open_arxiv}


def open_services(names: str | Iterable[str], cache: SqliteResponseCache | None = None,
                  **options: Any) -> list[BibService]:
    """The services `names` (a list, or one comma-separated string), in that order, sharing `cache` (default: a
    `SqliteResponseCache` at its default path).

    `options`: `COMMON_OPTIONS` (``timeout=5``...) go to every client; a service's name gives that client its own
    options (``crossref={"mailto": ...}``, ``semantic_scholar={"api_key": ...}``, ``arxiv={"api_url": ...}``,
    ``base_url`` for the others). Raises ValueError naming an unknown service or option and the choices."""
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    for name in wanted:
        if name not in SERVICES:
            raise ValueError(f"unknown bibliographic service {name!r}; choose from: {', '.join(SERVICES)}")
    for key in options:
        if key not in COMMON_OPTIONS and key not in SERVICES:
            raise ValueError(f"unknown option {key!r} for the bibliographic services; give one of "
                             f"{', '.join(sorted(COMMON_OPTIONS))}, or a service name ({', '.join(SERVICES)}) with "
                             "that service's own options")
    common = {k: v for k, v in options.items() if k in COMMON_OPTIONS}
    shared = cache if cache is not None else SqliteResponseCache()
    return [SERVICES[name](shared, {**common, **(options.get(name) or {})}) for name in dict.fromkeys(wanted)]


__all__ = ["COMMON_OPTIONS", "MAX_TITLE_CHARS", "ROWS", "SERVICES", "ArxivService", "BibService", "CrossrefService",
           "DblpService", "OpenAlexService", "SemanticScholarService", "ServiceCounts", "arxiv_record", "open_services"]
