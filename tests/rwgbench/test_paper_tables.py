"""RWGBench's Tables 1, 2 and 3 on hand-made inputs, checked cell by cell, and the Human GT prediction file."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.core.paper_tables import render
from sciwrite.core.summary import Summary
from sciwrite.rwgbench.data.build_commands import human_gt_records
from sciwrite.rwgbench.metrics.report import table2
from sciwrite.rwgbench.paper_tables import config_statistics, coverage_from_report, table1, table3, words

PAPER = {"papers": 40108, "citations": 14.7, "rw_words": 578.4, "abstract_words": 179.2, "coverage": 0.582,
         "corpus_size": 1091394, "corpus_abstract_words": 165.0}
TEST = {**PAPER, "papers": 100, "citations": 24.66, "rw_words": 687.0, "abstract_words": 200.0, "coverage": 1.0}


def test_table1_cells_as_the_paper_prints_them():
    table = table1({"papers": PAPER, "test": TEST})
    assert [label for _, label in table.columns] == ["Full Dataset", "Test Set"]
    cells = {row.labels[0]: (row.cells["papers"], row.cells["test"]) for row in table.rows}
    assert cells == {"Papers": ("40,108", "100"), "Avg. Citations": ("14.7", "24.7"),
                     "Avg. RW Length (words)": ("578", "687"), "Avg. Abstract Length (words)": ("179", "200"),
                     "Citation Coverage in Corpus": ("58.2%", "100.0%"), "Corpus Size": ("1,091,394", "1,091,394"),
                     "Corpus Avg. Abstract Length (words)": ("165", "165")}
    assert table1({"sample": {**PAPER, "coverage": None}}).rows[4].cells["sample"] == "\u2013"


def test_words_and_coverage(tmp_path):
    assert words("Prior work [1] and [2, 3] studies [4\u20136] parsing.") == 5
    assert coverage_from_report(tmp_path, ["a"]) is None  # no build report
    (tmp_path / "build_report.json").write_text(json.dumps({"per_paper": [
        {"paper_id": "a", "coverage": 0.5}, {"paper_id": "b", "coverage": 1.0}, {"paper_id": "c", "coverage": 0.0}]}))
    assert coverage_from_report(tmp_path, ["a", "b"]) == 0.75


def summary(model, method, retriever, oracle=False, **values):
    base = {key: None for key in ("precision", "recall", "soft_citation_recall", "claim_support_consistency",
                                  "topical_relevance", "citation_density", "citation_distribution_balance",
                                  "positioning_structure_similarity", "citation_frame_alignment", "rougeL",
                                  "bertscore_f1", "llm_judge")}
    return Summary.from_json({**base, **values, "system": f"{model}-{method}",
                              "run": {"model": model, "method": method, "retriever": retriever, "oracle": oracle}})


def test_table2_blocks_rows_and_the_human_gt_row():
    summaries = [summary("Human", "GT", "oracle", True, precision=1.0, recall=1.0),
                 summary("Qwen", "direct", None, citation_density=0.35),
                 summary("Qwen", "tag", "bm25", precision=0.161),
                 summary("Qwen", "rag", "bm25", precision=0.0964),
                 summary("Qwen", "rag", "oracle", True, precision=0.97)]
    table = table2(summaries)
    assert [row.labels for row in table.rows] == [("", "Qwen", "RAG"), ("", "Qwen", "TAG"), ("", "Qwen", "RAG"),
                                                  ("", "Qwen", "Direct"), ("", "Human", "GT")]
    assert table.blocks == {0: "BM25 (Sparse Retrieval)", 2: "Oracle (Ground-Truth Citations)", 3: "Baselines"}
    assert [row.cells["precision"] for row in table.rows] == ["0.096", "0.161", "0.970", "\u2013", "1.000"]
    text = render(table).splitlines()
    assert text[3].split()[:4] == ["Retriever", "Model", "Method", "Prec."]
    assert text[-3].split()[:5] == ["Human", "GT", "1.000", "1.000", "\u2013"]


def test_table3_spearman_as_printed():
    systems = {f"s{i}": Summary.from_json({
        "recall": r, "soft_citation_recall": r * 2, "claim_support_consistency": -r, "topical_relevance": t,
        "positioning_structure_similarity": r, "citation_frame_alignment": r, "llm_judge": r})
               for i, (r, t) in enumerate([(0.1, 0.3), (0.2, 0.1), (0.3, 0.2)])}
    table = table3(systems)
    assert [label for _, label in table.columns] == ["Rec.", "Soft", "CSC", "TRT", "PSS", "CFA", "LLM"]
    first = table.rows[0]
    assert first.labels == ("Rec.",) and first.cells["soft_citation_recall"] == "1.00"
    assert first.cells["claim_support_consistency"] == "-1.00" and first.cells["topical_relevance"] == "-0.50"
    assert table.notes[0].startswith("Spearman correlations across 3 systems")


def test_table3_of_lite_summaries_shows_what_was_not_computed_as_a_dash():
    """Offline summaries hold no soft recall, CSC or judge (None): their rows and columns read "–", a note names
    them, and the other metrics' correlations are the same as with them."""
    systems = {f"s{i}": Summary.from_json({
        "recall": r, "soft_citation_recall": None, "claim_support_consistency": None, "topical_relevance": t,
        "positioning_structure_similarity": r, "citation_frame_alignment": -r, "llm_judge": None})
               for i, (r, t) in enumerate([(0.1, 0.3), (0.2, 0.1), (0.3, 0.2)])}
    table = table3(systems)
    assert len(table.rows) == 7
    first = table.rows[0]
    assert first.cells["soft_citation_recall"] == "–" and first.cells["llm_judge"] == "–"
    assert first.cells["topical_relevance"] == "-0.50" and first.cells["citation_frame_alignment"] == "-1.00"
    assert all(cell == "–" for cell in table.rows[1].cells.values())  # the Soft row
    assert any("Soft, CSC, LLM" in note for note in table.notes)


def test_human_gt_records_cite_the_gold_list():
    paper = {"paper_id": "p", "related_work": "X [1] and Y [2].", "citations": ["d1", "d2"]}
    [record] = human_gt_records([paper], "test")
    assert (record["text"], record["candidates"], record["model"], record["method"]) == \
        ("X [1] and Y [2].", ["d1", "d2"], "Human", "GT")


def test_the_command_lists_tables_and_says_what_table5_needs(capsys):
    assert main(["paper-table", "--list"]) == 0
    listed = capsys.readouterr().out
    for name in ("rwgbench-table1", "rwgbench-table2", "rwgbench-table3", "rwgbench-table5", "sciig-table1",
                 "sciig-table2", "sciig-table3", "sciig-table5"):
        assert name in listed
    with pytest.raises(SystemExit) as stopped:  # Table 5 is printed from the human-evaluation kit's analysis
        main(["paper-table", "rwgbench-table5"])
    assert stopped.value.code == 2 and "--analysis" in capsys.readouterr().err
    assert main(["paper-table"]) == 2


@pytest.mark.usefixtures("mini_sample_copy")
def test_table1_on_the_sample_folder(mini_sample_copy, capsys):
    assert main(["paper-table", "rwgbench-table1", "--configs", "sample", "--source", str(mini_sample_copy)]) == 0
    out = capsys.readouterr().out
    assert "Statistic" in out and "Sample" in out and "Corpus Size" in out


def test_table1_refuses_a_corpus_config_before_loading_it():
    with pytest.raises(ValueError, match="'corpus' is a corpus config; Table 1 reads paper configs"):
        config_statistics("corpus", None)
