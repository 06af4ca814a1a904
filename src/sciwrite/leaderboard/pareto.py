"""Score against cost: which leaderboard rows lie on the Pareto frontier of a score and the dollars a paper cost.

A row's cost is its dollars per paper, the generator's plus the judge's (``cost_gen_per_paper`` +
``cost_judge_per_paper``, `sciwrite.core.costs`); a row whose cost or score is unknown is left out of the
frontier and counted, never taken as free or as worthless.

A point is on the frontier when no other point dominates it; point B dominates point A when B costs at most as much
and scores at least as well, and is strictly cheaper or strictly better. Ties: two points with the same cost and the
same score do not dominate each other, so both are on the frontier (or neither, when a third dominates them); of
two points with the same cost, only the better scoring one is; of two with the same score, only the cheaper one.

Scores of different scoring conditions (profile and judge, `sciwrite.core.conditions`) are not comparable,
so `score_cost` draws one frontier per condition, as the table ranks within conditions. Pure functions over plain
data; nothing here draws or builds HTML.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.core.conditions import row_condition

#: The row fields whose sum is a row's dollars per paper.
DOLLAR_FIELDS = ("cost_gen_per_paper", "cost_judge_per_paper")


@dataclass(frozen=True)
class CostPoint:
    """One row on the score-against-cost plane: its submission id, system name, scoring condition (label), score,
    dollars per paper, and whether it is on its condition's frontier."""

    id: str
    system: str
    condition: str
    score: float
    dollars: float
    on_frontier: bool


@dataclass(frozen=True)
class ScoreCost:
    """Every row with a known score and cost as a `CostPoint`, in the rows' order, and how many rows were left out
    because their cost (`no_cost`) or, with a known cost, their score (`no_score`) is unknown."""

    points: tuple[CostPoint, ...]
    no_cost: int
    no_score: int
    higher_is_better: bool

    @property
    def frontier_ids(self) -> frozenset[str]:
        """The ids of the points on a frontier."""
        return frozenset(p.id for p in self.points if p.on_frontier)


def _finite(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def dollars_per_paper(row: Mapping[str, Any]) -> float | None:
    """Generator plus judge dollars per paper; None when either is unknown (a judge that did not run costs 0)."""
    parts = [_finite(row.get(field)) for field in DOLLAR_FIELDS]
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


def dominates(a: tuple[float, float], b: tuple[float, float], higher_is_better: bool = True) -> bool:
    """Whether point `a` = (score, dollars) dominates `b`: at most as expensive, at least as good, and strictly
    cheaper or strictly better."""
    (score_a, cost_a), (score_b, cost_b) = a, b
    if not higher_is_better:
        score_a, score_b = -score_a, -score_b
    return cost_a <= cost_b and score_a >= score_b and (cost_a < cost_b or score_a > score_b)


def pareto_frontier(points: Sequence[tuple[float, float]], higher_is_better: bool = True) -> list[bool]:
    """For each (score, dollars) of `points`, whether it is on the Pareto frontier (no other point `dominates` it;
    equal points are both on it). Quadratic in the number of points: a board holds tens of systems."""
    return [not any(dominates(other, point, higher_is_better) for j, other in enumerate(points) if j != i)
            for i, point in enumerate(points)]


def score_cost(rows: Sequence[Mapping[str, Any]], metric: str, higher_is_better: bool = True) -> ScoreCost:
    """The rows (`sciwrite.leaderboard.tables.leaderboard_rows`) with a known `metric` and a known cost, each marked
    on or off the frontier of its scoring condition, and the counts of the rows left out."""
    kept: list[tuple[Mapping[str, Any], float, float]] = []
    no_cost = no_score = 0
    for row in rows:
        dollars, score = dollars_per_paper(row), _finite(row.get(metric))
        if dollars is None:
            no_cost += 1
        elif score is None:
            no_score += 1
        else:
            kept.append((row, score, dollars))
    on = [False] * len(kept)
    for condition in dict.fromkeys(row_condition(row) for row, _, _ in kept):
        members = [i for i, (row, _, _) in enumerate(kept) if row_condition(row) == condition]
        for i, flag in zip(members, pareto_frontier([kept[i][1:] for i in members], higher_is_better)):
            on[i] = flag
    points = tuple(CostPoint(id=str(row.get("id") or ""), system=str(row.get("system") or ""),
                             condition=row_condition(row).label, score=score, dollars=dollars, on_frontier=flag)
                   for (row, score, dollars), flag in zip(kept, on))
    return ScoreCost(points, no_cost, no_score, higher_is_better)


__all__ = ["DOLLAR_FIELDS", "CostPoint", "ScoreCost", "dollars_per_paper", "dominates", "pareto_frontier", "score_cost"]
