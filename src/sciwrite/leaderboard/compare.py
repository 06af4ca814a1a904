"""Two leaderboard submissions side by side: per metric, the paired difference on the papers both scored, its
95% paired-bootstrap interval and paired permutation p-value, Holm-adjusted across the metrics
(`sciwrite.stats.paired_comparison`, the same statistics as ``sciwrite compare``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from sciwrite.core.provenance import provenance_differences, snapshot_changes
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.leaderboard.tables import MISSING, as_benchmark, metric_columns
from sciwrite.stats import paired_comparison

COLUMNS = ("Metric", "A", "B", "B \u2212 A", "95% CI", "p (permutation)", "p (Holm)", "Papers")


def _num(value: float | None) -> str:
    return MISSING if value is None else f"{value:.3f}"


def p_text(p: float | None) -> str:
    """A p-value to 3 decimals ("<0.001" below that); `MISSING` without one (fewer than 2 shared papers)."""
    if p is None:
        return MISSING
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def compare_systems(store: ResultsStore, id_a: str, id_b: str, n_resamples: int = 1000, seed: int = 0,
                    allow_mixed_provenance: bool = False) -> pd.DataFrame:
    """Submission B against submission A on every metric of their benchmark, paired by paper_id: columns Metric,
    A, B (means over the shared papers), "B − A", "95% CI" (paired percentile bootstrap of the mean difference),
    "p (permutation)" (two-sided paired permutation test), "p (Holm)" and Papers (shared papers with a value),
    as display text. ``frame.attrs["comparison"]`` holds `paired_comparison`'s numbers per metric key.

    `ValueError` when the two are of different benchmarks or splits, or one has no per-paper scores, or when their
    summaries' provenance differ (dataset content, profile, models, judge model, prompts: `provenance_differences`)
    unless `allow_mixed_provenance`; ``frame.attrs["provenance_differences"]`` lists what differs (a changed judge
    snapshot included)."""
    a, b = store.get(id_a), store.get(id_b)
    if (a.benchmark, a.split) != (b.benchmark, b.split):
        raise ValueError(f"cannot compare {a.system!r} ({a.benchmark}/{a.split}) with {b.system!r} "
                         f"({b.benchmark}/{b.split}): both must be scored on the same benchmark and split")
    block_a, block_b = ((store.summary(i) or {}).get("provenance") for i in (id_a, id_b))
    differences = provenance_differences(block_a, block_b) if block_a and block_b else []
    if differences and not allow_mixed_provenance:
        raise ValueError(f"{b.system!r} was not scored like {a.system!r}: {'; '.join(differences)} (tick 'compare "
                         "across different provenance' to compare them anyway)")
    changed = snapshot_changes(block_a, block_b) if block_a and block_b else None
    if changed:
        differences.append(changed)
    rows_a, rows_b = store.paper_rows(id_a), store.paper_rows(id_b)
    for submission, rows in ((a, rows_a), (b, rows_b)):
        if not rows:
            raise ValueError(f"submission {submission.id!r} ({submission.system!r}, {submission.status}) has no "
                             "per-paper scores to compare")
    bench = as_benchmark(a.benchmark)
    columns = metric_columns(bench)
    metrics = [key for _, key, _ in columns]
    result = paired_comparison({str(r["paper_id"]): r for r in rows_a}, {str(r["paper_id"]): r for r in rows_b},
                               metrics, n_resamples=n_resamples, seed=seed)
    records: list[dict[str, Any]] = []
    for _, key, label in columns:
        found = result[key]
        note = bench.presentation.per_paper_notes.get(key)  # a per-paper value that is not what the board's mean shows
        low, high = found["ci_low"], found["ci_high"]
        records.append({
            "Metric": f"{label} ({note})" if note else label,
            "A": _num(found["mean_a"]), "B": _num(found["mean_b"]), "B \u2212 A": _num(found["difference"]),
            "95% CI": MISSING if low is None or high is None else f"[{low:.3f}, {high:.3f}]",
            "p (permutation)": p_text(found["p_value"]), "p (Holm)": p_text(found["p_holm"]),
            "Papers": found["n_papers"],
        })
    frame = pd.DataFrame(records, columns=list(COLUMNS))
    frame.attrs["comparison"] = result
    frame.attrs["systems"] = {"A": a.system, "B": b.system}
    frame.attrs["provenance_differences"] = differences
    return frame


__all__ = ["COLUMNS", "compare_systems", "p_text"]
