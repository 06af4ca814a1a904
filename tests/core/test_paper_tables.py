"""The papers' tables as text, JSON and CSV (`sciwrite.core.paper_tables`), on a small hand-made table."""

from __future__ import annotations

import csv
import json

from sciwrite.core.paper_tables import TableData, TableRow, best_columns, number_cell, records, render, write


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
