"""SciIG's headline metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`): Table 2's metrics, each with its
range and direction as `sciwrite.sciig.scales.SCALES` declares it (the paper's scale). The paper names no single
overall score, so none is published."""

from __future__ import annotations

from sciwrite.core.eval_results import HubTask
from sciwrite.sciig.metrics.suite import TABLE2
from sciwrite.sciig.scales import SCALES

_TASK_IDS = {"rouge1": "rouge_1", "rouge2": "rouge_2", "rougeL": "rouge_l"}  # the others: the metric key

HUB_TASKS: tuple[HubTask, ...] = tuple(
    HubTask(key, _TASK_IDS.get(key, key), f"{category}: {label}", SCALES[key]) for category, key, label in TABLE2)
#: The configs the Hub tasks are defined on (``eval.yaml``), each scored on its ``test`` split.
HUB_CONFIGS: tuple[tuple[str, str], ...] = (("naacl_2025", "test"), ("iclr_2025", "test"), ("sample", "test"))

__all__ = ["HUB_CONFIGS", "HUB_TASKS"]
