"""SciIG's numbered tables (Garg et al., arXiv:2508.14273) in the paper's layout, for ``sciwrite paper-table``.

- **Table 1**, dataset statistics, one row per config (the paper's NAACL 2025 and ICLR 2025; the offline
  ``sample`` too): samples (test and holdout papers together, as the paper's 800 / 3100), introduction and abstract
  words as mean ± standard deviation, median and range, and citations per paper (cited works in ``neighbors``),
  average and range. Words are whitespace tokens; the standard deviation is the sample one (n - 1). The paper
  says neither.
- **Table 2**, the seven categories as the paper names them, with the LLM-as-a-Judge rows inside their
  categories, one column per model grouped by dataset (NAACL 2025 | ICLR 2025), four decimals, the best value of a
  row within each dataset bold (here ``*``; perplexity: the lowest).
- **Table 3**, one model's prompt levels (`sciwrite.sciig.metrics.tables`), the best of each paradigm bold.
- **Table 4**, the input ablation: ELABORATE and MEDIUM under Title-only, Title+Abstract and T+A+Related
  (``sciwrite generate sciig --inputs``; the baseline configs ``baselines/sciig/*_title*.yaml``).
- **Table 5**, the human evaluation: criteria x systems, the mean rating of each (`sciwrite human-eval analyze`).

Tables 2, 3 and 4 say under their notes each input run's rank (on the first metric of Table 3's rows), cost and
judge (`sciwrite.core.paper_tables.RunsBlock`).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sciwrite.core.commands import Option
from sciwrite.core.coverage import with_coverage
from sciwrite.core.metric_spec import printed_rows
from sciwrite.core.paper_tables import (
    PaperTable,
    RunsBlock,
    SummaryKind,
    TableData,
    TableRow,
    best_columns,
    default_configs,
    number_cell,
)
from sciwrite.core.summary import Summary
from sciwrite.human_eval.table5 import read_table5
from sciwrite.sciig.data.configs import SCIIG_CONFIGS
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation.prompts import FULL_INPUTS, INPUT_LABELS, INPUTS, normalize_level
from sciwrite.sciig.human_eval import table5 as human_table5
from sciwrite.sciig.metrics.specs import METRICS, TABLE2, TABLE3, TABLE4
from sciwrite.sciig.metrics.tables import (
    SAME_PROMPT,
    TABLE3_COLUMNS,
    TABLE3_ROWS,
    column_coverage,
    column_value,
    summaries_by_column,
)
from sciwrite.sciig.scales import SCALES

#: Config -> the name the paper gives its dataset.
DATASET_NAMES = {"naacl_2025": "NAACL 2025", "iclr_2025": "ICLR 2025", "sample": "Sample"}


def printed_like_table3(table: str) -> tuple[tuple[str, str, str], ...]:
    """A table's rows as (category, label, key): Table 3's, each under the label `table` prints where its spec
    names another (`sciwrite.sciig.metrics.specs`)."""
    return tuple((printed.category, spec.printed.get(table, printed).label, spec.key)
                 for spec, printed in printed_rows(METRICS, TABLE3))


#: Table 2's rows as printed there: Table 3's, but for three labels.
TABLE2_ROWS: tuple[tuple[str, str, str], ...] = printed_like_table3(TABLE2)
LOWER_IS_BETTER = frozenset(spec.key for spec in METRICS if not spec.scale.higher_is_better)
PERPLEXITY_NOTE = "Note: Lower perplexity values indicate better performance."


def words(text: str | None) -> int:
    return len((text or "").split())


def _spread(values: Sequence[int]) -> dict[str, Any]:
    return {"mean": statistics.mean(values), "std": statistics.stdev(values) if len(values) > 1 else 0.0,
            "median": statistics.median(values), "min": min(values), "max": max(values)}


def config_statistics(config: str, source: str | Path | None) -> dict[str, Any]:
    """Table 1's statistics of one config (its test and holdout papers together)."""
    splits = load_sciig(config, source=source, split="all")
    papers = [paper for split in ("test", "holdout") for paper in splits[split]]
    if not papers:
        raise ValueError(f"SciIG {config!r} has no papers")
    citations = [len(p["neighbors"]) for p in papers]
    return {"samples": len(papers), "introduction": _spread([words(p["introduction"]) for p in papers]),
            "abstract": _spread([words(p["abstract"]) for p in papers]),
            "citations": {"mean": statistics.mean(citations), "min": min(citations), "max": max(citations)}}


def _range(low: int, high: int) -> str:
    return f"{low:,}\u2013{high:,}"


def table1(statistics_by_config: Mapping[str, Mapping[str, Any]]) -> TableData:
    """Table 1 from each config's `config_statistics` (config -> statistics), one row each."""
    columns = (("samples", "Samples"), ("intro_mean", "Mean"), ("intro_median", "Median"), ("intro_range", "Range"),
               ("abstract_mean", "Mean"), ("abstract_median", "Median"), ("abstract_range", "Range"),
               ("citations_mean", "Average"), ("citations_range", "Range"))
    rows = []
    for config, stats in statistics_by_config.items():
        intro, abstract, cites = stats["introduction"], stats["abstract"], stats["citations"]
        values = {"samples": stats["samples"], "intro_mean": intro["mean"], "intro_std": intro["std"],
                  "intro_median": intro["median"], "intro_min": intro["min"], "intro_max": intro["max"],
                  "abstract_mean": abstract["mean"], "abstract_std": abstract["std"],
                  "abstract_median": abstract["median"], "abstract_min": abstract["min"],
                  "abstract_max": abstract["max"], "citations_mean": cites["mean"], "citations_min": cites["min"],
                  "citations_max": cites["max"]}
        cells = {"samples": f"{stats['samples']:,}",
                 "intro_mean": f"{intro['mean']:.1f} \u00b1 {intro['std']:.1f}", "intro_median": f"{intro['median']:.1f}",
                 "intro_range": _range(intro["min"], intro["max"]),
                 "abstract_mean": f"{abstract['mean']:.1f} \u00b1 {abstract['std']:.1f}",
                 "abstract_median": f"{abstract['median']:.1f}", "abstract_range": _range(abstract["min"], abstract["max"]),
                 "citations_mean": f"{cites['mean']:.1f}", "citations_range": _range(cites["min"], cites["max"])}
        rows.append(TableRow((DATASET_NAMES.get(config, config),), values, cells))
    return TableData("Table 1: Statistics for the SciIG datasets: number of samples, text length, and citation "
                     "metrics.", ("Dataset",), columns, tuple(rows),
                     groups={"": ("samples",), "Introductions (words)": ("intro_mean", "intro_median", "intro_range"),
                             "Abstracts (words)": ("abstract_mean", "abstract_median", "abstract_range"),
                             "Citations": ("citations_mean", "citations_range")},
                     notes=("Mean \u00b1 sample standard deviation; words are whitespace tokens; citations are the "
                            "cited works of a paper's introduction.",))


#: Table 1's configs when --configs is not given: the paper's, or the offline sample's while the Hub is off.
TABLE1_CONFIGS, TABLE1_OFFLINE_CONFIGS = ("naacl_2025", "iclr_2025"), ("sample",)


def table1_configs(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The configs Table 1 reads (`default_configs`)."""
    return default_configs(options, TABLE1_CONFIGS, TABLE1_OFFLINE_CONFIGS)


def build_table1(options: Mapping[str, Any]) -> TableData:
    return table1({config: config_statistics(config, options.get("source")) for config in table1_configs(options)})


def _metric_rows(rows: Sequence[tuple[str, str, str]], columns: Mapping[str, Summary | None],
                 groups: Mapping[str, tuple[str, ...]]) -> tuple[TableRow, ...]:
    """One row per metric over the columns (column key -> summary), the best of each column group marked."""
    out = []
    for category, label, key in rows:
        values = {column: column_value(summary, key) for column, summary in columns.items()}
        best = frozenset().union(*(best_columns({c: values[c] for c in members}, key in LOWER_IS_BETTER)
                                   for members in groups.values()))
        out.append(TableRow((category, label), values, {c: number_cell(v, 4) for c, v in values.items()}, best))
    return tuple(out)


def table2(summaries: Mapping[str, Summary]) -> TableData:
    """Table 2 from model -> ``evaluate sciig`` summary, keyed ``MODEL`` (the dataset is the summary's) or
    ``DATASET/MODEL``: one column per model under its dataset, datasets in the paper's order."""
    columns: dict[str, tuple[str, str, Summary]] = {}
    for name, summary in summaries.items():
        dataset, _, model = name.rpartition("/")
        dataset = dataset or str(summary.split or "")  # a summary before schema 2 named it `dataset`: read as split
        if dataset not in SCIIG_CONFIGS:
            raise ValueError(f"{name}: the summary names no SciIG dataset ({dataset!r}); key it DATASET/MODEL")
        columns[f"{dataset}/{model}"] = (dataset, model, summary)
    order = sorted(columns, key=lambda c: (SCIIG_CONFIGS.index(columns[c][0]), list(columns).index(c)))
    groups = {DATASET_NAMES[d]: tuple(c for c in order if columns[c][0] == d)
              for d in SCIIG_CONFIGS if any(columns[c][0] == d for c in order)}
    rows = _metric_rows(TABLE2_ROWS, {c: columns[c][2] for c in order}, groups)
    return TableData("Table 2: Evaluation metrics categorized across standard and LLM-as-a-Judge criteria.",
                     ("Category", "Metric"), tuple((c, with_coverage(columns[c][1], columns[c][2].scored)) for c in order),
                     rows, groups=groups,
                     notes=("Highest values (per dataset) are marked. " + PERPLEXITY_NOTE,), merged_labels=1)


def table3(summaries: Mapping[str, Summary]) -> TableData:
    """Table 3 from prompt level -> summary (`sciwrite.sciig.metrics.tables.summaries_by_column`)."""
    by_level = summaries_by_column(summaries)
    groups = {paradigm: tuple(level for _, level in columns) for paradigm, columns in TABLE3_COLUMNS.items()}
    columns = tuple((level, with_coverage(label, column_coverage(by_level.get(level))))
                    for paradigm in TABLE3_COLUMNS.values() for label, level in paradigm)
    rows = _metric_rows(TABLE3_ROWS, {level: by_level.get(level) for level, _ in columns},
                        {paradigm: tuple(level for level in members if level in by_level)
                         for paradigm, members in groups.items()})
    return TableData("Table 3: Performance under two prompting paradigms: Instruction-Level (Short, Medium, "
                     "Elaborate, AutoCoT) and Few-Shot (Zero-Shot, One-Shot, Two-Shot, Three-Shot).",
                     ("Category", "Metric"), columns, rows, groups=groups,
                     notes=("Best scores in each paradigm are marked. " + PERPLEXITY_NOTE,), merged_labels=1)


#: Table 4's rows: Table 2's, with the label Table 4 prints for SummaC faithfulness (sic).
TABLE4_ROWS: tuple[tuple[str, str, str], ...] = printed_like_table3(TABLE4)
TABLE4_LEVELS = ("ELABORATE", "MEDIUM")


def table4(summaries: Mapping[str, Summary]) -> TableData:
    """Table 4 (the input ablation) from ``LEVEL/INPUTS`` -> summary (e.g. ``MEDIUM/title-abstract``; ``LEVEL``
    alone is the full input): ELABORATE and MEDIUM, each over Title-only, Title+Abstract and T+A+Related."""
    by_column: dict[str, Summary] = {}
    for name, summary in summaries.items():
        level, _, inputs = name.partition("/")
        level, inputs = normalize_level(level), inputs or FULL_INPUTS
        if level not in TABLE4_LEVELS or inputs not in INPUTS:
            raise ValueError(f"{name}: Table 4's columns are LEVEL/INPUTS with LEVEL one of {', '.join(TABLE4_LEVELS)} "
                             f"and INPUTS one of {', '.join(INPUTS)}")
        by_column[f"{level}/{inputs}"] = summary
    groups = {level: tuple(f"{level}/{inputs}" for inputs in INPUTS) for level in TABLE4_LEVELS}
    columns = tuple((key, with_coverage(INPUT_LABELS[key.split("/")[1]], column_coverage(by_column.get(key))))
                    for keys in groups.values() for key in keys)
    rows = _metric_rows(TABLE4_ROWS, {key: by_column.get(key) for key, _ in columns}, {})
    return TableData("Table 4: Ablation Study. Performance with different input configurations: Title-only, "
                     "Title+Abstract, and Title+Abstract+Related Work.", ("Category", "Metric"), columns, rows,
                     groups=groups, notes=(PERPLEXITY_NOTE, "The paper does not print the ablation prompts: each is "
                                           "the level's prompt without the inputs it lacks (our choice)."),
                     merged_labels=1)


def summaries_of(table: str) -> SummaryKind:
    """What SciIG's Table 2, 3 or 4 reads: SciIG summaries holding the paper's metrics (Table 3's rows)."""
    return SummaryKind(table, "sciig", "SciIG", tuple(key for _, _, key in TABLE3_ROWS), SCALES)


def same_prompt(first: str, second: str) -> bool:
    """Whether two prompt levels are one prompt (ELABORATE and ZERO_SHOT, Table 11), so one run may fill both."""
    try:
        return SAME_PROMPT.get(normalize_level(first)) == normalize_level(second)
    except ValueError:  # not a level: Table 3 refuses it by name
        return False


def read_summaries(specs: Sequence[tuple[str, str]], table: str) -> tuple[dict[str, Summary], RunsBlock]:
    """NAME=PATH pairs -> (the summaries, their runs: rank, cost, judge) (PATH: a summary.json or the folder holding
    one), each checked to be a SciIG summary holding the table's metrics, and no run given for two names
    (`SummaryKind.read_runs`; Table 3's ELABORATE and ZERO_SHOT may share one: they are one prompt)."""
    names = [name for name, _ in specs]
    summaries, runs = summaries_of(table).read_runs([path for _, path in specs], labels=names,
                                                    may_share=same_prompt if table == TABLE3 else None)
    return dict(zip(names, summaries, strict=True)), runs


def with_runs(build: Callable[[Mapping[str, Summary]], TableData], table: str) -> Callable[[Mapping[str, Any]], TableData]:
    """A table's builder from its options: `build` of the ``--summary`` pairs (`read_summaries`), with their runs."""
    def built(options: Mapping[str, Any]) -> TableData:
        summaries, runs = read_summaries(options["summary"], table)
        return replace(build(summaries), runs=runs)
    return built


def named_path(text: str) -> tuple[str, str]:
    """``NAME=PATH``."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise ValueError(f"expected NAME=PATH, got {text!r}")
    return name, path


def build_table5(options: Mapping[str, Any]) -> TableData:
    return human_table5(read_table5(options["analysis"], "sciig"))


PAPER_TABLES: tuple[PaperTable, ...] = (
    PaperTable("sciig-table1", "Dataset statistics", "a SciIG dataset folder or Hub repo (--source) and its configs",
               (Option("source", "dataset folder or Hub repo id (default: the sample folder for 'sample', the Hub)"),
                Option("configs", "configs, one row each (default: naacl_2025 iclr_2025; offline: sample)", many=True,
                       choices=SCIIG_CONFIGS)),
               build_table1),
    PaperTable(TABLE2, "Models x metrics, by dataset",
               "one `sciwrite evaluate sciig` summary per model and dataset",
               (Option("summary", "MODEL=SUMMARY (the dataset is the summary's) or DATASET/MODEL=SUMMARY", many=True,
                       required=True, type=named_path, metavar="MODEL=SUMMARY"),),
               with_runs(table2, TABLE2)),
    PaperTable(TABLE3, "Prompt levels of one model", "one summary per prompt level",
               (Option("summary", "LEVEL=SUMMARY (SHORT, MEDIUM, ELABORATE, AUTOCOT, ZERO_SHOT, ONE_SHOT, TWO_SHOT, "
                                  "THREE_SHOT)", many=True, required=True, type=named_path, metavar="LEVEL=SUMMARY"),),
               with_runs(table3, TABLE3)),
    PaperTable(TABLE4, "Input ablation (ELABORATE, MEDIUM)",
               "six summaries: each level under --inputs title, title-abstract and the full input",
               (Option("summary", "LEVEL/INPUTS=SUMMARY, e.g. MEDIUM/title-abstract=... (LEVEL=SUMMARY: the full input)",
                       many=True, required=True, type=named_path, metavar="LEVEL/INPUTS=SUMMARY"),),
               with_runs(table4, TABLE4)),
    PaperTable("sciig-table5", "Human evaluation", "`sciwrite human-eval analyze --benchmark sciig` (table5.json)",
               (Option("analysis", "table5.json, or the folder `human-eval analyze --out` wrote it to", required=True,
                       metavar="PATH"),), build_table5),
)

__all__ = ["DATASET_NAMES", "PAPER_TABLES", "TABLE2_ROWS", "TABLE4_ROWS", "config_statistics", "table1", "table2",
           "table3", "table4"]
