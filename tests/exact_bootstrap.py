"""Exact percentile bootstrap intervals, by enumerating every resample of a tiny data set, to check the level
(95 %) of the intervals `sciwrite.stats` and `sciwrite.meta_eval.agreement` compute by Monte Carlo.

Both compute ``numpy.quantile`` (linear interpolation) of B resampled statistics at ``(1 - confidence) / 2`` and
``(1 + confidence) / 2``. As B grows, that sample quantile converges to the p-quantile of the exact bootstrap
distribution, the smallest value v with F(v) > p, as long as no F(v) equals p: the test data are chosen so that
every F(v) stays `margin` away from both levels, and B so large that the empirical F cannot cross p (`z_score`).
A statistic that is undefined for a resample (None) is left out, as the implementations leave out NaN: the
distribution is then the one conditional on the statistic being defined."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class ExactInterval:
    """The exact percentile interval, and how far the distribution's CDF stays from its two levels."""

    low: float
    high: float
    margin: float


def resamples(n: int) -> Iterator[tuple[int, ...]]:
    """Every one of the n^n equally likely index tuples of a bootstrap resample of n items."""
    return itertools.product(range(n), repeat=n)


def distribution(outcomes: Iterable[Fraction | float | None]) -> list[tuple[Fraction | float, Fraction]]:
    """(value, probability) sorted by value, from equally likely outcomes; None (undefined) left out."""
    counts = Counter(v for v in outcomes if v is not None)
    total = sum(counts.values())
    return [(value, Fraction(count, total)) for value, count in sorted(counts.items())]


def percentile_interval(dist: list[tuple[Fraction | float, Fraction]], confidence: float) -> ExactInterval:
    """The limit of the implementations' interval at `confidence` (see the module docstring)."""
    p = (1 - Fraction(str(confidence))) / 2
    low, low_margin = _quantile(dist, p)
    high, high_margin = _quantile(dist, 1 - p)
    return ExactInterval(float(low), float(high), float(min(low_margin, high_margin)))


def _quantile(dist: list[tuple[Fraction | float, Fraction]], p: Fraction) -> tuple[Fraction | float, Fraction]:
    cdf = list(itertools.accumulate(prob for _, prob in dist))
    value = next(v for (v, _), f in zip(dist, cdf) if f > p)
    return value, min(abs(f - p) for f in cdf)


def z_score(interval: ExactInterval, confidence: float, n_resamples: int) -> float:
    """The interval's `margin` in standard errors of an empirical CDF from `n_resamples` draws, taken where the
    CDF is at most `margin` beyond the tail level (its variance F(1 - F) / B is largest there)."""
    f = min(0.5, (1 - confidence) / 2 + interval.margin)
    return interval.margin / math.sqrt(f * (1 - f) / n_resamples)


def level_intervals(dist: list[tuple[Fraction | float, Fraction]], n_resamples: int,
                    min_z: float) -> dict[float, tuple[float, float]]:
    """The exact 90 % and 95 % intervals, after checking that `n_resamples` draws settle each one (`min_z`
    standard errors of margin) and that the two differ: a case where the level does not matter checks nothing."""
    exact = {c: percentile_interval(dist, c) for c in (0.90, 0.95)}
    for confidence, interval in exact.items():
        assert z_score(interval, confidence, n_resamples) > min_z, "too few resamples to settle the interval"
    intervals = {c: (i.low, i.high) for c, i in exact.items()}
    assert intervals[0.90] != intervals[0.95], "the two levels give the same interval here"
    return intervals
