"""Issue 51, score against cost: the Pareto frontier by hand (ties, dominated points, lower is better), the table's
"frontier only" filter and the plot, on hand-made rows."""

from __future__ import annotations

import pytest

from sciwrite.leaderboard.cost_plot import OFF_FRONTIER_ALPHA, cost_chart, x_scale
from sciwrite.leaderboard.pareto import dollars_per_paper, dominates, pareto_frontier, score_cost
from sciwrite.leaderboard.tables import leaderboard_frame, metric_columns

#: (score, $/paper) worked by hand below.
POINTS = [(0.5, 1.0),   # A: the cheapest at its score
          (0.7, 2.0),   # B: ties D exactly
          (0.6, 3.0),   # C: dearer and worse than B
          (0.7, 2.0),   # D: ties B exactly
          (0.9, 10.0),  # E: the best
          (0.4, 1.0),   # F: as cheap as A, worse
          (0.9, 12.0),  # G: as good as E, dearer
          (0.3, 5.0)]   # H: the lowest score, mid cost
HEADLINE = metric_columns("rwgbench")[0][1]
NO_JUDGE, JUDGED = ("lite", ""), ("paper", "gpt-5.5")
XSS = "<img src=x onerror=alert(1)>"


def test_a_point_is_dominated_only_when_strictly_better_somewhere():
    assert dominates((0.7, 2.0), (0.6, 3.0)) and dominates((0.5, 1.0), (0.4, 1.0)) and dominates((0.9, 10), (0.9, 12))
    assert not dominates((0.7, 2.0), (0.7, 2.0))  # a tie
    assert not dominates((0.9, 10.0), (0.5, 1.0))  # better but dearer
    assert dominates((0.4, 1.0), (0.5, 1.0), higher_is_better=False)


def test_the_frontier_by_hand_with_ties_and_dominated_points():
    # higher is better: A (nothing cheaper), B and D (tie each other, nothing dominates them), E; C by B, F by A,
    # G by E, H by A
    assert pareto_frontier(POINTS) == [True, True, False, True, True, False, False, False]
    # lower is better: F ($1, 0.4) beats every point costing at least $1 with a score of at least 0.4; H is dearer
    # but lower
    assert pareto_frontier(POINTS, higher_is_better=False) == [False, False, False, False, False, True, False, True]
    assert pareto_frontier([]) == [] and pareto_frontier([(0.1, 5.0)]) == [True]


def _row(sid, score, gen, judge=0.0, condition=NO_JUDGE, system=None):
    profile, judge_model = condition
    return {"id": sid, "system": system or sid, HEADLINE: score, "cost_gen_per_paper": gen,
            "cost_judge_per_paper": judge, "profile": profile, "judge_model": judge_model}


def test_unknown_costs_and_scores_are_left_out_and_counted_and_each_condition_has_its_own_frontier():
    assert dollars_per_paper({"cost_gen_per_paper": 0.02, "cost_judge_per_paper": 0.0}) == pytest.approx(0.02)
    assert dollars_per_paper({"cost_gen_per_paper": 0.02, "cost_judge_per_paper": None}) is None
    rows = [_row("cheap", 0.5, 0.01), _row("dear", 0.4, 0.05),  # dear: dominated by cheap
            _row("no ledger", 0.9, None), _row("judge unknown", 0.9, 0.01, None), _row("no score", None, 0.01),
            # another condition: dominated by "cheap" across conditions, but alone in its own, so on its frontier
            _row("judged", 0.3, 0.04, 0.01, condition=JUDGED)]
    found = score_cost(rows, HEADLINE)
    assert (found.no_cost, found.no_score) == (2, 1)
    assert [(p.system, p.dollars, p.on_frontier) for p in found.points] == [
        ("cheap", 0.01, True), ("dear", 0.05, False), ("judged", pytest.approx(0.05), True)]
    assert found.frontier_ids == {"cheap", "judged"}


def test_frontier_only_keeps_exactly_the_frontier_rows_and_never_changes_a_rank():
    rows = [_row("a", 0.5, 1.0), _row("b", 0.7, 2.0), _row("c", 0.6, 3.0), _row("d", 0.7, 2.0),
            _row("e", 0.9, 10.0), _row("f", 0.4, 1.0), _row("g", 0.9, 12.0), _row("h", 0.3, 5.0),
            _row("unknown", 0.95, None)]
    full = leaderboard_frame(rows, "rwgbench")
    rank = dict(zip(full.attrs["ids"], full.attrs["ranks"]))
    frontier = leaderboard_frame(rows, "rwgbench", frontier_only=True)
    assert sorted(frontier.attrs["ids"]) == ["a", "b", "d", "e"]  # as worked by hand above; unknown cost never
    assert {sid: r for sid, r in zip(frontier.attrs["ids"], frontier.attrs["ranks"])} == {
        sid: rank[sid] for sid in "abde"}
    assert rank["unknown"] == 1 and rank["e"] == 2  # ranked before the filter: "e" stays 2nd, not 1st
    # with a search too: both filters apply
    assert leaderboard_frame(rows, "rwgbench", frontier_only=True, search="e").attrs["ids"] == ["e"]
    # sorted by cost instead: the frontier is still the headline score's
    assert sorted(leaderboard_frame(rows, "rwgbench", frontier_only=True, sort_by="cost_total").attrs["ids"]) == [
        "a", "b", "d", "e"]


def test_the_x_axis_is_logarithmic_only_beyond_a_tenfold_spread():
    assert x_scale([0.01, 0.05]) == "linear" and x_scale([0.01, 0.1]) == "linear"  # exactly 10x: linear
    assert x_scale([0.001, 0.5, 1.0]) == "log"
    assert x_scale([0.0, 0.001, 1.0]) == "symlog"  # a free system: no log axis shows 0
    assert x_scale([0.0, 1.0]) == "linear" and x_scale([]) == "linear"


def test_the_plot_names_every_point_as_text_draws_the_frontier_and_counts_what_it_left_out():
    rows = [_row("a", 0.5, 0.001, system=XSS), _row("b", 0.7, 0.002, system="$5 agent"), _row("c", 0.6, 0.003),
            _row("e", 0.9, 0.5), _row("unknown", 0.9, None)]
    chart = cost_chart(rows, "rwgbench")
    ax = chart.figure.axes[0]
    assert [t.get_text() for t in ax.texts] == [XSS, "$5 agent", "c", "e"]
    assert not any(t.get_parse_math() for t in ax.texts)
    assert ax.get_xscale() == "log"  # 0.001 to 0.5
    assert [tuple(xy) for xy in ax.lines[0].get_xydata()] == [(0.001, 0.5), (0.002, 0.7), (0.5, 0.9)]
    assert [c.get_alpha() for c in ax.collections] == [1.0, 1.0, OFF_FRONTIER_ALPHA, 1.0]  # c is off the frontier
    assert chart.note.startswith("4 of 5 rows plotted; 1 left out: cost unknown")
    # only the rows the table shows; the frontier is still found among all of them
    shown = cost_chart(rows, "rwgbench", shown={"c", "e"})
    assert [t.get_text() for t in shown.figure.axes[0].texts] == ["c", "e"]
    assert [c.get_alpha() for c in shown.figure.axes[0].collections] == [OFF_FRONTIER_ALPHA, 1.0]
    assert shown.note.startswith("2 of 2 rows plotted; 0 left out")
    assert cost_chart([], "rwgbench").note.startswith("0 of 0 rows plotted")
