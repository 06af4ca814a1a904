"""HALLMARK's diagnosis scores (our own code, its semantics): how often a checker that flags a hallucinated entry
also names its hallucination type (`type_accuracy`, a conditional score that never costs detection credit), where
its diagnoses go (`type_confusion`, the table of HALLMARK's published files), and a caller's coarser classes scored
the same way (`coarse_type_accuracy`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from sciwrite.meta_eval.hallmark_data import (
    HALLUCINATED,
    HALLUCINATION_TYPES,
    MAIN_TYPES,
    STRESS_TEST_TYPES,
    UNCERTAIN,
    VALID,
    HallmarkEntry,
    HallmarkPrediction,
)
from sciwrite.meta_eval.hallmark_metrics import Predictions, prediction_map

#: The columns of the type confusion besides the 14 types: predicted VALID (or missing), UNCERTAIN, and flagged
#: HALLUCINATED without a type.
CONFUSION_EXTRA_COLUMNS: tuple[str, ...] = (VALID, UNCERTAIN, "HALLUCINATED_unknown")


@dataclass(frozen=True)
class Tally:
    """How many were scored and how many of them were right."""

    evaluated: int = 0
    correct: int = 0

    @property
    def accuracy(self) -> float | None:
        """correct / evaluated; None when nothing was scored (HALLMARK writes NaN)."""
        return self.correct / self.evaluated if self.evaluated else None

    def add(self, right: bool) -> Tally:
        """This tally with one more scored item."""
        return Tally(self.evaluated + 1, self.correct + right)


@dataclass(frozen=True)
class TypeAccuracy:
    """Diagnosis accuracy over the hallucinated entries flagged HALLUCINATED with a predicted type: overall, on the
    main types only, on the stress-test types only, and per tier (1-3)."""

    overall: Tally = Tally()
    main_types_only: Tally = Tally()
    stress_test_only: Tally = Tally()
    per_tier: Mapping[int, Tally] = field(default_factory=lambda: {1: Tally(), 2: Tally(), 3: Tally()})

    def as_dict(self) -> dict[str, float]:
        """HALLMARK's ``type_accuracy`` object: rates NaN where nothing was scored, counts as floats."""
        def rate(t: Tally) -> float:
            return math.nan if t.accuracy is None else t.accuracy
        out = {"overall": rate(self.overall), "main_types_only": rate(self.main_types_only),
               "stress_test_only": rate(self.stress_test_only), "num_evaluated": float(self.overall.evaluated),
               "num_correct": float(self.overall.correct)}
        out.update({f"tier_{tier}": rate(t) for tier, t in sorted(self.per_tier.items())})
        return out


def type_accuracy(entries: Iterable[HallmarkEntry], predictions: Predictions) -> TypeAccuracy:
    """HALLMARK's conditional diagnosis score: among hallucinated entries predicted HALLUCINATED that carry a
    predicted type, the share whose type is the true one (a wrong type never costs detection credit)."""
    preds = prediction_map(predictions)
    overall, main, stress = Tally(), Tally(), Tally()
    tiers = {1: Tally(), 2: Tally(), 3: Tally()}
    for entry in entries:
        pred = preds.get(entry.key)
        if not entry.hallucinated or pred is None or pred.label != HALLUCINATED:
            continue
        if pred.predicted_hallucination_type is None:
            continue
        right = pred.predicted_hallucination_type == entry.hallucination_type
        overall = overall.add(right)
        if entry.hallucination_type in MAIN_TYPES:
            main = main.add(right)
        if entry.hallucination_type in STRESS_TEST_TYPES:
            stress = stress.add(right)
        tier = entry.tier or 1
        tiers[tier] = tiers.get(tier, Tally()).add(right)
    return TypeAccuracy(overall, main, stress, tiers)


def type_confusion(entries: Iterable[HallmarkEntry], predictions: Predictions) -> dict[str, dict[str, int]]:
    """Counts true type (the 14 and "valid") -> predicted type, or VALID (also a missing prediction), UNCERTAIN,
    HALLUCINATED_unknown (flagged without a type); every row and column present, in HALLMARK's order."""
    preds = prediction_map(predictions)
    columns = (*HALLUCINATION_TYPES, *CONFUSION_EXTRA_COLUMNS)
    table = {row: dict.fromkeys(columns, 0) for row in (*HALLUCINATION_TYPES, "valid")}
    for entry in entries:
        pred = preds.get(entry.key)
        if pred is None or pred.label == VALID:
            column = VALID
        elif pred.label == UNCERTAIN:
            column = UNCERTAIN
        else:
            column = pred.predicted_hallucination_type or "HALLUCINATED_unknown"
        row = table.setdefault(entry.hallucination_type or "valid", dict.fromkeys(columns, 0))
        row[column] = row.get(column, 0) + 1
    return table


@dataclass(frozen=True)
class CoarseTypeAccuracy:
    """A caller's coarse diagnosis score: overall and per HALLMARK type, how often the predicted class was one the
    caller expects for the true type; `confusion` is true type -> predicted class -> count; `unmapped` counts
    scored-looking entries whose true type the caller's mapping leaves out."""

    overall: Tally
    per_type: Mapping[str, Tally]
    confusion: Mapping[str, Mapping[str, int]]
    unmapped: int = 0


def coarse_type_accuracy(entries: Iterable[HallmarkEntry], predictions: Predictions,
                         expected: Mapping[str, str | AbstractSet[str]],
                         predicted_class: Callable[[HallmarkPrediction], str | None],
                         detected_only: bool = True) -> CoarseTypeAccuracy:
    """Score predicted coarse classes against `expected` (HALLMARK type -> the class or classes that count as right).
    As HALLMARK's type accuracy, only hallucinated entries predicted HALLUCINATED are scored (every decided or
    UNCERTAIN prediction with `detected_only` False), and only when `predicted_class` gives a class."""
    preds = prediction_map(predictions)
    overall, unmapped = Tally(), 0
    per_type: dict[str, Tally] = {}
    table: dict[str, dict[str, int]] = {}
    for entry in entries:
        pred = preds.get(entry.key)
        if not entry.hallucinated or pred is None or (detected_only and pred.label != HALLUCINATED):
            continue
        got = predicted_class(pred)
        if got is None:
            continue
        h_type = entry.hallucination_type or ""
        if h_type not in expected:
            unmapped += 1
            continue
        wanted = expected[h_type]
        right = got == wanted if isinstance(wanted, str) else got in wanted
        overall = overall.add(right)
        per_type[h_type] = per_type.get(h_type, Tally()).add(right)
        row = table.setdefault(h_type, {})
        row[got] = row.get(got, 0) + 1
    return CoarseTypeAccuracy(overall, dict(sorted(per_type.items())), dict(sorted(table.items())), unmapped)


__all__ = ["CONFUSION_EXTRA_COLUMNS", "CoarseTypeAccuracy", "Tally", "TypeAccuracy", "coarse_type_accuracy",
           "type_accuracy", "type_confusion"]
