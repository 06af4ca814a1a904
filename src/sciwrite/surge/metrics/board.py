"""The leaderboard's columns beside SurGE's table (`Presentation.board_groups`, declared with the metrics): citation
precision from the summary's metrics, the grounding rates and scores from its grounding block."""

from __future__ import annotations

from typing import Any

from sciwrite.core.metric_spec import board_groups
from sciwrite.core.summary import Summary
from sciwrite.surge.metrics.specs import CITATION_PRECISION, METRICS

BOARD_GROUPS = board_groups(METRICS)


def board_values(summary: Summary) -> dict[str, tuple[Any, Any, Any]]:
    """(mean, low, high) of each board column (None where the summary has none)."""
    values: dict[str, tuple[Any, Any, Any]] = {}
    grounding = summary.grounding
    for columns in BOARD_GROUPS.values():
        for key, _ in columns:
            if key == CITATION_PRECISION.key:
                bound = summary.intervals.bounds.get(key) if summary.intervals is not None else None
                values[key] = (summary.value(key), *((bound.low, bound.high) if bound is not None else (None, None)))
            elif grounding is not None:
                interval = grounding.intervals.get(key)
                values[key] = (grounding.reported(key),
                               *((interval.low, interval.high) if interval is not None else (None, None)))
            else:
                values[key] = (None, None, None)
    return values


__all__ = ["BOARD_GROUPS", "board_values"]
