"""Ranks with their uncertainty: each system's rank interval and, for each system, whether it differs significantly
from the system ranked directly above it, from one paired bootstrap over the papers every system scored.

The statistic (`rank_intervals`) is pure. Papers are resampled with replacement the way ``sciwrite compare``
resamples them (`sciwrite.stats.resample_indices`: one index matrix, the same resampled papers for every system
in a replicate), each replicate's means are ranked, and:

* **Ties** share the better rank (competition ranking, "1224": a system's rank is 1 + the number of systems
  strictly better). Ranks stay whole numbers as the board prints them, and two systems with the same scores on
  every paper both rank where either would alone, so neither looks worse than the other.
* **The rank interval** of a system is ``[low, high]``: the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
  quantiles of its bootstrap ranks by the inverted empirical distribution function (numpy's ``inverted_cdf``: the
  smallest rank whose share of replicates at or below it reaches the level). At most ``(1 - confidence) / 2`` of
  the replicates fall below `low` and at most as many above `high`, and the ends are ranks that occurred.
* **Significance against the system above**: the paired percentile bootstrap interval (same replicates, same
  level) of mean(above) - mean(system) excludes 0: the interval ``sciwrite compare`` gives that pair on this
  metric with the same generator. `AdjacentDifference.flip_share` adds the share of replicates in which the
  system scores strictly better than the one above (the order flips).

A paper counts only when every system has a finite score for it (None, NaN or absent: left out for all). With
fewer than 2 such papers (or no resamples) there is no interval and nothing is significant.

One statistic for every front end: the board's Rank cells (`sciwrite.leaderboard.rank_cells`), ``sciwrite compare``
and ``sciwrite paper-table``'s runs table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sciwrite.stats import resample_indices

#: What a rank cell says when the ranked systems share fewer than 2 papers with a score (no bootstrap possible).
TOO_FEW = "fewer than 2 shared papers"
#: The markers against the system above: significantly different, or not.
SIGNIFICANT, NOT_SIGNIFICANT = "\u2191 sig.", "\u2191 n.s."
#: Comparisons per chunk when ranking replicate means (replicates x systems x systems; bounds the memory).
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class SystemRank:
    """One system's place: its mean over the shared papers, its rank there (ties share the better rank) and its
    rank interval (`low`, `high`: None without a bootstrap)."""

    system: str
    mean: float
    rank: int
    low: int | None = None
    high: int | None = None

    @property
    def interval(self) -> str:
        """"1–3", or "1" when both ends are equal; "" without an interval."""
        if self.low is None or self.high is None:
            return ""
        return str(self.low) if self.low == self.high else f"{self.low}\u2013{self.high}"


@dataclass(frozen=True)
class AdjacentDifference:
    """A system against the one directly above it in the order: mean(above) - mean(system) over the shared
    papers, its paired percentile bootstrap interval, whether that interval excludes 0, and the share of
    replicates in which the system scores strictly better than the one above (None without a bootstrap)."""

    system: str
    above: str
    difference: float
    ci_low: float | None = None
    ci_high: float | None = None
    flip_share: float | None = None

    @property
    def significant(self) -> bool:
        """Whether the interval excludes 0 (False without one)."""
        if self.ci_low is None or self.ci_high is None:
            return False
        return self.ci_low > 0 or self.ci_high < 0


@dataclass(frozen=True)
class RankIntervals:
    """The systems in order (best first unless an order was given) with their ranks, and each system after the
    first against the one above it; the papers counted, the resamples, the level and the metric's direction."""

    systems: tuple[SystemRank, ...]
    differences: tuple[AdjacentDifference, ...]
    n_papers: int
    n_resamples: int
    confidence: float
    higher_is_better: bool

    def rank(self, system: str) -> SystemRank:
        """`system`'s `SystemRank` (KeyError when it was not ranked)."""
        return {s.system: s for s in self.systems}[system]

    def vs_above(self, system: str) -> AdjacentDifference | None:
        """`system` against the system above it (None for the first)."""
        return next((d for d in self.differences if d.system == system), None)


def finite(value: Any) -> bool:
    """Whether `value` is a finite number (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def shared_matrix(scores: Mapping[str, Mapping[str, float | None]]) -> tuple[list[str], np.ndarray]:
    """The papers every system scored with a finite number (in the first system's order) and their (papers,
    systems) score matrix, systems in `scores` order."""
    systems = list(scores)
    papers = [pid for pid in (scores[systems[0]] if systems else {})
              if all(finite(scores[s].get(pid)) for s in systems)]
    matrix = np.array([[scores[s][pid] for s in systems] for pid in papers], dtype=float)
    return papers, matrix.reshape(len(papers), len(systems))


def competition_ranks(means: np.ndarray) -> np.ndarray:
    """Per row of `means` (replicates x systems, larger better), each system's rank: 1 + the number of systems
    strictly better (ties share the better rank). Compared in chunks so memory stays bounded."""
    n_rows, k = means.shape
    ranks = np.empty((n_rows, k), dtype=np.int64)
    step = max(1, _CHUNK_CELLS // max(1, k * k))
    for start in range(0, n_rows, step):
        block = means[start:start + step]
        ranks[start:start + step] = 1 + (block[:, :, None] > block[:, None, :]).sum(axis=1)
    return ranks


def rank_bounds(ranks: np.ndarray, confidence: float = 0.95) -> np.ndarray:
    """Per column of `ranks` (replicates x systems), the rank interval's ends as a (2, systems) integer array: the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles by the inverted empirical distribution function
    (the smallest rank whose share of replicates at or below it reaches the level)."""
    alpha = (1 - confidence) / 2
    return np.quantile(ranks, [alpha, 1 - alpha], axis=0, method="inverted_cdf").astype(np.int64)


def _resampled_means(matrix: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples, systems) means: each replicate draws papers once (`resample_indices`), for all systems."""
    n = matrix.shape[0]
    draws = resample_indices(n, n_resamples, rng)
    counts = np.bincount((draws + n * np.arange(n_resamples)[:, None]).ravel(),
                         minlength=n_resamples * n).reshape(n_resamples, n)
    return counts @ matrix / n


def rank_intervals(scores: Mapping[str, Mapping[str, float | None]], *, higher_is_better: bool = True,
                   order: Sequence[str] | None = None, n_resamples: int = 1000, confidence: float = 0.95,
                   rng: np.random.Generator | int | Sequence[int] | None = 0) -> RankIntervals:
    """Each system's rank interval and its difference from the system above, by a paired bootstrap over papers.

    Args:
        scores: System -> paper_id -> its score on one metric; only the papers every system scored count.
        higher_is_better: The metric's direction (rank 1: the highest mean, or the lowest when False).
        order: The systems' order for the "against the one above" comparisons (the board's rows); default: by
            mean over the shared papers, best first, ties in `scores` order.
        n_resamples: Bootstrap resamples; below 1, no intervals.
        confidence: The level of the rank intervals and of the difference intervals.
        rng: A numpy generator or its seed (``sciwrite compare`` seeds metric i with ``[seed, i]``).

    Returns:
        The `RankIntervals`, systems in `order`.

    Raises:
        ValueError: `order` is not the systems of `scores`, each once.
    """
    systems = list(scores)
    if order is not None and sorted(order) != sorted(systems):
        raise ValueError(f"rank order {list(order)} is not the ranked systems {systems}, each once")
    papers, matrix = shared_matrix(scores)
    sign = 1.0 if higher_is_better else -1.0
    means = matrix.mean(axis=0) if papers else np.full(len(systems), np.nan)
    observed = competition_ranks(sign * means[None, :])[0] if papers else np.ones(len(systems), dtype=np.int64)
    position = {s: i for i, s in enumerate(systems)}
    if order is None:
        order = sorted(systems, key=lambda s: (-sign * means[position[s]] if papers else 0.0, position[s]))
    bounds: dict[str, tuple[int | None, int | None]] = {s: (None, None) for s in systems}
    replicates: np.ndarray | None = None
    if len(papers) >= 2 and n_resamples >= 1 and systems:
        replicates = _resampled_means(matrix, n_resamples, np.random.default_rng(rng))
        ends = rank_bounds(competition_ranks(sign * replicates), confidence)
        bounds = {s: (int(ends[0, i]), int(ends[1, i])) for i, s in enumerate(systems)}
    ranked = tuple(SystemRank(s, float(means[position[s]]), int(observed[position[s]]), *bounds[s]) for s in order)
    differences = []
    for above, system in zip(order, order[1:]):
        a, b = position[above], position[system]
        found = AdjacentDifference(system, above, float(means[a] - means[b]))
        if replicates is not None:
            diffs = replicates[:, a] - replicates[:, b]
            alpha = (1 - confidence) / 2
            per_paper = matrix[:, a] - matrix[:, b]  # clipped to its range, as `sciwrite.stats.mean_interval` does
            low, high = np.clip(np.quantile(diffs, [alpha, 1 - alpha]), per_paper.min(), per_paper.max())
            flips = float(np.mean(sign * replicates[:, b] > sign * replicates[:, a]))
            found = AdjacentDifference(system, above, found.difference, float(low), float(high), flips)
        differences.append(found)
    return RankIntervals(ranked, tuple(differences), len(papers), n_resamples if replicates is not None else 0,
                         confidence, higher_is_better)


__all__ = ["NOT_SIGNIFICANT", "SIGNIFICANT", "TOO_FEW", "AdjacentDifference", "RankIntervals", "SystemRank",
           "competition_ranks", "finite", "rank_bounds", "rank_intervals", "shared_matrix"]
