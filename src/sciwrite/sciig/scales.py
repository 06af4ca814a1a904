"""SciIG's metrics' ranges and directions on the paper's scale (Table 2: 0-1 for most, the SummaC entailment scores
-1 to 1, perplexity from 1 up and lower-is-better), declared once (`sciwrite.benchmark.BenchmarkSuite.scales`): the
results table, the board's grounding column and the Hub tasks read them. BLEU is corpus BLEU of the papers'
summed statistics (``bleu_stats``), sacrebleu's 0-100 divided by 100; every other metric is the mean of its
per-paper values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.core.metric_scales import MetricScale
from sciwrite.sciig.metrics.suite import corpus_bleu

#: A share or a score in [0, 1].
UNIT = MetricScale(0.0, 1.0)
#: A mean cosine similarity, or an entailment score (entailment minus contradiction): in [-1, 1].
SIGNED_UNIT = MetricScale(-1.0, 1.0)


def rows_corpus_bleu(rows: Sequence[Mapping[str, Any]]) -> float | None:
    """Corpus BLEU (0-1) of the rows' ``bleu_stats``, as the summary computes it (None: no row has them)."""
    stats = [row["bleu_stats"] for row in rows if row.get("bleu_stats") is not None]
    return corpus_bleu(stats) if stats else None


SCALES: dict[str, MetricScale] = {
    "rouge1": UNIT, "rouge2": UNIT, "rougeL": UNIT,
    "bleu": MetricScale(0.0, 1.0, aggregate=rows_corpus_bleu),
    "meteor": UNIT,
    "bertscore_f1": SIGNED_UNIT,  # greedy cosine matching, no baseline rescaling
    "bleurt": MetricScale(None, None),  # a regression on human ratings: mostly 0-1, but not bounded
    "contextual_relevance": SIGNED_UNIT,  # a mean cosine
    "keyphrase_coverage_ref": UNIT, "keyphrase_coverage_free": UNIT, "keyphrase_faithfulness": UNIT,
    "keyphrase_consistency": UNIT,
    "summac_faithfulness": SIGNED_UNIT, "summac_consistency": SIGNED_UNIT,
    "qa_faithfulness": UNIT, "qa_consistency": UNIT,
    "citation_precision": UNIT, "citation_recall": UNIT,
    "perplexity": MetricScale(1.0, None, higher_is_better=False),
    "judge_coverage": UNIT, "judge_consistency": UNIT, "judge_faithfulness": UNIT, "judge_citation_quality": UNIT,
    "judge_narrative_quality": UNIT,
    # the board's grounding column: the share of cited works matched to no reference
    "unmatched_citation_rate": MetricScale(0.0, 1.0, higher_is_better=False),
}

__all__ = ["SCALES", "SIGNED_UNIT", "UNIT", "rows_corpus_bleu"]
