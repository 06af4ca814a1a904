"""A small Semantic Scholar Graph API client: title match, title search and paper lookup (by S2 id, DOI, arXiv
id), for enriching SciIG's cited works (`sciwrite.sciig.data`), for the grounding's second opinion online
(`sciwrite.grounding.online`) and for the reference checker (`sciwrite.sources.bib_services`).

- ``x-api-key`` header when a key is given (argument, else ``S2_API_KEY`` / ``SEMANTIC_SCHOLAR_API_KEY``);
- at least `min_interval` seconds between requests: the documented limit of a key is 1 request a second, across
  all endpoints; keyless access shares one pool among all keyless users and is throttled harder: it answers 429
  ``{"message": "Too Many Requests. ...", "code": "429"}`` (without ``Retry-After``), retried with back-off;
- retries with back-off on 429 and 5xx, and a cache on disk of every answer (`sciwrite.sources.api_client`).
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path
from typing import Any

from sciwrite.sources.api_client import ApiError, JsonApiClient
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.response_cache import SqliteResponseCache
from sciwrite.sources.titles import normalize_title

DEFAULT_BASE_URL = "https://api.semanticscholar.org/graph/v1"
API_KEY_VARIABLES = ("S2_API_KEY", "SEMANTIC_SCHOLAR_API_KEY")
FIELDS = "title,authors,abstract,year"
#: What the reference checker reads of a paper (`search`, `by_doi`, `by_arxiv_id`).
RECORD_FIELDS = "title,authors,year,venue,externalIds,publicationTypes"
#: Papers a title search asks for.
SEARCH_LIMIT = 5
#: Venues Semantic Scholar gives a paper known only as an arXiv preprint.
ARXIV_VENUES = frozenset({"arxiv", "arxiv.org", "corr"})
#: ``publicationTypes`` -> BibTeX entry type.
ENTRY_TYPES = {"JournalArticle": "article", "Conference": "inproceedings", "Book": "book",
               "BookSection": "incollection", "Dataset": "misc"}


class SemanticScholarError(ApiError):
    """A Semantic Scholar request that failed for good."""


class SemanticScholarClient(JsonApiClient):
    """Title match and paper lookup on the Graph API, cached, rate-limited and retried."""

    name = "Semantic Scholar"
    service_id = "semantic_scholar"
    error_class = SemanticScholarError

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None,
                 cache_path: str | os.PathLike[str] | None = None, cache: SqliteResponseCache | None = None,
                 min_interval: float = 1.0, max_retries: int = 5, backoff: float = 1.0, timeout: float = 30.0) -> None:
        super().__init__(base_url or os.environ.get("S2_API_BASE_URL") or DEFAULT_BASE_URL,
                         cache_path=Path(cache_path) if cache_path else None, cache=cache, min_interval=min_interval,
                         max_retries=max_retries, backoff=backoff, timeout=timeout)
        self.api_key = api_key or next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), None)

    def auth_headers(self) -> dict[str, str]:
        return {"x-api-key": self.api_key} if self.api_key else {}

    def match_title(self, title: str) -> list[BibRecord]:
        """The Graph API's closest title match (``/paper/search/match``: one paper, or none), as a work."""
        found = self.get("/paper/search/match", {"query": title, "fields": FIELDS})
        return [as_work(paper) for paper in (found or {}).get("data") or [] if paper.get("title")]

    def search_title(self, title: str) -> dict[str, Any] | None:
        """The paper whose normalised title equals `title`'s (best title match), or None."""
        found = self.get("/paper/search/match", {"query": title, "fields": FIELDS})
        for paper in (found or {}).get("data") or []:
            if normalize_title(paper.get("title")) == normalize_title(title):
                return paper
        return None

    def paper(self, paper_id: str) -> dict[str, Any] | None:
        """One paper by any Graph API id (S2 id, ``DOI:...``, ``ARXIV:...``, ``ACL:...``), or None if unknown."""
        return self.get(f"/paper/{urllib.parse.quote(paper_id, safe=':')}", {"fields": FIELDS})

    def search(self, title: str, limit: int = SEARCH_LIMIT) -> list[BibRecord]:
        """The papers the Graph API's relevance search (``/paper/search``) finds for `title`, best first, at most
        `limit`, with venue, DOI and arXiv id."""
        found = self.get("/paper/search", {"query": title, "fields": RECORD_FIELDS, "limit": str(limit)})
        return [as_work(paper) for paper in (found or {}).get("data") or [] if paper.get("title")]

    def by_doi(self, doi: str) -> BibRecord | None:
        """The paper with this DOI (``/paper/DOI:<doi>``), or None when Semantic Scholar does not know it."""
        return self._record(f"DOI:{doi.strip()}")

    def by_arxiv_id(self, arxiv_id: str) -> BibRecord | None:
        """The paper with this arXiv id (``/paper/ARXIV:<id>``), or None when Semantic Scholar does not know it."""
        return self._record(f"ARXIV:{arxiv_id.strip()}")

    def _record(self, paper_id: str) -> BibRecord | None:
        paper = self.get(f"/paper/{urllib.parse.quote(paper_id, safe=':/')}", {"fields": RECORD_FIELDS})
        return as_work(paper) if paper and paper.get("title") else None


def as_work(paper: dict[str, Any]) -> BibRecord:
    """A Graph API paper record as a `BibRecord`; venue, DOI, arXiv id and entry type when the record has them
    (a venue S2 leaves empty is unknown, None; an arXiv-only paper's venue is "", a preprint)."""
    paper_id = str(paper.get("paperId") or "")
    year = paper.get("year")
    ids = paper.get("externalIds") or {}
    venue = paper.get("venue") or None
    preprint = bool(venue) and str(venue).strip().lower() in ARXIV_VENUES
    types = paper.get("publicationTypes") or []
    return BibRecord("semantic_scholar", paper_id, str(paper["title"]),
                      tuple(a["name"] for a in paper.get("authors") or [] if a.get("name")),
                      year if isinstance(year, int) else None,
                      f"https://www.semanticscholar.org/paper/{paper_id}" if paper_id else None,
                      venue="" if preprint else venue, doi=ids.get("DOI") or None, arxiv_id=ids.get("ArXiv") or None,
                      entry_type="misc" if preprint else next((ENTRY_TYPES[t] for t in types if t in ENTRY_TYPES),
                                                              None))


__all__ = ["DEFAULT_BASE_URL", "FIELDS", "RECORD_FIELDS", "SEARCH_LIMIT", "SemanticScholarClient", "SemanticScholarError",
           "as_work"]
