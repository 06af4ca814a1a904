"""HALLMARK (rpatrik96/hallmark, MIT), the benchmark for citation-hallucination checkers, as a sciwrite module: the
one import point for its data and predictions (`hallmark_data`), metrics (`hallmark_metrics`), diagnosis scores
(`hallmark_diagnosis`) and published rows (`hallmark_published`), and here the two treatments of UNCERTAIN and
`evaluate`, which computes every metric of a checker's predictions on a split.

Treatments: ``conservative`` is HALLMARK's protocol (a missing prediction is VALID; UNCERTAIN is left out of the
confusion matrix, TW-F1, ECE, AUROC and AUPRC, and counted in coverage and `num_uncertain`); ``aggressive`` first
turns every UNCERTAIN into HALLUCINATED at confidence 0.55, as HALLMARK recomputed its published aggressive rows
("residual UNCERTAIN->HALLUCINATED@0.55")."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sciwrite.meta_eval.hallmark_data import (
    CANARY_PREFIX,
    ENTRY_LABELS,
    HALLUCINATED,
    HALLUCINATION_TYPES,
    MAIN_TYPES,
    PREDICTION_LABELS,
    STRESS_TEST_TYPES,
    TYPE_TIER,
    UNCERTAIN,
    VALID,
    HallmarkEntry,
    HallmarkPrediction,
    read_predictions,
    read_split,
    split_names,
    write_predictions,
)
from sciwrite.meta_eval.hallmark_diagnosis import (
    CONFUSION_EXTRA_COLUMNS,
    CoarseTypeAccuracy,
    Tally,
    TypeAccuracy,
    coarse_type_accuracy,
    type_accuracy,
    type_confusion,
)
from sciwrite.meta_eval.hallmark_metrics import (
    DEFAULT_TIER_WEIGHTS,
    ConfusionCounts,
    Predictions,
    TierMetrics,
    TypeMetrics,
    auprc,
    auroc,
    confusion,
    expected_calibration_error,
    per_tier_metrics,
    per_type_metrics,
    prediction_map,
    tier_weighted_f1,
    wilson_interval,
)
from sciwrite.meta_eval.hallmark_published import (
    HEADLINE_KEYS,
    PublishedRow,
    describe,
    published_dir,
    read_published,
)

TREATMENTS: tuple[str, ...] = ("conservative", "aggressive")
#: The confidence HALLMARK gave a residual UNCERTAIN made HALLUCINATED in its aggressive rows.
AGGRESSIVE_CONFIDENCE = 0.55


def apply_treatment(predictions: Iterable[HallmarkPrediction], treatment: str) -> list[HallmarkPrediction]:
    """The predictions under `treatment`: ``conservative`` unchanged; ``aggressive`` every UNCERTAIN made
    HALLUCINATED at confidence `AGGRESSIVE_CONFIDENCE` (its other fields kept)."""
    if treatment not in TREATMENTS:
        raise ValueError(f"unknown treatment {treatment!r}: expected one of {', '.join(TREATMENTS)}")
    if treatment == "conservative":
        return list(predictions)
    return [dataclasses.replace(p, label=HALLUCINATED, confidence=AGGRESSIVE_CONFIDENCE) if p.label == UNCERTAIN
            else p for p in predictions]


@dataclass(frozen=True)
class HallmarkResult:
    """A checker's HALLMARK evaluation on one split under one treatment. `false_positive_rate` is None when the
    split has no valid entry; `cost_efficiency` (predictions per second) None when no time was recorded."""

    tool_name: str
    split: str
    treatment: str
    num_entries: int
    num_hallucinated: int
    num_valid: int
    num_uncertain: int
    coverage: float
    detection_rate: float
    false_positive_rate: float | None
    f1_hallucination: float
    tier_weighted_f1: float
    mcc: float
    macro_f1: float
    ece: float
    auroc: float | None
    auprc: float | None
    per_tier: Mapping[int, TierMetrics]
    per_type: Mapping[str, TypeMetrics]
    type_accuracy: TypeAccuracy
    type_confusion: Mapping[str, Mapping[str, int]]
    mean_api_calls: float = 0.0
    cost_efficiency: float | None = None

    @property
    def coverage_adjusted_f1(self) -> float:
        """F1 times coverage."""
        return self.f1_hallucination * self.coverage

    def as_dict(self) -> dict[str, Any]:
        """The result under HALLMARK's JSON key names (its published ``baseline_results`` files); the treatment
        as ``_provenance.eval_mode``."""
        return {"tool_name": self.tool_name, "split_name": self.split, "num_entries": self.num_entries,
                "num_hallucinated": self.num_hallucinated, "num_valid": self.num_valid,
                "detection_rate": self.detection_rate, "false_positive_rate": self.false_positive_rate,
                "f1_hallucination": self.f1_hallucination, "tier_weighted_f1": self.tier_weighted_f1,
                "mcc": self.mcc, "macro_f1": self.macro_f1, "cost_efficiency": self.cost_efficiency,
                "mean_api_calls": self.mean_api_calls, "ece": self.ece, "auroc": self.auroc, "auprc": self.auprc,
                "num_uncertain": self.num_uncertain, "coverage": self.coverage,
                "coverage_adjusted_f1": self.coverage_adjusted_f1,
                "per_tier_metrics": {str(t): m.as_dict() for t, m in self.per_tier.items()},
                "per_type_metrics": {t: m.as_dict() for t, m in self.per_type.items()},
                "type_accuracy": self.type_accuracy.as_dict(),
                "type_confusion": {row: dict(cols) for row, cols in self.type_confusion.items()},
                "_provenance": {"eval_mode": self.treatment}}


def evaluate(entries: Iterable[HallmarkEntry], predictions: Predictions, tool_name: str = "unknown",
             split: str = "unknown", treatment: str = "conservative", per_type_ci: bool = False) -> HallmarkResult:
    """Every HALLMARK metric of `predictions` on `entries` under `treatment` (canary entries dropped; for a key
    predicted twice the last prediction wins). Coverage is |entry keys & prediction keys| / entries (1.0 when no
    entries); `num_uncertain` counts the UNCERTAIN predictions left after the treatment."""
    entries = [e for e in entries if not e.key.startswith(CANARY_PREFIX)]
    given = list(predictions.values()) if isinstance(predictions, Mapping) else list(predictions)
    treated = apply_treatment(given, treatment)
    preds = prediction_map(treated)
    num_valid = sum(not e.hallucinated for e in entries)
    cm = confusion(entries, preds)
    seconds = sum(p.wall_clock_seconds for p in treated)
    return HallmarkResult(
        tool_name=tool_name, split=split, treatment=treatment, num_entries=len(entries),
        num_hallucinated=len(entries) - num_valid, num_valid=num_valid,
        num_uncertain=sum(p.label == UNCERTAIN for p in treated),
        coverage=len({e.key for e in entries} & preds.keys()) / len(entries) if entries else 1.0,
        detection_rate=cm.detection_rate, false_positive_rate=cm.false_positive_rate if num_valid else None,
        f1_hallucination=cm.f1, tier_weighted_f1=tier_weighted_f1(entries, preds), mcc=cm.mcc,
        macro_f1=cm.macro_f1, ece=expected_calibration_error(entries, preds), auroc=auroc(entries, preds),
        auprc=auprc(entries, preds), per_tier=per_tier_metrics(entries, preds),
        per_type=per_type_metrics(entries, preds, compute_ci=per_type_ci),
        type_accuracy=type_accuracy(entries, preds), type_confusion=type_confusion(entries, preds),
        mean_api_calls=sum(p.api_calls for p in treated) / len(treated) if treated else 0.0,
        cost_efficiency=len(treated) / seconds if seconds > 0 else None)


__all__ = ["AGGRESSIVE_CONFIDENCE", "CANARY_PREFIX", "CONFUSION_EXTRA_COLUMNS", "DEFAULT_TIER_WEIGHTS", "ENTRY_LABELS",
           "HALLUCINATED", "HALLUCINATION_TYPES", "HEADLINE_KEYS", "MAIN_TYPES", "PREDICTION_LABELS",
           "STRESS_TEST_TYPES", "TREATMENTS", "TYPE_TIER", "UNCERTAIN", "VALID", "CoarseTypeAccuracy",
           "ConfusionCounts", "HallmarkEntry", "HallmarkPrediction", "HallmarkResult", "Predictions", "PublishedRow",
           "Tally", "TierMetrics", "TypeAccuracy", "TypeMetrics", "apply_treatment", "auprc", "auroc",
           "coarse_type_accuracy", "confusion", "describe", "evaluate", "expected_calibration_error",
           "per_tier_metrics", "per_type_metrics", "prediction_map", "published_dir", "read_predictions",
           "read_published", "read_split", "split_names", "tier_weighted_f1", "type_accuracy", "type_confusion",
           "wilson_interval", "write_predictions"]
