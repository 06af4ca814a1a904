"""HALLMARK's detection and calibration metrics with the semantics of its ``hallmark/evaluation/metrics.py`` (our
own code): detection rate, false-positive rate, F1, MCC and tier-weighted F1 with HALLUCINATED as the positive class,
the same per tier and per type (with a Wilson interval), ECE, AUROC and AUPRC.

Protocol, as HALLMARK's: a missing prediction counts as VALID; an UNCERTAIN one is left out of the confusion matrix,
TW-F1, ECE, AUROC and AUPRC (it counts toward coverage and `num_uncertain`, see `sciwrite.meta_eval.hallmark`)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sciwrite.meta_eval.hallmark_data import HALLUCINATED, UNCERTAIN, VALID, HallmarkEntry, HallmarkPrediction

#: Predictions by entry key, or a sequence of them (the last for a key wins).
Predictions = Mapping[str, HallmarkPrediction] | Iterable[HallmarkPrediction]
DEFAULT_TIER_WEIGHTS: Mapping[int, float] = MappingProxyType({1: 1.0, 2: 2.0, 3: 3.0})


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else 0.0


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def prediction_map(predictions: Predictions) -> dict[str, HallmarkPrediction]:
    """Predictions by entry key (a mapping is copied; in a sequence the last prediction for a key wins, as HALLMARK)."""
    if isinstance(predictions, Mapping):
        return dict(predictions)
    return {p.bibtex_key: p for p in predictions}


@dataclass(frozen=True)
class ConfusionCounts:
    """The binary confusion matrix with HALLUCINATED as the positive class, and the rates HALLMARK reads from it
    (every rate 0.0 when its denominator is 0)."""

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        """tp / (tp + fp)."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def detection_rate(self) -> float:
        """Recall on HALLUCINATED: tp / (tp + fn)."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def false_positive_rate(self) -> float:
        """fp / (fp + tn)."""
        return _ratio(self.fp, self.fp + self.tn)

    @property
    def f1(self) -> float:
        """F1 of the HALLUCINATED class."""
        return _f1(self.precision, self.detection_rate)

    @property
    def mcc(self) -> float:
        """Matthews correlation coefficient (0.0 when a margin is empty)."""
        den = (self.tp + self.fp) * (self.tp + self.fn) * (self.tn + self.fp) * (self.tn + self.fn)
        return (self.tp * self.tn - self.fp * self.fn) / math.sqrt(den) if den else 0.0

    @property
    def macro_f1(self) -> float:
        """Mean of the F1 of the HALLUCINATED and of the VALID class."""
        valid_f1 = _f1(_ratio(self.tn, self.tn + self.fn), _ratio(self.tn, self.tn + self.fp))
        return (self.f1 + valid_f1) / 2


def _decided(entry: HallmarkEntry, preds: Mapping[str, HallmarkPrediction]) -> str | None:
    """The label an entry is scored with: VALID when missing, None (left out) when UNCERTAIN."""
    pred = preds.get(entry.key)
    if pred is None:
        return VALID
    return None if pred.label == UNCERTAIN else pred.label


def confusion(entries: Iterable[HallmarkEntry], predictions: Predictions) -> ConfusionCounts:
    """The confusion matrix of `entries` (missing = VALID, UNCERTAIN left out)."""
    preds = prediction_map(predictions)
    tp = fp = tn = fn = 0
    for entry in entries:
        label = _decided(entry, preds)
        if label is None:
            continue
        flagged = label == HALLUCINATED
        if entry.hallucinated:
            tp, fn = tp + flagged, fn + (not flagged)
        else:
            fp, tn = fp + flagged, tn + (not flagged)
    return ConfusionCounts(tp=tp, fp=fp, tn=tn, fn=fn)


def tier_weighted_f1(entries: Iterable[HallmarkEntry], predictions: Predictions,
                     weights: Mapping[int, float] = DEFAULT_TIER_WEIGHTS) -> float:
    """F1 where a hallucinated entry's hit or miss weighs its tier's weight (tier None = 1, an unlisted tier 1.0)
    and every false positive weighs 1.0; UNCERTAIN left out, missing = VALID."""
    preds = prediction_map(predictions)
    w_tp = w_fn = w_fp = 0.0
    for entry in entries:
        label = _decided(entry, preds)
        if label is None:
            continue
        if entry.hallucinated:
            w = weights.get(entry.tier or 1, 1.0)
            if label == HALLUCINATED:
                w_tp += w
            else:
                w_fn += w
        elif label == HALLUCINATED:
            w_fp += 1.0
    return _f1(_ratio(w_tp, w_tp + w_fp), _ratio(w_tp, w_tp + w_fn))


@dataclass(frozen=True)
class TierMetrics:
    """One tier: its hallucinated entries scored together with ALL valid entries (so each tier has an FPR)."""

    detection_rate: float
    false_positive_rate: float
    f1: float
    precision: float
    count: int  # hallucinated entries of the tier
    num_valid: int

    def as_dict(self) -> dict[str, Any]:
        """HALLMARK's per-tier keys (``count`` of its older files, ``num_hallucinated``/``num_valid`` of newer)."""
        return {"detection_rate": self.detection_rate, "false_positive_rate": self.false_positive_rate,
                "f1": self.f1, "precision": self.precision, "count": self.count,
                "num_hallucinated": self.count, "num_valid": self.num_valid}


def per_tier_metrics(entries: Sequence[HallmarkEntry], predictions: Predictions) -> dict[int, TierMetrics]:
    """For each tier among the hallucinated entries (tier None = 1), in tier order."""
    preds = prediction_map(predictions)
    valid = [e for e in entries if not e.hallucinated]
    by_tier: dict[int, list[HallmarkEntry]] = defaultdict(list)
    for entry in entries:
        if entry.hallucinated:
            by_tier[entry.tier or 1].append(entry)
    result = {}
    for tier, hall in sorted(by_tier.items()):
        cm = confusion(hall + valid, preds)
        result[tier] = TierMetrics(cm.detection_rate, cm.false_positive_rate, cm.f1, cm.precision, len(hall),
                                   len(valid))
    return result


def wilson_interval(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion `rate` over `n` trials, clipped to [0, 1]; (0.0, 0.0) when n is 0.

    Written out rather than `scipy.stats.binomtest(...).proportion_ci` (which the judge check uses) because HALLMARK
    computes it this way, with z fixed at 1.96, on a rate rather than a count, and (0, 0) for no trials, and its
    published intervals are reproduced from that; the tests check it against scipy's where the two coincide."""
    if n <= 0:
        return 0.0, 0.0
    den = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / den
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class TypeMetrics:
    """One hallucination type ("valid" for the valid entries): its own confusion matrix's rates and its size; with
    intervals asked for, the Wilson 95% interval of the detection rate over its decided hallucinated entries."""

    detection_rate: float
    false_positive_rate: float
    f1: float
    count: int
    dr_ci_lower: float | None = None
    dr_ci_upper: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """HALLMARK's per-type keys (the interval's only when computed)."""
        out: dict[str, Any] = {"detection_rate": self.detection_rate, "false_positive_rate": self.false_positive_rate,
                               "f1": self.f1, "count": self.count}
        if self.dr_ci_lower is not None:
            out.update(dr_ci_lower=self.dr_ci_lower, dr_ci_upper=self.dr_ci_upper)
        return out


def per_type_metrics(entries: Iterable[HallmarkEntry], predictions: Predictions,
                     compute_ci: bool = False) -> dict[str, TypeMetrics]:
    """Metrics per hallucination type (valid entries under "valid"), types sorted by name."""
    preds = prediction_map(predictions)
    by_type: dict[str, list[HallmarkEntry]] = defaultdict(list)
    for entry in entries:
        by_type[entry.hallucination_type or "valid"].append(entry)
    result = {}
    for h_type, group in sorted(by_type.items()):
        cm = confusion(group, preds)
        lo, hi = wilson_interval(cm.detection_rate, cm.tp + cm.fn) if compute_ci else (None, None)
        result[h_type] = TypeMetrics(cm.detection_rate, cm.false_positive_rate, cm.f1, len(group), lo, hi)
    return result


def expected_calibration_error(entries: Iterable[HallmarkEntry], predictions: Predictions, n_bins: int = 10,
                               adaptive: bool = True) -> float:
    """ECE over (confidence, label right) of the entries with a VALID/HALLUCINATED prediction. Adaptive: sorted by
    confidence, `n_bins` equal-count bins, the first ``total % n_bins`` one larger; otherwise equal-width bins
    ``min(int(conf * n_bins), n_bins - 1)``. Sum of (bin size / total) * |accuracy - mean confidence|; 0.0 when
    no pairs."""
    preds = prediction_map(predictions)
    pairs = [(p.confidence, p.label == e.label) for e in entries
             if (p := preds.get(e.key)) is not None and p.label != UNCERTAIN]
    total = len(pairs)
    if not total:
        return 0.0
    bins: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    if adaptive:
        pairs.sort(key=lambda pair: pair[0])
        base, extra = divmod(total, n_bins)
        start = 0
        for i in range(n_bins):
            end = start + base + (i < extra)
            bins[i] = pairs[start:end]
            start = end
    else:
        for conf, right in pairs:
            bins[min(int(conf * n_bins), n_bins - 1)].append((conf, right))
    ece = 0.0
    for group in bins:
        if group:
            accuracy = sum(right for _, right in group) / len(group)
            mean_conf = sum(conf for conf, _ in group) / len(group)
            ece += len(group) / total * abs(accuracy - mean_conf)
    return ece


def _scored(entries: Iterable[HallmarkEntry], preds: Mapping[str, HallmarkPrediction]) -> list[tuple[float, int]]:
    """(score, 1 if HALLUCINATED) for entries with a decided prediction, highest score first; the score is the
    confidence of a HALLUCINATED prediction and 1 - confidence of a VALID one."""
    pairs = []
    for entry in entries:
        pred = preds.get(entry.key)
        if pred is None or pred.label == UNCERTAIN:
            continue
        score = pred.confidence if pred.label == HALLUCINATED else 1.0 - pred.confidence
        pairs.append((score, int(entry.hallucinated)))
    pairs.sort(key=lambda pair: -pair[0])
    return pairs


def _curve(pairs: list[tuple[float, int]]) -> list[tuple[int, int]]:
    """Cumulative (tp, fp) after each group of tied scores, highest first."""
    points, tp, fp = [], 0, 0
    for i, (score, positive) in enumerate(pairs):
        tp, fp = tp + positive, fp + (not positive)
        if i == len(pairs) - 1 or pairs[i + 1][0] != score:
            points.append((tp, fp))
    return points


def auroc(entries: Iterable[HallmarkEntry], predictions: Predictions) -> float | None:
    """Area under the ROC curve (trapezoids, ties grouped; equals scikit-learn's ``roc_auc_score``); None unless
    both classes are among the entries with a decided prediction."""
    pairs = _scored(entries, prediction_map(predictions))
    positives = sum(label for _, label in pairs)
    negatives = len(pairs) - positives
    if not positives or not negatives:
        return None
    area, prev_tpr, prev_fpr = 0.0, 0.0, 0.0
    for tp, fp in _curve(pairs):
        tpr, fpr = tp / positives, fp / negatives
        area += (fpr - prev_fpr) * (tpr + prev_tpr) / 2
        prev_tpr, prev_fpr = tpr, fpr
    return area


def auprc(entries: Iterable[HallmarkEntry], predictions: Predictions) -> float | None:
    """Interpolated average precision as HALLMARK computes it: a (recall, precision) point at each distinct score,
    precision made non-increasing from the right, summed as precision * recall step; None without positives."""
    pairs = _scored(entries, prediction_map(predictions))
    positives = sum(label for _, label in pairs)
    if not positives:
        return None
    points = [(tp / positives, tp / (tp + fp)) for tp, fp in _curve(pairs)]
    area, prev_recall, best = 0.0, 0.0, 0.0
    envelope = []
    for _, precision in reversed(points):
        best = max(best, precision)
        envelope.append(best)
    for (recall, _), precision in zip(points, reversed(envelope), strict=True):
        area += precision * (recall - prev_recall)
        prev_recall = recall
    return area


__all__ = ["DEFAULT_TIER_WEIGHTS", "ConfusionCounts", "Predictions", "TierMetrics", "TypeMetrics", "auprc", "auroc",
           "confusion", "expected_calibration_error", "per_tier_metrics", "per_type_metrics", "prediction_map",
           "tier_weighted_f1", "wilson_interval"]
