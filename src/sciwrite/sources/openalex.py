"""A small OpenAlex client: works whose title matches a query, for the grounding's second opinion online
(`sciwrite.grounding.online`), and works by title or DOI with their venue, for the reference checker
(`sciwrite.sources.bib_services`).

What the service documents (developers.openalex.org, "Authentication & Pricing" and "Error Handling"):

- an API key is required (free; ``api_key=`` on every call; argument, else ``OPENALEX_API_KEY``); without one the
  daily allowance is a few cents' worth of calls, enough for a test;
- a title query is ``/works?filter=title.search:<words>``, a full-text search over titles: priced as a search,
  $1 per 1,000 calls, ten times a plain list+filter call; a singleton (``/works/W123``) is free (`PRICE_USD`);
  ``select=`` keeps the answer to the fields read here; every answer reports its price in ``x-ratelimit-cost-usd``
  and the day's remainder in ``x-ratelimit-remaining-usd``, which the client adds up (`cost_usd`,
  `remaining_usd`); an answer without the price header is counted at the documented price of its call;
- 403 means "rate limit exceeded; slow down" and 5xx is temporary: both are retried with back-off; 429 means
  the *daily* limit is spent, which no retry mends: `QuotaExceededError`, with the answers so far cached;
- error bodies are ``{"error": ..., "message": ...}``;
- at most 10 requests a second and 100,000 a day (`min_interval` 0.1 s); a work by DOI is the singleton
  ``/works/https://doi.org/<doi>``.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.sources.api_client import ApiError, JsonApiClient
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.response_cache import SqliteResponseCache
from sciwrite.sources.titles import normalize_title

DEFAULT_BASE_URL = "https://api.openalex.org"
API_KEY_VARIABLE = "OPENALEX_API_KEY"
SELECT = "id,display_name,publication_year,authorships,doi"
#: What the reference checker reads of a work (`search`, `by_doi`): `SELECT` and where it was published.
RECORD_SELECT = f"{SELECT},type,primary_location"
#: Works asked for per title (the closest of them is scored).
PER_PAGE = 5
#: USD a call, by tier: developers.openalex.org/api-reference/authentication, "Pricing by Endpoint" (per 1,000 calls:
#: singleton free, list+filter $0.10, search $1).
PRICE_USD = {"singleton": 0.0, "list": 0.0001, "search": 0.001}
TITLE_SEARCH_PRICE_USD = PRICE_USD["search"]  # what `match_title` costs: a title.search filter searches full text
#: OpenAlex ``type`` -> BibTeX entry type (an ``article`` is typed by its source: `as_work`).
ENTRY_TYPES = {"book-chapter": "incollection", "book": "book", "dissertation": "phdthesis", "report": "techreport",
               "dataset": "misc"}


class OpenAlexError(ApiError):
    """An OpenAlex request that failed for good."""


class OpenAlexClient(JsonApiClient):
    """Title queries on OpenAlex's works, cached, rate-limited, retried and priced (see the module docstring)."""

    name = "OpenAlex"
    service_id = "openalex"
    error_class = OpenAlexError
    retry_statuses = frozenset({403, 500, 502, 503, 504})
    quota_statuses = frozenset({429})

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None, mailto: str | None = None,
                 cache_path: str | os.PathLike[str] | None = None, cache: SqliteResponseCache | None = None,
                 min_interval: float = 0.1, max_retries: int = 5, backoff: float = 1.0, timeout: float = 30.0) -> None:
        super().__init__(base_url or os.environ.get("OPENALEX_BASE_URL") or DEFAULT_BASE_URL,
                         cache_path=Path(cache_path) if cache_path else None, cache=cache, min_interval=min_interval,
                         max_retries=max_retries, backoff=backoff, timeout=timeout)
        self.api_key = api_key or os.environ.get(API_KEY_VARIABLE) or None
        self.mailto = mailto or os.environ.get("OPENALEX_MAILTO") or None
        self.cost_usd = 0.0
        self.remaining_usd: float | None = None

    def auth_params(self) -> dict[str, str]:
        return {**({"api_key": self.api_key} if self.api_key else {}), **({"mailto": self.mailto} if self.mailto else {})}

    def on_response(self, headers: Mapping[str, str]) -> None:
        cost, remaining = _number(headers.get("x-ratelimit-cost-usd")), _number(headers.get("x-ratelimit-remaining-usd"))
        # an answer without the header is counted as a search, the dearest call this client makes
        self.cost_usd += cost if cost is not None else TITLE_SEARCH_PRICE_USD
        self.remaining_usd = remaining if remaining is not None else self.remaining_usd

    def match_title(self, title: str) -> list[BibRecord]:
        """The works OpenAlex finds for `title`'s words (at most `PER_PAGE`), in its relevance order. The query is
        the normalised title: a comma would start a second filter, a colon or a pipe change the filter's meaning."""
        words = normalize_title(title) or " ".join(title.replace(",", " ").replace("|", " ").split())
        if not words:
            return []
        found = self.get("/works", {"filter": f"title.search:{words}", "per_page": str(PER_PAGE), "select": SELECT})
        return [as_work(work) for work in (found or {}).get("results") or [] if work.get("display_name")]

    def search(self, title: str, limit: int = PER_PAGE) -> list[BibRecord]:
        """As `match_title` (a ``title.search`` filter, relevance order, at most `limit`), with each work's venue,
        DOI, arXiv id and entry type."""
        words = normalize_title(title) or " ".join(title.replace(",", " ").replace("|", " ").split())
        if not words:
            return []
        found = self.get("/works", {"filter": f"title.search:{words}", "per_page": str(limit),
                                    "select": RECORD_SELECT})
        return [as_work(work) for work in (found or {}).get("results") or [] if work.get("display_name")]

    def by_doi(self, doi: str) -> BibRecord | None:
        """The work with this DOI (the singleton ``/works/https://doi.org/<doi>``, free), or None when OpenAlex
        does not know it."""
        path = "/works/https://doi.org/" + urllib.parse.quote(doi.strip(), safe="/:;()")
        work = self.get(path, {"select": RECORD_SELECT})
        return as_work(work) if work and work.get("display_name") else None


def as_work(work: Mapping[str, Any]) -> BibRecord:
    """An OpenAlex work record as a `BibRecord` (its id is the short ``W...`` one). When the record has its
    ``primary_location`` and ``type``: the venue is the location's source (``""`` for a repository such as arXiv:
    a preprint), the arXiv id comes from an arxiv.org landing page, the entry type from the type and source type."""
    long_id = str(work.get("id") or "")
    year = work.get("publication_year")
    names = tuple(a["author"]["display_name"] for a in work.get("authorships") or []
                  if isinstance(a.get("author"), Mapping) and a["author"].get("display_name"))
    location = _mapping(work.get("primary_location"))
    source = _mapping(location.get("source"))
    landing = str(location.get("landing_page_url") or "")
    arxiv = _ARXIV_ABS.search(landing) or _ARXIV_DOI.search(str(work.get("doi") or ""))
    preprint = work.get("type") == "preprint" or source.get("type") == "repository"
    venue = "" if preprint else (source.get("display_name") or None)
    doi = str(work.get("doi") or "").removeprefix("https://doi.org/") or None
    return BibRecord("openalex", long_id.rsplit("/", 1)[-1], str(work["display_name"]), names,
                      year if isinstance(year, int) else None, work.get("doi") or long_id or None,
                      venue=venue, doi=doi,
                      arxiv_id=arxiv.group(1) if arxiv else None, entry_type=_entry_type(work, source, preprint))


def _entry_type(work: Mapping[str, Any], source: Mapping[str, Any], preprint: bool) -> str | None:
    """The BibTeX type of a work: an ``article`` in a conference's proceedings is ``inproceedings``."""
    if preprint:
        return "misc"
    kind = work.get("type")
    if kind == "article":
        return {"conference": "inproceedings", "journal": "article"}.get(str(source.get("type")), None)
    return ENTRY_TYPES.get(str(kind)) if kind else None


_ARXIV_ABS = re.compile(r"arxiv\.org/(?:abs|pdf)/([a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})", re.I)
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(\d{4}\.\d{4,5})", re.I)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}  # OpenAlex writes null for a location or source it lacks


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


__all__ = ["DEFAULT_BASE_URL", "ENTRY_TYPES", "PRICE_USD", "RECORD_SELECT", "TITLE_SEARCH_PRICE_USD", "OpenAlexClient",
           "OpenAlexError", "as_work"]
