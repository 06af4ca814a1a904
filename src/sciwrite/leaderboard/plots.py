"""The leaderboard's charts, drawn from `sciwrite.leaderboard.tables.leaderboard_rows`: one category's metrics
across systems (grouped bars) and one metric across systems (sorted horizontal bars), each bar with its 95%
interval as an error bar.

Figures are built as `matplotlib.figure.Figure` objects on the Agg backend, not through pyplot's figure manager,
so a long-running page that draws on every request never accumulates open figures (a figure is freed when the
UI drops it). System names are drawn as plain text (``parse_math=False``): a "$" in a name is not TeX. When the
rows drawn span several scoring conditions (`sciwrite.core.conditions`), each name says its condition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from sciwrite.benchmark import Benchmark
from sciwrite.core.conditions import row_condition
from sciwrite.core.tables import headless_pyplot
from sciwrite.leaderboard.tables import as_benchmark, higher_is_better, metric_labels, number, sort_rows

#: The most systems a grouped-bar chart draws (the best by the category's first metric); more is unreadable.
MAX_GROUPED_SYSTEMS = 12
#: The most systems a one-metric chart draws (the best ones).
MAX_METRIC_SYSTEMS = 40


def _figure(width: float, height: float) -> Figure:
    headless_pyplot()  # selects the Agg backend once, as every sciwrite plot does
    return Figure(figsize=(width, height), layout="constrained")


def _message(text: str) -> Figure:
    """A small figure that only says `text` (no data to draw)."""
    fig = _figure(6, 1.6)
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=11, parse_math=False)
    ax.set_axis_off()
    return fig


def _error(row: Mapping[str, Any], key: str) -> tuple[float, float]:
    """(below, above) error-bar lengths of a row's metric value (0, 0 without a value or an interval)."""
    value, low, high = number(row.get(key)), number(row.get(f"{key}_low")), number(row.get(f"{key}_high"))
    if value is None or low is None or high is None:
        return 0.0, 0.0
    return max(value - low, 0.0), max(high - value, 0.0)


def _names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The system names of `rows` (a partial one followed by its n/N papers), each followed by its scoring
    condition when they span several."""
    conditions = [row_condition(r).label for r in rows]
    names = [str(r.get("system", "")) + (f" ({r.get('papers')} papers)" if r.get("complete") is False else "")
             for r in rows]
    if len(set(conditions)) <= 1:
        return names
    return [f"{name} [{condition}]" for name, condition in zip(names, conditions)]


def _best(rows: Sequence[Mapping[str, Any]], metric: str, limit: int | None) -> tuple[list[Mapping[str, Any]], str]:
    """The best `limit` rows by `metric` (rows without a value last) and a title suffix saying so when cut."""
    if limit is None or len(rows) <= limit:
        return list(rows), ""
    return sort_rows(rows, metric)[:limit], f" (best {limit} of {len(rows)})"


def category_bars(rows: Sequence[Mapping[str, Any]], benchmark: str | Benchmark, category: str, *,
                  max_systems: int | None = MAX_GROUPED_SYSTEMS) -> Figure:
    """Grouped bars: one group per metric of `category` (a group of the benchmark's results table), one bar per
    system (legend), error bars from the 95% intervals. A metric without a value gets an empty (NaN) bar. With
    more than `max_systems` rows, the best ones by the category's first metric are drawn, in that order."""
    bench = as_benchmark(benchmark)
    if category not in bench.suite.table_groups:
        raise ValueError(f"no category {category!r} in {bench.title}; choose one of {list(bench.suite.table_groups)}")
    if not rows:
        return _message("no finished submissions")
    metrics = [key for key, _ in bench.suite.table_groups[category]]
    labels = metric_labels(bench)
    shown, cut = _best(rows, metrics[0], max_systems)
    fig = _figure(max(4.0, 1.2 + len(metrics) * (0.9 + 0.18 * len(shown))), 4.2)
    ax = fig.add_subplot()
    width = 0.8 / len(shown)
    handles = []
    for i, row in enumerate(shown):
        xs = [m + (i - (len(shown) - 1) / 2) * width for m in range(len(metrics))]
        heights = [v if (v := number(row.get(m))) is not None else float("nan") for m in metrics]
        errors = list(zip(*(_error(row, m) for m in metrics)))
        handles.append(ax.bar(xs, heights, width=width, yerr=errors, capsize=2, error_kw={"elinewidth": 0.8}))
    ax.set_xticks(range(len(metrics)), [labels[m].split(" \u00b7 ", 1)[-1] for m in metrics])
    ax.set_ylabel("score" + ("" if all(higher_is_better(m) for m in metrics) else " (lower is better)"))
    ax.set_title(f"{bench.title}: {category}{cut}", fontsize=10, parse_math=False)
    legend = ax.legend(handles, _names(shown), fontsize=7, frameon=False,
                       loc="upper left", bbox_to_anchor=(1.0, 1.0))
    for text in legend.get_texts():
        text.set_parse_math(False)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def metric_chart(rows: Sequence[Mapping[str, Any]], benchmark: str | Benchmark, metric: str, *,
                 max_systems: int | None = MAX_METRIC_SYSTEMS) -> Figure:
    """One metric across systems: horizontal bars, best at the top (`higher_is_better`), with 95% interval error
    bars; systems without a value are left out (the title counts them). At most `max_systems` bars (the best)."""
    bench = as_benchmark(benchmark)
    labels = metric_labels(bench)
    if metric not in labels:
        raise ValueError(f"no metric {metric!r} in {bench.title}; choose one of {list(labels)}")
    if not rows:
        return _message("no finished submissions")
    valued = [r for r in rows if number(r.get(metric)) is not None]
    if not valued:
        return _message(f"no finished submission has a value for {labels[metric]}")
    shown, cut = _best(sort_rows(valued, metric), metric, max_systems)
    fig = _figure(7.0, 1.2 + 0.28 * len(shown))
    ax = fig.add_subplot()
    ys = list(range(len(shown)))[::-1]  # the best at the top
    errors = list(zip(*(_error(r, metric) for r in shown)))
    ax.barh(ys, [r[metric] for r in shown], xerr=errors, capsize=2, height=0.7, error_kw={"elinewidth": 0.8})
    ax.set_yticks(ys, _names(shown), fontsize=7)
    for text in ax.get_yticklabels():
        text.set_parse_math(False)
    missing = len(rows) - len(valued)
    direction = "higher is better" if higher_is_better(metric) else "lower is better"
    ax.set_xlabel(f"{labels[metric]} ({direction}; 95% interval)", parse_math=False)
    title = f"{bench.title}: {labels[metric]}{cut}" + (f"; {missing} without a value" if missing else "")
    ax.set_title(title, fontsize=10, parse_math=False)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


__all__ = ["MAX_GROUPED_SYSTEMS", "MAX_METRIC_SYSTEMS", "category_bars", "metric_chart"]
