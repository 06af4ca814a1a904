"""The papers' tables as text, JSON and CSV (`sciwrite.core.paper_tables`), on a small hand-made table; and the
summaries a table reads, checked against its benchmark and metrics (`SummaryKind`), with their rows by the one check
of a result, and never one run twice."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from sciwrite.cli import main
from sciwrite.core.paper_tables import TableData, TableRow, best_columns, number_cell, records, render, write
from sciwrite.rwgbench.metrics.report import TABLE2_METRICS
from sciwrite.rwgbench.paper_tables import TABLE3_METRICS
from sciwrite.sciig.metrics.tables import TABLE3_ROWS


def small_table() -> TableData:
    rows = (
        TableRow(("Lexical", "ROUGE-1"), {"a": 0.5, "b": 0.25}, {"a": "0.50", "b": "0.25"}, frozenset({"a"})),
        TableRow(("Lexical", "BLEU"), {"a": None, "b": 0.1}, {"a": "\u2013", "b": "0.10"}),
        TableRow(("Fluency", "Perplexity"), {"a": 20.0, "b": 30.0}, {"a": "20.00", "b": "30.00"}, frozenset({"a"})),
    )
    return TableData("Table 9. Small.", ("Category", "Metric"), (("a", "Sys A"), ("b", "Sys B")), rows,
                     groups={"Data": ("a", "b")}, blocks={2: "Block two"}, notes=("Lower perplexity is better.",),
                     merged_labels=1)


def test_render_prints_the_layout_cell_by_cell():
    lines = render(small_table()).splitlines()
    assert lines[0] == "Table 9. Small." and lines[1] == ""
    assert lines[2].split() == ["----", "Data", "---"]  # the group over its two columns
    assert lines[3].split() == ["Category", "Metric", "Sys", "A", "Sys", "B"]
    assert lines[4].split() == ["Lexical", "ROUGE-1", "0.50*", "0.25"]
    assert lines[5].split() == ["BLEU", "\u2013", "0.10"]  # the category only on its group's first row
    assert lines[6] == "Block two"
    assert lines[7].split() == ["Fluency", "Perplexity", "20.00*", "30.00"]
    assert lines[-2:] == ["Lower perplexity is better.", "* marks the best value of a row (bold in the paper)."]


def test_records_and_files_hold_the_raw_values(tmp_path):
    rows = records(small_table())
    assert rows[0] == {"category": "Lexical", "metric": "ROUGE-1", "Sys A": 0.5, "Sys B": 0.25, "best": ["Sys A"]}
    assert rows[1]["Sys A"] is None and rows[1]["best"] == []
    json_path, csv_path = write(small_table(), tmp_path / "t9")
    assert json.loads(json_path.read_text()) == rows
    with csv_path.open() as f:
        assert [r["Sys B"] for r in csv.DictReader(f)] == ["0.25", "0.1", "30.0"]


def test_best_columns_and_number_cells():
    assert best_columns({"a": 1.0, "b": 2.0, "c": 2.0}) == {"b", "c"}  # a tie marks both
    assert best_columns({"a": 1.0, "b": 2.0}, lower_is_better=True) == {"a"}
    assert best_columns({"a": 1.0, "b": None}) == frozenset()  # fewer than two numbers: nothing to compare
    assert number_cell(0.123456, 4) == "0.1235" and number_cell(None, 2) == "\u2013"


# -- the summaries a table reads: its benchmark's, with its metrics (issue 37) ------------------------------------

RWGBENCH_METRICS = dict.fromkeys(TABLE2_METRICS, 0.5)
SCIIG_METRICS = {key: 25.0 if key == "perplexity" else 0.25 for _, _, key in TABLE3_ROWS}  # a perplexity is >= 1


def summary_file(tmp_path, name, body, benchmark=None):
    """A summary.json as `sciwrite evaluate` writes one (with provenance when `benchmark` is given: schema 2)."""
    summary = {"system": name, "split": "sample", **body}
    if benchmark:
        summary = {"schema_version": 2, **summary, "provenance": {"benchmark": benchmark}}
    path = tmp_path / name / "summary.json"
    path.parent.mkdir()
    path.write_text(json.dumps(summary))
    return path


def refused(capsys, argv):
    assert main(["paper-table", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sciwrite: error: ") and len(err.strip().splitlines()) == 1
    return err


def test_a_summary_of_another_benchmark_is_refused_naming_the_file(tmp_path, capsys):
    """`rwgbench-table2 --summary` took a SciIG summary, `sciig-table3` an RWGBench one (marked best)."""
    sciig = summary_file(tmp_path, "intro", SCIIG_METRICS, "sciig")
    rwg = summary_file(tmp_path, "rag", RWGBENCH_METRICS, "rwgbench")
    err = refused(capsys, ["rwgbench-table2", "--summary", str(rwg), str(sciig)])
    assert f"{sciig}: a sciig summary, not RWGBench's: rwgbench-table2 lays out RWGBench summaries only" in err
    err = refused(capsys, ["sciig-table3", "--summary", f"SHORT={sciig}", f"MEDIUM={rwg}"])
    assert f"MEDIUM={rwg}: a rwgbench summary, not SciIG's" in err
    assert f"{rwg}: a rwgbench summary" in refused(capsys, ["sciig-table2", "--summary", f"m={rwg.parent}"])
    assert f"{rwg}: a rwgbench summary" in refused(capsys, ["sciig-table4", "--summary", f"MEDIUM={rwg}"])
    assert f"{sciig}: a sciig summary" in refused(capsys, ["rwgbench-table2", "--summary", str(rwg),
                                                           "--human-gt", str(sciig)])
    assert f"{sciig}: a sciig summary" in refused(capsys, ["rwgbench-table3", "--evals", str(rwg.parent),
                                                           str(sciig.parent), str(rwg.parent)])


def test_a_summary_without_provenance_needs_the_tables_metrics(tmp_path, capsys):
    """Before schema 1 a summary named no benchmark: its metrics must be most of the table's."""
    old_rwg = summary_file(tmp_path, "old_rag", RWGBENCH_METRICS)
    assert main(["paper-table", "rwgbench-table2", "--summary", str(old_rwg)]) == 0
    assert "old_rag" in capsys.readouterr().out
    err = refused(capsys, ["sciig-table3", "--summary", f"SHORT={old_rwg}"])
    assert f"SHORT={old_rwg}: holds 2 of sciig-table3's 24 metrics (lacks rouge1, rouge2, bleu, meteor" in err
    assert "not a SciIG summary; give sciig-table3 the summary.json of `sciwrite evaluate sciig`" in err


def test_a_file_that_is_no_sciwrite_summary_is_refused(tmp_path, capsys):
    """A summary from another tool became a row of dashes."""
    other = summary_file(tmp_path, "other_tool", {"accuracy": 0.91, "f1": 0.88})
    for argv in (["rwgbench-table2", "--summary", str(other)], ["sciig-table2", "--summary", f"m={other}"],
                 ["rwgbench-table3", "--evals", *[str(other.parent)] * 3]):
        assert f"{other}: not a sciwrite summary: it has no provenance and none of" in refused(capsys, argv)
    empty = summary_file(tmp_path, "empty", {}, "sciig")  # a SciIG summary holding none of the metrics: dashes
    assert f"{empty}: holds 0 of sciig-table3's 24 metrics" in refused(capsys, ["sciig-table3", "--summary",
                                                                                f"SHORT={empty}"])


@pytest.mark.parametrize(("content", "problem"), [("{not json", "not valid JSON"), ("[1, 2]", "not a JSON object"),
                                                  ('{"benchmark": "rwgbench", "rows": 3}', "'rows' must be a list")])
def test_a_broken_table5_file_is_one_line_naming_it(tmp_path, capsys, content, problem):
    path = tmp_path / "table5.json"
    path.write_text(content)
    assert problem in refused(capsys, ["rwgbench-table5", "--analysis", str(path)])


# -- every summary a table reads passes the one check of a result, and no run counts twice (issue 48) -------------

def evaluation_folder(tmp_path, name, precision_rows=(0.25, 0.75), **fields):
    """An RWGBench evaluation folder: a summary with Table 2's and Table 3's metrics, and the two rows they come
    from (every metric 0.5 in both, but precision: `precision_rows`)."""
    metrics = {**RWGBENCH_METRICS, **{key: 0.5 for key, _ in TABLE3_METRICS}}
    path = summary_file(tmp_path, name, {**metrics, "precision": sum(precision_rows) / 2, **fields}, "rwgbench")
    path.with_name("per_paper.jsonl").write_text("".join(
        json.dumps({"paper_id": f"p{i}", **metrics, "precision": value}) + "\n"
        for i, value in enumerate(precision_rows)))
    return path.parent


def test_a_table_refuses_an_impossible_nested_field_or_row(tmp_path, capsys):
    bad_coverage = evaluation_folder(tmp_path, "a", coverage={"n_scored": 500, "n_split": 144})
    err = refused(capsys, ["rwgbench-table2", "--summary", str(bad_coverage)])
    assert (f"{bad_coverage / 'summary.json'}, record 'a', field 'coverage.n_scored': coverage.n_scored is 500, more "
            "than the split's 144 papers") in err
    bad_row = evaluation_folder(tmp_path, "b", precision_rows=(1.5, -0.5))  # the summary's mean unchanged: 0.5
    err = refused(capsys, ["rwgbench-table3", "--evals", str(bad_row)])
    assert f"{bad_row / 'per_paper.jsonl'}:1, record 'p0', field 'precision': precision is 1.5, outside" in err


def test_the_same_run_under_two_paths_is_refused(tmp_path, capsys):
    """Table 3 correlates three systems: one folder copied (and renamed) was counted as two of them."""
    first, other = evaluation_folder(tmp_path, "first"), evaluation_folder(tmp_path, "other", (0.5, 1.0))
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    renamed = json.loads((copy / "summary.json").read_text())
    (copy / "summary.json").write_text(json.dumps({**renamed, "system": "copy"}))
    err = refused(capsys, ["rwgbench-table3", "--evals", str(first), str(other), str(copy)])
    assert f"{copy / 'summary.json'}: holds the same scores as {first / 'summary.json'} (one run given twice)" in err
    err = refused(capsys, ["rwgbench-table2", "--summary", str(first), "--human-gt", str(copy)])
    assert "holds the same scores as" in err
    short, medium = summary_file(tmp_path, "s1", SCIIG_METRICS, "sciig"), summary_file(tmp_path, "s2", SCIIG_METRICS,
                                                                                       "sciig")
    err = refused(capsys, ["sciig-table3", "--summary", f"SHORT={short}", f"MEDIUM={medium}"])
    assert err.startswith(f"sciwrite: error: MEDIUM={medium}: holds the same scores as {short}")


def test_one_run_may_fill_the_two_columns_of_one_prompt(tmp_path, capsys):
    """SciIG's Zero-Shot is the ELABORATE prompt: the same run may be given for both."""
    elaborate = summary_file(tmp_path, "elaborate", SCIIG_METRICS, "sciig")
    assert main(["paper-table", "sciig-table3", "--summary", f"ELABORATE={elaborate}",
                 f"zero-shot={elaborate}"]) == 0
    assert "Zero-Shot" in capsys.readouterr().out
