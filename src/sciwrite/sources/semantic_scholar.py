"""A small Semantic Scholar Graph API client: title match and paper lookup, for enriching SciIG's cited works
(`sciwrite.sciig.data`) and for the grounding's second opinion online (`sciwrite.grounding.online`).

- ``x-api-key`` header when a key is given (argument, else ``S2_API_KEY`` / ``SEMANTIC_SCHOLAR_API_KEY``);
- at least `min_interval` seconds between requests (1 s suits a keyed account; keyless access is shared and
  throttled harder: it answers 429 ``{"message": "Too Many Requests. ...", "code": "429"}``);
- retries with back-off on 429 and 5xx, and a cache on disk of every answer (`sciwrite.sources.api_client`).
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path
from typing import Any

from sciwrite.sources.api_client import ApiError, JsonApiClient
from sciwrite.sources.online_work import OnlineWork
from sciwrite.sources.titles import normalize_title

DEFAULT_BASE_URL = "https://api.semanticscholar.org/graph/v1"
API_KEY_VARIABLES = ("S2_API_KEY", "SEMANTIC_SCHOLAR_API_KEY")
FIELDS = "title,authors,abstract,year"


class SemanticScholarError(ApiError):
    """A Semantic Scholar request that failed for good."""


class SemanticScholarClient(JsonApiClient):
    """Title match and paper lookup on the Graph API, cached, rate-limited and retried."""

    name = "Semantic Scholar"
    error_class = SemanticScholarError

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None,
                 cache_path: str | os.PathLike[str] | None = None, min_interval: float = 1.0,
                 max_retries: int = 5, backoff: float = 1.0, timeout: float = 30.0) -> None:
        super().__init__(base_url or os.environ.get("S2_API_BASE_URL") or DEFAULT_BASE_URL,
                         cache_path=Path(cache_path) if cache_path else None, min_interval=min_interval,
                         max_retries=max_retries, backoff=backoff, timeout=timeout)
        self.api_key = api_key or next((os.environ[v] for v in API_KEY_VARIABLES if os.environ.get(v)), None)

    def auth_headers(self) -> dict[str, str]:
        return {"x-api-key": self.api_key} if self.api_key else {}

    def match_title(self, title: str) -> list[OnlineWork]:
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


def as_work(paper: dict[str, Any]) -> OnlineWork:
    """A Graph API paper record as an `OnlineWork`."""
    paper_id = str(paper.get("paperId") or "")
    year = paper.get("year")
    return OnlineWork("semantic_scholar", paper_id, str(paper["title"]),
                      tuple(a["name"] for a in paper.get("authors") or [] if a.get("name")),
                      year if isinstance(year, int) else None,
                      f"https://www.semanticscholar.org/paper/{paper_id}" if paper_id else None)


__all__ = ["DEFAULT_BASE_URL", "FIELDS", "SemanticScholarClient", "SemanticScholarError", "as_work"]
