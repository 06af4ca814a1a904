"""SciIG's headline metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`): Table 2's metrics on the paper's
scale (0-1, except the entailment scores, -1 to 1, and perplexity, lower is better). The paper names no single
overall score, so none is published."""

from __future__ import annotations

from sciwrite.core.eval_results import HubTask
from sciwrite.sciig.metrics.suite import TABLE2

_TASK_IDS = {"rouge1": "rouge_1", "rouge2": "rouge_2", "rougeL": "rouge_l"}  # the others: the metric key
_SCALES = {"summac_faithfulness": "-1 to 1", "summac_consistency": "-1 to 1", "perplexity": "perplexity (>= 1)"}
_LOWER_IS_BETTER = {"perplexity"}

HUB_TASKS: tuple[HubTask, ...] = tuple(
    HubTask(key, _TASK_IDS.get(key, key), f"{category}: {label}", key not in _LOWER_IS_BETTER, _SCALES.get(key, "0-1"))
    for category, key, label in TABLE2)
#: The configs the Hub tasks are defined on (``eval.yaml``), each scored on its ``test`` split.
HUB_CONFIGS: tuple[tuple[str, str], ...] = (("naacl_2025", "test"), ("iclr_2025", "test"), ("sample", "test"))

__all__ = ["HUB_CONFIGS", "HUB_TASKS"]
