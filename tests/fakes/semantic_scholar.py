"""One fake Semantic Scholar Graph API for tests: title match and paper lookup over a dict of papers, optionally
failing its first calls, recording every request.

- ``GET /graph/v1/paper/search/match?query=<title>``: like the real endpoint, the one paper whose title is
  closest to the query (``{"data": [{...paper, "matchScore": ...}]}``), when it is close enough (normalised
  titles at rapidfuzz ratio `MATCH_CUTOFF` or more), else 404 ``{"error": "Title match not found"}``;
- ``GET /graph/v1/paper/<paperId>``: that paper, else 404;
- any other path: 404.

Point a client at ``f"{server.url}/graph/v1"``. A call `fail_first` makes fail answers the real service's body:
429 ``{"message": "Too Many Requests. Please wait and try again or apply for a key for higher rate limits. ...",
"code": "429"}`` (the Graph API sends no ``Retry-After``), 5xx ``{"message": "Internal Server Error"}``.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from rapidfuzz import fuzz, process

from sciwrite.sources.titles import normalize_title
from tests.fakes import JsonServer

MATCH_CUTOFF = 80.0
TOO_MANY_REQUESTS = {"message": "Too Many Requests. Please wait and try again or apply for a key for higher rate "
                                "limits. https://www.semanticscholar.org/product/api#api-key-form", "code": "429"}


class SemanticScholarServer(JsonServer):
    """The Graph API over `papers` (any key -> a record with ``title``, ``paperId``, ...) on 127.0.0.1; the first
    calls answer the statuses in `fail_first`. Not serving until `start()` (or ``with``).

    `requests` records each request as {method, path, query, body, headers (lower-case names)}.
    """

    def __init__(self, papers: Mapping[str, Mapping[str, Any]], fail_first: Iterable[int] = ()) -> None:
        super().__init__()
        self.papers = papers
        self.failures = list(fail_first)

    def handle(self, request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """(status, JSON payload, headers) for one recorded request."""
        if self.failures:
            status = self.failures.pop(0)
            return status, TOO_MANY_REQUESTS if status == 429 else {"message": "Internal Server Error"}, {}
        if request["path"] == "/graph/v1/paper/search/match":
            papers = list(self.papers.values())
            best = process.extractOne(normalize_title(request["query"].get("query", "")),
                                      [normalize_title(p["title"]) for p in papers], scorer=fuzz.ratio,
                                      score_cutoff=MATCH_CUTOFF)
            if best is None:
                return 404, {"error": "Title match not found"}, {}
            return 200, {"data": [{**papers[best[2]], "matchScore": round(best[1], 2)}]}, {}
        if request["path"].startswith("/graph/v1/paper/"):
            wanted = urllib.parse.unquote(request["path"].rsplit("/", 1)[1])
            found = next((p for p in self.papers.values() if p.get("paperId") == wanted), None)
            return (200, dict(found), {}) if found else (404, {"error": "Paper not found"}, {})
        return 404, {"error": "no such endpoint"}, {}
