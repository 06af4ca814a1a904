"""`sciwrite fetch arxiv`: recent arXiv papers and their HTML pages, for test sets no model can have seen."""

from __future__ import annotations

import argparse

from sciwrite.cli.options import iso_date
from sciwrite.core.tables import format_table
from sciwrite.sources.arxiv import API_URL, HTML_URL, OAI_URL, PAGE_SIZE, ArxivClient
from sciwrite.sources.arxiv_fetch import MANIFEST_FILE, fetch_arxiv


def cmd_fetch_arxiv(args: argparse.Namespace) -> int:
    if args.until and args.until < args.since:
        raise ValueError(f"--until {args.until} is before --since {args.since}")
    client = ArxivClient(args.api_url, args.html_url, oai_url=args.oai_url, min_interval=args.min_interval,
                          page_size=args.page_size, contact=args.contact)
    summary = fetch_arxiv(args.category, args.since, args.out, until=args.until, limit=args.limit, client=client)
    rows = [{"status": status, "papers": n} for status, n in sorted(summary.counts.items())]
    print(format_table(rows) if rows else "no paper matched")
    print(f"{summary.n_requests} requests in {summary.seconds:.0f} s ({summary.papers_per_minute} papers a minute); "
          f"manifest: {summary.out / MANIFEST_FILE}")
    if summary.stopped:
        print(f"stopped early: {summary.stopped}")
        return 3
    return 0


def add_fetch_commands(sub: argparse._SubParsersAction) -> None:
    """The `fetch` group: sources the builders read."""
    fetch = sub.add_parser("fetch", help="fetch source papers").add_subparsers(dest="source", required=True)
    p = fetch.add_parser("arxiv", help="arXiv papers first submitted in a date window, with their LaTeXML HTML "
                                       "pages (one request every 3 s, cached, resumable)")
    p.add_argument("--category", nargs="+", required=True, help="arXiv categories, e.g. cs.CL cs.LG")
    p.add_argument("--since", type=iso_date, required=True, help="first submitted on or after (YYYY-MM-DD)")
    p.add_argument("--until", type=iso_date, help="first submitted on or before (YYYY-MM-DD; default: today)")
    p.add_argument("--limit", type=int, help="at most this many papers from the API")
    p.add_argument("--out", required=True, help="folder to write (html/, papers.jsonl, manifest.json); a rerun "
                                                "resumes it")
    p.add_argument("--contact", help="an e-mail address for the User-Agent, as arXiv asks of heavy users")
    p.add_argument("--page-size", type=int, default=PAGE_SIZE, help="papers per API request (arXiv allows up to 2000)")
    p.add_argument("--api-url", default=API_URL, help="the arXiv API (another for a mirror or a test server)")
    p.add_argument("--html-url", default=HTML_URL, help="where the HTML pages are (<url>/<id>v<version>)")
    p.add_argument("--oai-url", default=OAI_URL, help="arXiv's OAI-PMH interface, asked for the licence of a fetched "
                                                      "paper whose API entry names none")
    p.add_argument("--min-interval", type=float, default=3.0,
                   help="seconds between two requests (arXiv asks for 3; less is only for a local mirror)")
    p.set_defaults(func=cmd_fetch_arxiv)
