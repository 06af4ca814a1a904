"""One fake DBLP publication search API for tests, recording every request, with DBLP's documented body
(dblp.org/faq, "How to use the dblp search API?"):

- ``GET /search/publ/api?q=<words>&format=json&h=N``: ``{"result": {"query": ..., "status": {"@code": "200",
  "text": "OK"}, "hits": {"@total": "M", "@computed": "M", "@sent": "K", "@first": "0", "hit": [{"@score": ...,
  "@id": ..., "info": {...}, "url": ...}]}}}``. A publication matches when every query word is a prefix of one of
  its title's words (DBLP's prefix search); hits come best first, by ``@score`` (here: rapidfuzz ``ratio`` of the
  normalised query and title). No hit: ``hits`` with ``@total`` ``"0"`` and no ``hit``;
- `fail_first`: the first calls answer those statuses (429 with ``Retry-After: <retry_after>``);
- `slow`: a request whose query holds one of these strings is answered after `delay` seconds (past a client's
  timeout), waiting on a `threading.Event`, so a test that records ``time.sleep`` does not skip it.

`publications` are ``info`` records as DBLP writes them (``authors.author`` a list, or one object; ``title`` ending
with ``.``; ``key``, ``venue``, ``year``, ``type``, ``doi``, ``ee``, ``url``). Point a `DblpClient` at ``server.url``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rapidfuzz import fuzz

from sciwrite.sources.titles import normalize_title
from tests.fakes import JsonServer, Running


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class DblpServer(JsonServer):
    """DBLP's search API over `publications` on 127.0.0.1. Not serving until `start()` (or ``with``)."""

    def __init__(self, publications: Sequence[Mapping[str, Any]], *, fail_first: Iterable[int] = (),
                 retry_after: int = 1, slow: Iterable[str] = (), delay: float = 1.0) -> None:
        super().__init__()
        self.publications = list(publications)
        self.failures = list(fail_first)
        self.retry_after, self.slow, self.delay = retry_after, tuple(slow), delay

    def start(self) -> Running:
        """Serve in a daemon thread, polling for shutdown often, so that closing it takes no half second."""
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def handle(self, request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """(status, payload, headers) for one recorded request."""
        if self.failures:
            status = self.failures.pop(0)
            extra = {"Retry-After": str(self.retry_after)} if status == 429 else {}
            return status, b"Too Many Requests", {"Content-Type": "text/plain", **extra}
        if request["path"] != "/search/publ/api":
            return 404, b"<html><body>Not Found</body></html>", {"Content-Type": "text/html"}
        query = request["query"].get("q", "")
        if any(marker in query for marker in self.slow):
            threading.Event().wait(self.delay)
        wanted = _words(query)
        matching = [p for p in self.publications
                    if wanted and all(any(w.startswith(q) for w in _words(p["title"])) for q in wanted)]
        scored = sorted(((round(fuzz.ratio(normalize_title(query), normalize_title(p["title"]))), i, p)
                         for i, p in enumerate(matching)), key=lambda t: -t[0])
        first, size = int(request["query"].get("f", 0)), int(request["query"].get("h", 30))
        sent = scored[first:first + size]
        hits: dict[str, Any] = {"@total": str(len(scored)), "@computed": str(len(scored)), "@sent": str(len(sent)),
                                "@first": str(first)}
        if sent:
            hits["hit"] = [{"@score": str(score), "@id": str(1000 + i), "info": dict(p),
                            "url": f"URL#{1000 + i}"} for score, i, p in sent]
        return 200, {"result": {"query": f"{query}*", "status": {"@code": "200", "text": "OK"},
                                "time": {"@unit": "msecs", "text": "1.00"}, "hits": hits}}, {}
