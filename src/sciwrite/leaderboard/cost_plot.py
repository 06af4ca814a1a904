"""A benchmark tab's score-against-cost plot: the headline score (the first of `metric_columns`) against dollars
per paper, every point named by its system, each scoring condition's Pareto frontier (`sciwrite.leaderboard.pareto`)
drawn as a step line, the points off it lighter, and a note saying how many rows were left out for an unknown cost.

The x axis is logarithmic when the dearest point costs more than `LOG_SPREAD` times the cheapest (a $0.001 and a
$1 system are both readable), "symlog" (linear up to the cheapest non-zero cost, logarithmic above it) when such a
spread includes a free system (no log axis shows 0), and linear otherwise. Figures are built on the Agg backend
without pyplot's figure manager, as in `sciwrite.leaderboard.plots`; system names are drawn as plain text
(``parse_math=False``: a "$" in a name is not TeX), never as HTML.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure

from sciwrite.benchmark import Benchmark
from sciwrite.core.tables import headless_pyplot
from sciwrite.leaderboard.pareto import CostPoint, score_cost
from sciwrite.leaderboard.tables import as_benchmark, higher_is_better, metric_columns

#: Above this ratio of the dearest to the cheapest dollars per paper, the x axis is logarithmic.
LOG_SPREAD = 10.0
#: Matplotlib's default colour cycle, one colour per scoring condition.
COLOURS = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9")
#: How light a point off the frontier is drawn (its alpha), and its name.
OFF_FRONTIER_ALPHA = 0.3


@dataclass(frozen=True)
class CostChart:
    """The plot and the note shown under it."""

    figure: Figure
    note: str


def x_scale(dollars: Sequence[float]) -> str:
    """The x axis' scale for these dollars per paper: "log" when the largest is more than `LOG_SPREAD` times the
    smallest, "symlog" when that holds of the non-zero ones and some are 0, else "linear"."""
    positive = [d for d in dollars if d > 0]
    if len(positive) < 2 or max(positive) <= LOG_SPREAD * min(positive):
        return "linear"
    return "log" if len(positive) == len(dollars) else "symlog"


def _frontier_line(points: Sequence[CostPoint], higher: bool) -> tuple[list[float], list[float]]:
    """The frontier points as a step line, cheapest first: the best score a budget buys, flat until the next point."""
    ordered = sorted(points, key=lambda p: (p.dollars, -p.score if higher else p.score))
    return [p.dollars for p in ordered], [p.score for p in ordered]


def cost_chart(rows: Sequence[Mapping[str, Any]], benchmark: str | Benchmark,
               shown: Collection[str] | None = None) -> CostChart:
    """The plot of `rows` (`leaderboard_rows`) whose id is in `shown` (all when None: the table's rows after its
    filters), each marked on or off its condition's frontier as found among all `rows` (so a filter hides points,
    it never moves the frontier), and the note under it."""
    bench = as_benchmark(benchmark)
    _, metric, label = metric_columns(bench)[0]
    higher = higher_is_better(metric)
    picked = [r for r in rows if shown is None or str(r.get("id") or "") in shown]
    flags = {p.id: p.on_frontier for p in score_cost(rows, metric, higher).points}
    part = score_cost(picked, metric, higher)
    points = [CostPoint(p.id, p.system, p.condition, p.score, p.dollars, flags.get(p.id, False)) for p in part.points]
    headless_pyplot()  # the Agg backend, as every sciwrite plot
    fig = Figure(figsize=(7.0, 4.2), layout="constrained")
    ax = fig.add_subplot()
    conditions = list(dict.fromkeys(p.condition for p in points))
    for n, condition in enumerate(conditions):
        colour = COLOURS[n % len(COLOURS)]
        group = [p for p in points if p.condition == condition]
        ax.step(*_frontier_line([p for p in group if p.on_frontier], higher), where="post", color=colour,
                linewidth=1.2, label=condition if len(conditions) > 1 else None)
        for point in group:
            alpha = 1.0 if point.on_frontier else OFF_FRONTIER_ALPHA
            ax.scatter([point.dollars], [point.score], color=colour, alpha=alpha, s=28, zorder=3)
            ax.annotate(point.system, (point.dollars, point.score), xytext=(4, 4), textcoords="offset points",
                        fontsize=7, alpha=max(alpha, 0.6), parse_math=False)
    if points:
        scale = x_scale([p.dollars for p in points])
        if scale == "symlog":
            ax.set_xscale("symlog", linthresh=min(p.dollars for p in points if p.dollars > 0))
        else:
            ax.set_xscale(scale)
    else:
        ax.text(0.5, 0.5, "no system with a known cost and score", ha="center", va="center",
                transform=ax.transAxes, parse_math=False)
    if len(conditions) > 1:
        legend = ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        for text in legend.get_texts():
            text.set_parse_math(False)
    ax.set_xlabel("$/paper (generator + judge)", parse_math=False)
    ax.set_ylabel(f"{label} ({'higher' if higher else 'lower'} is better)", parse_math=False)
    ax.set_title(f"{bench.title}: {label} against cost; line: Pareto frontier", fontsize=10, parse_math=False)
    ax.spines[["top", "right"]].set_visible(False)
    return CostChart(fig, cost_note(len(picked), len(points), part.no_cost, part.no_score, label))


def cost_note(rows: int, plotted: int, no_cost: int, no_score: int, label: str) -> str:
    """The line under the plot: how many rows it shows and how many it left out, and why."""
    text = f"{plotted} of {rows} rows plotted; {no_cost} left out: cost unknown (no usage ledger or an unpriced call)"
    return text + (f"; {no_score} left out: no {label} score" if no_score else "")


__all__ = ["COLOURS", "LOG_SPREAD", "OFF_FRONTIER_ALPHA", "CostChart", "cost_chart", "cost_note", "x_scale"]
