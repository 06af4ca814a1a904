"""The one text-table printer family: plain tables, and wide tables with group headers (a paper's layout)."""

from __future__ import annotations

from sciwrite.core.tables import cell, format_grouped_table, format_table


def test_cells():
    assert cell(0.123456) == "0.1235" and cell(float("nan")) == "nan" and cell(None) == "-"
    assert cell(None, none="not computed") == "not computed" and cell(7) == "7" and cell("x") == "x"


def test_plain_table_aligns_and_keeps_left_columns_flush_left():
    text = format_table([{"a": "x", "b": "long", "n": 1.0}, {"a": "yy", "b": "s", "n": None}], left=2)
    assert text.split("\n") == ["a   b          n",
                                "--  ----  ------",
                                "x   long  1.0000",
                                "yy  s       None"]
    assert format_table([]) == "(no rows)"


def test_grouped_table_centres_each_group_over_its_columns():
    text = format_grouped_table([["sys", 0.5, None, 1.0]], "system", {"CQ": ["P", "R"], "TQ": ["LLM"]})
    # widths 6 / 6 / 1 / 6: CQ spans 6 + 2 + 1 columns, TQ 6; str.center pads with '-'
    assert text.split("\n") == ["        --- CQ --  - TQ -",
                                "system       P  R     LLM",
                                "sys     0.5000  -  1.0000"]
