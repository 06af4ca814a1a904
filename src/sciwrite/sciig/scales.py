"""SciIG's metrics' ranges and directions on the paper's scale (Table 2: 0-1 for most, the SummaC entailment scores
-1 to 1, perplexity from 1 up and lower-is-better), read off the metrics' one declaration
(`sciwrite.sciig.metrics.specs`) for `sciwrite.benchmark.BenchmarkSuite.scales`: the results table, the board's
grounding column and the Hub tasks read them. BLEU is corpus BLEU of the papers' summed statistics (``bleu_stats``,
`rows_corpus_bleu`); every other metric is the mean of its per-paper values."""

from __future__ import annotations

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import scales
from sciwrite.sciig.metrics.corpus_bleu import rows_corpus_bleu
from sciwrite.sciig.metrics.specs import METRICS, SIGNED_UNIT, UNIT

SCALES: dict[str, MetricScale] = scales(METRICS)

__all__ = ["SCALES", "SIGNED_UNIT", "UNIT", "rows_corpus_bleu"]
