"""A small DBLP search API client: publications by title, as `BibRecord`s, for the reference checker
(`sciwrite.sources.bib_services`).

What DBLP documents and does (dblp.org/faq, "How to use the dblp search API?"):

- ``/search/publ/api?q=<words>&format=json&h=<hits>``: the body is ``{"result": {"hits": {"@total": "2", "@sent":
  "2", "hit": [{"@score": ..., "info": {...}}]}}}``, best first; without a hit, ``hits`` has no ``hit``. A query is
  words matched as prefixes, all of them; ``|``, ``$`` and ``:`` have meanings of their own, so only the title's
  words are sent (`query_words`);
- ``info.authors.author`` is a list of ``{"@pid", "text"}``, or one such object when there is one author; names
  that several people share carry a 4-digit number (``Wei Wang 0001``), and titles end with a ``.`` DBLP adds:
  both are removed (`as_record`);
- a preprint is an "Informal and Other Publications" record in venue ``CoRR``: its venue is ``""`` and its arXiv
  id is read from its electronic edition (``ee``: ``https://arxiv.org/abs/<id>``);
- DBLP asks for at most about one request a second and answers 429 with ``Retry-After`` when exceeded
  (`MIN_INTERVAL`; retried after the wait it asks for).
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.sources.api_client import ApiError, JsonApiClient
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.response_cache import SqliteResponseCache

DEFAULT_BASE_URL = "https://dblp.org"
MIN_INTERVAL = 1.0  # seconds between requests: DBLP's "about one request a second"
HITS = 5
PREPRINT_TYPE, PREPRINT_VENUE = "Informal and Other Publications", "CoRR"
#: DBLP's publication types -> BibTeX entry type.
ENTRY_TYPES = {"Conference and Workshop Papers": "inproceedings", "Journal Articles": "article",
               PREPRINT_TYPE: "misc", "Books and Theses": "book", "Parts in Books or Collections": "incollection",
               "Editorship": "proceedings", "Reference Works": "misc", "Data and Artifacts": "misc"}
_HOMONYM = re.compile(r"\s+\d{4}$")
_WORD = re.compile(r"\w+(?:-\w+)*")
_ARXIV_ABS = re.compile(r"arxiv\.org/abs/([a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})", re.I)
_CORR_KEY = re.compile(r"^journals/corr/abs-(\d{4})-(\d{4,5})$")


class DblpError(ApiError):
    """A DBLP request that failed for good."""


def query_words(title: str) -> str:
    """The title's words, without the characters DBLP's query syntax reads (``|``, ``$``, ``:``...)."""
    return " ".join(_WORD.findall(title))


def strip_homonym(name: str) -> str:
    """``Wei Wang 0001`` -> ``Wei Wang``."""
    return _HOMONYM.sub("", name.strip())


class DblpClient(JsonApiClient):
    """DBLP's publication search, cached, rate-limited and retried (see the module docstring)."""

    name = "DBLP"
    service_id = "dblp"
    error_class = DblpError

    def __init__(self, *, base_url: str | None = None, cache: SqliteResponseCache | None = None,
                 cache_path: str | os.PathLike[str] | None = None, min_interval: float = MIN_INTERVAL,
                 max_retries: int = 5, backoff: float = 1.0, timeout: float = 30.0) -> None:
        super().__init__(base_url or os.environ.get("DBLP_BASE_URL") or DEFAULT_BASE_URL, cache=cache,
                         cache_path=Path(cache_path) if cache_path else None, min_interval=min_interval,
                         max_retries=max_retries, backoff=backoff, timeout=timeout)

    def search(self, title: str, hits: int = HITS) -> list[BibRecord]:
        """The publications DBLP finds for `title`'s words, best first, at most `hits`."""
        words = query_words(title)
        if not words:
            return []
        found = self.get("/search/publ/api", {"q": words, "format": "json", "h": str(hits)})
        listed = (((found or {}).get("result") or {}).get("hits") or {}).get("hit") or []
        infos = [hit.get("info") or {} for hit in ([listed] if isinstance(listed, Mapping) else listed)]
        return [record for record in map(as_record, infos) if record is not None]


def _listed(value: Any) -> list[Any]:
    """DBLP writes one value as itself and several as a list."""
    return [] if value is None else list(value) if isinstance(value, list) else [value]


def _text(value: Any) -> str:
    return " ".join(html.unescape(str(value.get("text", "") if isinstance(value, Mapping) else value or "")).split())


def arxiv_id_of(info: Mapping[str, Any]) -> str | None:
    """The arXiv id of a DBLP record, from its ``ee`` or ``url`` (``arxiv.org/abs/<id>``) or a CoRR key."""
    for link in [*_listed(info.get("ee")), info.get("url")]:
        match = _ARXIV_ABS.search(_text(link))
        if match:
            return match.group(1)
    key = _CORR_KEY.match(str(info.get("key") or ""))
    return f"{key.group(1)}.{key.group(2)}" if key else None


def as_record(info: Mapping[str, Any]) -> BibRecord | None:
    """A DBLP hit's ``info`` as a `BibRecord` (None without a key or a title): homonym numbers and the trailing
    ``.`` removed, a CoRR preprint's venue ``""``."""
    key, title = str(info.get("key") or ""), _text(info.get("title"))
    title = title[:-1] if title.endswith(".") and not title.endswith("..") else title
    if not key or not title:
        return None
    people: Mapping[str, Any] = info["authors"] if isinstance(info.get("authors"), Mapping) else {}
    authors = tuple(n for n in (strip_homonym(_text(a)) for a in _listed(people.get("author"))) if n)
    kind = _text(info.get("type"))
    venues = [_text(v) for v in _listed(info.get("venue"))]
    venue = venues[0] if venues else None
    if kind == PREPRINT_TYPE and venue == PREPRINT_VENUE:
        venue = ""
    year = _text(info.get("year"))
    ee = [_text(link) for link in _listed(info.get("ee"))]
    return BibRecord("dblp", key, title, authors, int(year) if year.isdigit() else None,
                     _text(info.get("url")) or (ee[0] if ee else None), venue=venue,
                     doi=_text(info.get("doi")) or None, arxiv_id=arxiv_id_of(info), entry_type=ENTRY_TYPES.get(kind))


__all__ = ["DEFAULT_BASE_URL", "ENTRY_TYPES", "HITS", "MIN_INTERVAL", "DblpClient", "DblpError", "arxiv_id_of",
           "as_record", "query_words", "strip_homonym"]
