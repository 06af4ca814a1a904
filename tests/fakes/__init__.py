"""Local stand-ins for the network services sciwrite talks to, for tests and benchmarks: one OpenAI-compatible
chat-completions server (`fakes.openai_server`), one Semantic Scholar Graph API (`fakes.semantic_scholar`), one
OpenAlex works API (`fakes.openalex`) and one arXiv (its Atom API and HTML pages, `fakes.arxiv`).

Each listens on 127.0.0.1 on a free port, answer from a script the caller gives, and record every request. Tests
import them as ``fakes.<module>`` (pytest's default import mode puts ``tests/``, which is not a package, on
``sys.path``);
scripts put ``tests/`` on ``sys.path`` first (see ``scripts/bench/generation.py``).
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LocalHTTPServer(ThreadingHTTPServer):
    """A threaded HTTP server on 127.0.0.1 (a free port unless one is given), quiet about clients that hang up."""

    request_queue_size = 128  # many clients connect at once
    daemon_threads = True

    def __init__(self, handler: type, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), handler)
        self.port = self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # e.g. a client that timed out and left
            super().handle_error(request, client_address)


class Running:
    """Start/stop for a fake that owns `self.httpd`: ``start()`` serves in a daemon thread, ``close()`` stops;
    also a context manager (``with Fake(...) as fake:``)."""

    httpd: LocalHTTPServer

    def start(self) -> Running:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class JsonServer(Running):
    """A fake JSON API: every GET or POST is recorded in `requests` as {method, path, query, body, headers
    (lower-case names)} and answered by `handle(request) -> (status, payload, headers)`: a payload is sent as JSON,
    or as it is when it is bytes (with the Content-Type `headers` give)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
                url = urllib.parse.urlsplit(self.path)
                data = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                request = {"method": self.command, "path": url.path, "query": dict(urllib.parse.parse_qsl(url.query)),
                           "body": json.loads(data) if data else None,
                           "headers": {k.lower(): v for k, v in self.headers.items()}}
                outer.requests.append(request)
                status, payload, headers = outer.handle(request)
                raw = isinstance(payload, bytes)  # a body sent as it is (Atom, HTML, plain text)
                text = payload if raw else json.dumps(payload).encode()
                self.send_response(status)
                if "Content-Type" not in headers:
                    self.send_header("Content-Type", "application/octet-stream" if raw else "application/json")
                if "Content-Length" not in headers:  # a script may declare more than it sends: a body cut short
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
        raise NotImplementedError
