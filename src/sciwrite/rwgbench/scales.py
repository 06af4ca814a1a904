"""RWGBench's metrics' ranges and directions on the paper's scale (Table 2 prints every one on 0-1), read off the
metrics' one declaration (`sciwrite.rwgbench.metrics.specs`) for `sciwrite.benchmark.BenchmarkSuite.scales`: the
results table, the board's grounding columns and the Hub tasks read them. Every metric is the mean of its per-paper
values (§4's equations)."""

from __future__ import annotations

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import scales
from sciwrite.rwgbench.metrics.specs import COSINE, METRICS, UNIT

SCALES: dict[str, MetricScale] = scales(METRICS)

__all__ = ["COSINE", "SCALES", "UNIT"]
