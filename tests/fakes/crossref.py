"""One fake Crossref REST API for tests: citation search and DOI lookup over a dict of works, recording every
request, with Crossref's documented bodies (api.crossref.org):

- ``GET /works?query.bibliographic=<citation>&rows=N&select=...``: ``{"status": "ok", "message-type":
  "work-list", "message": {"items": [...], "total-results": M, "items-per-page": N}}``, the works whose
  normalised title the citation holds (rapidfuzz ``token_set_ratio`` `MATCH_CUTOFF` or more), best first with their
  ``score``, each cut to the ``select`` fields; none: ``items`` ``[]``. A ``select`` field Crossref does not
  know is a 400;
- ``GET /works/<doi>``: ``{"status": "ok", "message-type": "work", "message": {...}}``; an unknown DOI: 404 with
  the plain-text body ``Resource not found.``;
- `rate_headers` ``(limit, interval)``: every answer carries ``X-Rate-Limit-Limit`` / ``X-Rate-Limit-Interval``;
- `fail_first`: the first calls answer those statuses (429 with ``Retry-After: <retry_after>``);
- `slow`: a request whose citation or DOI holds one of these strings is answered after `delay` seconds (past a
  client's timeout). The wait is an `threading.Event` wait, so a test that records ``time.sleep`` does not skip it.

Point a `CrossrefClient` at ``server.url``.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from rapidfuzz import fuzz

from sciwrite.sources.titles import normalize_title
from tests.fakes import JsonServer, Running

MATCH_CUTOFF = 80.0
#: Work fields Crossref's ``select`` accepts (the ones a test may ask for).
SELECTABLE = frozenset({"DOI", "title", "author", "issued", "container-title", "type", "published-print",
                        "published-online", "published", "publisher", "score", "URL", "abstract", "subtitle"})


class CrossrefServer(JsonServer):
    """Crossref's works API over `works` (DOI -> a Crossref work record) on 127.0.0.1. Not serving until `start()`
    (or ``with``)."""

    def __init__(self, works: Mapping[str, Mapping[str, Any]], *, fail_first: Iterable[int] = (),
                 retry_after: int = 1, slow: Iterable[str] = (), delay: float = 1.0,
                 rate_headers: tuple[int, str] | None = None) -> None:
        super().__init__()
        self.works = {doi.lower(): {"DOI": doi, **work} for doi, work in works.items()}
        self.failures = list(fail_first)
        self.retry_after, self.slow, self.delay = retry_after, tuple(slow), delay
        self.rate_headers = rate_headers

    def start(self) -> Running:
        """Serve in a daemon thread, polling for shutdown often, so that closing it takes no half second."""
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def handle(self, request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """(status, payload, headers) for one recorded request."""
        headers = ({"X-Rate-Limit-Limit": str(self.rate_headers[0]), "X-Rate-Limit-Interval": self.rate_headers[1]}
                   if self.rate_headers else {})
        if self.failures:
            status = self.failures.pop(0)
            extra = {"Retry-After": str(self.retry_after)} if status == 429 else {}
            return status, b"Too Many Requests", {"Content-Type": "text/plain", **headers, **extra}
        asked = f"{request['query'].get('query.bibliographic', '')} {urllib.parse.unquote(request['path'])}"
        if any(marker in asked for marker in self.slow):
            threading.Event().wait(self.delay)
        if request["path"] == "/works":
            return self._search(request["query"], headers)
        if request["path"].startswith("/works/"):
            doi = urllib.parse.unquote(request["path"].removeprefix("/works/")).lower()
            work = self.works.get(doi)
            if work is None:
                return 404, b"Resource not found.", {"Content-Type": "text/plain", **headers}
            return 200, {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": work}, headers
        return 404, b"Resource not found.", {"Content-Type": "text/plain", **headers}

    def _search(self, query: Mapping[str, str], headers: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        select = [f for f in query.get("select", "").split(",") if f]
        unknown = sorted(set(select) - SELECTABLE)
        if unknown:
            return 400, {"status": "failed", "message-type": "validation-failure",
                         "message": [{"type": "parameter-not-allowed", "value": unknown[0],
                                      "message": f"Field {unknown[0]} specified in select is not valid"}]}, headers
        citation = normalize_title(query.get("query.bibliographic", ""))
        scored = sorted(((fuzz.token_set_ratio(citation, normalize_title(w["title"][0])), doi)
                         for doi, w in self.works.items()), key=lambda pair: -pair[0])
        hits = [(score, self.works[doi]) for score, doi in scored if score >= MATCH_CUTOFF]
        rows = int(query.get("rows", 20))
        items = [{**{k: v for k, v in w.items() if not select or k in select}, "score": round(score, 1)}
                 for score, w in hits[:rows]]
        return 200, {"status": "ok", "message-type": "work-list", "message-version": "1.0.0",
                     "message": {"facets": {}, "total-results": len(hits), "items": items, "items-per-page": rows,
                                 "query": {"start-index": 0, "search-terms": None}}}, headers
