"""SciIG's headline metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`): Table 2's metrics, each with its
task id, description ("category: label"), range and direction as its spec declares it
(`sciwrite.sciig.metrics.specs`: the paper's scale). The paper names no single overall score, so none is
published."""

from __future__ import annotations

from sciwrite.core.eval_results import HubTask
from sciwrite.sciig.metrics.specs import METRICS

HUB_TASKS: tuple[HubTask, ...] = tuple(HubTask(spec.key, spec.hub_task, spec.hub_description, spec.scale)
                                       for spec in METRICS if spec.hub_task)
#: The configs the Hub tasks are defined on (``eval.yaml``), each scored on its ``test`` split.
HUB_CONFIGS: tuple[tuple[str, str], ...] = (("naacl_2025", "test"), ("iclr_2025", "test"), ("sample", "test"))

__all__ = ["HUB_CONFIGS", "HUB_TASKS"]
