"""Local HTTP servers for the SciIG build tests: a Semantic Scholar Graph API and an OpenAI-compatible chat
endpoint, each scripted by the test and recording what it was asked."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sciwrite.sources.titles import normalize_title


class LocalServer:
    """Serves `handle(method, path, query, body, headers) -> (status, payload, headers)` on 127.0.0.1."""

    def __init__(self, handle: Callable[..., tuple[int, Any, dict[str, str]]]) -> None:
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self, method: str) -> None:
                url = urllib.parse.urlsplit(self.path)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                request = {"method": method, "path": url.path, "query": dict(urllib.parse.parse_qsl(url.query)),
                           "body": json.loads(body) if body else None,
                           "headers": {k.lower(): v for k, v in self.headers.items()}}
                server.requests.append(request)
                status, payload, headers = handle(request)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def s2_handler(papers: dict[str, dict[str, Any]], fail_first: list[int] | None = None):
    """A Graph API: title match (normalised) over `papers` (any key -> record); statuses in `fail_first` answer the first calls."""
    failures = list(fail_first or [])

    def handle(request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if failures:
            return failures.pop(0), {"message": "Too Many Requests"}, {"Retry-After": "0"}
        if request["path"] == "/graph/v1/paper/search/match":
            wanted = normalize_title(request["query"].get("query", ""))
            paper = next((p for p in papers.values() if normalize_title(p["title"]) == wanted), None)
            if paper is None:
                return 404, {"error": "Title match not found"}, {}
            return 200, {"data": [{**paper, "matchScore": 99.0}]}, {}
        if request["path"].startswith("/graph/v1/paper/"):
            wanted = urllib.parse.unquote(request["path"].rsplit("/", 1)[1])
            found = next((p for p in papers.values() if p.get("paperId") == wanted), None)
            return (200, found, {}) if found else (404, {"error": "Paper not found"}, {})
        return 404, {"error": "no such endpoint"}, {}

    return handle


def chat_handler(answer: Callable[[dict[str, Any]], str]):
    """``POST /v1/chat/completions`` whose reply content is `answer(request_json)`."""

    def handle(request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if request["path"] != "/v1/chat/completions":
            return 404, {"error": {"message": "not found"}}, {}
        body = request["body"]
        return 200, {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                     "model": body.get("model"),
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": answer(body)}}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}, {}

    return handle
