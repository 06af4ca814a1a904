#!/usr/bin/env python
"""Issue 26's figures for fresh arXiv test sets: papers fetched per minute under arXiv's rate rule, and the share of
fetched papers that the RWGBench filters keep and that the SciIG builder keeps, on a recorded sample.

No network here, so the sample is recorded rather than live: the 250 ACL papers the ``aclsum`` package holds, as
GROBID recorded them (real titles, abstracts, sections, bibliographies and citation links; a citation GROBID could
not link stays unlinked), each written as a LaTeXML page of arXiv's structure and served with arXiv metadata by the
fake arXiv of the tests (``tests/fakes/arxiv.py``). The fake also serves the offline sample corpus's documents as
arXiv papers, so cited works missing from the corpus and cited works' abstracts are found by the same title
lookups a real build sends (offline, only the corpus documents that have an abstract can be found, so most cited
works lack one; the SciIG share is printed with the default rule and with cited works' abstracts not required).
GROBID left some citations unlinked where a LaTeX source's links would not be, so this sample's extraction rates
are a lower bound of arXiv's. Every paper is given a CC BY licence: this sample records no licences, so the licence
filter's share cannot be measured offline (the builders apply it; the build reports count it).

- rate: `--rate-papers` papers fetched with the real rule (one request every 3 s): one API page, then one HTML page
  per paper, so the rate tends to 20 papers a minute;
- keep shares: every paper fetched with no wait (a local fake), then both builders with their default rules.

    python scripts/bench/fresh_sets.py [--rate-papers 12] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import date
from html import escape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.fakes
from sciwrite.core.tables import format_table  # noqa: E402
from sciwrite.rwgbench.data.arxiv_build import build_rwgbench_from_arxiv  # noqa: E402
from sciwrite.rwgbench.data.configs import default_rwgbench_dir  # noqa: E402
from sciwrite.rwgbench.data.loading import load_rwgbench  # noqa: E402
from sciwrite.sciig.data.arxiv_build import build_sciig_from_arxiv  # noqa: E402
from sciwrite.sources.aclsum import aclsum_paper_dir  # noqa: E402
from sciwrite.sources.arxiv import MIN_INTERVAL, ArxivClient  # noqa: E402
from sciwrite.sources.arxiv_fetch import fetch_arxiv  # noqa: E402
from sciwrite.sources.grobid import author_names, bib_entries, load_grobid_json, paragraphs  # noqa: E402
from tests.fakes.arxiv import ArxivServer  # noqa: E402

CC_BY = "http://creativecommons.org/licenses/by/4.0/"
SINCE, UNTIL = date(2026, 7, 1), date(2026, 7, 31)


def bib_label(entry: dict) -> str:
    lasts = [a.get("last", "") for a in entry.get("authors") or [] if a.get("last")]
    names = (lasts[0] if len(lasts) == 1 else f"{lasts[0]} and {lasts[1]}" if len(lasts) == 2
             else f"{lasts[0]} et al." if lasts else "Anonymous")
    return f"{names} ({entry.get('year') or 'n.d.'})"


def latexml_page(doc: dict) -> str:
    """One GROBID-recorded paper as a LaTeXML page: sections in order, citations linked as GROBID linked them."""
    bibs = bib_entries(doc)
    number = {ref_id: i + 1 for i, ref_id in enumerate(bibs)}
    sections: dict[str, list[str]] = {}
    for para in paragraphs(doc):
        text, at = "", 0
        for span in sorted(para.cite_spans, key=lambda s: s["start"]):
            text += escape(para.text[at:span["start"]])
            inner = escape(para.text[span["start"]:span["end"]])
            link = number.get(span.get("ref_id"))
            text += (f'<cite class="ltx_cite"><a href="#bib.bib{link}" class="ltx_ref">{inner}</a></cite>' if link
                     else f'<cite class="ltx_cite">{inner}</cite>')
            at = span["end"]
        text += escape(para.text[at:])
        sections.setdefault(para.section or "Body", []).append(f'<div class="ltx_para"><p class="ltx_p">{text}</p></div>')
    body = "".join(f'<section id="S{k}" class="ltx_section"><h2 class="ltx_title ltx_title_section"><span class="'
                   f'ltx_tag ltx_tag_section">{k} </span>{escape(heading)}</h2>{"".join(paras)}</section>'
                   for k, (heading, paras) in enumerate(sections.items(), start=1))
    items = "".join(
        f'<li id="bib.bib{number[ref_id]}" class="ltx_bibitem"><span class="ltx_tag ltx_tag_bibitem">'
        f'{escape(bib_label(e))}</span><span class="ltx_bibblock">{escape(", ".join(author_names(e.get("authors"))))}'
        f'. {e.get("year") or ""}.</span><span class="ltx_bibblock">{escape(e.get("title") or "")}.</span>'
        f'<span class="ltx_bibblock">{escape(e.get("venue") or "")}.</span></li>' for ref_id, e in bibs.items())
    return (f'<!DOCTYPE html><html><head><title>{escape(doc.get("title") or "")}</title><!--Generated by LaTeXML '
            f'(version 0.8.8)--></head><body><article class="ltx_document"><h1 class="ltx_title ltx_title_document">'
            f'{escape(doc.get("title") or "")}</h1><div class="ltx_abstract"><p class="ltx_p">'
            f'{escape(doc.get("abstract") or "")}</p></div>{body}<section class="ltx_bibliography"><ul class="'
            f'ltx_biblist">{items}</ul></section></article></body></html>')


def recorded_sample() -> tuple[list[dict], dict[str, str], list[dict]]:
    """(target papers' arXiv metadata, their pages by versioned id, the corpus documents served as arXiv papers)."""
    papers, pages = [], {}
    for i, path in enumerate(sorted(aclsum_paper_dir().glob("*.json"))):
        doc = load_grobid_json(path)
        arxiv_id = f"2607.{i + 1:05d}"
        papers.append({"arxiv_id": arxiv_id, "version": 1, "published": f"2026-07-{1 + i % 28:02d}",
                       "title": doc.get("title") or path.stem, "abstract": doc.get("abstract") or "",
                       "authors": author_names(doc.get("authors")), "licence": CC_BY})
        pages[f"{arxiv_id}v1"] = latexml_page(doc)
    cited = [{"arxiv_id": f"2001.{i + 1:05d}", "version": 1, "published": f"{row['year'] or 2019}-01-01",
              "title": row["title"], "abstract": row["abstract"], "authors": row["authors"], "licence": CC_BY}
             for i, row in enumerate(load_rwgbench("sample_corpus")) if row["abstract"]]
    return papers, pages, cited


def shares(funnel: list[dict]) -> list[dict]:
    return [{"step": r["step"], "papers": r["papers"], "share of fetched": f"{r['share_of_fetched']:.1%}"}
            for r in funnel]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate-papers", type=int, default=12, help="papers fetched under the 3 s rule")
    parser.add_argument("--out", help="also write the figures as JSON")
    args = parser.parse_args()
    papers, pages, cited = recorded_sample()
    figures: dict = {}
    with ArxivServer(papers + cited, pages) as server, tempfile.TemporaryDirectory() as tmp:
        polite = ArxivClient(server.api_url, server.html_url, min_interval=MIN_INTERVAL)
        started = time.monotonic()
        rate = fetch_arxiv(["cs.CL"], SINCE, Path(tmp) / "rate", until=UNTIL, limit=args.rate_papers, client=polite)
        figures["rate"] = {"papers": sum(rate.counts.values()), "requests": rate.n_requests,
                           "seconds": round(time.monotonic() - started, 1), "papers_per_minute": rate.papers_per_minute}
        print(f"fetch under arXiv's rule (one request every {MIN_INTERVAL:g} s): {figures['rate']['papers']} papers, "
              f"{rate.n_requests} requests in {figures['rate']['seconds']} s = {rate.papers_per_minute} papers a "
              "minute")

        fast = ArxivClient(server.api_url, server.html_url, min_interval=0.0)
        folder = Path(tmp) / "fetched"
        fetched = fetch_arxiv(["cs.CL"], SINCE, folder, until=UNTIL, client=fast)
        print(f"\nrecorded sample: {dict(fetched.counts)} (no wait: a local fake)")
        stats = build_rwgbench_from_arxiv(folder, default_rwgbench_dir(), Path(tmp) / "rwgbench",
                                          corpus_config="sample_corpus", client=fast)
        report = json.loads((Path(tmp) / "rwgbench" / "build_report.json").read_text())
        figures["rwgbench"] = {"filters": report["filters"], "corpus_documents_added_from_arxiv":
                               stats["corpus_documents_added_from_arxiv"]}
        print("\nRWGBench filters (§3.3; the venue filter left out), share of the fetched papers each step keeps:")
        print(format_table(shares(report["filters"])))
        print(f"cited works added to the corpus from arXiv by title: {stats['corpus_documents_added_from_arxiv']}")

        figures["sciig"] = {}
        for rule, allow in (("every cited work with an abstract (the default)", False),
                            ("cited works without an abstract allowed (--allow-missing-abstracts)", True)):
            records, sciig_report, fresh = build_sciig_from_arxiv(folder, client=fast, allow_missing_abstracts=allow)
            skipped = {k: len(v) for k, v in sorted(sciig_report.skipped.items())}
            figures["sciig"][rule] = {"fetched": fresh["fetched_pages"], "kept": len(records),
                                      "kept_share_of_fetched": fresh["kept_share_of_fetched"], "skipped": skipped,
                                      "abstracts": dict(sciig_report.enrichment)}
            print(f"\nSciIG builder, {rule}: {len(records)} of {fresh['fetched_pages']} fetched papers kept "
                  f"({fresh['kept_share_of_fetched']:.1%}); skipped: {skipped}; cited works' abstracts: "
                  f"{dict(sciig_report.enrichment)}")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
