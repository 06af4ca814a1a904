"""The scorer of sciwrite's Inspect tasks: the scoring core (`sciwrite.scoring.core.score_records`) on each sample's
prediction record, the suite's models loaded once per process (`ModelCache`); each sample's `Score` holds every
per-paper metric computed and the scored row, and the task's metrics are what the CLI's summary gives."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import get_benchmark
from sciwrite.core.metric_scales import UNDECLARED
from sciwrite.harness.inspect_solvers import GENERATED
from sciwrite.scoring.core import ModelCache, score_records
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.steps import OpenSplit

#: The suites' models, loaded once per process and kept between samples, tasks and runs.
MODELS = ModelCache()
#: Where a score's metadata keeps the paper's scored row, as ``per_paper.jsonl`` holds it.
ROW = "row"


@metric
def paper_summary(benchmark: str) -> Metric:
    """Each per-paper metric as the CLI's summary gives it, from the scored rows kept in the scores' metadata: the
    mean over the papers that have a value, or the benchmark's own aggregate where its scale declares one (SciIG's
    corpus BLEU over the papers' summed n-gram statistics, `MetricScale.aggregate`)."""
    scales = get_benchmark(benchmark).suite.scales

    def compute(scores: list[SampleScore]) -> Value:
        rows = [sample_score.score.metadata[ROW] for sample_score in scores
                if sample_score.score.metadata and ROW in sample_score.score.metadata]
        keys = dict.fromkeys(key for sample_score in scores if isinstance(sample_score.score.value, Mapping)
                             for key in sample_score.score.value)
        values = {key: (scales.get(key) or UNDECLARED).summary_value(key, rows) for key in keys}
        return {key: value for key, value in values.items() if value is not None}

    return compute


def prediction_record(state: TaskState) -> dict[str, Any]:
    """The sample's prediction as ``sciwrite generate`` writes its line: paper_id, pred, what the method added."""
    generated = state.metadata.get(GENERATED) or {}
    return {**(generated.get("extra") or {}), "paper_id": state.metadata["paper_id"], "pred": state.output.completion,
            "desc": generated.get("desc")}


def metric_values(row: Mapping[str, Any], metrics: Sequence[str]) -> dict[str, float]:
    """The per-paper metrics of a scored row that have a value."""
    values = {}
    for key in metrics:
        number = row.get(key)
        if isinstance(number, int | float) and not isinstance(number, bool) and not math.isnan(number):
            values[key] = float(number)
    return values


def paper_scores(bench: Benchmark, split: OpenSplit, request: ScoringRequest) -> Scorer:
    """The scoring core on one sample's prediction: every per-paper metric it computes as the score's value, and
    the scored row in the metadata (what a summary aggregates, e.g. SciIG's BLEU statistics)."""

    @scorer(metrics=[paper_summary(bench.name)], name=f"{bench.name}_scores")
    def scores() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            result = score_records(bench, [prediction_record(state)], split, request, MODELS)
            [row] = result.rows
            return Score(value=metric_values(row, bench.suite.steps.metrics), answer=state.output.completion,
                         metadata={ROW: json.loads(json.dumps(row, default=str)),
                                   "not_computed": dict(result.summary.get("not_computed") or {})})

        return score

    return scores()


def metric_list(bench: Benchmark, metrics: str | Sequence[str] | None) -> tuple[str, ...]:
    """``-T metrics=a,b`` (or a list) as metric names; None: every metric that needs no LLM judge."""
    if metrics is None:
        return bench.suite.metrics_without_judge()
    names = metrics.split(",") if isinstance(metrics, str) else list(metrics)
    return tuple(name.strip() for name in names if name.strip())


__all__ = ["MODELS", "ROW", "metric_list", "metric_values", "paper_scores", "paper_summary", "prediction_record"]
