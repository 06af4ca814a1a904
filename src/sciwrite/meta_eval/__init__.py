"""Meta-evaluation: how metrics correlate with each other across systems (`correlation`), with human ratings
and how two judges agree (`agreement`)."""

from __future__ import annotations

from sciwrite.meta_eval.agreement import (
    PairCounts,
    correlate,
    goodman_kruskal_gamma,
    judge_agreement,
    metric_agreement,
    metric_scores,
    pair_counts,
    pairwise_agreement,
    read_per_paper,
    read_ratings,
)
from sciwrite.metrics.correlation import (
    CorrelationTable,
    correlations_from_dirs,
    load_summaries,
    metric_correlations,
    numeric_metrics,
    plot_correlation_heatmap,
)

__all__ = ["CorrelationTable", "PairCounts", "correlate", "correlations_from_dirs", "goodman_kruskal_gamma",
           "judge_agreement", "load_summaries", "metric_agreement", "metric_correlations", "metric_scores",
           "numeric_metrics", "pair_counts", "pairwise_agreement", "plot_correlation_heatmap", "read_per_paper",
           "read_ratings"]
