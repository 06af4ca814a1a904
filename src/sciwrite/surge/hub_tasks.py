"""SurGE's metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`): every metric of its results table, with its
id, description, range and direction as its spec declares it. SurGE names no single overall score, so none is
published."""

from __future__ import annotations

from sciwrite.core.eval_results import HubTask
from sciwrite.surge.metrics.specs import METRICS

HUB_TASKS: tuple[HubTask, ...] = tuple(HubTask(spec.key, spec.hub_task, spec.hub_description, spec.scale)
                                       for spec in METRICS if spec.hub_task)
#: The configs the Hub tasks are defined on (``eval.yaml``), each scored on its ``test`` split.
HUB_CONFIGS: tuple[tuple[str, str], ...] = (("surveys", "test"), ("sample", "test"))

__all__ = ["HUB_CONFIGS", "HUB_TASKS"]
