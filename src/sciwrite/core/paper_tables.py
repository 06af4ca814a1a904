"""The papers' numbered tables, each in its paper's layout: what `sciwrite paper-table NAME` prints and writes.

A benchmark declares its tables (`Benchmark.presentation.paper_tables`: a `PaperTable` each: its name, the paper's caption,
the inputs it needs and its options as data); a table's `build` returns `TableData`: its row labels, its columns
(under the paper's column groups), each cell as the paper prints it (decimals, thousands separators, "±"), the
raw values for JSON and CSV, the cells the paper sets in bold (here marked with ``*``, and named in the JSON), and
the paper's notes ("Lower perplexity values indicate better performance").

A table built from evaluation summaries reads each through its `SummaryKind`, which refuses, naming the file, a
summary of another benchmark, one that holds too few of the table's metrics, and a JSON file that is no sciwrite
summary at all: such a file would otherwise become a row of dashes, or a column marked best. Each summary, with the
per-paper rows beside it when it sits in an evaluation folder, passes the one check of a result
(`sciwrite.core.metric_scales.check_result`), and a table of several systems refuses the same run given twice under
two paths (`SummaryKind.read_all`: by content, `scores_digest`), which would count one system as two.

Such a table also says, under its notes, what each run cost, which judge scored it and its rank with its interval
(`RunsBlock`, from `SummaryKind.read_runs`: `sciwrite.core.run_facts`, the facts the board and ``sciwrite
compare`` show): the rank on the table's first metric over the papers every run with per-paper rows scored, by the
paired bootstrap ``compare`` uses (1000 resamples, seed 0, 95%), the cost from the usage ledgers beside each run's
predictions and summary ("unknown" with the reason, never 0). `write` writes them as ``<stem>.runs.json`` and
``<stem>.runs.csv`` beside the table's files, which stay as they were. The paper's own layout is not touched.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sciwrite.core.commands import Option
from sciwrite.core.errors import InputError, Where, hub_offline
from sciwrite.core.jsonl import iter_json_lines
from sciwrite.core.metric_scales import MetricScale, ResultRules, check_result
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.rank_intervals import rank_intervals
from sciwrite.core.results import load_summary
from sciwrite.core.run_facts import RunFacts, evaluation_facts, with_rank, write_runs
from sciwrite.core.summary import Summary
from sciwrite.core.tables import MISSING_CELL, format_grouped_table, write_table
from sciwrite.stats import INTERVAL_METHOD

#: How a best value (bold in the paper) is marked in plain text.
BEST_MARK = "*"
#: The runs block's bootstrap: ``sciwrite compare``'s defaults (resamples, level, seed 0 for its first metric).
RUNS_RESAMPLES, RUNS_CONFIDENCE, RUNS_RNG = 1000, 0.95, (0, 0)
#: The rank cell of a run whose evaluation folder holds no per-paper rows to rank it by.
NO_ROWS = "not ranked: no per_paper.jsonl beside its summary"
#: The rank cell of the one run with per-paper rows: nothing to rank it against.
ALONE = "not ranked: no other run with per-paper rows"


@dataclass(frozen=True)
class RunsBlock:
    """The runs a table was built from, as printed under its notes: `header` says what the rank is on; `runs`
    are each run's facts (rank cell, cost, judge), the ranked ones in rank order, then the others."""

    header: str
    runs: tuple[RunFacts, ...]

    def lines(self) -> list[str]:
        """The header, then one line per run: its label, rank cell, cost and judge (with the check's verdict)."""
        return [self.header, *(f"  {f.system}: rank {f.rank}; cost {f.cost_line}; judge {f.judge}; judge check "
                               f"{f.card.check_text()}" for f in self.runs)]


@dataclass(frozen=True)
class TableRow:
    """One row: its labels (a category is printed on its group's first row only), each column's raw value and
    printed cell, and the columns holding the row's best value."""

    labels: tuple[str, ...]
    values: Mapping[str, Any]
    cells: Mapping[str, str]
    best: frozenset[str] = frozenset()


@dataclass(frozen=True)
class TableData:
    """A built table: `columns` are (key, printed label), in order; `groups` maps a column group's title to its
    column keys; `blocks` puts a title line (a retriever's name) before the row of that index."""

    title: str
    label: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    rows: tuple[TableRow, ...]
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    blocks: Mapping[int, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    merged_labels: int = 0  # leading label columns printed only where they change (a category)
    runs: RunsBlock | None = None  # the runs of a table built from evaluation summaries (`SummaryKind.read_runs`)


@dataclass(frozen=True)
class PaperTable:
    """``sciwrite paper-table <name>``: `build` receives the parsed `options` by keyword."""

    name: str
    caption: str
    inputs: str  # what the table is built from, for ``--list``
    options: tuple[Option, ...]
    build: Callable[[Mapping[str, Any]], TableData]


@dataclass(frozen=True)
class SummaryKind:
    """The summaries a table lays out: `benchmark`'s (its name, and its `title` for messages) with the table's
    `metrics`. A summary whose provenance names the benchmark must hold one of them at least (a current one holds
    every one, null where not computed); one without provenance (written before schema 1, or by another tool) must
    hold most of them, which no other benchmark's summary does. `scales`: the benchmark's declared scales, which
    the one check of a result reads (`check_result`)."""

    table: str
    benchmark: str
    title: str
    metrics: tuple[str, ...]
    scales: Mapping[str, MetricScale] = field(default_factory=dict)

    def read(self, path: str | Path) -> Summary:
        """The summary at `path` (a summary.json or the folder holding one), checked (`check`, then with its rows
        `check_result`)."""
        return self._read(path).summary

    def read_all(self, paths: Sequence[str | Path], labels: Sequence[str] | None = None,
                 may_share: Callable[[str, str], bool] | None = None) -> list[Summary]:
        """The summaries at `paths`, each read (`read`), then none with the same scores as an earlier one
        (`scores_digest`: the same run under two paths, or copied and renamed), except two whose `labels` may share
        one run (`may_share`: SciIG's ELABORATE and ZERO_SHOT are one prompt). An error of a labelled input starts
        with ``LABEL=``."""
        return [run.summary for run in self._read_all(paths, labels, may_share)]

    def read_runs(self, paths: Sequence[str | Path], labels: Sequence[str] | None = None,
                  may_share: Callable[[str, str], bool] | None = None) -> tuple[list[Summary], RunsBlock]:
        """`read_all`'s summaries and their `RunsBlock`: each run's facts (`evaluation_facts`: a ledger that
        disagrees with its predictions raises `InputError` naming its file and line), named by its label (else the
        summary's system), ranked on the table's first metric (`runs_block`)."""
        read = self._read_all(paths, labels, may_share)
        names = unique_names([run.label or run.summary.system or run.file.parent.name for run in read])
        facts = [evaluation_facts(run.summary, run.file, system=name) for run, name in zip(read, names)]
        rows = {name: run.rows for run, name in zip(read, names)}
        return [run.summary for run in read], runs_block(facts, rows, self.metrics[0], self.scales)

    def _read_all(self, paths: Sequence[str | Path], labels: Sequence[str] | None,
                  may_share: Callable[[str, str], bool] | None) -> list[_ReadRun]:
        """Each summary read and checked, none the same run as an earlier one (`read_all`)."""
        names = list(labels) if labels is not None else [""] * len(paths)
        read: list[_ReadRun] = []
        for name, path in zip(names, paths, strict=True):
            try:
                run = self._read(path, name)
            except ValueError as err:
                raise ValueError(f"{name}={err}" if name else str(err)) from None
            for other in read:
                if other.digest == run.digest and not (may_share and may_share(other.label, name)):
                    message = str(InputError(
                        f"holds the same scores as {other.file} (one run given twice)", Where(run.file),
                        f"{self.table} lays out each system once: give each its own evaluation"))
                    raise InputError(f"{name}={message}" if name else message)
            read.append(run)
        return read

    def _read(self, path: str | Path, label: str = "") -> _ReadRun:
        """The checked summary at `path`, its per-paper rows and its `scores_digest`."""
        file = _summary_file(path)
        summary = self.check(load_summary(path), path)
        rows, lines = rows_beside(file)
        check_result(summary, rows, ResultRules(self.scales, recomputed=self.metrics), summary_path=file,
                     rows_path=file.parent / PER_PAPER, row_lines=lines)
        return _ReadRun(label, file, summary, rows, scores_digest(summary, rows))

    def check(self, summary: Summary, path: str | Path) -> Summary:
        """`summary` when it is a sciwrite summary of this benchmark with the table's metrics (see the class); else
        an `InputError` naming the file and what it is."""
        where = Where(path=_summary_file(path))
        declared = summary.benchmark if summary.schema_version >= 1 and summary.provenance is not None else None
        usage = f"give {self.table} the summary.json of `sciwrite evaluate {self.benchmark}`"
        if declared is not None and declared != self.benchmark:
            raise InputError(f"a {declared} summary, not {self.title}'s: {self.table} lays out {self.title} "
                             "summaries only", where, hint=usage)
        held = [metric for metric in self.metrics if summary.holds(metric)]
        if (declared == self.benchmark and held) or 2 * len(held) > len(self.metrics):
            return summary
        if declared is None and not held:
            raise InputError(f"not a sciwrite summary: it has no provenance and none of {self.table}'s metrics "
                             f"({', '.join(self.metrics[:4])}, ...)", where, hint=usage)
        missing = [metric for metric in self.metrics if not summary.holds(metric)]
        raise InputError(f"holds {len(held)} of {self.table}'s {len(self.metrics)} metrics (lacks "
                         f"{', '.join(missing[:6])}{', ...' if len(missing) > 6 else ''}): not a {self.title} summary",
                         where, hint=usage)


@dataclass(frozen=True)
class _ReadRun:
    """One input of a table as `SummaryKind` read it: its label, summary file, summary, per-paper rows (None: no
    per_paper.jsonl beside it) and `scores_digest`."""

    label: str
    file: Path
    summary: Summary
    rows: list[PaperRow] | None
    digest: str


def unique_names(names: Sequence[str]) -> list[str]:
    """`names`, a name met again numbered (``s``, ``s #2``), so that each run is ranked and named once."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
    return out


def runs_block(facts: Sequence[RunFacts], rows: Mapping[str, Sequence[PaperRow] | None], metric: str,
               scales: Mapping[str, MetricScale]) -> RunsBlock:
    """The runs block of `facts` (named as `rows`' keys): the runs with per-paper rows ranked on `metric` over the
    papers they all scored (`rank_intervals`, as ``sciwrite compare`` ranks: `RUNS_RESAMPLES`, `RUNS_CONFIDENCE`,
    `RUNS_RNG`), each with its rank cell (`with_rank`); a run without rows says so (`NO_ROWS`)."""
    scores = {name: {str(row.paper_id): row.value(metric) for row in found}
              for name, found in rows.items() if found is not None}
    scale = scales.get(metric)
    by_name = {f.system: f for f in facts}
    level = f"{100 * RUNS_CONFIDENCE:g}%"
    if len(scores) < 2:
        header = (f"Runs: not ranked on {metric} (fewer than 2 runs with per-paper rows: per_paper.jsonl beside "
                  "the summary); cost from the usage ledgers, unknown without one, never 0; judge and its check:")
        return RunsBlock(header, tuple(replace(f, rank=ALONE if f.system in scores else NO_ROWS) for f in facts))
    ranks = rank_intervals(scores, higher_is_better=scale.higher_is_better if scale is not None else True,
                           n_resamples=RUNS_RESAMPLES, confidence=RUNS_CONFIDENCE, rng=list(RUNS_RNG))
    header = (f"Runs: rank on {metric} over the {ranks.n_papers} papers every ranked run scored ({level} rank "
              f"interval, paired {INTERVAL_METHOD}, {RUNS_RESAMPLES} resamples, as sciwrite compare; \u2191 sig./n.s.: "
              "against the run ranked above); cost from the usage ledgers beside each run's predictions (gen) and "
              "summary (judge), unknown without one, never 0; judge and its check:")
    ranked = [with_rank(by_name[rank.system], ranks) for rank in ranks.systems]
    return RunsBlock(header, (*ranked, *(replace(f, rank=NO_ROWS) for f in facts if f.system not in scores)))


def _summary_file(path: str | Path) -> Path:
    path = Path(path)
    return path / "summary.json" if path.is_dir() else path


#: The per-paper rows beside an evaluation folder's ``summary.json``.
PER_PAPER = "per_paper.jsonl"


def rows_beside(summary_file: Path) -> tuple[list[PaperRow] | None, list[int]]:
    """(the rows of the ``per_paper.jsonl`` beside a ``summary.json``, the line of each); (None, []) for a summary
    file of another name or without one beside it. A line that is not a JSON object raises `InputError`."""
    path = summary_file.parent / PER_PAPER
    if summary_file.name != "summary.json" or not path.is_file():
        return None, []
    rows, lines = [], []
    for number, _, value, problem in iter_json_lines(path):
        if problem is not None or not isinstance(value, dict):
            raise InputError(problem or "not a JSON object", Where(path=path, line=number),
                             "give the evaluation folder as `sciwrite evaluate` wrote it, unedited")
        rows.append(PaperRow.from_json(value))
        lines.append(number)
    return rows, lines


def scores_digest(summary: Summary, rows: Sequence[PaperRow] | None) -> str:
    """The sha256 of a run's scores: the summary's numbers (its metrics and its grounding rates) and each paper's,
    whatever the run is called, where it lies or when it was scored, so that one run copied under two names is
    seen as one."""
    content = {"metrics": dict(summary.metrics),
               "grounding": dict(summary.grounding.metrics) if summary.grounding is not None else {},
               "rows": sorted(json.dumps([row.paper_id, row.values], sort_keys=True, default=str)
                              for row in rows or ())}
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()


def default_configs(options: Mapping[str, Any], paper: tuple[str, ...], offline: tuple[str, ...]) -> tuple[str, ...]:
    """The configs a statistics table (Table 1) reads: ``--configs`` when given; else the paper's (`paper`), or,
    with no --source while the Hub is off (HF_HUB_OFFLINE), the offline sample's (`offline`), as --help says."""
    if options.get("configs"):
        return tuple(options["configs"])
    return offline if options.get("source") is None and hub_offline() else paper


def best_columns(values: Mapping[str, Any], lower_is_better: bool = False) -> frozenset[str]:
    """The columns holding the best number of a row (every one of them on a tie); none when fewer than two
    columns have a number."""
    numbers = {k: v for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if len(numbers) < 2:
        return frozenset()
    best = min(numbers.values()) if lower_is_better else max(numbers.values())
    return frozenset(k for k, v in numbers.items() if v == best)


def number_cell(value: Any, decimals: int) -> str:
    """A number to `decimals` places (the paper's), the en dash for no value."""
    return MISSING_CELL if value is None else f"{float(value):.{decimals}f}"


def _labels(rows: Sequence[TableRow], merged: int) -> list[list[str]]:
    """Each row's labels, the first `merged` left out where they repeat the row above."""
    out, previous = [], None
    for row in rows:
        labels = list(row.labels)
        out.append([label if i >= merged or previous is None or label != previous[i] else ""
                    for i, label in enumerate(labels)])
        previous = labels
    return out


def render_body(table: TableData) -> str:
    """The table's header and rows as aligned text (its column groups over their columns)."""
    width = len(table.label)
    labels = _labels(table.rows, table.merged_labels)
    printed = [[*labels[i], *(row.cells[key] + (BEST_MARK if key in row.best else "") for key, _ in table.columns)]
               for i, row in enumerate(table.rows)]
    column_labels = dict(table.columns)
    if table.groups:
        groups = {group: [column_labels[key] for key in keys] for group, keys in table.groups.items()}
        return format_grouped_table(printed, list(table.label), groups, dict(table.blocks))
    return _plain([*table.label, *(label for _, label in table.columns)], printed, width, table.blocks)


def render(table: TableData) -> str:
    """The table as the command prints it: its title, `render_body`, its notes, and its runs (`RunsBlock`)."""
    notes = list(table.notes)
    if any(row.best for row in table.rows):
        notes.append(f"{BEST_MARK} marks the best value of a row (bold in the paper).")
    runs = ["", *table.runs.lines()] if table.runs is not None else []
    return "\n".join([table.title, "", render_body(table), *([""] + notes if notes else []), *runs])


def _plain(header: Sequence[str], rows: Sequence[Sequence[str]], left: int, blocks: Mapping[int, str]) -> str:
    """Aligned text without column groups: the first `left` columns flush left, a rule under the header."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) if i < left else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths)))

    body = []
    for i, row in enumerate(rows):
        if i in blocks:
            body.append(blocks[i])
        body.append(line(row))
    return "\n".join([line(header), "  ".join("-" * w for w in widths), *body])


def records(table: TableData) -> list[dict[str, Any]]:
    """The table as rows for JSON and CSV: the labels, each column's raw value, and the best columns."""
    names = [label.lower().replace(" ", "_") for label in table.label]
    return [{**dict(zip(names, row.labels)), **{label: row.values.get(key) for key, label in _unique(table)},
             "best": sorted(dict(_unique(table))[key] for key in row.best)} for row in table.rows]


def _unique(table: TableData) -> list[tuple[str, str]]:
    """(column key, a label unique in the table: a column whose label repeats gets its group in front)."""
    group_of = {key: group for group, keys in table.groups.items() for key in keys}
    counts: dict[str, int] = {}
    for _, label in table.columns:
        counts[label] = counts.get(label, 0) + 1
    return [(key, label if counts[label] == 1 else f"{group_of.get(key, '')} {label}".strip())
            for key, label in table.columns]


def write(table: TableData, stem: str | Path) -> tuple[Path, ...]:
    """``<stem>.json`` and ``<stem>.csv`` of the table (`records`), then, for a table with runs,
    ``<stem>.runs.json`` and ``<stem>.runs.csv`` (`sciwrite.core.run_facts.write_runs`)."""
    written = write_table(records(table), stem)
    return (*written, *write_runs(table.runs.runs, stem)) if table.runs is not None else written


__all__ = ["ALONE", "BEST_MARK", "NO_ROWS", "PER_PAPER", "PaperTable", "RunsBlock", "SummaryKind", "TableData", "TableRow",
           "best_columns", "default_configs", "number_cell", "records", "render", "render_body", "rows_beside",
           "runs_block", "scores_digest", "unique_names", "write"]
