"""The leaderboard table: tidy numeric rows from the results store, and the filtered, sorted text frame the page
shows (the rank, the system and its dollars per paper, then one column per metric of the benchmark's results table
and its board columns, the reference grounding, each "mean [low, high]", then the cost, identity and provenance
columns).

Pure functions over plain data (no UI library): the page calls `leaderboard_rows` once per refresh and
`leaderboard_frame` on every search / filter / sort change, so filtering never touches the store. Rows are
ranked only within their scoring condition (profile and judge model, `sciwrite.core.conditions`), never
across: the frame lists one condition's rows after another's, each ranked 1..n. User strings
(system, model, ...) are returned exactly as submitted; escaping them is the UI's job, and nothing here builds
HTML.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.core.conditions import condition_order, row_condition, summary_condition
from sciwrite.core.costs import COST_COLUMNS, COST_KEYS, COST_PER_PAPER, cost_text, unknown_fields
from sciwrite.core.summary import Summary
from sciwrite.core.tables import MISSING_CELL
from sciwrite.core.trust import FAILED_MARK, failed_check
from sciwrite.leaderboard.pareto import score_cost
from sciwrite.leaderboard.rank_cells import PAPER_SCORES, rank_cells, stored_paper_scores
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.metrics.judge_panel import incomplete_text

#: Metrics where a lower value is better (everything else: higher is better), as each benchmark's scales declare
#: them (`BenchmarkSuite.scales`, the one place that says so).
LOWER_IS_BETTER: frozenset[str] = frozenset(metric for bench in BENCHMARKS.values()
                                            for metric, scale in bench.suite.scales.items()
                                            if not scale.higher_is_better)
#: What a cell shows for a metric without a value (not computed, or not applicable), as the papers print it.
MISSING = MISSING_CELL
#: Submission fields copied onto each row, then the summary fields.
_INFO_FIELDS = ("id", "system", "model", "method", "retriever", "weights", "url", "split")
#: Text fields the search box looks in.
SEARCH_FIELDS = ("system", "model", "method", "retriever")
#: Filter dropdown -> row field.
FILTER_FIELDS = {"models": "model", "methods": "method", "retrievers": "retriever", "conditions": "condition"}
#: The text columns before the scores, and the row field each shows (None: the rank): the rank with its interval,
#: the system and its dollars per paper, generator + judge (`COST_PER_PAPER`, "unknown" without a ledger), so that
#: at 1280 px a row's rank, cost and headline score are in view before any scrolling (the detailed cost columns
#: follow the scores).
LEAD_INFO = {"Rank": None, "System": "system", COST_PER_PAPER[1]: COST_PER_PAPER[0]}
#: The identity and provenance columns after the scores, and the row field each shows: a 1,280 px window shows
#: the system's headline scores first, and these stay columns (sortable; the filters read the same fields).
TRAIL_INFO = {"Scored under": "condition", "Model": "model", "Method": "method", "Retriever": "retriever",
              "Weights": "weights", "Profile": "profile", "Judge": "judge", "Papers": "papers",
              "Price table": "price_table"}
#: Every text column of the displayed frame, and the row field each shows.
DISPLAY_INFO = {**LEAD_INFO, **TRAIL_INFO}
#: Pixel widths of the text columns, and of every metric column: wide enough that no header word is split
#: across lines and "0.412 [0.380, 0.440]" fits on one (without them the browser squeezes the headers of columns
#: whose cells are short, "–", down to a letter a line).
INFO_WIDTHS = {"Rank": 150, "System": 220, COST_PER_PAPER[1]: 96, "Scored under": 200, "Model": 150, "Method": 150,
               "Retriever": 110, "Weights": 96, "Profile": 88, "Judge": 190, "Papers": 80, "Price table": 260}
#: Pixel width of each cost column ("$/paper (judge)", "Tokens/paper reasoning (gen)", "unknown").
COST_WIDTH = 150
METRIC_WIDTH = 190


def higher_is_better(metric: str) -> bool:
    """Whether a larger value of `metric` is better (False for `LOWER_IS_BETTER` metrics and the cost columns)."""
    return metric not in LOWER_IS_BETTER and metric not in COST_KEYS


def as_benchmark(benchmark: str | Benchmark) -> Benchmark:
    """A `Benchmark` from its name (or itself)."""
    return benchmark if isinstance(benchmark, Benchmark) else get_benchmark(benchmark)


def metric_columns(benchmark: str | Benchmark) -> list[tuple[str, str, str]]:
    """(group, metric key, column label) per metric in the paper's results-table order, the label "group · header"
    ("CQ · Prec.", "Lexical · ROUGE-1")."""
    bench = as_benchmark(benchmark)
    printed = bench.presentation.printed_labels  # headers as the paper prints them, where they differ from the table groups
    return [(group, key, f"{group} \u00b7 {printed.get(key, label)}")
            for group, columns in bench.suite.table_groups.items() for key, label in columns]


def board_columns(benchmark: str | Benchmark) -> list[tuple[str, str, str]]:
    """The leaderboard's columns: `metric_columns`, then the benchmark's board columns (`Benchmark.presentation.board_groups`:
    "Grounding · Found", ...), each (group, key, label)."""
    bench = as_benchmark(benchmark)
    return [*metric_columns(bench), *((group, key, f"{group} \u00b7 {label}")
                                      for group, columns in bench.presentation.board_groups.items() for key, label in columns)]


def frame_columns(benchmark: str | Benchmark) -> list[str]:
    """The displayed frame's columns in order: `LEAD_INFO` (Rank, System, $/paper), the paper's headline metrics and
    the board columns (`board_columns`), the cost columns (`sciwrite.core.costs.COST_COLUMNS`: "$/paper (gen)",
    ..., "unknown" without a ledger), then `TRAIL_INFO` (Scored under, Model, ..., Papers, Price table)."""
    return [*LEAD_INFO, *(label for _, _, label in board_columns(benchmark)), *(label for _, label in COST_COLUMNS),
            *TRAIL_INFO]


def metric_labels(benchmark: str | Benchmark) -> dict[str, str]:
    """Metric key -> column label."""
    return {key: label for _, key, label in metric_columns(benchmark)}


def number(value: Any) -> float | None:
    """`value` as a float when it is a finite number, else None (not computed, NaN, a stray string)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def leaderboard_rows(store: ResultsStore, benchmark: str | Benchmark, split: str | None = None) -> list[dict[str, Any]]:
    """One tidy row per FINISHED submission of `benchmark` (and `split`), oldest first: the submission's fields
    (id, system, model, method, retriever, weights, url, split), ``profile``, ``judge`` (`judge_text`),
    ``judge_model`` ("" without a judge, None when unknown) and ``condition`` (its label) of the row's scoring
    condition (`summary_condition`), ``schema_version``, ``n_papers``, ``papers`` (`papers_text`) and
    ``complete`` (`sciwrite.core.coverage`), per metric and board column (`board_columns`) ``<key>``, ``<key>_low``
    and ``<key>_high`` (floats or None), and the summary's ``not_computed`` / ``interval_notes`` (metric -> reason) for `not_computed_note`;
    ``paper_scores``: the per-paper scores of the board's metrics (metric -> paper_id -> value, for the rank
    intervals: `sciwrite.leaderboard.rank_cells.stored_paper_scores`, read once per scored version)."""
    bench = as_benchmark(benchmark)
    rows = []
    costs = store.costs(bench.name, split)
    for submission, summary in store.finished(bench.name, split):
        row: dict[str, Any] = {f: getattr(submission, f) for f in _INFO_FIELDS}
        # the cost fields (`COST_COLUMNS`, None: unknown), ``price_table`` and ``cost_unknown`` (why)
        row.update(costs[submission.id].fields() if submission.id in costs else unknown_fields())
        condition = summary_condition(summary, submission.profile)
        row["profile"], row["judge_model"], row["condition"] = condition.profile, condition.judge, condition.label
        row["self_reported"] = condition.self_reported
        row["judge"] = judge_text(summary)
        row["schema_version"] = summary.schema_version
        row["n_papers"] = summary.n_papers
        coverage = summary.scored
        row["papers"], row["complete"] = papers_text(summary), coverage.complete
        for key in bench.suite.metrics:
            interval = summary.interval(key)
            low, high = (interval.low, interval.high) if interval is not None else (None, None)
            row[key], row[f"{key}_low"], row[f"{key}_high"] = number(summary.value(key)), number(low), number(high)
        for key, values in (bench.presentation.board_values(summary) if bench.presentation.board_values else {}).items():
            row[key], row[f"{key}_low"], row[f"{key}_high"] = (number(v) for v in values)
        row["not_computed"] = dict(summary.not_computed)
        row["interval_notes"] = summary.interval_notes
        row[PAPER_SCORES] = stored_paper_scores(store, submission, bench.board_metrics)
        rows.append(row)
    return rows


def papers_text(summary: Summary) -> str:
    """The Papers cell: the count (the whole split), or ``n/N`` when the summary covers part of it
    (`sciwrite.core.coverage`; the board itself only scores complete submissions)."""
    coverage = summary.scored
    return str(summary.n_papers or "") if coverage.complete else coverage.fraction


def judge_text(summary: Summary) -> str:
    """The LLM judge a row was scored with, from its provenance: ``gpt-5.5 (gpt-5.5-2026-04-23)``, the snapshots
    joined when several answered, and for a panel a judge of which gave some paper no usable score, what is missing
    (``; panel incomplete: B scored 0 of 2 papers``), and `FAILED_MARK` when the judge failed its recorded check
    (`sciwrite.core.trust`); empty when no judge ran (or the summary predates provenance)."""
    judge = summary.provenance.judge if summary.provenance is not None else None
    if judge is None or not judge.model:
        return ""
    snapshots = ", ".join(judge.snapshots)
    text = f"{judge.model} ({snapshots})" if snapshots else judge.model
    if judge.panel_complete is False:
        text += f"; {incomplete_text(judge.judges, reasons=False) or 'panel incomplete'}"
    if failed_check(summary):
        text += f" {FAILED_MARK}"
    return text


def ci_text(value: float | None, low: float | None = None, high: float | None = None) -> str:
    """"0.412 [0.380, 0.440]" (3 decimals); the value alone without an interval; `MISSING` without a value."""
    if value is None:
        return MISSING
    if low is None or high is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _matches(row: Mapping[str, Any], needle: str, filters: Mapping[str, set[str]]) -> bool:
    if needle and not any(needle in str(row.get(f) or "").casefold() for f in SEARCH_FIELDS):
        return False
    return all(not wanted or str(row.get(field) or "") in wanted for field, wanted in filters.items())


def sort_rows(rows: Sequence[Mapping[str, Any]], metric: str,
              descending: bool | None = None) -> list[Mapping[str, Any]]:
    """`rows` by `metric`, numerically (best first by default: `higher_is_better`), rows without a value last;
    ties keep their order."""
    descending = higher_is_better(metric) if descending is None else descending
    present = [r for r in rows if number(r.get(metric)) is not None]
    absent = [r for r in rows if number(r.get(metric)) is None]
    return sorted(present, key=lambda r: r[metric], reverse=descending) + absent


def ranked_rows(rows: Sequence[Mapping[str, Any]], metric: str,
                descending: bool | None = None) -> list[tuple[int, Mapping[str, Any]]]:
    """(rank, row) of every row: one scoring condition after another (`condition_order`), each condition's rows
    sorted by `metric` (`sort_rows`) and ranked 1..n among themselves, never across conditions."""
    ranked: list[tuple[int, Mapping[str, Any]]] = []
    for condition in condition_order(rows):
        group = [r for r in rows if row_condition(r) == condition]
        ranked += enumerate(sort_rows(group, metric, descending), 1)
    return ranked


def _info_cell(row: Mapping[str, Any], field: str | None, rank: Any) -> Any:
    """A text column's cell: the rank cell (`field` None), a cost as `cost_text` writes it ("unknown", never 0),
    else the row's value as submitted."""
    if field is None:
        return rank
    return cost_text(field, number(row.get(field))) if field in COST_KEYS else row.get(field)


def leaderboard_frame(rows: Sequence[Mapping[str, Any]], benchmark: str | Benchmark, *, search: str = "",
                      models: Iterable[str] = (), methods: Iterable[str] = (), retrievers: Iterable[str] = (),
                      conditions: Iterable[str] = (), sort_by: str | None = None,
                      descending: bool | None = None, frontier_only: bool = False) -> pd.DataFrame:
    """The displayed table (`frame_columns`): Rank, System and $/paper (`cost_text`: "$0.0123", "unknown"), then
    one text column per metric and board column (`board_columns`: "0.412 [0.380, 0.440]", `MISSING` when not
    computed), the cost columns, then Scored under, Model, Method, Retriever, Weights, Profile, Judge, Papers and
    Price table. A cost sort (`COST_KEYS`) puts the rows whose cost is unknown last, as any missing value.

    Rows come grouped by scoring condition ("Scored under": profile and judge model, in `condition_order`), each
    group sorted by metric `sort_by` (default: the benchmark's first metric) numerically, in `descending` order
    (default: best first), rows without a value last; Rank is the row's place in its group, 1..n, counted before
    any filter (a filter hides rows, it never re-ranks them), shown with its rank interval and whether it differs
    significantly from the row above (`sciwrite.leaderboard.rank_cells.rank_cells`: "2 (1–3) ↑ n.s.").
    `search` is a case-insensitive plain substring (never a pattern) of system, model, method or retriever;
    `models` / `methods` / `retrievers` / `conditions` (condition labels) keep rows whose value is one of them
    (empty: all). `frontier_only` keeps only the rows on their condition's score-against-cost Pareto frontier
    (`sciwrite.leaderboard.pareto.score_cost` on the headline metric, the first of `metric_columns`, whatever
    `sort_by` is; rows with an unknown cost or score are never on it); the frontier is found among all the rows of a
    condition, before the other filters, and like them it hides rows after ranking, so no rank changes.
    ``frame.attrs["ids"]`` holds the submission ids in row order (for a click on a row),
    ``frame.attrs["ranks"]`` the bare ranks."""
    bench = as_benchmark(benchmark)
    columns = board_columns(bench)
    sort_by = sort_by or bench.suite.metrics[0]
    if sort_by not in bench.board_metrics and sort_by not in COST_KEYS:
        raise ValueError(f"cannot sort by {sort_by!r}: not a {bench.title} metric; choose one of "
                         f"{[*bench.board_metrics, *sorted(COST_KEYS)]}")
    needle = search.strip().casefold()
    filters = {FILTER_FIELDS["models"]: set(models), FILTER_FIELDS["methods"]: set(methods),
               FILTER_FIELDS["retrievers"]: set(retrievers), FILTER_FIELDS["conditions"]: set(conditions)}
    labelled = [{**r, "condition": row_condition(r).label} for r in rows]
    ranked = ranked_rows(labelled, sort_by, descending)
    cells = rank_cells(ranked, sort_by, higher_is_better(sort_by) if descending is None else descending)
    frontier = (score_cost(rows, metric_columns(bench)[0][1], higher_is_better(metric_columns(bench)[0][1])).frontier_ids
                if frontier_only else None)

    def shown(row: Mapping[str, Any]) -> bool:
        return _matches(row, needle, filters) and (frontier is None or str(row.get("id") or "") in frontier)

    kept = [(cell, r) for cell, (_, r) in zip(cells, ranked) if shown(r)]
    bare = [rank for rank, r in ranked if shown(r)]
    records = []
    for rank, row in kept:
        record: dict[str, Any] = {name: _info_cell(row, field, rank) for name, field in DISPLAY_INFO.items()}
        for _, key, label in columns:
            record[label] = ci_text(number(row.get(key)), number(row.get(f"{key}_low")), number(row.get(f"{key}_high")))
        for key, label in COST_COLUMNS:  # "unknown" without a ledger, never 0
            record[label] = cost_text(key, number(row.get(key)))
        records.append(record)
    frame = pd.DataFrame(records, columns=frame_columns(bench))
    frame.attrs["ids"] = [row.get("id") for _, row in kept]
    frame.attrs["ranks"] = bare
    return frame


def column_widths(benchmark: str | Benchmark) -> list[str]:
    """The width of each column of `leaderboard_frame`'s frame, in its order (for the page's table)."""
    paper = [f"{METRIC_WIDTH}px"] * len(metric_columns(benchmark))
    # a board header ("Grounding · Not found") is one label longer than the paper's short ones: wide enough to fit
    # on one line at about 9 px a character
    board = [f"{max(METRIC_WIDTH, 9 * len(label) + 24)}px" for _, _, label in board_columns(benchmark)[len(paper):]]
    # cost headers on one line too, at the same 9 px a character ("Tokens/paper reasoning (gen)")
    cost = [f"{max(COST_WIDTH, 9 * len(label) + 24)}px" for _, label in COST_COLUMNS]
    return ([f"{INFO_WIDTHS[name]}px" for name in LEAD_INFO] + paper + board + cost
            + [f"{INFO_WIDTHS[name]}px" for name in TRAIL_INFO])


def filter_choices(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The distinct non-empty values for the filter dropdowns: keys ``model``, ``method``, ``retriever`` (sorted)
    and ``condition`` (labels in `condition_order`), for `leaderboard_frame`'s `models`, `methods`, `retrievers`,
    `conditions`."""
    choices = {field: sorted({str(r.get(field)) for r in rows if r.get(field)})
               for field in FILTER_FIELDS.values() if field != "condition"}
    return {**choices, "condition": [c.label for c in condition_order(rows)]}


def not_computed_note(rows: Sequence[Mapping[str, Any]], benchmark: str | Benchmark) -> str:
    """One line per profile naming the metrics it did not compute and why (from the summaries' ``not_computed``),
    then the metrics shown without an interval and why (``interval_notes``); empty when there is nothing to say."""
    labels = metric_labels(benchmark)
    by_profile: dict[str, dict[str, list[str]]] = {}
    no_interval: dict[str, list[str]] = {}
    for row in rows:
        profile = str(row.get("profile") or "unknown profile")
        for metric, reason in (row.get("not_computed") or {}).items():
            reasons = by_profile.setdefault(profile, {}).setdefault(metric, [])
            if str(reason) not in reasons:
                reasons.append(str(reason))
        for metric, reason in (row.get("interval_notes") or {}).items():
            if str(reason) not in no_interval.setdefault(metric, []):
                no_interval[metric].append(str(reason))
    order = {key: i for i, key in enumerate(labels)}

    def listed(found: Mapping[str, list[str]]) -> str:
        ordered = sorted(found, key=lambda m: (order.get(m, len(order)), m))
        return "; ".join(f"{labels.get(m, m)}: {' / '.join(found[m])}" for m in ordered)

    lines = [f"Not computed under profile {profile!r} (shown as {MISSING}): {listed(found)}"
             for profile, found in sorted(by_profile.items())]
    if no_interval:
        lines.append(f"No interval: {listed(no_interval)}")
    return "\n".join(lines)


__all__ = ["LOWER_IS_BETTER", "MISSING", "board_columns", "ci_text", "column_widths", "filter_choices", "higher_is_better",
           "leaderboard_frame", "leaderboard_rows", "metric_columns", "metric_labels", "not_computed_note", "number",
           "papers_text", "ranked_rows", "sort_rows"]
