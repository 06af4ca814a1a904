"""SciIG's Tables 1, 2 and 3 on hand-made inputs, checked cell by cell."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.core.paper_tables import render
from sciwrite.core.summary import Summary
from sciwrite.sciig.paper_tables import _spread, table1, table2, table3


def test_table1_cells_as_the_paper_prints_them():
    stats = {"samples": 800, "introduction": {"mean": 597.14, "std": 228.38, "median": 610.0, "min": 66, "max": 1546},
             "abstract": {"mean": 169.3, "std": 76.7, "median": 162.0, "min": 25, "max": 1748},
             "citations": {"mean": 13.4, "min": 1, "max": 45}}
    [row] = table1({"naacl_2025": stats}).rows
    assert row.labels == ("NAACL 2025",)
    assert row.cells == {"samples": "800", "intro_mean": "597.1 \u00b1 228.4", "intro_median": "610.0",
                         "intro_range": "66\u20131,546", "abstract_mean": "169.3 \u00b1 76.7",
                         "abstract_median": "162.0", "abstract_range": "25\u20131,748", "citations_mean": "13.4",
                         "citations_range": "1\u201345"}
    spread = _spread([1, 2, 3, 10])
    assert (spread["mean"], spread["median"], spread["min"], spread["max"]) == (4, 2.5, 1, 10)
    assert round(spread["std"], 4) == 4.0825  # the sample standard deviation (n - 1)


def summary(dataset, **values):
    return {"dataset": dataset, "not_computed": {"bleurt": "no model"}, "bleurt": None, **values}


def typed(dataset, **values):
    return Summary.from_json(summary(dataset, **values))


def test_table2_columns_by_dataset_and_best_per_dataset():
    table = table2({"LLaMA4": typed("naacl_2025", rouge1=0.4402, perplexity=18.487),
                    "Gemma": typed("naacl_2025", rouge1=0.4361, perplexity=32.3897),
                    "iclr_2025/LLaMA4": typed("iclr_2025", rouge1=0.4298, perplexity=21.1194)})
    assert table.groups == {"NAACL 2025": ("naacl_2025/LLaMA4", "naacl_2025/Gemma"),
                            "ICLR 2025": ("iclr_2025/LLaMA4",)}
    rows = {row.labels[1]: row for row in table.rows}
    assert list(dict.fromkeys(row.labels[0] for row in table.rows)) == [
        "Lexical Overlap", "Semantic Similarity", "Content Coverage", "Faithfulness", "Consistency",
        "Citation Correctness", "Narrative Quality"]
    assert rows["ROUGE-1"].cells == {"naacl_2025/LLaMA4": "0.4402", "naacl_2025/Gemma": "0.4361",
                                     "iclr_2025/LLaMA4": "0.4298"}
    assert rows["ROUGE-1"].best == {"naacl_2025/LLaMA4"}  # the ICLR group has one column: nothing to mark
    assert rows["Perplexity \u2193"].best == {"naacl_2025/LLaMA4"}  # lower is better
    assert rows["BLEURT"].cells["naacl_2025/Gemma"] == "\u2013"
    assert "Entailment-based Consistency" in rows and "Recall" in rows and "Precision" in rows
    text = render(table)
    assert "0.4402*" in text and "Lower perplexity values indicate better performance" in text


def test_table3_marks_the_best_of_each_paradigm():
    table = table3({level: Summary.from_json({"rouge1": value}) for level, value in (
        ("SHORT", 0.4261), ("MEDIUM", 0.4513), ("ZERO_SHOT", 0.4402), ("THREE_SHOT", 0.4460))})
    row = table.rows[0]
    assert row.cells["ELABORATE"] == "0.4402"  # Zero-Shot is the ELABORATE prompt
    assert row.best == {"MEDIUM", "THREE_SHOT"} and row.cells["AUTOCOT"] == "\u2013"


def test_the_command_writes_json_and_csv(tmp_path, capsys):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"schema_version": 1, **summary("sample", rouge1=0.3),
                                "provenance": {"benchmark": "sciig"}}))
    assert main(["paper-table", "sciig-table2", "--summary", f"extractive={path}", "--out", str(tmp_path / "t2")]) == 0
    assert "Lexical Overlap" in capsys.readouterr().out
    rows = json.loads((tmp_path / "t2.json").read_text())
    assert rows[0] == {"category": "Lexical Overlap", "metric": "ROUGE-1", "extractive": 0.3, "best": []}
    with pytest.raises(SystemExit) as usage:  # a usage error, named
        main(["paper-table", "sciig-table2", "--summary", "no-equals-sign"])
    assert usage.value.code == 2 and "expected NAME=PATH" in capsys.readouterr().err


def test_table4_the_input_ablation():
    from sciwrite.sciig.paper_tables import table4

    table = table4({"ELABORATE/title": Summary.from_json({"rouge1": 0.3545}),
                    "ELABORATE/title-abstract": Summary.from_json({"rouge1": 0.4093}),
                    "elaborate": Summary.from_json({"rouge1": 0.4402, "summac_faithfulness": 0.1077}),
                    "MEDIUM/title": Summary.from_json({"rouge1": 0.3356})})
    assert table.groups == {"ELABORATE": ("ELABORATE/title", "ELABORATE/title-abstract",
                                          "ELABORATE/title-abstract-related"),
                            "MEDIUM": ("MEDIUM/title", "MEDIUM/title-abstract", "MEDIUM/title-abstract-related")}
    assert [label for _, label in table.columns][:3] == ["Title-only", "Title+Abstract", "T+A+Related"]
    rouge = table.rows[0]
    assert [rouge.cells[key] for key, _ in table.columns] == ["0.3545", "0.4093", "0.4402", "0.3356", "\u2013",
                                                              "\u2013"]
    assert not rouge.best  # Table 4 sets nothing in bold
    faith = next(row for row in table.rows if row.labels[1] == "Entailment-based Faitfulness")  # sic, as printed
    assert faith.cells["ELABORATE/title-abstract-related"] == "0.1077"
    with pytest.raises(ValueError, match="Table 4's columns"):
        table4({"SHORT/title": Summary()})
