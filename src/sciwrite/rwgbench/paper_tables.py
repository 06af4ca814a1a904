"""RWGBench's numbered tables (arXiv:2606.24894) in the paper's layout, for ``sciwrite paper-table``.

- **Table 1**, dataset statistics, one column per config (the paper's: Full Dataset = ``papers``, Test Set =
  ``test``; the offline ``sample`` too). Words are whitespace tokens after the ``[k]`` citation markers are
  removed (the paper does not say how it counts). "Avg. Citations" counts a paper's citations that resolve into the
  corpus (the ``citations`` field, what the metrics score). "Citation Coverage in Corpus" is the mean per-paper
  coverage from the build's ``build_report.json``, when the source folder has one; without it, the cell is "–".
  The corpus's average abstract length counts the documents that have an abstract.
- **Table 2**, the main results, from ``sciwrite evaluate rwgbench`` summaries: the paper's retriever blocks,
  Model and Method columns and three decimals (`format_table2`'s layout), with the **Human GT** row: the
  reference sections scored as a system (``sciwrite build rwgbench-human-gt``, then ``evaluate``).
- **Table 3**, Spearman correlations across systems, as ``meta-eval correlation`` computes them, over the paper's
  seven metrics, two decimals.
- **Table 5**, the human validation: consistency and metric-human alignment counts (`sciwrite human-eval analyze`).

Tables 2 and 3 say under their notes each run's rank (on Table 2's first metric, precision, or Table 3's first),
cost and judge (`sciwrite.core.paper_tables.RunsBlock`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from statistics import mean
from typing import Any

from sciwrite.core.commands import Option
from sciwrite.core.metric_spec import printed_rows
from sciwrite.core.paper_tables import PaperTable, SummaryKind, TableData, TableRow, default_configs, number_cell
from sciwrite.core.summary import Summary
from sciwrite.core.tables import MISSING_CELL
from sciwrite.human_eval.table5 import read_table5
from sciwrite.metrics.correlation import load_summaries, metric_correlations, numeric_metrics
from sciwrite.rwgbench.data.configs import config_info
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.human_eval import table5 as human_table5
from sciwrite.rwgbench.metrics.report import TABLE2_METRICS, table2
from sciwrite.rwgbench.metrics.specs import METRICS, TABLE3
from sciwrite.rwgbench.scales import SCALES
from sciwrite.sources.markers import MARKER_GROUP

#: Config -> Table 1 column, as the paper names it.
TABLE1_COLUMNS = {"papers": "Full Dataset", "test": "Test Set", "sample": "Sample"}


def words(text: str | None) -> int:
    """Whitespace tokens of `text` once its ``[k]`` citation markers are removed."""
    return len(MARKER_GROUP.sub(" ", text or "").split())


def coverage_from_report(source: str | Path | None, paper_ids: Sequence[str]) -> float | None:
    """Mean per-paper citation coverage of `paper_ids` in the source folder's ``build_report.json`` (None when
    there is no such file, or it covers none of the papers)."""
    report = Path(source) / "build_report.json" if source else None
    if report is None or not report.is_file():
        return None
    per_paper = {row["paper_id"]: row.get("coverage") for row in json.loads(report.read_text()).get("per_paper", [])}
    values = [per_paper[p] for p in paper_ids if isinstance(per_paper.get(p), (int, float))]
    return mean(values) if values else None


def config_statistics(config: str, source: str | Path | None) -> dict[str, Any]:
    """Table 1's statistics of one paper config and its corpus."""
    corpus_config = config_info(config).corpus
    if corpus_config is None:
        raise ValueError(f"{config!r} is a corpus config; Table 1 reads paper configs")
    papers = load_rwgbench(config, source=source)
    corpus = load_rwgbench(corpus_config, source=source)
    abstracts = [words(a) for a in corpus["abstract"] if (a or "").strip()]
    return {"papers": len(papers),
            "citations": mean(len(c) for c in papers["citations"]) if len(papers) else None,
            "rw_words": mean(words(t) for t in papers["related_work"]) if len(papers) else None,
            "abstract_words": mean(words(t) for t in papers["abstract"]) if len(papers) else None,
            "coverage": coverage_from_report(source, papers["paper_id"]),
            "corpus_size": len(corpus),
            "corpus_abstract_words": mean(abstracts) if abstracts else None}


#: Table 1's rows: (statistic as printed, key, how its cell is printed).
TABLE1_ROWS: tuple[tuple[str, str, Any], ...] = (
    ("Papers", "papers", lambda v: f"{v:,}"),
    ("Avg. Citations", "citations", lambda v: f"{v:.1f}"),
    ("Avg. RW Length (words)", "rw_words", lambda v: f"{v:.0f}"),
    ("Avg. Abstract Length (words)", "abstract_words", lambda v: f"{v:.0f}"),
    ("Citation Coverage in Corpus", "coverage", lambda v: f"{100 * v:.1f}%"),
    ("Corpus Size", "corpus_size", lambda v: f"{v:,}"),
    ("Corpus Avg. Abstract Length (words)", "corpus_abstract_words", lambda v: f"{v:.0f}"),
)


def table1(statistics: Mapping[str, Mapping[str, Any]]) -> TableData:
    """Table 1 from each config's `config_statistics` (config -> statistics), one column per config."""
    columns = tuple((config, TABLE1_COLUMNS.get(config, config)) for config in statistics)
    rows = []
    for label, key, show in TABLE1_ROWS:
        values = {config: stats.get(key) for config, stats in statistics.items()}
        rows.append(TableRow((label,), values, {c: MISSING_CELL if v is None else show(v) for c, v in values.items()}))
    return TableData("Table 1. Dataset statistics of RWGBench, including the full dataset and the test set.",
                     ("Statistic",), columns, tuple(rows),
                     notes=("Words: whitespace tokens, citation markers removed. Avg. Citations: citations that "
                            "resolve into the corpus. Coverage: mean per-paper coverage from build_report.json "
                            "(- without one).",))


#: Table 1's configs when --configs is not given: the paper's, or the offline sample's while the Hub is off.
TABLE1_CONFIGS, TABLE1_OFFLINE_CONFIGS = ("papers", "test"), ("sample",)


def table1_configs(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The configs Table 1 reads (`default_configs`)."""
    return default_configs(options, TABLE1_CONFIGS, TABLE1_OFFLINE_CONFIGS)


def build_table1(options: Mapping[str, Any]) -> TableData:
    return table1({config: config_statistics(config, options.get("source")) for config in table1_configs(options)})


#: What Table 2 reads: RWGBench summaries holding its metrics.
TABLE2_SUMMARIES = SummaryKind("rwgbench-table2", "rwgbench", "RWGBench", TABLE2_METRICS, SCALES)


def build_table2(options: Mapping[str, Any]) -> TableData:
    """Table 2 of the summaries, with their runs (rank on its first metric, cost, judge) under the notes."""
    summaries, runs = TABLE2_SUMMARIES.read_runs([*options["summary"], *([options["human_gt"]]
                                                                        if options.get("human_gt") else [])])
    return replace(table2(summaries), runs=runs)


#: Table 3's metrics as the paper labels them, in its order (declared with each metric).
TABLE3_METRICS: tuple[tuple[str, str], ...] = tuple((spec.key, printed.label)
                                                    for spec, printed in printed_rows(METRICS, TABLE3))


def table3(summaries: Mapping[str, Summary]) -> TableData:
    """Table 3: Spearman correlations (`sciwrite.metrics.correlation.metric_correlations`) among the paper's seven
    metrics across the systems, two decimals. A metric some summary lacks a value for (not computed: the `lite`
    profile has no NLI model and no judge) keeps its row and column, as "–", and a note names it."""
    keys = [key for key, _ in TABLE3_METRICS]
    label_of = dict(TABLE3_METRICS)
    numeric = set(numeric_metrics(summaries))  # a finite number in every summary, as metric_correlations needs
    computed = [key for key in keys if key in numeric]
    if not computed:
        raise ValueError("no metric of Table 3 has a value in every summary (score them with the paper profile)")
    correlations = metric_correlations(summaries, computed)
    value_of = {(a, b): value for a, values in zip(correlations.metrics, correlations.matrix)
                for b, value in zip(correlations.metrics, values)}
    rows = []
    for key in keys:
        by_column = {other: value_of.get((key, other)) for other in keys}
        rows.append(TableRow((label_of[key],), by_column, {k: number_cell(v, 2) for k, v in by_column.items()}))
    absent = [label_of[key] for key in keys if key not in computed]
    notes = [*correlations.notes()]
    if absent:
        notes.append(f"Not computed in every summary, so shown as –: {', '.join(absent)} (the lite profile has no "
                     "NLI model and no LLM judge; score with --profile paper for the paper's table).")
    return TableData("Table 3. Spearman correlations among representative metrics across evaluated systems.",
                     ("",), tuple((key, label_of[key]) for key in keys), tuple(rows), notes=tuple(notes))


#: What Table 3 reads: RWGBench summaries holding its seven metrics.
TABLE3_SUMMARIES = SummaryKind(TABLE3, "rwgbench", "RWGBench", tuple(key for key, _ in TABLE3_METRICS), SCALES)


def build_table3(options: Mapping[str, Any]) -> TableData:
    """Table 3 of the evaluation folders, each checked and no run given twice (it would count as two), with their
    runs under the notes."""
    _, runs = TABLE3_SUMMARIES.read_runs(options["evals"])
    return replace(table3(load_summaries(options["evals"])), runs=runs)


def build_table5(options: Mapping[str, Any]) -> TableData:
    return human_table5(read_table5(options["analysis"], "rwgbench"))


PAPER_TABLES: tuple[PaperTable, ...] = (
    PaperTable("rwgbench-table1", "Dataset statistics", "a dataset folder or Hub repo (--source) and its configs",
               (Option("source", "dataset folder or Hub repo id (default: the sample folder for 'sample', the Hub)"),
                Option("configs", "paper configs, one column each (default: papers test; the offline: sample)",
                       many=True, choices=tuple(TABLE1_COLUMNS))),
               build_table1),
    PaperTable("rwgbench-table2", "Main results", "`sciwrite evaluate rwgbench` summaries (and the Human GT's)",
               (Option("summary", "summary.json files or evaluation folders, one per system", many=True,
                       required=True, metavar="SUMMARY"),
                Option("human_gt", "the summary of the reference sections scored as a system (sciwrite build "
                                   "rwgbench-human-gt, then sciwrite evaluate rwgbench)", metavar="SUMMARY")),
               build_table2),
    PaperTable(TABLE3, "Spearman correlations across systems",
               "evaluation folders of at least three systems (as meta-eval correlation)",
               (Option("evals", "evaluation folders (one system each) holding summary.json", many=True, required=True,
                       metavar="DIR"),), build_table3),
    PaperTable("rwgbench-table5", "Human validation", "`sciwrite human-eval analyze --benchmark rwgbench` (table5.json)",
               (Option("analysis", "table5.json, or the folder `human-eval analyze --out` wrote it to", required=True,
                       metavar="PATH"),), build_table5),
)

__all__ = ["PAPER_TABLES", "TABLE1_ROWS", "TABLE3_METRICS", "config_statistics", "coverage_from_report", "table1",
           "table3", "words"]
