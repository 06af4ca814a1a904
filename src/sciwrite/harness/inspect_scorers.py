"""The scorer of sciwrite's Inspect tasks: the scoring core (`sciwrite.scoring.core.score_records`) on each sample's
prediction record, the suite's models loaded once per process (`ModelCache`); each sample's `Score` holds every
per-paper metric computed and the scored row, and the task's metrics are what the CLI's summary gives: its means
(`paper_summary`) and its bootstrap intervals (`paper_intervals`, the benchmark's `EvaluationSteps.intervals`).

The core is synchronous: it runs in a worker thread, one sample at a time (the models are not shared between
threads), while the event loop goes on generating; the LLM judge's requests come back to the loop through Inspect's
``grader`` model role (`sciwrite.harness.inspect_grader`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
from inspect_ai.log import EvalMetric
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import get_benchmark
from sciwrite.core.metric_scales import UNDECLARED
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Summary
from sciwrite.harness.inspect_grader import grader_model
from sciwrite.harness.inspect_solvers import GENERATED
from sciwrite.scoring.core import ModelCache, score_records
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.steps import OpenSplit
from sciwrite.stats import summary_intervals

#: The suites' models, loaded once per process and kept between samples, tasks and runs.
MODELS = ModelCache()
#: Where a score's metadata keeps the paper's scored row, as ``per_paper.jsonl`` holds it.
ROW = "row"
#: Where a score's metadata keeps the paper's position in the split: the rows' order in the CLI's summary, which
#: the bootstrap's resamples depend on.
POSITION = "position"
#: The names of a metric's interval bounds among the task's metrics: ``<metric>_ci_low``, ``<metric>_ci_high``.
BOUNDS = ("_ci_low", "_ci_high")
#: The registry name of the intervals metric: the group its bounds have in the log (`EvalMetric.group`).
INTERVALS_METRIC = "paper_intervals"
#: One scoring at a time in each event loop's run (a lock is bound to the loop it is used in).
_SCORING = anyio.lowlevel.RunVar[anyio.Lock]("sciwrite_scoring")


def scored_rows(scores: Sequence[SampleScore]) -> list[PaperRow]:
    """The scored rows the samples' scores keep, in the split's order (as the CLI's summary has them); the log's
    JSON is read here, once."""
    kept = [(score.score.metadata or {}, index) for index, score in enumerate(scores)]
    ordered = sorted((meta[POSITION] if isinstance(meta.get(POSITION), int) else math.inf, index, meta[ROW])
                     for meta, index in kept if ROW in meta)
    return [PaperRow.from_json(row) for _, _, row in ordered]


def summary_means(benchmark: Benchmark, scores: Sequence[SampleScore]) -> dict[str, float]:
    """Each per-paper metric of the scores as the CLI's summary gives it: the mean over the papers that have a value,
    or the benchmark's own aggregate where its scale declares one (SciIG's corpus BLEU over the papers' summed
    n-gram statistics, `MetricScale.aggregate`); metrics without a value are left out."""
    rows = scored_rows(scores)
    keys = dict.fromkeys(key for score in scores if isinstance(score.score.value, Mapping) for key in score.score.value)
    scales = benchmark.suite.scales
    values = {key: (scales.get(key) or UNDECLARED).summary_value(key, rows) for key in keys}
    return {key: value for key, value in values.items() if value is not None}


@metric
def paper_summary(benchmark: str) -> Metric:
    """Each per-paper metric as the CLI's summary gives it (`summary_means`)."""
    bench = get_benchmark(benchmark)

    def compute(scores: list[SampleScore]) -> Value:
        return summary_means(bench, scores)

    return compute


@metric
def paper_intervals(benchmark: str, n_resamples: int, seed: int) -> Metric:
    """The bootstrap interval of each metric the CLI's summary gives one, as ``<metric>_ci_low`` and
    ``<metric>_ci_high``: the benchmark's own computation (`EvaluationSteps.intervals`) on the scored rows in the
    split's order with the summary's means, `n_resamples` resamples seeded by `seed` (``sciwrite evaluate
    --bootstrap N --bootstrap-seed S``); none with 0 resamples."""
    bench = get_benchmark(benchmark)

    def compute(scores: list[SampleScore]) -> Value:
        if bench.suite.steps.intervals is None or n_resamples <= 0:
            return {}
        found = bench.suite.steps.intervals(scored_rows(scores), summary_means(bench, scores), n_resamples, seed)
        return {f"{name}{suffix}": float(bound) for name, interval in found.bounds.items()
                if interval.low is not None and interval.high is not None
                for suffix, bound in zip(BOUNDS, (interval.low, interval.high), strict=True)}

    return compute


def logged_intervals(metrics: Mapping[str, EvalMetric]) -> dict[str, Any]:
    """A logged scorer's interval bounds (`paper_intervals`) as a summary's interval fields, as `summary_intervals`
    writes them (``intervals`` {metric: [low, high]}, ``interval_method``, ``n_resamples``, ``confidence``);
    ``{}`` when the log has none."""
    logged = {name: found for name, found in metrics.items() if found.group == INTERVALS_METRIC}
    if not logged:
        return {}
    low, high = BOUNDS
    intervals = {name.removesuffix(low): [found.value, logged[name.removesuffix(low) + high].value]
                 for name, found in logged.items() if name.endswith(low) and name.removesuffix(low) + high in logged}
    n_resamples = next(iter(logged.values())).params.get("n_resamples", 0)
    named = summary_intervals([], [], n_resamples)  # the method and confidence the CLI's summary names
    return {"intervals": intervals, "interval_method": named.method, "n_resamples": named.n_resamples,
            "confidence": named.confidence}


def interval_metric_names(metrics: Mapping[str, EvalMetric]) -> set[str]:
    """The names of a logged scorer's interval bounds (what is not a summary value)."""
    return {name for name, found in metrics.items() if found.group == INTERVALS_METRIC}


def prediction_record(state: TaskState) -> dict[str, Any]:
    """The sample's prediction as ``sciwrite generate`` writes its line: paper_id, pred, what the method added."""
    generated = state.metadata.get(GENERATED) or {}
    return {**(generated.get("extra") or {}), "paper_id": state.metadata["paper_id"], "pred": state.output.completion,
            "desc": generated.get("desc")}


def metric_values(row: PaperRow, metrics: Sequence[str]) -> dict[str, float]:
    """The per-paper metrics of a scored row that have a value."""
    values = {}
    for key in metrics:
        number = row.value(key)
        if number is not None and not math.isnan(number):
            values[key] = float(number)
    return values


def reported(summary: Summary, key: str, default: Any) -> Any:
    """`key`'s value in a summary, at its top or in the block that reports it (RWGBench's ``grounding``); `default`
    when it reports none."""
    if summary.holds(key):
        return summary.reported(key)
    if summary.grounding is not None and key in summary.grounding.to_json():
        return summary.grounding.reported(key)
    return default


def judge_roles(bench: Benchmark, request: ScoringRequest) -> tuple[str, ...]:
    """The model roles of the LLM-judge stages `request` asks for (the benchmark's stage table says which)."""
    stages = bench.suite.stages
    return tuple(dict.fromkeys(role for stage in stages.wanted_stages(stages.expand(request.metrics))
                               if stage.judge for role in stage.roles))


def graded(request: ScoringRequest, roles: Sequence[str]) -> ScoringRequest:
    """`request` with the judge's `roles` served by the model bound to the grader role now (its id in the model
    plan and the summary; one suite in the models cache per grader)."""
    if not roles:
        return request
    return request.with_(models={**request.models, **dict.fromkeys(roles, str(grader_model()))})


def scoring_lock() -> anyio.Lock:
    """The lock that keeps the models to one scoring at a time in this event loop's run."""
    try:
        return _SCORING.get()
    except LookupError:
        lock = anyio.Lock()
        _SCORING.set(lock)
        return lock


def paper_scores(bench: Benchmark, split: OpenSplit, request: ScoringRequest, bootstrap: int = 0,
                 bootstrap_seed: int = 0) -> Scorer:
    """The scoring core on one sample's prediction: every per-paper metric it computes as the score's value, and
    the scored row and the paper's position in the split in the metadata (what the task's metrics read: SciIG's
    BLEU statistics, the intervals' order); the task's intervals with `bootstrap` resamples seeded by
    `bootstrap_seed`. The judge's roles, when `request` asks for its metrics, are the grader's."""
    positions = {paper_id: index for index, paper_id in enumerate(split.paper_ids)}
    roles = judge_roles(bench, request)

    @scorer(metrics=[paper_summary(bench.name), paper_intervals(bench.name, bootstrap, bootstrap_seed)],
            name=f"{bench.name}_scores")
    def scores() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            record, scoring = prediction_record(state), graded(request, roles)
            async with scoring_lock():
                result = await anyio.to_thread.run_sync(score_records, bench, [record], split, scoring, MODELS)
            [row] = result.rows
            # a metric the summary leaves None (not requested, not computed) is none of the paper's scores either
            values = {key: value for key, value in metric_values(row, bench.suite.steps.metrics).items()
                      if reported(result.summary, key, value) is not None}
            return Score(value=values, answer=state.output.completion,
                         metadata={ROW: json.loads(json.dumps(row.to_json(), default=str)),
                                   POSITION: positions.get(record["paper_id"]),
                                   "not_computed": dict(result.summary.not_computed)})

        return score

    return scores()


def metric_list(bench: Benchmark, metrics: str | Sequence[str] | None, judge: str | None = None) -> tuple[str, ...]:
    """``-T metrics=a,b`` (or a list) as metric names; None: every metric, less the LLM judge's without a `judge`.
    Naming a judge metric without a `judge` is a `ValueError` saying to give one."""
    if metrics is None:
        return bench.suite.stages.metrics if judge else bench.suite.metrics_without_judge()
    names = tuple(name.strip() for name in (metrics.split(",") if isinstance(metrics, str) else metrics)
                  if name.strip())
    judged = [name for name in bench.suite.stages.expand(names) if name in bench.suite.judge_metrics]
    if judged and not judge:
        raise ValueError(f"-T metrics asks for the LLM judge's {judged}: name the judge's model with "
                         "-T judge=<model> (or -T judge=grader with --model-role grader=<model>)")
    return names


__all__ = ["BOUNDS", "INTERVALS_METRIC", "MODELS", "POSITION", "ROW", "graded", "interval_metric_names",
           "judge_roles", "logged_intervals", "metric_list", "metric_values", "paper_intervals", "paper_scores",
           "paper_summary", "prediction_record", "scored_rows", "summary_means"]
