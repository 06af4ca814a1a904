"""`sciwrite fetch arxiv`: recent arXiv papers and their HTML pages, for test sets no model can have seen."""

from __future__ import annotations

import argparse
import datetime
import re
import tempfile
import urllib.parse
from pathlib import Path

from sciwrite.cli.flags import LIMIT, OUT
from sciwrite.cli.options import iso_date, whole_number
from sciwrite.core.errors import InputError, Where
from sciwrite.core.tables import format_table
from sciwrite.sources.arxiv import API_URL, HTML_URL, MAX_PAGE_SIZE, MIN_INTERVAL, OAI_URL, PAGE_SIZE, ArxivClient
from sciwrite.sources.arxiv_fetch import HTML_DIR, MANIFEST_FILE, PAPERS_FILE, fetch_arxiv

#: An arXiv category: an archive (``cs``, ``hep-th``, ``q-bio``) and, for most, a subject class (``CL``, ``acc-ph``).
CATEGORY = re.compile(r"[a-z][a-z-]*(\.[A-Za-z][A-Za-z-]*)?")
#: What the fetch keeps in its --out folder: name -> (is a folder, what it is).
OUT_ENTRIES = {HTML_DIR: (True, "keeps its pages"), MANIFEST_FILE: (False, "writes its manifest"),
               PAPERS_FILE: (False, "writes its paper log")}


def seconds(text: str) -> float:
    """An argparse type: a number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 <= value < float("inf"):  # also refuses nan and inf (a client that would sleep forever)
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds, 0 or more, got {text}")
    return value


def category(text: str) -> str:
    """An argparse type: an arXiv category (a word the API's ``cat:`` query takes as it is)."""
    if not CATEGORY.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected an arXiv category such as cs.CL or hep-th, got {text!r}")
    return text


def web_url(text: str) -> str:
    """An argparse type: an http:// or https:// URL with a host."""
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected an http:// or https:// URL with a host, got {text!r}")
    return text


def check_window(since: datetime.date, until: datetime.date | None) -> None:
    """Refuse a window no paper can be in: ending before it starts, or starting after today (UTC, as arXiv dates)."""
    if until and until < since:
        raise InputError(f"--until {until} is before --since {since}", hint="swap them")
    today = datetime.datetime.now(datetime.timezone.utc).date()
    if since > today:
        raise InputError(f"--since {since} is after today ({today}): no paper can be submitted then",
                         hint="give a date in the past")


def check_out_folder(out: str | Path) -> Path:
    """`out` made ready before any request: a folder (made if missing) that can be written, whose pages, manifest
    and paper log, where present, are of the kind the fetch writes; else `InputError` naming the path (or the
    system's `OSError` for a path that cannot be made), so a bad --out fails at once, not after the downloads."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InputError("--out is a file, not a folder", Where(path=folder), hint="name a folder (a new one is made)")
    folder.mkdir(parents=True, exist_ok=True)
    for name, (is_folder, role) in OUT_ENTRIES.items():
        entry = folder / name
        if entry.exists() and entry.is_dir() != is_folder:
            kinds = ("a folder", "a file") if entry.is_dir() else ("a file", "a folder")
            raise InputError(f"is {kinds[0]} where the fetch {role} ({kinds[1]})", Where(path=entry),
                             hint="move it away or name another --out")
    try:
        with tempfile.TemporaryFile(dir=folder):  # can be written (permissions, a read-only disk)
            pass
    except OSError as err:
        raise InputError(f"--out cannot be written ({(err.strerror or str(err)).lower()})", Where(path=folder),
                         hint="check its permissions or name another folder") from None
    return folder


def cmd_fetch_arxiv(args: argparse.Namespace) -> int:
    check_window(args.since, args.until)
    check_out_folder(args.out)
    client = ArxivClient(args.arxiv_api_url, args.arxiv_html_url, oai_url=args.arxiv_oai_url,
                         min_interval=args.arxiv_min_interval,
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
    p.add_argument("--category", nargs="+", type=category, required=True, help="arXiv categories, e.g. cs.CL cs.LG")
    p.add_argument("--since", type=iso_date, required=True, help="first submitted on or after (YYYY-MM-DD)")
    p.add_argument("--until", type=iso_date, help="first submitted on or before (YYYY-MM-DD; default: today)")
    LIMIT.add(p, "at most this many papers from the API")
    OUT.add(p, "folder to write (html/, papers.jsonl, manifest.json); a rerun resumes it", required=True)
    p.add_argument("--contact", help="an e-mail address for the User-Agent, as arXiv asks of heavy users")
    p.add_argument("--page-size", type=whole_number(1, MAX_PAGE_SIZE), default=PAGE_SIZE,
                   help=f"papers per API request, 1 to {MAX_PAGE_SIZE} (arXiv's most)")
    p.add_argument("--arxiv-api-url", type=web_url, default=API_URL,
                   help="the arXiv API (another for a mirror or a test server)")
    p.add_argument("--arxiv-html-url", type=web_url, default=HTML_URL,
                   help="where arXiv's HTML pages are (<url>/<id>v<version>)")
    p.add_argument("--arxiv-oai-url", type=web_url, default=OAI_URL,
                   help="arXiv's OAI-PMH interface, asked for the licence of a fetched paper whose API entry names none")
    p.add_argument("--arxiv-min-interval", type=seconds, default=MIN_INTERVAL,
                   help="seconds between two arXiv requests (arXiv asks for 3; less is only for a local mirror)")
    p.set_defaults(func=cmd_fetch_arxiv)
