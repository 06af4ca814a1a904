"""One fake Semantic Scholar Graph API for tests: title match and paper lookup over a dict of papers, optionally
failing its first calls, recording every request.

- ``GET /graph/v1/paper/search/match?query=<title>``: the paper whose normalised title equals the query's
  (``{"data": [{...paper, "matchScore": 99.0}]}``), else 404;
- ``GET /graph/v1/paper/<paperId>``: that paper, else 404;
- any other path: 404.

Point a client at ``f"{server.url}/graph/v1"``.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from sciwrite.sources.titles import normalize_title
from tests.fakes import LocalHTTPServer, Running


class SemanticScholarServer(Running):
    """The Graph API over `papers` (any key -> a record with ``title``, ``paperId``, ...) on 127.0.0.1; the first
    calls answer the statuses in `fail_first` (with ``Retry-After: 0``). Not serving until `start()` (or ``with``).

    `requests` records each request as {method, path, query, body, headers (lower-case names)}.
    """

    def __init__(self, papers: Mapping[str, Mapping[str, Any]], fail_first: Iterable[int] = ()) -> None:
        self.papers = papers
        self.failures = list(fail_first)
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                data = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                request = {"method": self.command, "path": url.path, "query": dict(urllib.parse.parse_qsl(url.query)),
                           "body": json.loads(data) if data else None,
                           "headers": {k.lower(): v for k, v in self.headers.items()}}
                outer.requests.append(request)
                status, payload, headers = outer.handle(request)
                text = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(text)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(text)

            do_POST = do_GET  # noqa: N815 - the name http.server calls

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = LocalHTTPServer(Handler)
        self.url = f"http://127.0.0.1:{self.httpd.port}"

    def handle(self, request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """(status, JSON payload, headers) for one recorded request."""
        if self.failures:
            return self.failures.pop(0), {"message": "Too Many Requests"}, {"Retry-After": "0"}
        if request["path"] == "/graph/v1/paper/search/match":
            wanted = normalize_title(request["query"].get("query", ""))
            paper = next((p for p in self.papers.values() if normalize_title(p["title"]) == wanted), None)
            if paper is None:
                return 404, {"error": "Title match not found"}, {}
            return 200, {"data": [{**paper, "matchScore": 99.0}]}, {}
        if request["path"].startswith("/graph/v1/paper/"):
            wanted = urllib.parse.unquote(request["path"].rsplit("/", 1)[1])
            found = next((p for p in self.papers.values() if p.get("paperId") == wanted), None)
            return (200, dict(found), {}) if found else (404, {"error": "Paper not found"}, {})
        return 404, {"error": "no such endpoint"}, {}
