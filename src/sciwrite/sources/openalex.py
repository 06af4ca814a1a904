"""A small OpenAlex client: works whose title matches a query, for the grounding's second opinion online
(`sciwrite.grounding.online`).

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
- error bodies are ``{"error": ..., "message": ...}``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.sources.api_client import ApiError, JsonApiClient
from sciwrite.sources.online_work import OnlineWork
from sciwrite.sources.titles import normalize_title

DEFAULT_BASE_URL = "https://api.openalex.org"
API_KEY_VARIABLE = "OPENALEX_API_KEY"
SELECT = "id,display_name,publication_year,authorships,doi"
#: Works asked for per title (the closest of them is scored).
PER_PAGE = 5
#: USD a call, by tier: developers.openalex.org/api-reference/authentication, "Pricing by Endpoint" (per 1,000 calls:
#: singleton free, list+filter $0.10, search $1).
PRICE_USD = {"singleton": 0.0, "list": 0.0001, "search": 0.001}
TITLE_SEARCH_PRICE_USD = PRICE_USD["search"]  # what `match_title` costs: a title.search filter searches full text


class OpenAlexError(ApiError):
    """An OpenAlex request that failed for good."""


class OpenAlexClient(JsonApiClient):
    """Title queries on OpenAlex's works, cached, rate-limited, retried and priced (see the module docstring)."""

    name = "OpenAlex"
    error_class = OpenAlexError
    retry_statuses = frozenset({403, 500, 502, 503, 504})
    quota_statuses = frozenset({429})

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None, mailto: str | None = None,
                 cache_path: str | os.PathLike[str] | None = None, min_interval: float = 0.1,
                 max_retries: int = 5, backoff: float = 1.0, timeout: float = 30.0) -> None:
        super().__init__(base_url or os.environ.get("OPENALEX_BASE_URL") or DEFAULT_BASE_URL,
                         cache_path=Path(cache_path) if cache_path else None, min_interval=min_interval,
                         max_retries=max_retries, backoff=backoff, timeout=timeout)
        self.api_key = api_key or os.environ.get(API_KEY_VARIABLE) or None
        self.mailto = mailto or os.environ.get("OPENALEX_MAILTO") or None
        self.cost_usd = 0.0
        self.remaining_usd: float | None = None

    def auth_params(self) -> dict[str, str]:
        return {**({"api_key": self.api_key} if self.api_key else {}), **({"mailto": self.mailto} if self.mailto else {})}

    def on_response(self, headers: Mapping[str, str]) -> None:
        cost, remaining = _number(headers.get("x-ratelimit-cost-usd")), _number(headers.get("x-ratelimit-remaining-usd"))
        self.cost_usd += cost if cost is not None else TITLE_SEARCH_PRICE_USD  # the only call this client makes
        self.remaining_usd = remaining if remaining is not None else self.remaining_usd

    def match_title(self, title: str) -> list[OnlineWork]:
        """The works OpenAlex finds for `title`'s words (at most `PER_PAGE`), in its relevance order. The query is
        the normalised title: a comma would start a second filter, a colon or a pipe change the filter's meaning."""
        words = normalize_title(title) or " ".join(title.replace(",", " ").replace("|", " ").split())
        if not words:
            return []
        found = self.get("/works", {"filter": f"title.search:{words}", "per_page": str(PER_PAGE), "select": SELECT})
        return [as_work(work) for work in (found or {}).get("results") or [] if work.get("display_name")]


def as_work(work: Mapping[str, Any]) -> OnlineWork:
    """An OpenAlex work record as an `OnlineWork` (its id is the short ``W...`` one)."""
    long_id = str(work.get("id") or "")
    year = work.get("publication_year")
    names = tuple(a["author"]["display_name"] for a in work.get("authorships") or []
                  if isinstance(a.get("author"), Mapping) and a["author"].get("display_name"))
    return OnlineWork("openalex", long_id.rsplit("/", 1)[-1], str(work["display_name"]), names,
                      year if isinstance(year, int) else None, work.get("doi") or long_id or None)


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


__all__ = ["DEFAULT_BASE_URL", "PRICE_USD", "TITLE_SEARCH_PRICE_USD", "OpenAlexClient", "OpenAlexError", "as_work"]
