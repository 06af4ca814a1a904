"""The reference grounding's metrics, each declared once (`sciwrite.core.metric_spec.MetricSpec`): shares of a
paper's listed references (the resolver's verdicts, and the reference checker's: one rate per `CHECK_VERDICTS`
verdict) and the grounded precision and recall, computed by the shared grounding
(`sciwrite.grounding.scoring`) and shown beside a benchmark's results table, never in it. A benchmark that reports
them lists these specs among its own (RWGBench: `sciwrite.rwgbench.metrics.specs`).
"""

from __future__ import annotations

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import MetricSpec
from sciwrite.grounding.taxonomy import (
    ANACHRONISTIC,
    CHECK_VERDICTS,
    FABRICATED,
    METADATA_MISMATCH,
    TITLE_MISMATCH,
    UNRESOLVED,
    VERIFIED,
)

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

# The reference checker's verdicts (`sciwrite.grounding.taxonomy`), each a share of the paper's checked references;
# the board shows the two a reader ranks by: fabricated, and metadata mismatch (a title mismatch stays apart: a near
# miss of a title is not a wrong year or author list).
GROUNDING_VERDICT_VERIFIED_RATE = MetricSpec("grounding_verdict_verified_rate", "Verified", GROUNDING, UNIT,
                                             in_table=False)
GROUNDING_VERDICT_FABRICATED_RATE = MetricSpec("grounding_verdict_fabricated_rate", "Fabricated", GROUNDING,
                                               UNIT_LOWER, in_table=False, on_board=True)
GROUNDING_VERDICT_METADATA_MISMATCH_RATE = MetricSpec("grounding_verdict_metadata_mismatch_rate", "Meta. mismatch",
                                                      GROUNDING, UNIT_LOWER, in_table=False, on_board=True)
GROUNDING_VERDICT_TITLE_MISMATCH_RATE = MetricSpec("grounding_verdict_title_mismatch_rate", "Title mismatch",
                                                   GROUNDING, UNIT_LOWER, in_table=False)
GROUNDING_VERDICT_ANACHRONISTIC_RATE = MetricSpec("grounding_verdict_anachronistic_rate", "Anachr.", GROUNDING,
                                                  UNIT_LOWER, in_table=False)
GROUNDING_VERDICT_UNRESOLVED_RATE = MetricSpec("grounding_verdict_unresolved_rate", "Unresolved", GROUNDING,
                                               UNIT_LOWER, in_table=False)
#: Checker verdict -> the spec of its rate, in `CHECK_VERDICTS` order.
GROUNDING_VERDICT_RATES: dict[str, MetricSpec] = {
    VERIFIED: GROUNDING_VERDICT_VERIFIED_RATE, FABRICATED: GROUNDING_VERDICT_FABRICATED_RATE,
    METADATA_MISMATCH: GROUNDING_VERDICT_METADATA_MISMATCH_RATE, TITLE_MISMATCH: GROUNDING_VERDICT_TITLE_MISMATCH_RATE,
    ANACHRONISTIC: GROUNDING_VERDICT_ANACHRONISTIC_RATE, UNRESOLVED: GROUNDING_VERDICT_UNRESOLVED_RATE}
if tuple(GROUNDING_VERDICT_RATES) != CHECK_VERDICTS:  # a verdict added to the taxonomy needs its rate declared here
    raise ValueError(f"grounding/specs.py: the verdict rates {list(GROUNDING_VERDICT_RATES)} are not the checker's "
                     f"verdicts {list(CHECK_VERDICTS)}")

#: The grounding metrics, in the order a benchmark lists them (the board's: found, not found, the grounded scores,
#: then the checker's fabricated and metadata-mismatch rates).
GROUNDING_METRICS: tuple[MetricSpec, ...] = (GROUNDING_FOUND_RATE, GROUNDING_HALLUCINATION_RATE,
                                             GROUNDING_AMBIGUOUS_RATE, GROUNDED_PRECISION, GROUNDED_RECALL,
                                             *GROUNDING_VERDICT_RATES.values())

__all__ = ["GROUNDED_PRECISION", "GROUNDED_RECALL", "GROUNDING", "GROUNDING_AMBIGUOUS_RATE", "GROUNDING_FOUND_RATE",
           "GROUNDING_HALLUCINATION_RATE", "GROUNDING_METRICS", "GROUNDING_VERDICT_ANACHRONISTIC_RATE",
           "GROUNDING_VERDICT_FABRICATED_RATE", "GROUNDING_VERDICT_METADATA_MISMATCH_RATE", "GROUNDING_VERDICT_RATES",
           "GROUNDING_VERDICT_TITLE_MISMATCH_RATE", "GROUNDING_VERDICT_UNRESOLVED_RATE",
           "GROUNDING_VERDICT_VERIFIED_RATE", "UNIT", "UNIT_LOWER"]
