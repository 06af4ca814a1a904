"""A small Crossref REST API client: works by citation text and by DOI, as `BibRecord`s, for the reference checker
(`sciwrite.sources.bib_services`).

What Crossref documents (api.crossref.org; its "REST API rate limits" announcement of 2025; the "Tips for using
the Crossref REST API" page):

- two pools: the public one, and the "polite" one for requests that say who asks (a ``mailto=`` parameter: argument,
  else ``CROSSREF_MAILTO``). Public: 5 requests a second and 1 at a time; polite: 10 a second and 3 at a time
  (`PUBLIC_LIMITS`, `POLITE_LIMITS`). Every answer states the limit in ``X-Rate-Limit-Limit`` (requests) and
  ``X-Rate-Limit-Interval`` (``1s``): when that is stricter than the client's pace, the client slows down to it;
- 429 when asked too fast, with ``Retry-After``: retried after the wait it asks for;
- ``/works?query.bibliographic=<citation>`` matches a whole citation (title, authors, year), best first;
  ``select=`` keeps the answer to the fields read; the body is ``{"status": "ok", "message-type": "work-list",
  "message": {"items": [...], "total-results": N}}``;
- ``/works/<doi>`` is one work (``"message-type": "work"``); a DOI Crossref does not know is a 404 whose body is the
  plain text ``Resource not found.``: answered None (and cached);
- titles may carry JATS/HTML markup (``<i>...</i>``), removed here.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.sources.api_client import ApiError, JsonApiClient
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.identifiers import normalize_doi
from sciwrite.sources.response_cache import SqliteResponseCache

DEFAULT_BASE_URL = "https://api.crossref.org"
MAILTO_VARIABLE = "CROSSREF_MAILTO"
#: (requests a second, requests at once) of each pool: Crossref's 2025 rate-limit announcement.
PUBLIC_LIMITS = (5, 1)
POLITE_LIMITS = (10, 3)
SELECT = "DOI,title,author,issued,container-title,type"
ROWS = 5
#: Crossref ``type`` -> BibTeX entry type.
ENTRY_TYPES = {"journal-article": "article", "proceedings-article": "inproceedings", "posted-content": "misc",
               "book-chapter": "incollection", "book": "book", "monograph": "book", "edited-book": "book",
               "report": "techreport", "dissertation": "phdthesis", "proceedings": "proceedings",
               "dataset": "misc", "other": "misc"}
_MARKUP = re.compile(r"<[^>]+>")
_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)", re.I)
_INTERVAL = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")


class CrossrefError(ApiError):
    """A Crossref request that failed for good."""


class CrossrefClient(JsonApiClient):
    """Crossref's works, cached, rate-limited and retried (see the module docstring). With a `mailto` (or
    ``CROSSREF_MAILTO``) it asks in the polite pool, at its pace."""

    name = "Crossref"
    service_id = "crossref"
    error_class = CrossrefError

    def __init__(self, *, base_url: str | None = None, mailto: str | None = None,
                 cache: SqliteResponseCache | None = None, cache_path: str | os.PathLike[str] | None = None,
                 min_interval: float | None = None, max_retries: int = 5, backoff: float = 1.0,
                 timeout: float = 30.0) -> None:
        self.mailto = mailto or os.environ.get(MAILTO_VARIABLE) or None
        per_second, at_once = POLITE_LIMITS if self.mailto else PUBLIC_LIMITS
        super().__init__(base_url or os.environ.get("CROSSREF_BASE_URL") or DEFAULT_BASE_URL, cache=cache,
                         cache_path=Path(cache_path) if cache_path else None,
                         min_interval=1.0 / per_second if min_interval is None else min_interval,
                         max_retries=max_retries, backoff=backoff, timeout=timeout, max_concurrent=at_once)
        self.user_agent = f"sciwrite (mailto:{self.mailto})" if self.mailto else "sciwrite"

    def auth_params(self) -> dict[str, str]:
        return {"mailto": self.mailto} if self.mailto else {}  # who asks, not what: never part of a cached key

    def on_response(self, headers: Mapping[str, str]) -> None:
        """Slow down to the limit the answer states, when it is stricter than the client's pace."""
        pace = stated_interval(headers.get("X-Rate-Limit-Limit"), headers.get("X-Rate-Limit-Interval"))
        if pace is not None and pace > self.min_interval:
            self.min_interval = pace

    def search(self, title: str, authors: Sequence[str] = (), year: int | None = None,
               rows: int = ROWS) -> list[BibRecord]:
        """The works Crossref matches to the citation made of `title`, `authors` and `year`, best first, at most
        `rows`."""
        if not title.strip():
            return []
        citation = " ".join([title.strip(), *(a.strip() for a in authors if a.strip()),
                             *([str(year)] if year else [])])
        found = self.get("/works", {"query.bibliographic": citation, "rows": str(rows), "select": SELECT})
        items = ((found or {}).get("message") or {}).get("items") or []
        return [record for record in map(as_record, items) if record is not None]

    def by_doi(self, doi: str) -> BibRecord | None:
        """The work with this DOI, or None when Crossref does not know it (a DOI of another agency, such as
        arXiv's DataCite ones, or one that does not resolve)."""
        bare = normalize_doi(doi)
        if bare is None:
            return None
        found = self.get(f"/works/{urllib.parse.quote(bare, safe='/:;()')}", {})
        return as_record(found.get("message") or {}) if isinstance(found, Mapping) else None


def stated_interval(limit: str | None, interval: str | None) -> float | None:
    """Seconds between requests that ``X-Rate-Limit-Limit: 5`` and ``X-Rate-Limit-Interval: 1s`` allow (0.2), or
    None when the headers are missing or unreadable."""
    match = _INTERVAL.match(interval or "")
    try:
        count = int(limit or "")
    except ValueError:
        return None
    if match is None or count <= 0:
        return None
    seconds = float(match.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0}[match.group(2) or "s"]
    return seconds / count


def _year(item: Mapping[str, Any]) -> int | None:
    for name in ("issued", "published-print", "published-online", "published"):
        parts = (item.get(name) or {}).get("date-parts") or [[None]]
        first = parts[0][0] if parts and parts[0] else None
        if isinstance(first, int):
            return first
    return None


def _author(author: Mapping[str, Any]) -> str:
    """``given family``, or the ``name`` of an organisation."""
    return " ".join(str(author.get(k) or "").strip() for k in ("given", "family")).strip() or str(
        author.get("name") or "").strip()


def _clean(text: Any) -> str:
    return " ".join(_MARKUP.sub("", str(text or "")).split())


def as_record(item: Mapping[str, Any]) -> BibRecord | None:
    """A Crossref work as a `BibRecord` (None without a DOI or a title). A ``posted-content`` work is a preprint:
    its venue is ``""``."""
    doi, titles = str(item.get("DOI") or ""), item.get("title") or []
    title = _clean(titles[0] if isinstance(titles, list) and titles else titles)
    if not doi or not title:
        return None
    containers = item.get("container-title") or []
    kind = str(item.get("type") or "")
    container = _clean(containers[0] if isinstance(containers, list) and containers else containers) or None
    arxiv = _ARXIV_DOI.match(doi)
    return BibRecord("crossref", doi, title, tuple(n for n in map(_author, item.get("author") or []) if n),
                     _year(item), f"https://doi.org/{doi}", venue="" if kind == "posted-content" else container,
                     doi=doi, arxiv_id=arxiv.group(1) if arxiv else None, entry_type=ENTRY_TYPES.get(kind))


__all__ = ["DEFAULT_BASE_URL", "ENTRY_TYPES", "MAILTO_VARIABLE", "POLITE_LIMITS", "PUBLIC_LIMITS", "ROWS", "SELECT",
           "CrossrefClient", "CrossrefError", "as_record", "stated_interval"]
