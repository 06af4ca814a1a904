"""SciIG as a `sciwrite.benchmark.Benchmark`."""

from __future__ import annotations

from sciwrite.benchmark import Benchmark
from sciwrite.sciig.data.configs import SCIIG_CONFIGS
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation.prompts import LEVELS
from sciwrite.sciig.metrics.suite import TABLE2, metrics_without_judge


def _groups() -> dict[str, tuple[tuple[str, str], ...]]:
    groups: dict[str, list[tuple[str, str]]] = {}
    for category, key, label in TABLE2:
        groups.setdefault(category, []).append((key, label))
    return {category: tuple(columns) for category, columns in groups.items()}


SCIIG = Benchmark(
    name="sciig",
    title="SciIG",
    paper="arXiv:2508.14273",
    configs=SCIIG_CONFIGS,
    offline_config="sample",
    load=load_sciig,
    prediction_fields=("paper_id",),
    table_groups=_groups(),
    metrics_without_judge=metrics_without_judge,
    prompts=LEVELS,
)
