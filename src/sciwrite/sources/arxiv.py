"""The arXiv API (Atom feeds, parsed with feedparser) and arXiv's HTML pages, asked politely.

arXiv's terms for its API ask for at most one request every three seconds, from one connection, with a
User-Agent that says who is asking; `ArxivClient` keeps that rule for every request it sends, the HTML pages
included (`MIN_INTERVAL`). What the API answers that an ideal API would not, and how it is handled:

- ``HTTP 503`` (often with ``Retry-After``) or a plain-text ``Rate exceeded.`` when asked too fast: retried after
  the wait it asks for (`sciwrite.sources.api_client.PoliteHttpClient`);
- a page with no entries although ``totalResults`` says there are more (a known hiccup of the search backend):
  asked again, a few times, before the run stops there and says so (`EmptyPageError`);
- ``HTTP 200`` with one entry titled ``Error`` for a query it cannot read: raised as `ArxivError`, with its text;
- a feed cut short or not well-formed XML, or an entry without a readable id, title or ``published`` date: raised
  as `ArxivError` naming the entry and field, so that no paper of that page is recorded and a rerun asks again
  (feedparser alone would read what it could and say nothing);
- a title search ranked by relevance (``sortBy=relevance``), where a title sharing words with the one asked for can
  come first: the caller compares titles itself (`sciwrite.sources.arxiv_cited`);
- titles and abstracts hard-wrapped mid-sentence: whitespace is collapsed;
- ids with their version (``2607.01234v2``): split into `ArxivPaper.arxiv_id` and `ArxivPaper.version`;
- an entry without ``arxiv:license``: the licence is asked of arXiv's OAI-PMH interface (`ArxivClient.licence`,
  ``GetRecord`` in the ``arXiv`` metadata format, whose ``<license>`` element is documented), one request a paper.

Given the shared response cache (`sciwrite.sources.response_cache`), a title search and a lookup by id
(`ArxivClient.title_search`, `ArxivClient.by_id`) keep the papers they found there, so a rerun asks nothing again;
category searches (new papers appear every day) are never cached.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import date
from typing import Any
from xml.etree import ElementTree

import feedparser

from sciwrite.sources.api_client import ApiError, PoliteHttpClient
from sciwrite.sources.licences import licence_name
from sciwrite.sources.response_cache import SqliteResponseCache

API_URL = "https://export.arxiv.org/api/query"
HTML_URL = "https://arxiv.org/html"
OAI_URL = "https://oaipmh.arxiv.org/oai"  # OAI-PMH: the ``arXiv`` metadata format records each paper's licence
MIN_INTERVAL = 3.0  # seconds between two requests: arXiv's published rule for its API
PAGE_SIZE = 100
MAX_PAGE_SIZE = 2000  # the API manual: at most 2000 results a request ("slices of at most 2000 at a time")
TITLE_RESULTS = 10  # results a title search reads, best first: enough for the exact title behind a few look-alikes
SORT_BY = ("relevance", "lastUpdatedDate", "submittedDate")  # the API's ``sortBy`` values (its manual, section 3.1.1)
USER_AGENT = ("sciwrite/0.1 (fresh RWGBench and SciIG test sets; https://github.com/sciwrite/sciwrite; "
              "one request every 3 s)")

_OAI, _OAI_ARXIV = "http://www.openarchives.org/OAI/2.0/", "http://arxiv.org/OAI/arXiv/"
_ID = re.compile(r"(?:arxiv\.org/abs/)?(?P<id>(?:\d{4}\.\d{4,5})|(?:[a-z\-]+(?:\.[A-Z]{2})?/\d{7}))(?:v(?P<v>\d+))?$")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}(?:$|T)")
_WITHDRAWN = re.compile(r"\b(?:has been|was|is)\s+withdrawn\b|^\s*withdrawn\b|\bwithdrawn by the authors?\b", re.I)


class ArxivError(ApiError):
    """arXiv answered something that is not a usable feed (an ``Error`` entry, a body that is not Atom)."""


class EmptyPageError(ArxivError):
    """A page of results came back empty, again and again, before ``totalResults`` were all read."""


def split_arxiv_id(text: str) -> tuple[str, int | None]:
    """'http://arxiv.org/abs/2607.01234v2' -> ('2607.01234', 2); an id without version -> (id, None)."""
    match = _ID.search(text.strip())
    if match is None:
        raise ArxivError(f"not an arXiv id: {text!r}")
    return match.group("id"), int(match.group("v")) if match.group("v") else None


def _squash(text: str | None) -> str:
    return " ".join((text or "").split())


@dataclass
class ArxivPaper:
    """One paper's metadata as the API gives it, for its latest version."""

    arxiv_id: str  # without version: '2607.01234'
    version: int
    published: str  # date of version 1, ISO (YYYY-MM-DD): the paper's publication date
    updated: str  # date of this version
    title: str
    abstract: str
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    primary_category: str = ""
    comment: str = ""
    licence: str = ""  # the licence URL arXiv records ("" when the feed gives none)
    doi: str = ""
    journal_ref: str = ""

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"

    @property
    def withdrawn(self) -> bool:
        """The latest version withdraws the paper (arXiv keeps a stub whose comment or abstract says so)."""
        return bool(_WITHDRAWN.search(self.comment) or _WITHDRAWN.search(self.abstract[:300]))

    @property
    def licence_name(self) -> str:
        return licence_name(self.licence)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def provenance(self) -> dict[str, Any]:
        """The columns a benchmark record built from this paper carries (`sciwrite.core.schema.ARXIV_PROVENANCE`)."""
        return {"arxiv_id": self.arxiv_id, "arxiv_version": self.version, "published": self.published,
                "licence": self.licence_name}


def _licence(entry: Any) -> str:
    value = entry.get("arxiv_license", "")
    return (value.get("href", "") if isinstance(value, dict) else value or "").strip()


def iso_day(text: str | None) -> str | None:
    """The day of an ISO timestamp ('2026-07-03T17:59:59Z' -> '2026-07-03'), or None when it is not one."""
    text = (text or "").strip()
    if not _ISO_DAY.match(text):
        return None
    try:
        return date.fromisoformat(text[:10]).isoformat()
    except ValueError:  # 2026-07-32
        return None


def paper_from_entry(entry: Any, shown: str = "the arXiv API") -> ArxivPaper:
    """An `ArxivPaper` from one feedparser entry; raises `ArxivError` naming the entry and field when its id, title
    or ``published`` date cannot be read (a paper recorded without them would be skipped by every rerun)."""
    arxiv_id, version = split_arxiv_id(entry.get("id", ""))
    published, title = iso_day(entry.get("published")), _squash(entry.get("title"))
    if published is None:
        raise ArxivError(f"{shown}: entry {arxiv_id}: field 'published' is {entry.get('published')!r}, not a "
                         "timestamp YYYY-MM-DDThh:mm:ssZ; nothing of this page was recorded: rerun to ask again")
    if not title:
        raise ArxivError(f"{shown}: entry {arxiv_id}: field 'title' is empty; nothing of this page was recorded: "
                         "rerun to ask again")
    primary = entry.get("arxiv_primary_category") or {}
    return ArxivPaper(
        arxiv_id=arxiv_id, version=version or 1,
        published=published, updated=iso_day(entry.get("updated")) or published,
        title=title, abstract=_squash(entry.get("summary")),
        authors=[_squash(a.get("name")) for a in entry.get("authors", []) if a.get("name")],
        categories=[t["term"] for t in entry.get("tags", []) if t.get("term")],
        primary_category=primary.get("term", "") if isinstance(primary, dict) else "",
        comment=_squash(entry.get("arxiv_comment")), licence=_licence(entry),
        doi=_squash(entry.get("arxiv_doi")), journal_ref=_squash(entry.get("arxiv_journal_ref")))


def parse_feed(body: bytes | str, shown: str = "the arXiv API") -> tuple[int, list[ArxivPaper]]:
    """(totalResults, papers) of one Atom page; raises `ArxivError` for an ``Error`` entry or a body that is not a
    feed (such as the plain-text ``Rate exceeded.``)."""
    feed = feedparser.parse(body)
    total = feed.feed.get("opensearch_totalresults")
    if total is None and not feed.entries:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        raise ArxivError(f"{shown} answered something that is not an Atom feed: {text.strip()[:120]!r}")
    problem = feed.get("bozo_exception")
    if feed.get("bozo") and not isinstance(problem, feedparser.CharacterEncodingOverride):
        raise ArxivError(f"{shown} answered a feed cut short or malformed ({problem}) after {len(feed.entries)} "
                         "entries; nothing of this page was recorded: rerun to ask again")
    entries = list(feed.entries)
    if len(entries) == 1 and _squash(entries[0].get("title")) == "Error":
        raise ArxivError(f"{shown} refused the query: {_squash(entries[0].get('summary'))}")
    try:
        count = int(total if total is not None else len(entries))
    except ValueError:
        raise ArxivError(f"{shown}: field 'opensearch:totalResults' is {total!r}, not a number; rerun to ask "
                         "again") from None
    return count, [paper_from_entry(e, shown) for e in entries]


def _stamp(day: date, end: bool) -> str:
    return day.strftime("%Y%m%d") + ("2359" if end else "0000")


def category_query(categories: Sequence[str], since: date, until: date | None = None) -> str:
    """The API's ``search_query`` for papers in any of `categories` first submitted from `since` to `until`
    (inclusive; open-ended up to today without `until`)."""
    if not categories:
        raise ValueError("give at least one arXiv category, e.g. cs.CL")
    cats = " OR ".join(f"cat:{c}" for c in categories)
    last = until or date.today()
    return f"({cats}) AND submittedDate:[{_stamp(since, False)} TO {_stamp(last, True)}]"


class ArxivClient(PoliteHttpClient):
    """The arXiv API and HTML pages at one rate (`MIN_INTERVAL` between any two requests)."""

    name = "arXiv"
    service_id = "arxiv"
    error_class = ArxivError
    user_agent = USER_AGENT

    def __init__(self, api_url: str = API_URL, html_url: str = HTML_URL, *, oai_url: str = OAI_URL,
                 min_interval: float = MIN_INTERVAL,
                 max_retries: int = 5, backoff: float = 3.0, timeout: float = 60.0, empty_page_retries: int = 3,
                 page_size: int = PAGE_SIZE, contact: str | None = None,
                 cache: SqliteResponseCache | None = None) -> None:
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be 1 to {MAX_PAGE_SIZE} papers a request, got {page_size}")
        super().__init__(min_interval=min_interval, max_retries=max_retries, backoff=backoff, timeout=timeout,
                         max_concurrent=1)  # "from one connection"
        self.api_url, self.html_url, self.oai_url = api_url, html_url.rstrip("/"), oai_url
        self.cache = cache
        self.n_cached = 0  # title searches and lookups answered from the cache
        self.empty_page_retries, self.page_size = empty_page_retries, page_size
        if contact:
            self.user_agent = f"{USER_AGENT[:-1]}; mailto:{contact})"

    def page(self, query: str, start: int, max_results: int = PAGE_SIZE, *, id_list: Sequence[str] = (),
             sort_by: str = "submittedDate", ascending: bool = True) -> tuple[int, list[ArxivPaper]]:
        """One page of results, oldest submission first unless `sort_by` (one of `SORT_BY`) and `ascending` say
        otherwise."""
        url = self._query_url(query, start, max_results, id_list, sort_by, ascending)
        body = self.fetch(url, accept="application/atom+xml")
        if body is None:
            raise ArxivError(f"arXiv API at {self.api_url} answered 404")
        return parse_feed(body, f"arXiv API ({url})")

    def _query_url(self, query: str, start: int, max_results: int, id_list: Sequence[str], sort_by: str,
                   ascending: bool) -> str:
        if sort_by not in SORT_BY:
            raise ValueError(f"sort_by must be one of {SORT_BY}, got {sort_by!r}")
        params: Mapping[str, str] = {
            **({"search_query": query} if query else {}), "start": str(start), "max_results": str(max_results),
            "sortBy": sort_by, "sortOrder": "ascending" if ascending else "descending",
            **({"id_list": ",".join(id_list)} if id_list else {})}
        return f"{self.api_url}?{urllib.parse.urlencode(params)}"

    def _found(self, query: str, max_results: int, id_list: Sequence[str] = ()) -> list[ArxivPaper]:
        """The first page of a relevance search, from the cache when there is one and it was asked before."""
        if self.cache is None:
            return self.page(query, 0, max_results, id_list=id_list, sort_by="relevance", ascending=False)[1]
        key = self._query_url(query, 0, max_results, id_list, "relevance", False)
        answer, cached = self.cache.fetched(self.service_id, key, lambda: [p.as_dict() for p in self.page(
            query, 0, max_results, id_list=id_list, sort_by="relevance", ascending=False)[1]])
        self.n_cached += int(cached)
        known = {f.name for f in fields(ArxivPaper)}
        return [ArxivPaper(**{k: v for k, v in paper.items() if k in known}) for paper in answer]

    def search(self, query: str, limit: int | None = None) -> Iterator[ArxivPaper]:
        """Every paper the query finds (at most `limit`), `page_size` a request. An empty page before ``totalResults`` is
        asked again up to `empty_page_retries` times, then raises `EmptyPageError` (the papers already yielded
        stand)."""
        start, total, yielded = 0, None, 0
        while total is None or start < total:
            size = self.page_size if limit is None else min(self.page_size, limit - yielded)
            if size <= 0:
                return
            for _ in range(self.empty_page_retries + 1):
                total, papers = self.page(query, start, size)
                if papers or start >= total:
                    break
            else:
                raise EmptyPageError(f"arXiv returned an empty page at start={start} of {total} results "
                                     f"{self.empty_page_retries + 1} times")
            if not papers:
                return
            for paper in papers:
                yield paper
                yielded += 1
            start += len(papers)

    def says_busy(self, body: bytes) -> bool:
        return body.strip() == b"Rate exceeded."  # arXiv sends it with a 200 at times

    def title_search(self, title: str, max_results: int = TITLE_RESULTS) -> list[ArxivPaper]:
        """The papers arXiv finds for `title` in titles, most relevant first (how a cited work missing from the
        corpus is looked up). arXiv ranks by its relevance score, not by exact title: a look-alike sharing words
        can come first, so the caller compares titles."""
        phrase = re.sub(r"[\"():]", " ", title)
        return self._found(f'ti:"{_squash(phrase)}"', max_results)

    def by_id(self, arxiv_id: str) -> ArxivPaper | None:
        """The paper with this id (a version, ``v2``, is ignored: the latest is answered), or None when arXiv has
        none; raises `ArxivError` for text that is not an arXiv id."""
        wanted, _ = split_arxiv_id(arxiv_id)
        return next((p for p in self._found("", 1, id_list=(wanted,)) if p.arxiv_id == wanted), None)

    def licence(self, arxiv_id: str) -> str:
        """The licence URL arXiv's OAI-PMH record of the paper gives ("" when the record names none); raises
        `ArxivError` for an OAI-PMH error (such as ``idDoesNotExist``)."""
        params = {"verb": "GetRecord", "identifier": f"oai:arXiv.org:{arxiv_id}", "metadataPrefix": "arXiv"}
        url = f"{self.oai_url}?{urllib.parse.urlencode(params)}"
        body = self.fetch(url, accept="text/xml")
        if body is None:
            raise ArxivError(f"arXiv OAI-PMH at {self.oai_url} answered 404")
        try:
            root = ElementTree.fromstring(body)
        except ElementTree.ParseError as err:
            raise ArxivError(f"arXiv OAI-PMH answered something that is not XML ({err}): {body[:80]!r}") from err
        error = root.find(f"{{{_OAI}}}error")
        if error is not None:
            raise ArxivError(f"arXiv OAI-PMH: {error.get('code')}: {(error.text or '').strip()}")
        found = root.find(f".//{{{_OAI_ARXIV}}}license")
        return (found.text or "").strip() if found is not None else ""

    def html(self, versioned_id: str) -> str | None:
        """The LaTeXML HTML page of this version, or None where arXiv has none (404)."""
        body = self.fetch(f"{self.html_url}/{versioned_id}", accept="text/html")
        return None if body is None else body.decode("utf-8", "replace")


__all__ = ["API_URL", "ArxivClient", "ArxivError", "ArxivPaper", "EmptyPageError", "HTML_URL", "MAX_PAGE_SIZE",
           "MIN_INTERVAL", "OAI_URL", "PAGE_SIZE", "SORT_BY", "TITLE_RESULTS", "USER_AGENT", "category_query", "iso_day",
           "paper_from_entry", "parse_feed", "split_arxiv_id"]
