"""One fake OpenAlex works API for tests: title queries over a list of works, priced and with a daily allowance,
optionally failing its first calls, recording every request.

- ``GET /works?filter=title.search:<words>&per_page=N&select=...``: the works whose normalised title shares the
  most with the words (rapidfuzz ``token_set_ratio`` 60 or more), best first, at most N, each cut to the
  ``select`` fields: ``{"meta": {"count": ...}, "results": [...]}``. A filter that is not one
  ``title.search:`` (a comma starts a second filter) is a 400, as the real API answers an unknown filter;
- ``GET /works/<id>``: one work (a singleton), cut to the ``select`` fields, else 404; ``/works/https://doi.org/
  <doi>`` looks a work up by its DOI (case-insensitively);
- every answer carries ``x-ratelimit-cost-usd``, its price by the documented tier (`price_of`, `PRICE_USD`), and
  ``x-ratelimit-remaining-usd``; once `allowance_usd` is spent, 429 (the daily limit);
- a call `fail_first` makes fail answers that status with the documented body (``{"error", "message"}``): 403
  "Rate limit exceeded" (slow down), 429 the daily limit, 5xx a server error.

Point a client at ``server.url``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rapidfuzz import fuzz

from sciwrite.sources.titles import normalize_title
from tests.fakes import JsonServer

#: Price of one call by tier, as developers.openalex.org/api-reference/authentication ("Pricing by Endpoint") lists
#: it per 1,000 calls: a singleton (``/works/W123``) is free, a list+filter call $0.10, a full-text search $1. A
#: search filter (``filter=title.search:...``) is a full-text search over titles, priced here as a search.
PRICE_USD = {"singleton": 0.0, "list": 0.0001, "search": 0.001}


def price_of(path: str, query: Mapping[str, str]) -> float:
    """The documented price of ``GET path?query``."""
    if path.count("/") >= 2:
        return PRICE_USD["singleton"]
    filters = [f.partition(":")[0] for f in query.get("filter", "").split(",") if f]
    if any(k == "search" or k.startswith("search.") for k in query) or any(".search" in f for f in filters):
        return PRICE_USD["search"]
    return PRICE_USD["list"]

MATCH_CUTOFF = 60.0
ERRORS = {403: {"error": "Rate limit exceeded", "message": "Rate limit exceeded; slow down"},
          429: {"error": "Rate limit exceeded", "message": "Daily limit exceeded"},
          500: {"error": "Internal Server Error", "message": "Temporary issue; retry with backoff"}}


class OpenAlexServer(JsonServer):
    """The works API over `works` (records with ``id``, ``display_name``, ``publication_year``, ``authorships``,
    ``doi``) on 127.0.0.1. Not serving until `start()` (or ``with``)."""

    def __init__(self, works: Sequence[Mapping[str, Any]], fail_first: Iterable[int] = (),
                 allowance_usd: float = 1.0) -> None:
        super().__init__()
        self.works = list(works)
        self.failures = list(fail_first)
        self.remaining = allowance_usd

    def handle(self, request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """(status, JSON payload, headers) for one recorded request."""
        if self.failures:
            status = self.failures.pop(0)
            return status, ERRORS.get(status, ERRORS[500]), {}
        cost = price_of(request["path"], request["query"])
        if self.remaining < cost:
            return 429, ERRORS[429], {}
        select = [f for f in request["query"].get("select", "").split(",") if f]
        if request["path"].startswith("/works/"):
            wanted = request["path"].removeprefix("/works/")
            found = next((w for w in self.works if str(w.get("id", "")).rsplit("/", 1)[-1] == wanted
                          or (wanted.startswith("https://doi.org/") and str(w.get("doi") or "").lower() == wanted.lower())),
                         None)
            if found is None:
                return 404, {"error": "Not Found", "message": f"no work {wanted}"}, {}
            return 200, {k: v for k, v in found.items() if not select or k in select}, self._priced(cost)
        if request["path"] != "/works":
            return 404, {"error": "Not Found", "message": f"no endpoint {request['path']}"}, {}
        field, _, words = request["query"].get("filter", "").partition(":")
        if field != "title.search" or "," in words:
            return 400, {"error": "Invalid query parameters error.",
                         "message": f"Invalid filter: {request['query'].get('filter')!r}"}, {}
        scored = sorted(((fuzz.token_set_ratio(normalize_title(words), normalize_title(w["display_name"])), i)
                         for i, w in enumerate(self.works)), key=lambda pair: -pair[0])
        hits = [self.works[i] for score, i in scored if score >= MATCH_CUTOFF]
        per_page = int(request["query"].get("per_page", 25))
        results = [{k: v for k, v in w.items() if not select or k in select} for w in hits[:per_page]]
        return 200, {"meta": {"count": len(hits), "per_page": per_page}, "results": results}, self._priced(cost)

    def _priced(self, cost: float) -> dict[str, str]:
        """Charge `cost` to the day's allowance; the headers that report it."""
        self.remaining -= cost
        return {"x-ratelimit-cost-usd": str(cost), "x-ratelimit-remaining-usd": f"{self.remaining:.4f}"}
