"""One fake arXiv for tests: the Atom API (``GET /api/query``), the HTML pages (``GET /html/<id>v<version>``) and
OAI-PMH ``GetRecord`` in the ``arXiv`` metadata format (``GET /oai``, the record's ``<license>`` from a paper's
`oai_licence`), recording every request.

The feed is written the way arXiv's API writes it (https://info.arxiv.org/help/api/user-manual.html, section 3.3:
an Atom ``feed`` with ``opensearch:totalResults``/``startIndex``/``itemsPerPage``, one ``entry`` per paper whose
``id`` is ``http://arxiv.org/abs/<id>v<version>``, ``arxiv:comment``, ``arxiv:primary_category``, ``arxiv:license``,
titles and abstracts hard-wrapped). ``start``/``max_results`` paginate, ``id_list`` picks papers,
``submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]`` keeps the papers first submitted in that window (by day); the
categories of a query are not evaluated.

Order and title search, as the manual (section 3.1.1) documents them: ``sortBy`` is ``relevance`` (the default),
``lastUpdatedDate`` or ``submittedDate``; ``sortOrder`` is ``descending`` (the default) or ``ascending``; any other
value is answered with an ``Error`` entry. ``ti:"..."`` is a search over title terms, not an exact-title lookup:
arXiv's Lucene index drops English stop words and case, so a paper matches when its title holds every remaining
term of the query, in any order, and its relevance is how often those terms occur in its title (`relevance`). A
longer look-alike that repeats the words of the title asked for therefore ranks above the title itself.

Scripted misbehaviour, as arXiv shows it:

- `fail_first`: the first API calls answer ``503`` with ``Retry-After: <seconds>`` and arXiv's plain-text body;
- `dates_in_query` False: the date window is ignored, as when arXiv's ``submittedDate`` (US Eastern time) and an
  entry's ``published`` (UTC) fall on different days;
- `empty_pages`: ``{start: n}``: the page at `start` comes back with no entries (``totalResults`` unchanged) `n`
  times before it is served;
- `cut_bodies`: the first API answers declare their whole body's ``Content-Length`` but send half of it, as a
  connection dropped mid-answer shows it (the client's read raises ``IncompleteRead``);
- a paper's ``published_raw`` is written into its entry's ``<published>`` as it is (a malformed date);
- a paper without a page in `pages` answers ``404`` on ``/html/...``, as arXiv does for a paper it could not
  convert;
- set `papers` again (a paper with a higher `version`) to publish a new version between two runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from tests.fakes import JsonServer

ATOM = "application/atom+xml; charset=utf-8"
#: Lucene's English stop words (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``): dropped from titles and queries alike.
STOP_WORDS = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their then "
                       "there these they this to was will with".split())
QUOTE = {'"': "&quot;"}  # a query's quotes (ti:"...") inside an XML attribute
SORT_BY = {"relevance", "lastUpdatedDate", "submittedDate"}
SORT_ORDER = {"ascending", "descending"}


def terms(text: str) -> list[str]:
    """The indexed terms of a title or query: lower-cased words without stop words."""
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP_WORDS]


def relevance(query: str, title: str) -> int:
    """How often the query's terms occur in `title`; 0 when one of them is missing (the paper does not match)."""
    wanted, have = set(terms(query)), terms(title)
    if not wanted or not wanted <= set(have):
        return 0
    return sum(1 for term in have if term in wanted)


def error_feed(message: str) -> bytes:
    """arXiv's answer to a query it cannot read: a feed with one entry titled ``Error``."""
    return (f'<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><entry>'
            f'<id>http://arxiv.org/api/errors#{escape(message)}</id><title>Error</title>'
            f'<summary>{escape(message)}</summary></entry></feed>').encode()


def atom_entry(paper: Mapping[str, Any]) -> str:
    """One ``entry`` of arXiv's feed for `paper` (arxiv_id, version, published, updated, title, abstract, authors,
    categories, comment, licence)."""
    versioned = f"{paper['arxiv_id']}v{paper.get('version', 1)}"
    categories = paper.get("categories", ["cs.CL"])
    wrapped_abstract = "\n  ".join(re.findall(r".{1,70}(?:\s|$)", paper.get("abstract", "")))
    authors = "".join(f"\n    <author>\n      <name>{escape(a)}</name>\n    </author>" for a in paper.get("authors", []))
    comment = f"\n    <arxiv:comment>{escape(paper['comment'])}</arxiv:comment>" if paper.get("comment") else ""
    licence = f"\n    <arxiv:license>{escape(paper['licence'])}</arxiv:license>" if paper.get("licence") else ""
    cats = "".join(f'\n    <category term="{c}" scheme="http://arxiv.org/schemas/atom"/>' for c in categories)
    return f"""
  <entry>
    <id>http://arxiv.org/abs/{versioned}</id>
    <updated>{paper.get('updated', paper['published'])}T17:59:59Z</updated>
    <published>{escape(paper.get('published_raw', paper['published'] + 'T17:59:59Z'))}</published>
    <title>{escape(paper['title'])}</title>
    <summary>  {escape(wrapped_abstract)}
</summary>{authors}{comment}
    <link href="http://arxiv.org/abs/{versioned}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/{versioned}" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="{categories[0]}" scheme="http://arxiv.org/schemas/atom"/>{cats}{licence}
  </entry>"""


def atom_feed(entries: Sequence[Mapping[str, Any]], total: int, start: int, query: str = "") -> bytes:
    """A whole feed page."""
    body = "".join(atom_entry(p) for p in entries)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <link href="http://arxiv.org/api/query?{escape(query, QUOTE)}" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: {escape(query)}</title>
  <id>http://arxiv.org/api/fake</id>
  <updated>2026-12-01T00:00:00-05:00</updated>
  <opensearch:totalResults>{total}</opensearch:totalResults>
  <opensearch:startIndex>{start}</opensearch:startIndex>
  <opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>{body}
</feed>
""".encode()


class ArxivServer(JsonServer):
    """arXiv's API over `papers` (records as `atom_entry` takes them) and HTML `pages` (versioned id -> HTML) on
    127.0.0.1. Point an `ArxivClient` at ``server.api_url``, ``server.html_url`` and ``server.oai_url``."""

    def __init__(self, papers: Sequence[Mapping[str, Any]], pages: Mapping[str, str] | None = None, *,
                 fail_first: int = 0, retry_after: int = 1, empty_pages: Mapping[int, int] | None = None,
                 dates_in_query: bool = True, cut_bodies: int = 0) -> None:
        super().__init__()
        self.cut_bodies = cut_bodies
        self.papers = list(papers)
        self.pages = dict(pages or {})
        self.fail_first, self.retry_after = fail_first, retry_after
        self.empty_pages = dict(empty_pages or {})
        self.dates_in_query = dates_in_query  # False: the window is not applied (papers a client must drop itself)
        self.api_url, self.html_url, self.oai_url = f"{self.url}/api/query", f"{self.url}/html", f"{self.url}/oai"

    def api_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"] == "/api/query"]

    def html_requests(self) -> list[str]:
        return [r["path"].removeprefix("/html/") for r in self.requests if r["path"].startswith("/html/")]

    def handle(self, request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if request["path"] == "/api/query":
            return self._query(request["query"])
        if request["path"] == "/oai":
            return self._oai(request["query"])
        if request["path"].startswith("/html/"):
            page = self.pages.get(request["path"].removeprefix("/html/"))
            if page is None:
                return 404, b"<html><body><h1>No HTML for this paper</h1><p>HTML is not available for the source.</p>" \
                            b"</body></html>", {"Content-Type": "text/html"}
            return 200, page.encode(), {"Content-Type": "text/html; charset=utf-8"}
        return 404, b"not found", {"Content-Type": "text/plain"}

    def _oai(self, query: Mapping[str, str]) -> tuple[int, Any, dict[str, str]]:
        """OAI-PMH 2.0 as arXiv answers it: HTTP 200 in both cases, an ``<error>`` for an unknown identifier."""
        arxiv_id = query.get("identifier", "").removeprefix("oai:arXiv.org:")
        paper = next((p for p in self.papers if p["arxiv_id"] == arxiv_id), None)
        head = ('<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
                '<responseDate>2026-12-01T00:00:00Z</responseDate>')
        if paper is None:
            body = (f'{head}<request verb="GetRecord">{self.url}/oai</request><error code="idDoesNotExist">'
                    f'{escape(query.get("identifier", ""))} is unknown or illegal in this repository</error></OAI-PMH>')
        else:
            licence = f"<license>{escape(paper['oai_licence'])}</license>" if paper.get("oai_licence") else ""
            body = (f'{head}<GetRecord><record><header><identifier>oai:arXiv.org:{arxiv_id}</identifier></header>'
                    f'<metadata><arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>{arxiv_id}</id>'
                    f'<title>{escape(paper["title"])}</title>{licence}</arXiv></metadata></record></GetRecord>'
                    '</OAI-PMH>')
        return 200, body.encode(), {"Content-Type": "text/xml; charset=utf-8"}

    def _query(self, query: Mapping[str, str]) -> tuple[int, Any, dict[str, str]]:
        if self.fail_first > 0:
            self.fail_first -= 1
            return 503, b"Rate exceeded.", {"Content-Type": "text/plain", "Retry-After": str(self.retry_after)}
        status, body = self._feed(query)
        if self.cut_bodies > 0:
            self.cut_bodies -= 1
            return status, body[:len(body) // 2], {"Content-Type": ATOM, "Content-Length": str(len(body))}
        return status, body, {"Content-Type": ATOM}

    def _feed(self, query: Mapping[str, str]) -> tuple[int, bytes]:
        start, size = int(query.get("start", 0)), int(query.get("max_results", 10))
        search = query.get("search_query", "")
        sort_by, order = query.get("sortBy", "relevance"), query.get("sortOrder", "descending")
        if sort_by not in SORT_BY or order not in SORT_ORDER:
            return 400, error_feed(f"sortBy must be one of {sorted(SORT_BY)} and sortOrder one of {sorted(SORT_ORDER)}")
        papers = sorted(self.papers, key=lambda p: (p["published"], p["arxiv_id"]))
        if query.get("id_list"):
            wanted = query["id_list"].split(",")
            papers = [p for p in papers if p["arxiv_id"] in wanted]
        window = re.search(r"submittedDate:\[(\d{8})\d{4} TO (\d{8})\d{4}\]", search)
        if window and self.dates_in_query:
            first, last = (f"{d[:4]}-{d[4:6]}-{d[6:]}" for d in window.groups())
            papers = [p for p in papers if first <= p["published"][:10] <= last]
        title = re.search(r'ti:(?:"([^"]*)"|(\S+))', search)
        phrase = (title.group(1) or title.group(2)) if title else ""
        if title:
            papers = [p for p in papers if relevance(phrase, p["title"]) > 0]
        sort_keys = {"relevance": lambda p: relevance(phrase, p["title"]),
                     "lastUpdatedDate": lambda p: p.get("updated", p["published"]),
                     "submittedDate": lambda p: p["published"]}
        papers.sort(key=sort_keys[sort_by], reverse=order == "descending")  # stable: ties stay oldest first
        if self.empty_pages.get(start, 0) > 0:
            self.empty_pages[start] -= 1
            return 200, atom_feed([], len(papers), start, search)
        return 200, atom_feed(papers[start:start + size], len(papers), start, search)
