"""RWGBench's headline metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`): Table 2's twelve columns, each
with its task id, description, range and direction as its spec declares it (`sciwrite.rwgbench.metrics.specs`: the
paper's scale, every one higher-is-better). The paper names no single overall score, so none is published."""

from __future__ import annotations

from sciwrite.core.eval_results import HubTask
from sciwrite.rwgbench.metrics.specs import METRICS

HUB_TASKS: tuple[HubTask, ...] = tuple(HubTask(spec.key, spec.hub_task, spec.hub_description, spec.scale)
                                       for spec in METRICS if spec.hub_task)
#: The configs the Hub tasks are defined on (``eval.yaml``): the 100-paper test split and the offline sample.
HUB_CONFIGS: tuple[tuple[str, str], ...] = (("test", "test"), ("sample", "test"))

__all__ = ["HUB_CONFIGS", "HUB_TASKS"]
