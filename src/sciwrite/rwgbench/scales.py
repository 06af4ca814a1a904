"""RWGBench's metrics' ranges and directions on the paper's scale (Table 2 prints every one on 0-1), declared once
(`sciwrite.benchmark.BenchmarkSuite.scales`): the results table, the board's grounding columns and the Hub tasks
read them. Every metric is higher-is-better and is the mean of its per-paper values (§4's equations)."""

from __future__ import annotations

from sciwrite.core.metric_scales import MetricScale

#: A share or a score in [0, 1].
UNIT = MetricScale(0.0, 1.0)
#: A mean cosine similarity (TRT, Eq. 4): in [-1, 1].
COSINE = MetricScale(-1.0, 1.0)

SCALES: dict[str, MetricScale] = {
    "precision": UNIT, "recall": UNIT, "soft_citation_recall": UNIT, "claim_support_consistency": UNIT,
    "topical_relevance": COSINE,
    "citation_density": MetricScale(0.0, None),  # distinct cited papers per sentence: above 1 when a sentence cites many
    "citation_distribution_balance": UNIT, "positioning_structure_similarity": UNIT, "citation_frame_alignment": UNIT,
    "rougeL": UNIT,
    "bertscore_f1": COSINE,  # greedy cosine matching, no baseline rescaling
    "llm_judge": UNIT,  # the 1-5 judgement mapped onto [0, 1]
    # the board's grounding columns: shares of the listed references
    "grounding_found_rate": UNIT, "grounding_hallucination_rate": MetricScale(0.0, 1.0, higher_is_better=False),
    "grounding_ambiguous_rate": MetricScale(0.0, 1.0, higher_is_better=False),
    "grounded_precision": UNIT, "grounded_recall": UNIT,
}

__all__ = ["COSINE", "SCALES", "UNIT"]
