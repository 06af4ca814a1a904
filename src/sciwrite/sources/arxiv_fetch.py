"""`sciwrite fetch arxiv`: the papers of some arXiv categories first submitted in a date window, with their LaTeXML
HTML pages, into one folder that the builders read (`sciwrite build rwgbench|sciig --from-arxiv DIR`).

The folder holds

- ``html/<id>v<version>.html``: each page fetched;
- ``papers.jsonl``: one line per paper each time it is handled, appended as it happens (its metadata, `status`,
  `reason`, `html`), so a run that stops loses nothing and a rerun resumes. The last line of a paper is its state;
- ``manifest.json``: the query, the window, what was fetched, skipped and failed, with reasons and counts, and the
  rate (papers a minute).

A rerun asks the API again (new papers and new versions appear), skips each paper already handled at the same
version, fetches the new version of a paper that has one (``replaces_version``), retries the failures, and asks
OAI-PMH again for the licence of a fetched paper whose licence is still unknown.

A paper counts as handled only when its record is complete (`is_complete`: an id, a title and a ``published``
date that reads as one), so a line an older version wrote with an unreadable date is handled again. A page the API
answers cut short or malformed records none of its papers and stops the run with `ArxivError` (the command exits
2); what earlier pages fetched stays, and a rerun asks for that page again.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, TypeGuard

from tqdm.auto import tqdm

from sciwrite.core.datasets import write_json
from sciwrite.core.jsonl import append_whole_line, ends_mid_line, iter_json_lines
from sciwrite.sources.arxiv import ArxivClient, ArxivError, ArxivPaper, EmptyPageError, category_query, iso_day

PAPERS_FILE = "papers.jsonl"
MANIFEST_FILE = "manifest.json"
HTML_DIR = "html"

# a paper's status after it was handled
FETCHED = "fetched"  # its HTML page is in html/
NO_HTML = "no-html"  # arXiv has no HTML page for this version (404)
NOT_LATEXML = "not-latexml"  # arXiv answered a page that LaTeXML did not write
WITHDRAWN = "withdrawn"  # the latest version withdraws the paper: no page asked
OUTSIDE_WINDOW = "outside-window"  # first submitted outside --since/--until
FAILED = "failed"  # the page could not be fetched (retried on the next run)
DONE = frozenset({FETCHED, NO_HTML, NOT_LATEXML, WITHDRAWN, OUTSIDE_WINDOW})


def is_latexml_page(html: str) -> bool:
    """arXiv's HTML papers are LaTeXML output: its generator comment or its ``ltx_`` classes."""
    head = html[:20000]
    return "LaTeXML" in head or 'class="ltx_document' in html or "ltx_page_main" in head


@dataclass
class FetchSummary:
    """What one `fetch_arxiv` run did."""

    out: Path
    #: status -> papers handled this run; also "already" (skipped), "new-version" (of those handled, how many were a
    #: new version) and "licence-asked-again"
    counts: Counter = field(default_factory=Counter)
    stopped: str | None = None  # why the search stopped before the end (an empty page), if it did
    seconds: float = 0.0
    n_requests: int = 0

    @property
    def papers_per_minute(self) -> float:
        handled = sum(self.counts[status] for status in (*DONE, FAILED))  # not "already", "new-version", ...
        return round(60 * handled / self.seconds, 2) if self.seconds else 0.0


def latest_states(folder: str | Path) -> dict[str, dict[str, Any]]:
    """Each paper's last line in ``papers.jsonl`` (arxiv id -> line); a line cut short by a crash is skipped."""
    path = Path(folder) / PAPERS_FILE
    if not path.exists():
        return {}
    states: dict[str, dict[str, Any]] = {}
    for _, _, line, problem in iter_json_lines(path):
        if problem is None and isinstance(line, dict) and "arxiv_id" in line:
            states[line["arxiv_id"]] = line
    return states


def is_complete(state: dict[str, Any]) -> bool:
    """Whether a ``papers.jsonl`` line records a whole paper: its id, title and a readable ``published`` date."""
    metadata = state.get("metadata")
    return (isinstance(metadata, dict) and bool(metadata.get("arxiv_id")) and bool(metadata.get("title"))
            and iso_day(metadata.get("published")) is not None)


def is_done(state: dict[str, Any] | None, version: int) -> TypeGuard[dict[str, Any]]:
    """Whether a paper's last line says it was handled, completely, at `version` (a rerun then skips it)."""
    return state is not None and state.get("version") == version and state.get("status") in DONE and is_complete(state)


def fetched_papers(folder: str | Path) -> list[tuple[ArxivPaper, Path]]:
    """The papers whose latest version's page is in the folder, in id order: what the builders read."""
    folder = Path(folder)
    if not (folder / PAPERS_FILE).exists():
        raise FileNotFoundError(f"{folder} holds no {PAPERS_FILE}: fetch it first with `sciwrite fetch arxiv "
                                f"--out {folder} ...`")
    papers = []
    for arxiv_id, state in sorted(latest_states(folder).items()):
        if state["status"] == FETCHED and is_complete(state):
            papers.append((ArxivPaper(**state["metadata"]), folder / state["html"]))
    return papers


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The folder's ``manifest.json`` (its query, window and counts)."""
    path = Path(folder) / MANIFEST_FILE
    if not path.exists():
        raise FileNotFoundError(f"{folder} holds no {MANIFEST_FILE}: fetch it with `sciwrite fetch arxiv`")
    return json.loads(path.read_text(encoding="utf-8"))


class _PapersLog:
    """``papers.jsonl``, appended one whole line per handled paper."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / PAPERS_FILE
        self.lead = "\n" if ends_mid_line(self.path) else ""  # never glue a line onto one cut short

    def write(self, paper: ArxivPaper, status: str, reason: str = "", html: str | None = None,
              replaces: int | None = None) -> None:
        line = {"arxiv_id": paper.arxiv_id, "version": paper.version, "status": status, "reason": reason,
                "html": html, "replaces_version": replaces, "handled_at": datetime.now(timezone.utc).isoformat(
                    timespec="seconds"), "metadata": paper.as_dict()}
        append_whole_line(self.path, self.lead + json.dumps(line, ensure_ascii=False))
        self.lead = ""


def _in_window(paper: ArxivPaper, since: date, until: date | None) -> bool:
    day = paper.published[:10]
    return bool(day) and since.isoformat() <= day and (until is None or day <= until.isoformat())


def _handle(paper: ArxivPaper, client: ArxivClient, folder: Path, log: _PapersLog, since: date,
            until: date | None, previous: dict[str, Any] | None) -> str:
    """Fetch one paper's page (or say why not); returns its status."""
    replaces = previous["version"] if previous and previous["version"] != paper.version else None
    if not _in_window(paper, since, until):
        status, reason, html_path = OUTSIDE_WINDOW, f"first submitted {paper.published or 'on an unknown date'}", None
    elif paper.withdrawn:
        status, reason, html_path = WITHDRAWN, paper.comment or paper.abstract[:200], None
    else:
        try:
            html = client.html(paper.versioned_id)
        except ArxivError as err:
            log.write(paper, FAILED, str(err), None, replaces)
            return FAILED
        if html is None:
            status, reason, html_path = NO_HTML, f"arXiv has no HTML page for {paper.versioned_id}", None
        elif not is_latexml_page(html):
            status, reason, html_path = NOT_LATEXML, "the page arXiv answered was not written by LaTeXML", None
        else:
            html_path = f"{HTML_DIR}/{paper.versioned_id}.html"
            target = folder / html_path
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(".part")
            tmp.write_text(html, encoding="utf-8")
            tmp.replace(target)  # a page is there whole or not at all
            status, reason = FETCHED, _fill_licence(paper, client)
    log.write(paper, status, reason, html_path, replaces)
    return status


def _fill_licence(paper: ArxivPaper, client: ArxivClient) -> str:
    """Give a fetched paper whose feed entry named no licence the one its OAI-PMH record names; returns a reason
    to record when that fails (the paper then counts as unknown: kept out of a published split)."""
    if paper.licence:
        return ""
    try:
        paper.licence = client.licence(paper.arxiv_id)
    except ArxivError as err:
        return f"licence unknown: {err}"
    return "" if paper.licence else "licence unknown: the OAI-PMH record names none"


def fetch_arxiv(categories: Sequence[str], since: date, out: str | Path, *, until: date | None = None,
                limit: int | None = None, client: ArxivClient | None = None,
                show_progress: bool = True) -> FetchSummary:
    """Fetch (or resume fetching) the papers of `categories` first submitted from `since` to `until` into `out`
    (see the module docstring); at most `limit` papers from the API."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    client = client or ArxivClient()
    query = category_query(categories, since, until)
    states = latest_states(folder)
    log = _PapersLog(folder)
    summary = FetchSummary(folder)
    started, sent_before = time.monotonic(), client.n_requests
    bar = tqdm(total=limit, desc="fetching arXiv papers", unit="paper", disable=not show_progress)
    try:
        for paper in client.search(query, limit=limit):
            previous = states.get(paper.arxiv_id)
            if is_done(previous, paper.version):
                summary.counts["already"] += 1
                if previous["status"] == FETCHED and not previous["metadata"].get("licence") and not paper.licence:
                    # fetched before, its licence unknown: ask OAI-PMH again (the page stays as it is)
                    reason = _fill_licence(paper, client)
                    log.write(paper, FETCHED, reason, previous["html"])
                    summary.counts["licence-asked-again"] += 1
            else:
                status = _handle(paper, client, folder, log, since, until, previous)
                summary.counts[status] += 1
                if previous and previous["version"] != paper.version:
                    summary.counts["new-version"] += 1
            bar.update(1)
    except EmptyPageError as err:
        summary.stopped = f"{err}; rerun to go on (what was fetched stays)"
    except ArxivError as err:  # a page cut short or malformed, a request that kept failing: the command fails
        summary.stopped = f"{err}; rerun to go on (what was fetched stays)"
        raise
    finally:
        bar.close()
        summary.seconds = time.monotonic() - started
        summary.n_requests = client.n_requests - sent_before
        write_manifest(folder, summary, categories, since, until, limit, client, query)
    return summary


def write_manifest(folder: Path, summary: FetchSummary, categories: Sequence[str], since: date,
                   until: date | None, limit: int | None, client: ArxivClient, query: str) -> dict[str, Any]:
    """``manifest.json``: the query and window, this run's counts and rate, and every paper's state by status."""
    states = latest_states(folder)
    by_status: dict[str, list[dict[str, Any]]] = {}
    for arxiv_id, state in sorted(states.items()):
        by_status.setdefault(state["status"], []).append(
            {"arxiv_id": arxiv_id, "version": state["version"], "reason": state["reason"], "html": state["html"],
             "licence": state["metadata"].get("licence", "")})
    manifest = {
        "source": "arXiv API (export.arxiv.org/api/query) and arXiv HTML pages (arxiv.org/html)",
        "query": query, "categories": list(categories), "since": since.isoformat(),
        "until": until.isoformat() if until else None, "limit": limit,
        "user_agent": client.user_agent, "min_interval_seconds": client.min_interval,
        "last_run": {"finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     "counts": dict(summary.counts), "stopped": summary.stopped,
                     "seconds": round(summary.seconds, 1), "requests": summary.n_requests,
                     "papers_per_minute": summary.papers_per_minute},
        "papers": {status: len(rows) for status, rows in sorted(by_status.items())},
        "by_status": by_status,
    }
    write_json(folder / MANIFEST_FILE, manifest)
    return manifest


__all__ = ["DONE", "FAILED", "FETCHED", "FetchSummary", "MANIFEST_FILE", "NOT_LATEXML", "NO_HTML", "OUTSIDE_WINDOW",
           "PAPERS_FILE", "WITHDRAWN", "fetch_arxiv", "fetched_papers", "is_complete", "is_done", "is_latexml_page",
           "latest_states", "read_manifest"]
