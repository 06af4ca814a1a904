"""Two leaderboard submissions side by side: per metric, the paired difference on the papers both scored, its
95% paired-bootstrap interval and paired permutation p-value, Holm-adjusted across the metrics. The comparison and
its checks are `sciwrite.scoring.compare`'s, the ones ``sciwrite compare`` runs; this module reads the two
submissions from the store and lays the result out as the Compare tab's table."""

from __future__ import annotations

from typing import Any

import pandas as pd

from sciwrite.leaderboard.store import ResultsStore, Submission
from sciwrite.leaderboard.tables import MISSING, as_benchmark, metric_columns
from sciwrite.scoring.compare import MetricDifference, SystemScores, compare_systems
from sciwrite.scoring.per_paper_files import typed_rows_by_paper

COLUMNS = ("Metric", "A", "B", "B \u2212 A", "95% CI", "p (permutation)", "p (Holm)", "Papers")
#: How the page's user compares submissions scored differently anyway (the end of the refusal).
MIXED_PROVENANCE_HINT = " (tick 'compare across different provenance' to compare them anyway)"


def _num(value: float | None) -> str:
    return MISSING if value is None else f"{value:.3f}"


def p_text(p: float | None) -> str:
    """A p-value to 3 decimals ("<0.001" below that); `MISSING` without one (fewer than 2 shared papers)."""
    if p is None:
        return MISSING
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def submission_scores(store: ResultsStore, submission: Submission) -> SystemScores:
    """A scored submission as the comparison takes it: its per-paper rows, benchmark, split and provenance, named
    as the page's messages quote it; `ValueError` when it has no per-paper scores."""
    rows = store.paper_rows(submission.id)
    if not rows:
        raise ValueError(f"submission {submission.id!r} ({submission.system!r}, {submission.status}) has no "
                         "per-paper scores to compare")
    by_paper, lines = typed_rows_by_paper(rows)
    summary = store.summary(submission.id)
    block = summary.provenance.to_json() if summary is not None and summary.provenance is not None else None
    return SystemScores(name=repr(submission.system), rows=by_paper, benchmark=submission.benchmark,
                        split=submission.split, provenance=block or None, lines=lines)


def _record(label: str, found: MetricDifference) -> dict[str, Any]:
    """One row of the table, as display text."""
    low, high = found.ci_low, found.ci_high
    return {"Metric": label, "A": _num(found.baseline_mean), "B": _num(found.system_mean),
            "B \u2212 A": _num(found.difference),
            "95% CI": MISSING if low is None or high is None else f"[{low:.3f}, {high:.3f}]",
            "p (permutation)": p_text(found.p_value), "p (Holm)": p_text(found.p_holm), "Papers": found.n_papers}


def compare_submissions(store: ResultsStore, id_a: str, id_b: str, n_resamples: int = 1000, seed: int = 0,
                        allow_mixed_provenance: bool = False) -> pd.DataFrame:
    """Submission B against submission A on every metric of their benchmark, paired by paper_id
    (`sciwrite.scoring.compare.compare_systems`): columns Metric, A, B (means over the shared papers), "B − A",
    "95% CI" (paired percentile bootstrap of the mean difference), "p (permutation)" (two-sided paired permutation
    test), "p (Holm)" and Papers (shared papers with a value), as display text. ``frame.attrs["comparison"]`` holds
    each metric's `MetricDifference` by its key.

    `ValueError` when one has no per-paper scores, when the two are of different benchmarks or splits, share no
    paper, or their summaries' provenance differ (dataset content, profile, models, judge model, prompts:
    `provenance_differences`) unless `allow_mixed_provenance`; ``frame.attrs["provenance_differences"]`` lists what
    differs (a changed judge snapshot included)."""
    a, b = store.get(id_a), store.get(id_b)
    systems = [submission_scores(store, a), submission_scores(store, b)]
    bench = as_benchmark(a.benchmark)
    comparison = compare_systems(systems, bench, every_table_metric=True, n_resamples=n_resamples, seed=seed,
                                 allow_mixed_provenance=allow_mixed_provenance, override_hint=MIXED_PROVENANCE_HINT)
    found = comparison.by_metric()
    records = []
    for _, key, label in metric_columns(bench):
        note = bench.presentation.per_paper_notes.get(key)  # a per-paper value that is not what the board's mean shows
        records.append(_record(f"{label} ({note})" if note else label, found[key]))
    frame = pd.DataFrame(records, columns=list(COLUMNS))
    frame.attrs["comparison"] = found
    frame.attrs["systems"] = {"A": a.system, "B": b.system}
    frame.attrs["provenance_differences"] = [line for check in comparison.provenance
                                             for line in check.scored_differently()]
    return frame


__all__ = ["COLUMNS", "MIXED_PROVENANCE_HINT", "compare_submissions", "p_text", "submission_scores"]
