"""SurGE's results table (``sciwrite paper-table surge-table1``), what `sciwrite evaluate surge` prints for a system
(`report_text`) and the leaderboard's columns beside the table (`board_values`), on hand-made summaries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sciwrite.cli import main
from sciwrite.core.summary import Summary
from sciwrite.surge.metrics.board import BOARD_GROUPS, board_values
from sciwrite.surge.metrics.report import format_surge_table, report_text
from sciwrite.surge.paper_tables import table1
from tests.cli.error_line import error_line

TABLE_KEYS = ("reference_coverage", "relevance_paper", "relevance_section", "relevance_sentence",
              "structure_quality", "sh_recall", "rouge1", "rouge2", "rougeL", "bleu", "logic")
NLI_WHY = "the 'lite' profile has no surge_nli model; other profiles use [paper: cross-encoder/nli-deberta-v3-base]"
JUDGE_WHY = "the 'lite' profile has no surge_judge model; other profiles use [paper: gpt-4o]"


def surge_summary(system: str, **values: Any) -> dict[str, Any]:
    """A SurGE summary as `sciwrite evaluate surge` writes it: every table metric (null where not computed)."""
    return {"schema_version": 2, "system": system, "split": "sample", "n_papers": 2, "profile": "lite",
            **{key: None for key in TABLE_KEYS}, "citation_precision": None, **values,
            "provenance": {"benchmark": "surge"}}


def write(path: Path, summary: dict[str, Any]) -> Path:
    path.write_text(json.dumps(summary), encoding="utf-8")
    return path


def test_table1_through_the_cli_marks_the_best_of_each_column(tmp_path, capsys):
    rag = write(tmp_path / "rag.json", surge_summary("rag", reference_coverage=0.25, relevance_paper=0.5,
                                                     structure_quality=3.5, sh_recall=0.6, rouge1=0.3, bleu=0.05))
    naive = write(tmp_path / "naive.json", surge_summary("naive", reference_coverage=0.125, structure_quality=4.0,
                                                         sh_recall=0.7, rouge1=0.3, bleu=0.02))
    out = tmp_path / "t1"
    assert main(["paper-table", "surge-table1", "--summary", f"RAG={rag}", f"Naive={naive}", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.startswith("System"))
    assert header.split("  ")[0] == "System" and [c.strip() for c in header.split("  ") if c.strip()][1:] == [
        "Coverage", "Relevance (paper)", "Relevance (section)", "Relevance (sentence)", "Structure quality",
        "SH-Recall", "ROUGE-1", "ROUGE-2", "ROUGE-L", "BLEU", "Logic"]
    groups = next(line for line in text.splitlines() if "Information collection" in line)
    assert groups.index("Information collection") < groups.index("Survey structure") < groups.index("Survey content")
    rag_line = next(line for line in text.splitlines() if line.startswith("RAG"))
    assert rag_line.split() == ["RAG", "0.2500*", "0.5000", "\u2013", "\u2013", "3.5000", "0.6000", "0.3000*",
                                "\u2013", "\u2013", "0.0500*", "\u2013"]
    rows = json.loads(out.with_suffix(".json").read_text())
    # best of each column over the systems: a tie marks both, a column with one number marks none
    assert {row["system"]: sorted(row["best"]) for row in rows} == {
        "RAG": ["BLEU", "Coverage", "ROUGE-1"], "Naive": ["ROUGE-1", "SH-Recall", "Structure quality"]}
    assert rows[1]["Structure quality"] == 4.0 and rows[1]["Relevance (paper)"] is None
    assert out.with_suffix(".csv").is_file()


def test_table1_groups_and_notes():
    table = table1({"a": Summary.from_json(surge_summary("a", bleu=0.1))})
    assert table.groups == {"Information collection": TABLE_KEYS[:4], "Survey structure": TABLE_KEYS[4:6],
                            "Survey content": TABLE_KEYS[6:]}
    assert not table.rows[0].best  # one system: nothing to compare
    assert any("BLEU is sacrebleu's sentence BLEU / 100" in note for note in table.notes)


def test_table1_refuses_a_sciig_summary_in_one_line(tmp_path, capsys):
    rag = write(tmp_path / "rag.json", surge_summary("rag", rouge1=0.3))
    sciig = write(tmp_path / "sciig.json", {"schema_version": 2, "system": "x", "rouge1": 0.3, "rougeL": 0.2,
                                            "provenance": {"benchmark": "sciig"}})
    line = error_line(["paper-table", "surge-table1", "--summary", f"RAG={rag}", f"X={sciig}"], capsys)
    assert f"X={sciig}" in line and "a sciig summary, not SurGE's" in line


def test_table1_refuses_one_run_given_twice(tmp_path, capsys):
    rag = write(tmp_path / "rag.json", surge_summary("rag", rouge1=0.3))
    line = error_line(["paper-table", "surge-table1", "--summary", f"A={rag}", f"B={rag}"], capsys)
    assert "one run given twice" in line


def report_summary(**changes: Any) -> Summary:
    """A lite run over 2 of the sample's 4 surveys: relevance and the judges not computed, one lexical error."""
    data = surge_summary(
        "rag", reference_coverage=0.0625, sh_recall=0.4381, rouge1=0.169, rouge2=0.0318, rougeL=0.1059, bleu=0.0728,
        citation_precision=0.375,
        not_computed={"relevance_paper": NLI_WHY, "relevance_section": NLI_WHY, "relevance_sentence": NLI_WHY,
                      "structure_quality": JUDGE_WHY, "logic": JUDGE_WHY},
        models={"heading_encoder": "packaged:all-MiniLM-L6-v2"},
        intervals={"citation_precision": [0.0, 0.75]}, interval_method="percentile bootstrap over papers",
        n_resamples=50, confidence=0.95,
        join={"n_matched": 2, "n_missing": 2, "n_extra": 0, "missing": ["s3", "s4"], "extra": [],
              "n_rejected_lines": 0, "rejected_lines": []},
        coverage={"n_scored": 2, "n_split": 4, "complete": False},
        grounding={"grounding_found_rate": 0.25, "grounding_hallucination_rate": 0.625,
                   "grounding_ambiguous_rate": 0.125, "grounding_outside_rate": None, "grounded_precision": 0.25,
                   "grounded_recall": 0.0435,
                   "counts": {"found": 2, "ambiguous": 1, "not_found": 2, "exists_outside_corpus": 0, "invalid": 0},
                   "n_references": 5, "n_papers": 2, "n_papers_listing": 2, "sources": ["references"],
                   "n_invalid_lists": 0, "problems": [], "lookup": "offline, corpus only", "threshold": 0.83,
                   "intervals": {"grounding_found_rate": [0.0, 0.5], "grounding_hallucination_rate": [0.25, 1.0],
                                 "grounded_precision": [0.0, 0.5], "grounded_recall": [0.0, 0.087]},
                   "interval_method": "percentile bootstrap over papers", "n_resamples": 50, "confidence": 0.95},
        scoring_errors={"lexical": {"s2": "no paragraph of 100 characters or more"}})
    data.update(changes)
    return Summary.from_json(data)


def test_report_prints_not_computed_with_the_reason(tmp_path):
    text = report_text([report_summary()], tmp_path)
    lines = text.splitlines()
    assert "rag: SurGE sample: 2/4 surveys scored (2 missing, 0 extra, 0 rejected lines); profile lite" in lines
    assert "missing: 2 surveys have no prediction, e.g. ['s3', 's4']" in lines

    def value_of(label: str) -> str:
        line = next(line for line in lines if f"  {label}  " in f"  {line}  ")
        return line.split(label, 1)[1].strip()

    assert value_of("Coverage") == "0.0625" and value_of("SH-Recall") == "0.4381"
    assert value_of("Relevance (paper)") == "not computed" and value_of("Logic") == "not computed"
    assert (f"not computed: Relevance (paper), Relevance (section), Relevance (sentence): {NLI_WHY}" in lines)
    assert f"not computed: Structure quality, Logic: {JUDGE_WHY}" in lines
    grounding = next(line for line in lines if line.startswith("rag: references: "))
    assert grounding.startswith("rag: references: Cit. prec. 0.3750, Found 0.2500, Not found 0.6250")
    assert grounding.endswith("(Coverage as the fuzzy resolver finds it: 0.0435)")
    assert "models: heading_encoder=packaged:all-MiniLM-L6-v2" in lines
    assert "scoring error: lexical: 1 survey(s) not scored, e.g. s2: no paragraph of 100 characters or more" in lines
    assert lines[-1] == (f"wrote {tmp_path / 'rag' / 'per_paper.jsonl'}, {tmp_path / 'rag' / 'summary.json'} and "
                         f"{tmp_path / 'rag' / 'summary.csv'}")


def test_table_lines_follow_the_evaluator_groups():
    table = format_surge_table(report_summary(not_computed={}))
    body = [line for line in table.splitlines()[2:] if line.strip()]
    assert [line.split("  ")[0] for line in body if not line.startswith(" ")] == [
        "Information collection", "Survey structure", "Survey content"]
    assert "not computed" not in table  # nothing left out: None shows as a dash
    assert len(body) == len(TABLE_KEYS)


def test_board_values_read_citation_precision_and_the_grounding_with_intervals():
    assert BOARD_GROUPS == {"Citations": (("citation_precision", "Cit. prec."),),
                            "Grounding": (("grounding_found_rate", "Found"), ("grounding_hallucination_rate", "Not found"),
                                          ("grounded_precision", "G-Prec."), ("grounded_recall", "G-Rec."),
                                          ("grounding_verdict_fabricated_rate", "Fabricated"),
                                          ("grounding_verdict_metadata_mismatch_rate", "Meta. mismatch"))}
    assert board_values(report_summary()) == {
        "citation_precision": (0.375, 0.0, 0.75), "grounding_found_rate": (0.25, 0.0, 0.5),
        "grounding_hallucination_rate": (0.625, 0.25, 1.0), "grounded_precision": (0.25, 0.0, 0.5),
        "grounded_recall": (0.0435, 0.0, 0.087),  # scored before the checker: no verdict rates
        "grounding_verdict_fabricated_rate": (None, None, None),
        "grounding_verdict_metadata_mismatch_rate": (None, None, None)}


def test_board_values_without_intervals_or_grounding():
    values = board_values(report_summary(grounding=None, intervals=None))
    assert values["citation_precision"] == (0.375, None, None)
    assert {key: values[key] for key in values if key != "citation_precision"} == {
        key: (None, None, None) for key in ("grounding_found_rate", "grounding_hallucination_rate",
                                            "grounded_precision", "grounded_recall",
                                            "grounding_verdict_fabricated_rate",
                                            "grounding_verdict_metadata_mismatch_rate")}


def test_the_table_is_listed(capsys):
    assert main(["paper-table", "--list"]) == 0
    assert "surge-table1" in capsys.readouterr().out
