"""The tables of `sciwrite meta-eval hallmark`: our checker's HALLMARK metrics under both treatments of UNCERTAIN,
beside the published rows; per tier, per type; whether the verdict type is right; and the entries whose work is in
the snapshot apart from those whose work is not (where a snapshot checker can only say unresolved or fabricated)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.grounding.record_index import RecordIndex
from sciwrite.grounding.taxonomy import CHECK_VERDICTS
from sciwrite.meta_eval.hallmark import TREATMENTS, HallmarkResult, evaluate
from sciwrite.meta_eval.hallmark_checker import EXPECTED_VERDICT, CheckedSplit, record_in_snapshot
from sciwrite.meta_eval.hallmark_diagnosis import CoarseTypeAccuracy, coarse_type_accuracy
from sciwrite.meta_eval.hallmark_published import PublishedRow

HEADLINE_COLUMNS = ("system", "treatment", "world", "DR", "FPR", "F1", "TW-F1", "ECE", "AUROC", "uncertain")


@dataclass(frozen=True)
class HallmarkReport:
    """Everything `meta-eval hallmark` prints and writes for one checked split."""

    tool: str
    world: str
    results: Mapping[str, HallmarkResult]  # treatment -> result
    verdict_types: CoarseTypeAccuracy
    published: tuple[PublishedRow, ...]
    partitions: tuple[dict[str, Any], ...]
    verdicts: Mapping[str, int]

    def headline_rows(self) -> list[dict[str, Any]]:
        """Ours under both treatments, then the published rows, best F1 first."""
        rows = [_headline(self.tool, t, self.world, r.detection_rate, r.false_positive_rate, r.f1_hallucination,
                          r.tier_weighted_f1, r.ece, r.auroc, r.num_uncertain) for t, r in self.results.items()]
        for row in sorted(self.published, key=lambda r: -r.f1_hallucination):
            rows.append(_headline(row.name, row.treatment, "open" if row.open_world else "closed", row.detection_rate,
                                  row.false_positive_rate, row.f1_hallucination, row.tier_weighted_f1, row.ece,
                                  row.auroc, row.num_uncertain))
        return rows

    def tier_rows(self) -> list[dict[str, Any]]:
        return [{"treatment": t, "tier": tier, "n": m.count, "DR": m.detection_rate, "FPR": m.false_positive_rate,
                 "F1": m.f1} for t, r in self.results.items() for tier, m in sorted(r.per_tier.items())]

    def type_rows(self) -> list[dict[str, Any]]:
        """Per HALLMARK type: detection under both treatments, the published cascade's for scale, and how often
        the verdict type was right among the caught."""
        cons, aggr = self.results["conservative"], self.results["aggressive"]
        best = max(self.published, key=lambda r: r.f1_hallucination, default=None)
        rows = []
        for h_type, metrics in sorted(cons.per_type.items()):
            tally = self.verdict_types.per_type.get(h_type)
            rows.append({"type": h_type, "n": metrics.count,
                         "expected verdict": EXPECTED_VERDICT.get(h_type, "verified"),
                         "DR conservative": metrics.detection_rate if h_type != "valid" else None,
                         "DR aggressive": aggr.per_type[h_type].detection_rate if h_type != "valid" else None,
                         "FPR": metrics.false_positive_rate if h_type == "valid" else None,
                         "verdict type right": f"{tally.correct}/{tally.evaluated}" if tally else None,
                         **({f"DR {best.name}": best.per_type_detection.get(h_type)} if best else {})})
        return rows

    def lines(self) -> list[str]:
        """The summary lines printed under the tables."""
        overall = self.verdict_types.overall
        open_rows = [r.name for r in self.published if r.open_world]
        out = [f"Verdict type right (fabricated / metadata_mismatch / title_mismatch / anachronistic, mapped from "
               f"HALLMARK's types as documented in sciwrite.meta_eval.hallmark_checker): {overall.correct}/"
               f"{overall.evaluated} of the hallucinated entries caught = {_num(overall.accuracy)}.",
               f"HALLMARK's exact-type accuracy (predicted_hallucination_type): "
               f"{_num(self.results['conservative'].type_accuracy.overall.accuracy)}.",
               "Verdicts: " + ", ".join(f"{self.verdicts.get(v, 0)} {v}" for v in CHECK_VERDICTS) + "."]
        if open_rows:
            out.append(f"Open-world rows ({len(open_rows)} of {len(self.published)} published): they look each "
                       "entry up in live services (DOI resolution, Crossref, OpenAlex, Semantic Scholar, arXiv) or "
                       "ask an LLM, against the whole literature. A closed-world run checks against the given snapshot "
                       "alone, where the work an entry names is either in it (and every field can be compared) or "
                       "not (and the checker can only say unresolved or fabricated); an open-world run must find "
                       "each work among millions, through services that miss records, differ in metadata and "
                       "time out.")
        return out


def _headline(name: str, treatment: str, world: str, dr: float, fpr: float | None, f1: float, twf1: float,
              ece: float | None, auroc: float | None, uncertain: int | None) -> dict[str, Any]:
    return {"system": name, "treatment": treatment, "world": world, "DR": dr, "FPR": fpr, "F1": f1, "TW-F1": twf1,
            "ECE": ece, "AUROC": auroc, "uncertain": uncertain}


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def partition_rows(checked: CheckedSplit, index: RecordIndex | None) -> list[dict[str, Any]]:
    """The entries whose work is in the snapshot apart from those whose work is not: counts, detection, false
    positives and the verdicts given (HALLMARK's conservative treatment)."""
    if index is None:
        return []
    groups: dict[str, list[int]] = {"in the snapshot": [], "not in the snapshot": []}
    for i, entry in enumerate(checked.entries):
        groups["in the snapshot" if record_in_snapshot(entry, index) else "not in the snapshot"].append(i)
    rows = []
    for name, positions in groups.items():
        for label in ("VALID", "HALLUCINATED"):
            chosen = [i for i in positions if checked.entries[i].label == label]
            if not chosen:
                continue
            verdicts = Counter(checked.checks[i].verdict for i in chosen)
            wrong = sum(checked.checks[i].wrong for i in chosen)
            decided = sum(checked.checks[i].verdict != "unresolved" for i in chosen)
            rows.append({"work": name, "label": label, "n": len(chosen),
                         "flagged": wrong, "flagged share of decided": wrong / decided if decided else None,
                         **{v: verdicts.get(v, 0) for v in CHECK_VERDICTS}})
    return rows


def build_report(checked: CheckedSplit, split: str, tool: str, world: str, published: Sequence[PublishedRow],
                 index: RecordIndex | None) -> HallmarkReport:
    """Our results under both treatments, the verdict types scored, and the snapshot partition."""
    results = {t: evaluate(checked.entries, checked.predictions, tool, split, t) for t in TREATMENTS}
    verdict_of = {entry.key: check.verdict for entry, check in zip(checked.entries, checked.checks)}
    verdict_types = coarse_type_accuracy(checked.entries, checked.predictions, EXPECTED_VERDICT,
                                         lambda prediction: verdict_of.get(prediction.bibtex_key))
    verdicts = Counter(c.verdict for c in checked.checks)
    return HallmarkReport(tool, world, results, verdict_types, tuple(published),
                          tuple(partition_rows(checked, index)), dict(verdicts))


__all__ = ["HEADLINE_COLUMNS", "HallmarkReport", "build_report", "partition_rows"]
