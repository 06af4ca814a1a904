"""`sciwrite build sciig --from-arxiv`: SciIG records from LaTeXML pages fetched off a fake arXiv: the introduction
with its author-year citations, the cited works keyed as printed, their abstracts from arXiv by title."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from sciwrite.cli import main
from sciwrite.sciig.data.arxiv_build import build_sciig_from_arxiv, citation_key
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sources.arxiv import ArxivClient
from sciwrite.sources.arxiv_fetch import fetch_arxiv
from sciwrite.sources.latexml import BibEntry, parse_arxiv_introduction
from sciwrite.sources.licences import LicenceRule
from tests.fakes.arxiv import ArxivServer
from tests.latexml_pages import Page, Work

CC_BY = "http://creativecommons.org/licenses/by/4.0/"
ARXIV_ONLY = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
WORKS = [Work("Attention over retrieved passages", ("Ann Li", "Bo Wang", "Cy Chen"), 2021),
         Work("Citation recommendation with graphs", ("Dee Smith", "Eve Jones"), 2022),
         Work("A survey of scientific writing aids", ("Fay Brown",), 2023),
         Work("An unpublished workshop note", ("Gus Gray", "Hal Hale", "Ida Ives"), 2019)]
NOT_ON_ARXIV = 3


def target(n: int, licence: str = CC_BY) -> dict:
    return {"arxiv_id": f"2608.{n:05d}", "version": 2, "published": f"2026-08-{n:02d}", "title": f"Fresh paper {n}",
            "abstract": f"Abstract {n}.", "authors": ["Ada Lovelace"], "licence": licence}


@pytest.fixture()
def fetched(tmp_path: Path) -> dict:
    pages = [Page("Fresh paper 1", "Abstract 1.", WORKS, intro_cites=[0, 1, 2, 0]),
             Page("Fresh paper 2", "Abstract 2.", WORKS, intro_cites=[1, NOT_ON_ARXIV]),
             Page("Fresh paper 3", "Abstract 3.", WORKS, sections=("Background", "Method")),
             Page("Fresh paper 4", "Abstract 4.", WORKS, intro_cites=[0, 1]),
             Page("Fresh paper 5", "Abstract 5.", WORKS, intro_cites=[2, 1]),
             Page("Fresh paper 6", "Abstract 6.", WORKS, intro_cites=[0, 1], intro_dangling=1)]
    targets = [target(n, ARXIV_ONLY if n == 4 else CC_BY) for n in range(1, 7)]
    cited = [{"arxiv_id": f"2101.{i:05d}", "version": 1, "published": f"{w.year}-01-10", "title": w.title,
              "abstract": f"What {w.title.lower()} found.", "authors": list(w.authors), "licence": CC_BY}
             for i, w in enumerate(WORKS[:NOT_ON_ARXIV])]
    server = ArxivServer(targets + cited, {f"{t['arxiv_id']}v2": p.html() for t, p in zip(targets, pages)}).start()
    client = ArxivClient(server.api_url, server.html_url, min_interval=0.0, backoff=0.01)
    folder = tmp_path / "arxiv"
    fetch_arxiv(["cs.CL"], date(2026, 8, 1), folder, until=date(2026, 8, 31), client=client, show_progress=False)
    yield {"folder": folder, "client": client, "server": server, "out": tmp_path / "sciig"}
    server.close()


def test_citation_keys_as_printed():
    assert citation_key(BibEntry("bib.bib1", "T", label="Barrón-Cedeño et al. (2018)")) == "Barrón-Cedeño et al., 2018"
    assert citation_key(BibEntry("bib.bib2", "T", label="”Baly et al. (2018b)")) == "Baly et al., 2018b"
    assert citation_key(BibEntry("bib.bib3", "T", ["Ann Li", "Bo Wang"], 2020, label="[3]")) == "Li and Wang, 2020"
    assert citation_key(BibEntry("bib.bib4", "T", label="[4]")) == "[4]"


def test_the_introduction_keeps_its_citations_and_lists_the_cited_works_in_order():
    parsed = parse_arxiv_introduction(Page("T", "A.", WORKS, intro_cites=[2, 0, 2]).html(), "2608.00009")
    assert parsed.introduction.startswith("Large language models write fluent text number 0 (Brown, 2023).")
    assert "(Li et al., 2021)" in parsed.introduction
    assert [e.title for e in parsed.cited] == [WORKS[2].title, WORKS[0].title]
    assert parsed.n_citations == 3 and parsed.extraction_rate == 1.0


def test_fresh_sciig_records(fetched):
    records, report, fresh = build_sciig_from_arxiv(fetched["folder"], client=fetched["client"], show_progress=False)
    assert [r["paper_id"] for r in records] == ["2608.00001", "2608.00005"]
    one = records[0]
    assert [n["key"] for n in one["neighbors"]] == ["Li et al., 2021", "Smith and Jones, 2022", "Brown, 2023"]
    assert one["neighbors"][0]["abstract"] == "What attention over retrieved passages found."
    assert one["neighbors"][1]["authors"] == ["Dee Smith", "Eve Jones"]
    assert "(Smith and Jones, 2022)" in one["introduction"]
    assert (one["arxiv_id"], one["arxiv_version"], one["published"], one["licence"], one["year"]) == (
        "2608.00001", 2, "2026-08-01", "cc-by-4.0", 2026)
    assert {k: v for k, v in report.skipped.items()} == {
        "cited-work-missing-abstract": ["2608.00002"], "no-introduction": ["2608.00003"],
        "licence-not-redistributable": ["2608.00004"], "citation-extraction-rate": ["2608.00006"]}
    assert fresh["kept_share_of_fetched"] == round(2 / 6, 4) and fresh["licence"] == "cc-by-4.0"
    assert fresh["since"] == "2026-08-01" and fresh["until"] == "2026-08-31"
    # the works cited by the kept and the skipped papers were each asked for once
    titles = sorted(r["query"]["search_query"] for r in fetched["server"].api_requests()
                    if r["query"]["search_query"].startswith("ti:"))
    assert titles == sorted(f'ti:"{w.title}"' for w in WORKS)


def test_the_command_line_writes_the_arxiv_config_and_its_card(fetched, capsys):
    server = fetched["server"]
    status = main(["build", "sciig", "--from-arxiv", str(fetched["folder"]), "--out", str(fetched["out"]),
                   "--arxiv-api-url", server.api_url, "--arxiv-min-interval", "0", "--allow-missing-abstracts"])
    assert status == 0, capsys.readouterr().err
    assert "SciIG config 'arxiv' written to" in capsys.readouterr().out
    both = load_sciig("arxiv", source=fetched["out"], split="all")
    ids = sorted([*both["test"]["paper_id"], *both["holdout"]["paper_id"]])
    assert ids == ["2608.00001", "2608.00002", "2608.00005"]  # paper 2 kept with an empty abstract
    assert set(both["test"].column_names) >= {"arxiv_id", "arxiv_version", "published", "licence"}
    card = (fetched["out"] / "README.md").read_text()
    assert "license: cc-by-4.0" in card
    assert "### `arxiv`: fresh arXiv papers first submitted 2026-08-01 to 2026-08-31" in card
    report = json.loads((fetched["out"] / "build_report.json").read_text())
    assert report["arxiv"]["fresh"]["licences"] == {"cc-by-4.0": 3}
    # --keep-all-licences keeps the arXiv-only paper and says the folder is not for redistribution
    assert main(["build", "sciig", "--from-arxiv", str(fetched["folder"]), "--out", str(fetched["out"]),
                 "--no-arxiv-lookup", "--allow-missing-abstracts", "--keep-all-licences"]) == 0
    card = (fetched["out"] / "README.md").read_text()
    assert "license: other" in card and "not for redistribution" in card
    assert LicenceRule(keep_all=True).split_licence({"cc-by-4.0"}) == "other"
