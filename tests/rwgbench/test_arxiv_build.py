"""`sciwrite build rwgbench --from-arxiv`: a fresh split from papers fetched off a fake arXiv, with the paper's
filters (§3.3), cited works missing from the corpus added from arXiv (§3.2), and only redistributable licences."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from datasets import Dataset

from sciwrite.cli import main
from sciwrite.rwgbench.data.arxiv_build import build_rwgbench_from_arxiv
from sciwrite.rwgbench.data.configs import card_configs_yaml, write_dataset_folder
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.sources.arxiv import ArxivClient
from sciwrite.sources.arxiv_fetch import fetch_arxiv
from sciwrite.sources.corpus import CORPUS_FEATURES
from sciwrite.sources.licences import LicenceRule
from tests.fakes.arxiv import ArxivServer
from tests.latexml_pages import Page, Work

CC_BY = "http://creativecommons.org/licenses/by/4.0/"
ARXIV_ONLY = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
WORKS = [Work(f"A study of retrieval topic {chr(97 + i)} for citation generation", year=2010 + i) for i in range(13)]
ON_ARXIV = 11  # cited, missing from the corpus, found on arXiv by title
NOWHERE = 12  # cited, missing from the corpus and from arXiv


def arxiv_record(n: int, licence: str = CC_BY, **fields) -> dict:
    return {"arxiv_id": f"2607.{n:05d}", "version": 1, "published": f"2026-07-{n:02d}", "title": f"Fresh paper {n}",
            "abstract": f"Abstract of fresh paper {n}.", "authors": ["Ada Lovelace"], "licence": licence, **fields}


@pytest.fixture()
def fetched(tmp_path: Path) -> dict:
    kept = Page("Fresh paper 1", "a", WORKS, related_cites=range(12))
    uncovered = Page("Fresh paper 2", "b", WORKS, related_cites=[*range(11), NOWHERE])
    dangling = Page("Fresh paper 3", "c", WORKS, related_cites=range(12), dangling=1)
    few = Page("Fresh paper 4", "d", WORKS, related_cites=range(5))
    closed = Page("Fresh paper 5", "e", WORKS, related_cites=range(12))
    no_related = Page("Fresh paper 6", "f", WORKS, sections=("Introduction", "Method"))
    pages = [kept, uncovered, dangling, few, closed, no_related]
    papers = [arxiv_record(n, ARXIV_ONLY if n == 5 else CC_BY) for n in range(1, 7)]
    cited_on_arxiv = {"arxiv_id": "2401.00011", "version": 3, "published": "2024-01-11",
                      "title": WORKS[ON_ARXIV].title, "abstract": "Found on arXiv.", "authors": ["Ann Author"],
                      "licence": CC_BY}
    server = ArxivServer(papers + [cited_on_arxiv],
                         {f"{p['arxiv_id']}v1": page.html() for p, page in zip(papers, pages)}).start()
    client = ArxivClient(server.api_url, server.html_url, min_interval=0.0, backoff=0.01)
    folder = tmp_path / "arxiv"
    summary = fetch_arxiv(["cs.CL"], date(2026, 7, 1), folder, until=date(2026, 7, 31), client=client,
                          show_progress=False)
    assert dict(summary.counts) == {"fetched": 6}  # the cited 2024 paper is outside the window
    corpus_dir = tmp_path / "corpus"
    rows = [{"doc_id": f"c{i}", "title": w.title, "abstract": f"about {i}", "authors": list(w.authors),
             "year": w.year, "source": "surge"} for i, w in enumerate(WORKS[:11])]
    write_dataset_folder(corpus_dir, {"corpus": Dataset.from_list(rows, features=CORPUS_FEATURES)},
                         f"---\n{card_configs_yaml(['corpus'])}---\n# corpus\n")
    yield {"folder": folder, "corpus": corpus_dir, "client": client, "server": server, "out": tmp_path / "fresh"}
    server.close()


def test_fresh_split_keeps_what_the_papers_rules_keep(fetched):
    server = fetched["server"]
    server.requests.clear()
    stats = build_rwgbench_from_arxiv(fetched["folder"], fetched["corpus"], fetched["out"], client=fetched["client"],
                                      show_progress=False)
    # two titles missing from the corpus were asked for; one is on arXiv
    asked = sorted(r["query"]["search_query"] for r in server.api_requests())
    assert asked == [f'ti:"{WORKS[ON_ARXIV].title}"', f'ti:"{WORKS[NOWHERE].title}"']
    out = fetched["out"]
    test = load_rwgbench("test", source=out)
    assert test["paper_id"] == ["2607.00001"]
    row = test[0]
    assert (row["arxiv_id"], row["arxiv_version"], row["published"], row["licence"]) == (
        "2607.00001", 1, "2026-07-01", "cc-by-4.0")
    assert row["year"] == 2026 and row["venue"] == "arXiv"
    assert row["citations"] == [f"c{i}" for i in range(11)] + ["arxiv:2401.00011"]
    corpus = load_rwgbench("corpus", source=out)
    added = corpus[corpus["doc_id"].index("arxiv:2401.00011")]
    assert (added["abstract"], added["year"], added["source"]) == ("Found on arXiv.", 2024, "arxiv")
    # every paper with a related-work section and a redistributable licence is in `papers`
    assert sorted(load_rwgbench("papers", source=out)["paper_id"]) == ["2607.00001", "2607.00002", "2607.00003",
                                                                       "2607.00004"]
    report = json.loads((out / "build_report.json").read_text())
    funnel = {r["step"]: r["papers"] for r in report["filters"]}
    assert funnel == {"fetched pages": 6, "with a related-work section (parsed)": 5,
                      "citation extraction rate > 95 %": 4, "10 to 50 citations": 3,
                      "every citation in the corpus": 2, "not a duplicate": 2, "redistributable licence": 1}
    assert report["licence_rejected"] == ["2607.00005"] and report["skipped_pages"] == {
        "no-related-work": ["2607.00006"]}
    assert stats["test_share_of_fetched"] == round(1 / 6, 4) and stats["corpus_documents_added_from_arxiv"] == 1
    card = (out / "README.md").read_text()
    assert "license: cc-by-4.0" in card and "papers first submitted 2026-07-01 to 2026-07-31" in card
    assert "| cc-by-4.0 | 1 |" in card and "| redistributable licence | 1 | 16.7% |" in card


def test_a_rebuild_asks_arxiv_nothing_and_keep_all_licences_marks_the_card(fetched):
    build_rwgbench_from_arxiv(fetched["folder"], fetched["corpus"], fetched["out"], client=fetched["client"],
                              show_progress=False)
    fetched["server"].requests.clear()
    build_rwgbench_from_arxiv(fetched["folder"], fetched["corpus"], fetched["out"], client=fetched["client"],
                              licences=LicenceRule(keep_all=True), show_progress=False)
    assert fetched["server"].requests == []  # the title lookups came from cited_lookups.jsonl
    assert sorted(load_rwgbench("test", source=fetched["out"])["paper_id"]) == ["2607.00001", "2607.00005"]
    card = (fetched["out"] / "README.md").read_text()
    assert "license: other" in card and "Not for redistribution" in card


def test_the_command_line_builds_it_without_arxiv_lookups(fetched, capsys):
    fetched["server"].requests.clear()
    status = main(["build", "rwgbench", "--from-arxiv", str(fetched["folder"]), "--corpus-source", str(fetched["corpus"]),
                   "--no-arxiv-lookup", "--out", str(fetched["out"])])
    assert status == 0 and fetched["server"].requests == []
    assert "fresh RWGBench split written to" in capsys.readouterr().out
    # without the lookup the cited work on arXiv is missing, so paper 1 fails the coverage rule too
    assert not (fetched["out"] / "test").exists()
    assert main(["build", "rwgbench", "--from-arxiv", str(fetched["folder"]), "--out", str(fetched["out"])]) == 2
    assert "--from-arxiv needs --corpus-source" in capsys.readouterr().err


def test_a_fresh_split_is_scored_with_the_cutoff_read_from_its_dates(fetched, tmp_path, capsys):
    build_rwgbench_from_arxiv(fetched["folder"], fetched["corpus"], fetched["out"], client=fetched["client"],
                              licences=LicenceRule(keep_all=True), show_progress=False)
    human = tmp_path / "human.jsonl"
    assert main(["build", "rwgbench-human-gt", "--split", "test", "--source", str(fetched["out"]),
                 "--out", str(human)]) == 0
    out = tmp_path / "eval"
    assert main(["evaluate", "rwgbench", "--split", "test", "--source", str(fetched["out"]), "--predictions",
                 str(human), "--profile", "lite", "--metrics", "precision", "--bootstrap", "0",
                 "--cutoff", "2026-07-03", "--out", str(out)]) == 0
    summary = json.loads((out / "human" / "summary.json").read_text())
    # papers 1 (July 1st) and 5 (July 5th): one on each side of July 3rd
    assert (summary["cutoff"]["n_before"], summary["cutoff"]["n_after"]) == (1, 1)
    assert summary["cutoff"]["metrics"]["precision"]["mean_a"] == 1.0
    assert summary["memorisation"]["mean"] > 0.9
    assert (out / "cutoff.csv").exists() and (out / "cutoff.png").exists()
