"""A benchmark tab's score-against-cost plot: the headline score (the first of `metric_columns`) against dollars
per paper, every point named by its system, each scoring condition's Pareto frontier (`sciwrite.leaderboard.pareto`)
drawn as a step line, the points off it lighter, and a note saying how many rows were left out for an unknown cost.

Names never overlap one another or a point: each is put at the first free place of `LABEL_PLACES` around its point
(nearest first; the frontier's points choose first), joined to it by a thin line when it sits farther out, inside the
axes. A name with no free place is left off the plot and listed in the note with its cost and score, so every point
is named somewhere.

The x axis is logarithmic when the dearest point costs more than `LOG_SPREAD` times the cheapest (a $0.001 and a
$1 system are both readable), "symlog" (linear up to the cheapest non-zero cost, logarithmic above it) when such a
spread includes a free system (no log axis shows 0), and linear otherwise. Figures are built on the Agg backend
without pyplot's figure manager, as in `sciwrite.leaderboard.plots`; system names are drawn as plain text
(``parse_math=False``: a "$" in a name is not TeX), never as HTML.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

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
#: Where a point's name may go, tried in this order: (x offset, y offset) in points from the point, and the name's
#: horizontal and vertical alignment there (right-above, right-below, left-above, left-below, then a line farther
#: out each time).
LABEL_PLACES: tuple[tuple[float, float, Literal["left", "right"], Literal["bottom", "top"]], ...] = tuple(
    place for step in range(8) for place in (
    (4.0, 2.0 + 9.0 * step, "left", "bottom"), (4.0, -2.0 - 9.0 * step, "left", "top"),
    (-4.0, 2.0 + 9.0 * step, "right", "bottom"), (-4.0, -2.0 - 9.0 * step, "right", "top")))
#: Half the side, in pixels, of the square around each point that no name may cover.
POINT_HALF_PX = 3.5
#: The line from a point to its name placed beyond the first ring of `LABEL_PLACES`.
LEADER: dict[str, Any] = {"arrowstyle": "-", "linewidth": 0.5, "alpha": 0.5, "shrinkA": 0, "shrinkB": 2}


@dataclass(frozen=True)
class CostChart:
    """The plot and the note shown under it; `unlabelled`: the points whose name found no free place on the plot
    (named in the note instead)."""

    figure: Figure
    note: str
    unlabelled: tuple[CostPoint, ...] = ()


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
    unlabelled = place_labels(fig, ax, points)
    # the layout is final (the names were placed on it): drawing the figure again need not lay it out again, which
    # would cost as much as the placing did
    fig.set_layout_engine("none")
    note = cost_note(len(picked), len(points), part.no_cost, part.no_score, label)
    if unlabelled:
        note += "; named here for lack of room on the plot: " + ", ".join(
            f"{p.system} (${p.dollars:.4g}/paper, {p.score:.3f})" for p in unlabelled)
    return CostChart(fig, note, unlabelled)


def _overlaps(box: Bbox, others: Sequence[Bbox]) -> bool:
    return any(box.overlaps(other) for other in others)


def place_labels(fig: Figure, ax: Axes, points: Sequence[CostPoint]) -> tuple[CostPoint, ...]:
    """Name each of `points` (plotted on `ax` of `fig`) at the first of `LABEL_PLACES` where its name covers no other name and
    no point and stays inside the axes, the frontier's points first; a name placed beyond the first ring is joined to
    its point by a thin line. Names are annotations in the points' order, left out of the figure's layout (so that
    placing them never moves the axes); returns the points left unnamed for lack of room."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw_without_rendering()  # lay out the axes and fix their limits, so that pixels are final
    area = ax.get_window_extent(renderer)
    where = [ax.transData.transform((p.dollars, p.score)) for p in points]
    taken = [Bbox.from_extents(x - POINT_HALF_PX, y - POINT_HALF_PX, x + POINT_HALF_PX, y + POINT_HALF_PX)
             for x, y in where]
    names = []
    for point in points:
        name = ax.annotate(point.system, (point.dollars, point.score), xytext=LABEL_PLACES[0][:2],
                           textcoords="offset points", fontsize=7, parse_math=False,
                           alpha=1.0 if point.on_frontier else 0.6, arrowprops=dict(LEADER))
        name.set_in_layout(False)
        names.append(name)
    unnamed = []
    for i in sorted(range(len(points)), key=lambda i: not points[i].on_frontier):  # stable: frontier first
        if not _place(names[i], renderer, area, taken):
            names[i].remove()
            unnamed.append(i)
    return tuple(points[i] for i in sorted(unnamed))


def _place(name: Annotation, renderer: Any, area: Bbox, taken: list[Bbox]) -> bool:
    """Put `name` at the first free place of `LABEL_PLACES` (see `place_labels`) and add its box to `taken`."""
    for n, (dx, dy, ha, va) in enumerate(LABEL_PLACES):
        name.xyann = (dx, dy)
        name.set_horizontalalignment(ha)
        name.set_verticalalignment(va)
        name.update_positions(renderer)
        box = Text.get_window_extent(name, renderer)  # the name alone, without its line
        if area.contains(box.x0, box.y0) and area.contains(box.x1, box.y1) and not _overlaps(box, taken):
            if name.arrow_patch is not None:  # a line only beyond the first ring, to say whose name it is
                name.arrow_patch.set_visible(n >= 4)
            taken.append(box)
            return True
    return False


def cost_note(rows: int, plotted: int, no_cost: int, no_score: int, label: str) -> str:
    """The line under the plot: how many rows it shows and how many it left out, and why."""
    text = f"{plotted} of {rows} rows plotted; {no_cost} left out: cost unknown (no usage ledger or an unpriced call)"
    return text + (f"; {no_score} left out: no {label} score" if no_score else "")


__all__ = ["COLOURS", "LABEL_PLACES", "LOG_SPREAD", "OFF_FRONTIER_ALPHA", "POINT_HALF_PX", "CostChart", "cost_chart",
           "cost_note", "place_labels", "x_scale"]
