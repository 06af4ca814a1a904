"""SciIG Table 3 (Garg et al., arXiv:2508.14273): one model under the prompting regimes, laid out as the paper.

Rows are the paper's Table 3 rows in its order and with its labels, category first (printed on the first row
of its group only): Lexical Overlap, Semantic Similarity, Content Coverage, Faithfulness, Consistency, Citation
Correctness, Narrative Quality. Columns are its two paradigms: Instruction-Level (Short, Medium, Elaborate,
AutoCoT) and Few-Shot (Zero-Shot, One-Shot, Two-Shot, Three-Shot). Values are printed as the paper prints them:
four decimals, perplexity included (lower is better, hence "Perplexity ↓"); "-" marks a metric not computed or
a level not given. Labels are copied from the paper, including its spelling "Entailement-based Consistency".

The input is the `sciwrite evaluate sciig` summary of each level's run, keyed by prompt level
(``SHORT``, ``MEDIUM``, ``ELABORATE``, ``AUTOCOT``, ``ZERO_SHOT``, ``ONE_SHOT``, ``TWO_SHOT``, ``THREE_SHOT``, any
case). Zero-Shot *is* the ELABORATE prompt (the paper's Table 11; its Table 3 prints the same numbers in both
columns), so a summary given for only one of ``ELABORATE`` / ``ZERO_SHOT`` fills both columns.
``AUTOCOT_PIPELINE`` (our variant) is not a Table 3 column and is refused.

    from sciwrite.core.results import load_summary
    from sciwrite.sciig.metrics.tables import format_table3
    print(format_table3({"SHORT": load_summary("eval/short/summary.json"), ...}))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sciwrite.core.coverage import Coverage, with_coverage
from sciwrite.core.metric_spec import printed_rows
from sciwrite.core.summary import Summary
from sciwrite.core.tables import cell, format_grouped_table
from sciwrite.sciig.generation.prompts import normalize_level
from sciwrite.sciig.metrics.specs import METRICS, TABLE3

#: (category, label as printed in Table 3, summary key), in the paper's row order: declared with each metric
#: (`sciwrite.sciig.metrics.specs`; the labels copied from the paper, its spellings included).
TABLE3_ROWS: tuple[tuple[str, str, str], ...] = tuple((printed.category, printed.label, spec.key)
                                                      for spec, printed in printed_rows(METRICS, TABLE3))
#: Paradigm -> [(column label as printed, prompt level)], in the paper's column order.
TABLE3_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "Instruction-Level": (("Short", "SHORT"), ("Medium", "MEDIUM"), ("Elaborate", "ELABORATE"),
                          ("AutoCoT", "AUTOCOT")),
    "Few-Shot": (("Zero-Shot", "ZERO_SHOT"), ("One-Shot", "ONE_SHOT"), ("Two-Shot", "TWO_SHOT"),
                 ("Three-Shot", "THREE_SHOT")),
}
TABLE3_LEVELS: tuple[str, ...] = tuple(level for columns in TABLE3_COLUMNS.values() for _, level in columns)
#: Levels that are one and the same prompt (Table 11: ZERO_SHOT is "Same as the ELABORATE prompt").
SAME_PROMPT = {"ZERO_SHOT": "ELABORATE", "ELABORATE": "ZERO_SHOT"}


def summaries_by_column(summaries: Mapping[str, Summary]) -> dict[str, Summary]:
    """Level -> summary for the eight columns (level names normalised; ELABORATE / ZERO_SHOT fill each other);
    a level that is not a Table 3 column raises `ValueError`."""
    by_level: dict[str, Summary] = {}
    for name, summary in summaries.items():
        level = normalize_level(name)
        if level not in TABLE3_LEVELS:
            raise ValueError(f"{level} is not a column of SciIG Table 3 ({', '.join(TABLE3_LEVELS)})")
        by_level[level] = summary
    for level, same in SAME_PROMPT.items():
        if level not in by_level and same in by_level:
            by_level[level] = by_level[same]
    return by_level


def column_value(summary: Summary | None, key: str) -> Any:
    """A table cell's value: the summary's `key`, None when the column has no summary or the metric was not
    computed."""
    if summary is None or key in summary.not_computed:
        return None
    return summary.reported(key)


def column_coverage(summary: Summary | None) -> Coverage | None:
    """The papers a column's summary covers (None: no summary), for its label (`with_coverage`)."""
    return summary.scored if summary is not None else None


def table3_rows(summaries: Mapping[str, Summary]) -> list[dict[str, Any]]:
    """Table 3 as data: one dict per row with ``category``, ``metric`` (the paper's label), ``key`` and one
    entry per column label (``Short`` ... ``Three-Shot``), None where not computed or not given."""
    by_level = summaries_by_column(summaries)
    rows = []
    for category, label, key in TABLE3_ROWS:
        row: dict[str, Any] = {"category": category, "metric": label, "key": key}
        for columns in TABLE3_COLUMNS.values():
            for column, level in columns:
                row[column] = column_value(by_level.get(level), key)
        rows.append(row)
    return rows


def format_table3(summaries: Mapping[str, Summary]) -> str:
    """Table 3 as aligned text (`sciwrite.core.tables.format_grouped_table`): the paradigm names over their
    columns, then ``Category  Metric  Short ... Three-Shot`` (a level over part of the split says n/N papers), the
    category printed on its group's first row."""
    rows = table3_rows(summaries)
    width = max(len("Category"), *(len(category) for category, _, _ in TABLE3_ROWS))
    lines, previous = [], None
    for row in rows:
        category = row["category"] if row["category"] != previous else ""
        previous = row["category"]
        label = f"{category.ljust(width)}  {row['metric']}"
        lines.append([label, *(cell(row[column]) for columns in TABLE3_COLUMNS.values() for column, _ in columns)])
    by_level = summaries_by_column(summaries)
    groups = {paradigm: [with_coverage(column, column_coverage(by_level.get(level))) for column, level in columns]
              for paradigm, columns in TABLE3_COLUMNS.items()}
    return format_grouped_table(lines, f"{'Category'.ljust(width)}  Metric", groups)


__all__ = ["SAME_PROMPT", "TABLE3_COLUMNS", "TABLE3_LEVELS", "TABLE3_ROWS", "column_coverage", "column_value",
           "format_table3", "summaries_by_column",
           "table3_rows"]
