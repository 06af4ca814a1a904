"""Sensitivity analysis, by benchmark name: does each metric move the right way when the reference section is
damaged on purpose? The shared machinery is `sciwrite.metrics.sensitivity`; each benchmark's expected directions,
reasons and runner are its own (`Benchmark.studies.sensitivity`); this module names them for every benchmark of
`sciwrite.benchmarks.BENCHMARKS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.benchmark import Sensitivity
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.metrics.sensitivity import (
    DIRECTIONS,
    FAKE_CITATION,
    PERTURBATIONS,
    drop_every_second_citation,
    drop_every_second_marker,
    drop_last_paragraph,
    duplicate_text,
    expectation_in,
    failures,
    moved_as_expected,
    not_scored,
    replace_citations,
    shift_citations,
    shift_markers,
    shuffle_paragraphs,
)
from sciwrite.metrics.sensitivity import sensitivity_rows as _sensitivity_rows

#: benchmark -> metric -> perturbation -> expected direction.
EXPECTED: dict[str, Mapping[str, Mapping[str, str]]] = {
    name: bench.studies.sensitivity.expected for name, bench in BENCHMARKS.items() if bench.studies.sensitivity}
#: (benchmark, metric, perturbation or "*") -> why, for the entries that are not obvious.
REASONS: dict[tuple[str, str, str], str] = {
    (name, metric, perturbation): why for name, bench in BENCHMARKS.items() if bench.studies.sensitivity
    for (metric, perturbation), why in bench.studies.sensitivity.reasons.items()}
#: benchmark -> its suite's metrics.
BENCHMARK_METRICS: dict[str, tuple[str, ...]] = {name: bench.suite.metrics for name, bench in BENCHMARKS.items()}


def _sensitivity(benchmark: str) -> Sensitivity:
    bench = get_benchmark(benchmark)
    if bench.studies.sensitivity is None:
        raise ValueError(f"benchmark {benchmark!r} declares no sensitivity analysis")
    return bench.studies.sensitivity


def expectation(benchmark: str, metric: str, perturbation: str) -> tuple[str, str]:
    """(expected direction, its reason or "") of `metric` of `benchmark` under `perturbation`."""
    sensitivity = _sensitivity(benchmark)
    return expectation_in(sensitivity.expected, sensitivity.reasons, metric, perturbation)


def sensitivity_rows(benchmark: str, per_paper: Mapping[str, Sequence[Mapping[str, Any]]], metrics: Sequence[str],
                     n_resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """One row per metric x perturbation of `benchmark` (`sciwrite.metrics.sensitivity.sensitivity_rows`)."""
    sensitivity = _sensitivity(benchmark)
    return _sensitivity_rows(sensitivity.expected, sensitivity.reasons, per_paper, metrics, n_resamples, seed)


__all__ = ["BENCHMARK_METRICS", "DIRECTIONS", "EXPECTED", "FAKE_CITATION", "PERTURBATIONS", "REASONS",
           "drop_every_second_citation", "drop_every_second_marker", "drop_last_paragraph", "duplicate_text",
           "expectation", "failures", "moved_as_expected", "not_scored", "replace_citations", "sensitivity_rows",
           "shift_citations", "shift_markers", "shuffle_paragraphs"]
