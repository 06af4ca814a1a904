"""One fake Semantic Scholar Graph API for tests: title match and paper lookup over a dict of papers, optionally
failing its first calls, recording every request.

- ``GET /graph/v1/paper/search/match?query=<title>``: like the real endpoint, the one paper whose title is
  closest to the query (``{"data": [{...paper, "matchScore": ...}]}``), when it is close enough (normalised
  titles at rapidfuzz ratio `MATCH_CUTOFF` or more), else 404 ``{"error": "Title match not found"}``;
- ``GET /graph/v1/paper/search?query=<words>&limit=N``: like the real relevance search, the papers whose
  normalised title shares the query's words (rapidfuzz ``token_set_ratio`` `SEARCH_CUTOFF` or more), best first, at
  most N: ``{"total": M, "offset": 0, "data": [...]}`` (``data`` ``[]`` when none);
- ``GET /graph/v1/paper/<paperId>``: that paper, else 404; ``DOI:<doi>`` and ``ARXIV:<id>`` look a paper up by
  its ``externalIds`` (a DOI case-insensitively);
- any other path: 404.

``fields`` works as the Graph API documents it (api.semanticscholar.org/api-docs/graph): a paper carries
``paperId`` always, plus the comma-separated fields asked for, and nothing else; without ``fields``, ``paperId`` and
``title``. The match endpoint adds its ``matchScore``. A field the API does not know is a 400
``{"error": "Unrecognized or unsupported fields: [...]"}``.

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
SEARCH_CUTOFF = 70.0
#: The paper fields the Graph API documents (a dotted sub-field, ``authors.name``, selects within one of them).
PAPER_FIELDS = frozenset({
    "paperId", "corpusId", "externalIds", "url", "title", "abstract", "venue", "publicationVenue", "year",
    "referenceCount", "citationCount", "influentialCitationCount", "isOpenAccess", "openAccessPdf", "fieldsOfStudy",
    "s2FieldsOfStudy", "publicationTypes", "publicationDate", "journal", "citationStyles", "authors", "citations",
    "references", "embedding", "tldr", "textAvailability"})


def selected(paper: Mapping[str, Any], fields: str | None) -> dict[str, Any]:
    """`paper` as the Graph API returns it for `fields`: ``paperId`` and the fields asked for (default: title)."""
    wanted = {f.split(".", 1)[0] for f in (fields or "title").split(",") if f}
    return {k: v for k, v in paper.items() if k == "paperId" or k in wanted}
TOO_MANY_REQUESTS = {"message": "Too Many Requests. Please wait and try again or apply for a key for higher rate "
                                "limits. https://www.semanticscholar.org/product/api#api-key-form", "code": "429"}


def _known_as(paper: Mapping[str, Any], wanted: str) -> bool:
    """Whether `wanted` (a paperId, ``DOI:<doi>`` or ``ARXIV:<id>``) names `paper`."""
    kind, _, value = wanted.partition(":")
    ids = paper.get("externalIds") or {}
    if kind == "DOI" and value:
        return str(ids.get("DOI") or "").lower() == value.lower()
    if kind == "ARXIV" and value:
        return ids.get("ArXiv") == value
    return paper.get("paperId") == wanted


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
        unknown = sorted({f.split(".", 1)[0] for f in request["query"].get("fields", "").split(",") if f}
                         - PAPER_FIELDS)
        if unknown:
            return 400, {"error": f"Unrecognized or unsupported fields: {unknown}"}, {}
        fields = request["query"].get("fields")
        if request["path"] == "/graph/v1/paper/search/match":
            papers = list(self.papers.values())
            best = process.extractOne(normalize_title(request["query"].get("query", "")),
                                      [normalize_title(p["title"]) for p in papers], scorer=fuzz.ratio,
                                      score_cutoff=MATCH_CUTOFF)
            if best is None:
                return 404, {"error": "Title match not found"}, {}
            return 200, {"data": [{**selected(papers[best[2]], fields), "matchScore": round(best[1], 2)}]}, {}
        if request["path"] == "/graph/v1/paper/search":
            query = normalize_title(request["query"].get("query", ""))
            scored = sorted(((fuzz.token_set_ratio(query, normalize_title(p["title"])), i, p)
                             for i, p in enumerate(self.papers.values())), key=lambda t: -t[0])
            hits = [p for score, _, p in scored if score >= SEARCH_CUTOFF]
            limit = int(request["query"].get("limit", 10))
            return 200, {"total": len(hits), "offset": 0, "data": [selected(p, fields) for p in hits[:limit]]}, {}
        if request["path"].startswith("/graph/v1/paper/"):
            wanted = urllib.parse.unquote(request["path"].removeprefix("/graph/v1/paper/"))
            found = next((p for p in self.papers.values() if _known_as(p, wanted)), None)
            return (200, selected(found, fields), {}) if found else (404, {"error": "Paper not found"}, {})
        return 404, {"error": "no such endpoint"}, {}
