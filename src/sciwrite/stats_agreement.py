"""Agreement among annotators (people or judges), shared by every benchmark: Krippendorff's alpha with a bootstrap
interval, Cohen's kappa for two annotators, and the agreement of annotators with a majority of the others.

Data is a reliability matrix: one row per annotator, one column per item, each cell a numeric code (a choice's
index, a rating), NaN where that annotator did not answer that item.

- **Alpha** is `krippendorff.alpha` (never written here), nominal or ordinal. Pass the scale as `value_domain`
  (the three choices, the five ratings): the codes are then ordered as the scale, a value outside it is refused,
  and a study whose annotators never used a step still has its scale (an unused step weighs nothing in either
  metric). Alpha is undefined (None) when no item has two answers, or when every answer is the same value (its
  expected disagreement is then zero).
- **Its interval** is a percentile bootstrap over *items*: the matrix's columns are resampled with replacement,
  as `sciwrite.stats` resamples papers, with a seeded generator. Items are the units alpha is computed over, and
  annotators are few and fixed in a study, so items are what a replication would draw anew. Only items with two
  or more answers are resampled: alpha ignores the others, and keeping them would only thin the resamples. A
  resample whose alpha is undefined (all answers equal) is left out of the percentiles.
- **Cohen's kappa** is `sklearn.metrics.cohen_kappa_score` on the items both annotators answered: unweighted for
  nominal answers, linear-weighted for ordinal ones (a 4 against a 5 is a smaller disagreement than a 1 against a
  5; linear weights keep the penalty proportional to the distance, where quadratic weights would make kappa
  approach a correlation).
- **Majorities**: an item's majority is the unique most frequent answer; an item whose top answers tie has none
  and is left out (counted as a tie). `leave_one_out` compares each annotator with the majority of the *others*,
  and a model with those very same majorities, so a model and a person are judged against identical references.
  Shares are pooled over items and their intervals are percentile bootstraps over items, seeded.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final, Literal, TypeVar

import krippendorff
import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

#: A level of measurement the agreement statistics take (krippendorff's `level_of_measurement`).
Level = Literal["nominal", "ordinal"]
NOMINAL: Final = "nominal"
ORDINAL: Final = "ordinal"
LEVELS: tuple[Level, ...] = (NOMINAL, ORDINAL)
#: Cohen's kappa weighting per level (sklearn's ``weights``).
KAPPA_WEIGHTS: dict[str, str | None] = {NOMINAL: None, ORDINAL: "linear"}
"""Cohen's kappa weighting per level (sklearn's ``weights``): unweighted for nominal, linear for ordinal."""
#: How alpha's and the shares' intervals are computed, as tables name it.
INTERVAL_METHOD = "percentile bootstrap over items"

Seed = int | Sequence[int] | None
#: What a reliability matrix's columns are keyed by (a task id, a paper id, ...).
Item = TypeVar("Item", bound=Hashable)


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha of a reliability matrix with its bootstrap interval (None where undefined).

    Attributes:
        alpha: The point estimate.
        low: The interval's lower bound.
        high: The interval's upper bound.
        n_items: The items with two or more answers, which alpha is computed over.
        n_annotators: The annotators who answered any of them.
        level: ``nominal`` or ``ordinal``.
        n_resamples: Bootstrap resamples.
        confidence: The interval's coverage.
    """

    alpha: float | None
    low: float | None
    high: float | None
    n_items: int
    n_annotators: int
    level: str
    n_resamples: int
    confidence: float = 0.95


@dataclass(frozen=True)
class KappaResult:
    """Cohen's kappa of two annotators over the items both answered.

    Attributes:
        kappa: Kappa; None where undefined (no item, or one label only).
        n_items: The items both annotators answered.
        weights: None (unweighted) or ``linear``.
    """

    kappa: float | None
    n_items: int
    weights: str | None


@dataclass(frozen=True)
class Share:
    """A share of agreeing comparisons, pooled over items, with a bootstrap interval over items.

    Attributes:
        agree: Comparisons that agree.
        n: Comparisons.
        share: agree / n; None with no comparison.
        low: The interval's lower bound.
        high: The interval's upper bound.
        ties: Items left out because the reference had no unique majority.
    """

    agree: int
    n: int
    share: float | None
    low: float | None
    high: float | None
    ties: int = 0


@dataclass(frozen=True)
class MajorityComparison:
    """People and a model against the same references, as `leave_one_out` compares them.

    Attributes:
        humans: Each annotator against the majority of the others.
        model: The model against each of those majorities; None without a model.
        difference: The model's share minus the people's.
        difference_low: The difference's paired bootstrap interval (the same resampled items for both), lower
            bound.
        difference_high: Its upper bound.
    """

    humans: Share
    model: Share | None = None
    difference: float | None = None
    difference_low: float | None = None
    difference_high: float | None = None


def _level(level: str) -> Level:
    """`level` as a known level of measurement; ValueError for any other."""
    for known in LEVELS:
        if level == known:
            return known
    raise ValueError(f"unknown level of measurement {level!r}; choose one of {list(LEVELS)}")


def reliability_matrix(values: Mapping[str, Mapping[Item, float]], annotators: Sequence[str],
                       items: Sequence[Item]) -> np.ndarray:
    """The annotators x items matrix of `values` (annotator -> item -> code), NaN where an answer is missing.

    Rows follow `annotators` and columns follow `items`; an item not in `items` is ignored.
    """
    matrix = np.full((len(annotators), len(items)), np.nan)
    column = {item: j for j, item in enumerate(items)}
    for i, annotator in enumerate(annotators):
        for item, value in values.get(annotator, {}).items():
            if item in column:
                matrix[i, column[item]] = float(value)
    return matrix


def pairable(matrix: np.ndarray) -> np.ndarray:
    """The columns of `matrix` (2-D) with two or more answers: the items alpha is computed over."""
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    return matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]


def alpha(matrix: np.ndarray, level: str, value_domain: Sequence[float] | np.ndarray | None = None) -> float | None:
    """Krippendorff's alpha (`krippendorff.alpha`) of `matrix` at `level`, without an interval.

    None where alpha is undefined: no item with two answers, or no variation at all.
    """
    data = pairable(matrix)
    if data.shape[1] == 0:
        return None
    domain = None if value_domain is None else np.asarray(value_domain, dtype=float)
    if len(np.unique(data[~np.isnan(data)])) < 2 and (domain is None or len(domain) < 2):
        return None  # one value and no scale: krippendorff refuses the domain; alpha is undefined anyway
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = krippendorff.alpha(reliability_data=data, value_domain=domain, level_of_measurement=_level(level))
    return float(value) if np.isfinite(value) else None


def alpha_interval(matrix: np.ndarray, level: str, value_domain: Sequence[float] | None = None,
                   n_resamples: int = 1000, confidence: float = 0.95, seed: Seed = 0) -> AlphaResult:
    """Krippendorff's alpha of `matrix` with its percentile bootstrap interval over items.

    Only the items with two or more answers are resampled (alpha ignores the others); a resample whose alpha is
    undefined is left out of the percentiles.

    Args:
        matrix: Annotators x items, each cell a numeric code, NaN where that annotator did not answer.
        level: ``nominal`` (choices) or ``ordinal`` (ratings).
        value_domain: The scale's codes in order (the three choices, the five ratings); a value outside it is
            refused, and a step nobody used still belongs to the scale.
        n_resamples: Bootstrap resamples; 0 for no interval.
        confidence: The interval's coverage.
        seed: The seed of ``numpy.random.default_rng``.

    Returns:
        Alpha (None where undefined), its interval and the numbers of items and annotators it is over.
    """
    data = pairable(matrix)
    n_items = data.shape[1]
    n_annotators = int((~np.isnan(data)).any(axis=1).sum()) if n_items else 0
    point = alpha(data, level, value_domain)
    low = high = None
    if point is not None and n_resamples > 0:
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, n_items, size=(n_resamples, n_items))
        values = [a for idx in draws if (a := alpha(data[:, idx], level, value_domain)) is not None]
        if values:
            tail = (1 - confidence) / 2
            low, high = (float(q) for q in np.quantile(values, [tail, 1 - tail]))
    return AlphaResult(point, low, high, n_items, n_annotators, _level(level), max(n_resamples, 0), confidence)


def cohen_kappa(first: Sequence[float], second: Sequence[float], level: str,
                labels: Sequence[float] | None = None) -> KappaResult:
    """Cohen's kappa (`sklearn.metrics.cohen_kappa_score`) of two annotators' answers to the same items.

    Args:
        first: One annotator's answers, one per item (NaN or None: not answered; only items both answered count).
        second: The other's, for the same items.
        level: ``nominal`` (unweighted kappa) or ``ordinal`` (linear weights), as `KAPPA_WEIGHTS` says.
        labels: The scale's codes in order, for the linear weights.

    Returns:
        Kappa (None where undefined: no item, or one label only), the number of items and the weights.
    """
    x, y = (np.array([np.nan if v is None else v for v in answers], dtype=float) for answers in (first, second))
    if x.shape != y.shape:
        raise ValueError(f"two annotators' answers must cover the same items, got {len(x)} and {len(y)}")
    both = ~np.isnan(x) & ~np.isnan(y)
    weights = KAPPA_WEIGHTS[_level(level)]
    if not both.any():
        return KappaResult(None, 0, weights)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        value = cohen_kappa_score(x[both], y[both], labels=None if labels is None else list(labels), weights=weights)
    value = float(value)
    return KappaResult(value if np.isfinite(value) else None, int(both.sum()), weights)


def majority(answers: Iterable[float]) -> float | None:
    """The unique most frequent of `answers` (NaN left out); None when there is none or the top answers tie."""
    counts = Counter(float(a) for a in answers if not np.isnan(a)).most_common(2)
    if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def _pooled(agree: np.ndarray, n: np.ndarray) -> float | None:
    total = n.sum()
    return float(agree.sum() / total) if total else None


def ratio_interval(agree: Sequence[float] | np.ndarray, n: Sequence[float] | np.ndarray, n_resamples: int = 1000,
                   confidence: float = 0.95, seed: Seed = 0, ties: int = 0) -> Share:
    """A share pooled over items, sum(agree) / sum(n), with a percentile bootstrap interval over items.

    Per item, `agree` counts the agreeing comparisons and `n` the comparisons; only items that hold a comparison
    are resampled. `ties` is passed through to the `Share`.
    """
    agree_, n_ = np.asarray(agree, dtype=float), np.asarray(n, dtype=float)
    keep = n_ > 0
    agree_, n_ = agree_[keep], n_[keep]
    share = _pooled(agree_, n_)
    low = high = None
    if share is not None and len(n_) >= 2 and n_resamples > 0:
        idx = np.random.default_rng(seed).integers(0, len(n_), size=(n_resamples, len(n_)))
        shares = agree_[idx].sum(axis=1) / n_[idx].sum(axis=1)
        tail = (1 - confidence) / 2
        low, high = (float(q) for q in np.quantile(shares, [tail, 1 - tail]))
    return Share(int(agree_.sum()), int(n_.sum()), share, low, high, ties)


def pairwise_agreement(matrix: np.ndarray, n_resamples: int = 1000, confidence: float = 0.95,
                       seed: Seed = 0) -> Share:
    """Percent agreement of every pair of annotators on the items both answered, pooled over items.

    Each item weighs by its number of answering pairs.
    """
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    agree, n = np.zeros(matrix.shape[1]), np.zeros(matrix.shape[1])
    for i, j in combinations(range(matrix.shape[0]), 2):
        both = ~np.isnan(matrix[i]) & ~np.isnan(matrix[j])
        n += both
        agree += both & (matrix[i] == matrix[j])
    return ratio_interval(agree, n, n_resamples, confidence, seed)


def agreement_with_majority(answers: Sequence[float], reference: np.ndarray, n_resamples: int = 1000,
                            confidence: float = 0.95, seed: Seed = 0) -> Share:
    """How often `answers` (one per item, NaN: none) equal the majority of `reference` (annotators x the same items).

    Items whose reference has no unique majority are left out and counted as ties.
    """
    answers_ = np.asarray(answers, dtype=float)
    reference = np.atleast_2d(np.asarray(reference, dtype=float))
    agree, n, ties = np.zeros(len(answers_)), np.zeros(len(answers_)), 0
    for j, answer in enumerate(answers_):
        column = reference[:, j]
        if np.isnan(answer) or np.isnan(column).all():
            continue
        winner = majority(column)
        if winner is None:
            ties += 1
            continue
        n[j], agree[j] = 1, answer == winner
    return ratio_interval(agree, n, n_resamples, confidence, seed, ties)


def leave_one_out(matrix: np.ndarray, model: Sequence[float] | None = None, n_resamples: int = 1000,
                  confidence: float = 0.95, seed: Seed = 0) -> MajorityComparison:
    """Each annotator against the majority of the others, and a model against those very majorities.

    A slot (item, annotator) counts when the annotator answered, the other annotators have a unique majority and,
    when there is a model, the model answered. The shares are pooled over annotators and items; see
    `MajorityComparison`.

    Args:
        matrix: Annotators x items, NaN where an annotator did not answer.
        model: The model's answer per item (NaN: none), or None to compare the annotators only.
        n_resamples: Bootstrap resamples; 0 for no intervals.
        confidence: The intervals' coverage.
        seed: The seed of every resample (the same items for the people and the model).
    """
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    n_items = matrix.shape[1]
    model_ = None if model is None else np.asarray(model, dtype=float)
    human_agree, model_agree, n = np.zeros(n_items), np.zeros(n_items), np.zeros(n_items)
    ties = 0
    for j in range(n_items):
        if model_ is not None and np.isnan(model_[j]):
            continue
        for i in range(matrix.shape[0]):
            if np.isnan(matrix[i, j]) or np.isnan(np.delete(matrix[:, j], i)).all():
                continue
            winner = majority(np.delete(matrix[:, j], i))
            if winner is None:
                ties += 1
                continue
            n[j] += 1
            human_agree[j] += matrix[i, j] == winner
            if model_ is not None:
                model_agree[j] += model_[j] == winner
    humans = ratio_interval(human_agree, n, n_resamples, confidence, seed, ties)
    if model_ is None:
        return MajorityComparison(humans)
    model_share = ratio_interval(model_agree, n, n_resamples, confidence, seed, ties)  # same seed: same resamples
    keep = n > 0
    # both shares are None together (the same comparisons n)
    difference = None if humans.share is None or model_share.share is None else model_share.share - humans.share
    low = high = None
    if difference is not None and keep.sum() >= 2 and n_resamples > 0:
        h, m, w = human_agree[keep], model_agree[keep], n[keep]
        idx = np.random.default_rng(seed).integers(0, len(w), size=(n_resamples, len(w)))
        diffs = (m[idx].sum(axis=1) - h[idx].sum(axis=1)) / w[idx].sum(axis=1)
        tail = (1 - confidence) / 2
        low, high = (float(q) for q in np.quantile(diffs, [tail, 1 - tail]))
    return MajorityComparison(humans, model_share, difference, low, high)


__all__ = ["INTERVAL_METHOD", "KAPPA_WEIGHTS", "LEVELS", "NOMINAL", "ORDINAL", "AlphaResult", "KappaResult",
           "MajorityComparison", "Share", "agreement_with_majority", "alpha", "alpha_interval",
           "cohen_kappa", "leave_one_out", "majority", "pairable", "pairwise_agreement", "ratio_interval",
           "reliability_matrix"]
