"""The reference grounding's metrics, each declared once (`sciwrite.core.metric_spec.MetricSpec`): shares of a
paper's listed references and the grounded precision and recall, computed by the shared grounding
(`sciwrite.grounding.scoring`) and shown beside a benchmark's results table, never in it. A benchmark that reports
them lists these specs among its own (RWGBench: `sciwrite.rwgbench.metrics.specs`).
"""

from __future__ import annotations

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import MetricSpec

#: A share or a score in [0, 1].
UNIT = MetricScale(0.0, 1.0)
#: A share where lower is better (references not found, or found twice).
UNIT_LOWER = MetricScale(0.0, 1.0, higher_is_better=False)

#: The group the grounding metrics stand in, on a leaderboard.
GROUNDING = "Grounding"
GROUNDING_FOUND_RATE = MetricSpec("grounding_found_rate", "Found", GROUNDING, UNIT, in_table=False, on_board=True)
GROUNDING_HALLUCINATION_RATE = MetricSpec("grounding_hallucination_rate", "Not found", GROUNDING, UNIT_LOWER,
                                          in_table=False, on_board=True)
GROUNDING_AMBIGUOUS_RATE = MetricSpec("grounding_ambiguous_rate", "Ambig.", GROUNDING, UNIT_LOWER, in_table=False)
GROUNDED_PRECISION = MetricSpec("grounded_precision", "G-Prec.", GROUNDING, UNIT, in_table=False, on_board=True)
GROUNDED_RECALL = MetricSpec("grounded_recall", "G-Rec.", GROUNDING, UNIT, in_table=False, on_board=True)

#: The grounding metrics, in the order a benchmark lists them.
GROUNDING_METRICS: tuple[MetricSpec, ...] = (GROUNDING_FOUND_RATE, GROUNDING_HALLUCINATION_RATE,
                                             GROUNDING_AMBIGUOUS_RATE, GROUNDED_PRECISION, GROUNDED_RECALL)

__all__ = ["GROUNDED_PRECISION", "GROUNDED_RECALL", "GROUNDING", "GROUNDING_AMBIGUOUS_RATE", "GROUNDING_FOUND_RATE",
           "GROUNDING_HALLUCINATION_RATE", "GROUNDING_METRICS", "UNIT", "UNIT_LOWER"]
