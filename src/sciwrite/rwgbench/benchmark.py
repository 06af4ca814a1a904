"""RWGBench as a `sciwrite.benchmark.Benchmark`."""

from __future__ import annotations

from sciwrite.benchmark import Benchmark
from sciwrite.rwgbench.data.configs import CONFIGS
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.generation.methods import METHODS
from sciwrite.rwgbench.metrics.suite import TABLE2_GROUPS, metrics_without_judge

RWGBENCH = Benchmark(
    name="rwgbench",
    title="RWGBench",
    paper="arXiv:2606.24894",
    configs=tuple(c for c, info in CONFIGS.items() if info.kind == "paper"),
    offline_config="sample",
    load=load_rwgbench,
    prediction_fields=("paper_id", "candidates"),
    table_groups=TABLE2_GROUPS,
    metrics_without_judge=metrics_without_judge,
    prompts=tuple(METHODS),
)
