"""SurGE's results table for ``sciwrite paper-table surge-table1``: one row per system, its columns grouped as SurGE's
evaluator reports them (``src/evaluator.py``: Information Collection: Coverage and Relevance at paper, section and
sentence level; Survey Structure: Structure Quality and SH-Recall; Survey Content: ROUGE-1/2/L, BLEU and Logic),
the best value of each column marked.

The layout is the evaluator's: the paper's own main-results table (its rows, number formats and published values)
could not be read while this was built, and the table says so; BLEU is on sciwrite's 0-1 scale (SurGE's evaluator
prints sacrebleu's 0-100). Under the notes: each system's rank on the first column, its cost and its judge
(`sciwrite.core.paper_tables.RunsBlock`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sciwrite.core.commands import Option
from sciwrite.core.paper_tables import (
    PaperTable,
    RunsBlock,
    SummaryKind,
    TableData,
    TableRow,
    best_columns,
    number_cell,
)
from sciwrite.core.summary import Summary
from sciwrite.surge.metrics.specs import METRICS

TABLE1 = "surge-table1"
#: The table's columns: the results-table metrics, in SurGE's evaluator order.
COLUMNS = tuple(spec for spec in METRICS if spec.in_table)
NOTES = ("Columns grouped as SurGE's evaluator reports them; the best value of each column is marked.",
         "BLEU is sacrebleu's sentence BLEU / 100 (SurGE's evaluator prints 0-100); Structure quality and Logic are "
         "the judge's 0-5 scores.",
         "The layout is the evaluator's: the SurGE paper's own table was not available to check its row order and "
         "number format.")


def table1(summaries: Mapping[str, Summary]) -> TableData:
    """The results table from system -> ``sciwrite evaluate surge`` summary."""
    rows = []
    values_by_system = {name: {spec.key: summary.value(spec.key) for spec in COLUMNS}
                        for name, summary in summaries.items()}
    best: dict[str, set[str]] = {name: set() for name in summaries}
    for spec in COLUMNS:
        column = {name: values[spec.key] for name, values in values_by_system.items()}
        for name in best_columns(column, not spec.scale.higher_is_better):
            best[name].add(spec.key)
    for name, values in values_by_system.items():
        rows.append(TableRow((name,), values, {key: number_cell(value, 4) for key, value in values.items()},
                             frozenset(best[name])))
    groups: dict[str, tuple[str, ...]] = {}
    for spec in COLUMNS:
        groups[spec.group] = (*groups.get(spec.group, ()), spec.key)
    return TableData("SurGE results (the evaluator's layout): comprehensiveness, citation relevance, structure and "
                     "content quality.", ("System",), tuple((spec.key, spec.label) for spec in COLUMNS), tuple(rows),
                     groups=groups, notes=NOTES)


SUMMARIES = SummaryKind(TABLE1, "surge", "SurGE", tuple(spec.key for spec in COLUMNS),
                        {spec.key: spec.scale for spec in METRICS})


def named_path(text: str) -> tuple[str, str]:
    """``NAME=PATH``."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise ValueError(f"expected NAME=PATH, got {text!r}")
    return name, path


def read_summaries(specs: Sequence[tuple[str, str]]) -> tuple[dict[str, Summary], RunsBlock]:
    """NAME=PATH pairs -> (checked SurGE summaries, no run given twice; their runs: rank, cost, judge)."""
    names = [name for name, _ in specs]
    summaries, runs = SUMMARIES.read_runs([path for _, path in specs], labels=names)
    return dict(zip(names, summaries, strict=True)), runs


def build_table1(options: Mapping[str, Any]) -> TableData:
    """The results table, with each system's rank (on its first column), cost and judge under the notes."""
    summaries, runs = read_summaries(options["summary"])
    return replace(table1(summaries), runs=runs)


PAPER_TABLES: tuple[PaperTable, ...] = (
    PaperTable(TABLE1, "Systems x SurGE's metrics", "one `sciwrite evaluate surge` summary per system",
               (Option("summary", "SYSTEM=SUMMARY (a summary.json or its folder)", many=True, required=True,
                       type=named_path, metavar="SYSTEM=SUMMARY"),), build_table1),
)

__all__ = ["PAPER_TABLES", "TABLE1", "table1"]
