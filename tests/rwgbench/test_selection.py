"""RWGBench test-set selection rules and accepted-title lists."""

from __future__ import annotations

import json

import pytest

from sciwrite.rwgbench.data.schema import PAPER_FEATURES
from sciwrite.rwgbench.data.selection import RULES, SelectionReport, read_accepted_titles, select_test_papers

CORPUS = {f"d{i}" for i in range(60)}
ACCEPTED = {"A Good Paper": "ICLR 2024", "Another Good Paper": "NeurIPS 2023", "Third Paper": "ICML 2024",
            "Fourth Paper": "ICLR 2024", "Fifth Paper": ""}


def candidate(paper_id, *, title="A Good Paper", n=20, rate=0.99, coverage=1.0, citations=None):
    return {
        "paper_id": paper_id, "title": title, "abstract": "abs", "introduction": "intro",
        "related_work": "Prior work [1].", "citations": citations if citations is not None else [f"d{i}" for i in range(n)],
        "venue": "arXiv", "year": 2024, "extraction_rate": rate, "n_cited": n, "coverage": coverage,
    }


def test_each_rule_rejects_with_counts():
    candidates = [
        candidate("ok1"),
        candidate("ok-10", title="another good paper", n=10),
        candidate("ok-50", title="THIRD PAPER.", n=50),
        candidate("rate-95", rate=0.95),
        candidate("rate-90", rate=0.90),
        candidate("rate-none", rate=None),
        candidate("n9", n=9),
        candidate("n51", n=51),
        candidate("n0", n=0),
        candidate("rejected-title", title="Not In The List"),
        candidate("no-title", title=None),
        candidate("cov", coverage=0.95),
        candidate("outside", citations=[f"d{i}" for i in range(11)] + ["zzz"]),
        candidate("ok1", title="Fourth Paper"),
    ]
    kept, report = select_test_papers(candidates, ACCEPTED, CORPUS)
    assert [p["paper_id"] for p in kept] == ["ok1", "ok-10", "ok-50"]
    assert report.n_candidates == 14 and report.n_kept == 3
    assert report.rejected == {"extraction-rate": 3, "citation-count": 3, "not-accepted": 2,
                               "citation-coverage": 2, "duplicate-paper_id": 1}
    assert report.examples["extraction-rate"] == ["rate-95", "rate-90", "rate-none"]
    assert report.examples["citation-count"] == ["n9", "n51", "n0"]
    assert report.examples["citation-coverage"] == ["cov", "outside"]
    summary = report.summary()
    assert "14 candidates, 3 kept" in summary and "rejected by citation-count: 3 (e.g. n9, n51, n0)" in summary


def test_first_failing_rule_counts_only():
    # fails every rule: counted once, under extraction-rate
    kept, report = select_test_papers([candidate("bad", rate=0.5, n=3, title="Nope", coverage=0.1)], ACCEPTED, CORPUS)
    assert kept == [] and report.rejected["extraction-rate"] == 1 and sum(report.rejected.values()) == 1


def test_kept_record_has_paper_schema_and_venue():
    kept, _ = select_test_papers(
        [candidate("p1"), candidate("p2", title="Fifth Paper")], ACCEPTED, sorted(CORPUS)
    )
    assert set(kept[0]) == set(PAPER_FEATURES)
    assert kept[0]["venue"] == "ICLR 2024"
    assert kept[1]["venue"] == "arXiv"  # accepted list names no venue: kept as is
    assert kept[0]["citations"] == [f"d{i}" for i in range(20)]


def test_plain_title_list_and_thresholds():
    kept, report = select_test_papers(
        [candidate("p", n=5, rate=0.9)], ["a good paper"], CORPUS, min_extraction_rate=0.8, min_citations=5
    )
    assert [p["venue"] for p in kept] == ["arXiv"] and report.n_kept == 1


def test_empty_report():
    kept, report = select_test_papers([], ACCEPTED, CORPUS)
    assert kept == [] and isinstance(report, SelectionReport)
    assert report.rejected == dict.fromkeys(RULES, 0)


def test_read_accepted_titles_csv(tmp_path):
    path = tmp_path / "accepted.csv"
    path.write_text('Title,Venue\n"Graphs, Again: A Study",ICLR 2024\nPlain Paper,NeurIPS 2023\n,ICML\n'
                    "Plain Paper,ICML 2024\n", encoding="utf-8")
    assert read_accepted_titles(path) == {"Graphs, Again: A Study": "ICLR 2024", "Plain Paper": "NeurIPS 2023"}


def test_read_accepted_titles_tsv_without_venue(tmp_path):
    path = tmp_path / "accepted.tsv"
    path.write_text("title\nOne Paper\nTwo  Papers \n", encoding="utf-8")
    assert read_accepted_titles(path) == {"One Paper": None, "Two Papers": None}


def test_read_accepted_titles_jsonl_and_txt(tmp_path):
    jsonl = tmp_path / "accepted.jsonl"
    jsonl.write_text(json.dumps({"title": "J One", "venue": "ICML 2024"}) + "\n\n" + json.dumps({"title": "J Two"}) + "\n")
    assert read_accepted_titles(jsonl) == {"J One": "ICML 2024", "J Two": None}
    txt = tmp_path / "accepted.txt"
    txt.write_text("T One\n\nT Two\n")
    assert read_accepted_titles(txt) == {"T One": None, "T Two": None}


def test_read_accepted_titles_needs_title_column(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("name,venue\nx,y\n")
    with pytest.raises(ValueError, match="no 'title' column"):
        read_accepted_titles(path)


def test_read_then_select(tmp_path):
    path = tmp_path / "accepted.csv"
    path.write_text("title,venue\nA Good Paper,ICLR 2024\n")
    kept, _ = select_test_papers([candidate("p")], read_accepted_titles(path), CORPUS)
    assert kept[0]["venue"] == "ICLR 2024"
