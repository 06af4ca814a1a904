"""Local stand-ins for the network services sciwrite talks to, for tests and benchmarks: one OpenAI-compatible
chat-completions server (`fakes.openai_server`) and one Semantic Scholar Graph API (`fakes.semantic_scholar`).

Both listen on 127.0.0.1 on a free port, answer from a script the caller gives, and record every request. Tests
import them as ``fakes.<module>`` (pytest's default import mode puts ``tests/``, which is not a package, on
``sys.path``);
scripts put ``tests/`` on ``sys.path`` first (see ``scripts/bench/generation.py``).
"""

from __future__ import annotations

import sys
import threading
from http.server import ThreadingHTTPServer
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
