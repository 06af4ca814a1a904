"""The one scoring core every front end calls (the CLI, the leaderboard's evaluator, the evaluate modules, the quick
start, the Ray engine, an Inspect scorer): any benchmark's predictions for several systems in, one typed result per
system out (its summary, with schema version, provenance, coverage and intervals, and its per-paper rows), with no
disk I/O of its own. Reading prediction files and writing ``<out>/<system>/`` are thin layers around it
(`sciwrite.scoring.files`).

Steps: open the split, read and join every system's predictions (before any model loads), load the models once
(or score on Ray Data, every system's papers in one run), score each system, summarize it with its bootstrap
intervals, its coverage, its memorisation signal and, with a cutoff date, every metric before and after it; then
add the schema version and the provenance. What differs between benchmarks is their `EvaluationSteps`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.core.coverage import Coverage, check_complete
from sciwrite.core.engine import RAY, ray_engine
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.predictions import SystemPredictions
from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION, plan_provenance
from sciwrite.core.run_provenance import run_provenance
from sciwrite.core.summary import Interval, Provenance, Summary
from sciwrite.metrics.cutoff import check_dates, cutoff_comparison
from sciwrite.metrics.judge import JUDGE_SEED, judge_record
from sciwrite.metrics.judge_panel import panel_snapshot_counts, panel_summary
from sciwrite.metrics.memorisation import KEYS as MEMORISATION_KEYS
from sciwrite.metrics.memorisation import memorisation, summarize_memorisation
from sciwrite.metrics.summary import JUDGE_SYSTEM_FINGERPRINTS
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.steps import OpenSplit, PredictionFile, ResultFiles, Scored, SuiteModels, aligned


@dataclass(frozen=True)
class SystemResult:
    """One system's scores, as `score_systems` returns them.

    Attributes:
        system: The system's name.
        summary: What ``summary.json`` holds, typed (`sciwrite.core.summary.Summary`): each metric's mean, the
            intervals, coverage, memorisation, provenance and the schema version.
        rows: The per-paper rows (what ``per_paper.jsonl`` holds), one per paper scored.
        rejected: The prediction lines left out under ``bad_records="skip"``.
        files: The benchmark's result-table rows and side files, for `sciwrite.scoring.files.write_system`.
    """

    system: str
    summary: Summary
    rows: list[PaperRow]
    rejected: list[dict[str, Any]]
    files: ResultFiles

    @property
    def coverage(self) -> Coverage:
        """How many papers of the split the system was scored on."""
        return self.summary.scored

    @property
    def provenance(self) -> Provenance | None:
        """Where the scores come from: versions, dataset, models, judge, prompt templates, seeds, hardware."""
        return self.summary.provenance

    @property
    def intervals(self) -> Mapping[str, Interval]:
        """metric -> its 95% bootstrap interval (empty when the run asked for none)."""
        return self.summary.intervals.bounds if self.summary.intervals is not None else {}

    @property
    def schema_version(self) -> int:
        """The summary's schema version (0 for a summary written before versions existed)."""
        return self.summary.schema_version

    def with_summary(self, summary: Summary) -> SystemResult:
        """The same result with another summary (a front end's own fields: the predictions' path, its name)."""
        return replace(self, summary=summary)


def system_names(paths: Sequence[str | Path], systems: Sequence[str] | None) -> list[str]:
    """One distinct name per prediction file (default: the file stems)."""
    names = list(systems or [Path(path).stem for path in paths])
    if len(names) != len(paths) or len(set(names)) != len(names):
        raise ValueError(f"need one distinct system name per prediction file, got {names}")
    return names


def model_request(benchmark: Benchmark, request: ScoringRequest) -> dict[str, Any]:
    """The suite's `load_models` arguments, with the metric names expanded to the benchmark's metric keys; a model
    override of a role the benchmark does not declare is an error naming its roles (never silently unused)."""
    unknown = sorted(set(request.models) - set(benchmark.suite.model_roles))
    if unknown:
        raise ValueError(f"unknown model role(s) {unknown} for {benchmark.title}; its roles are "
                         f"{', '.join(benchmark.suite.model_roles)}")
    return {**request.model_options(), "metrics": benchmark.suite.expand_metrics(request.metrics)}


def load_models(benchmark: Benchmark, request: ScoringRequest) -> SuiteModels:
    """Load the benchmark's models for `request`, to pass to several `score_systems` calls as `models`."""
    return benchmark.suite.steps.load_models(**model_request(benchmark, request))


def score_systems(benchmark: Benchmark, systems: Sequence[SystemPredictions], request: ScoringRequest, *,
                  split: OpenSplit | None = None, models: SuiteModels | None = None) -> list[SystemResult]:
    """Score each system's predictions on the request's split: the one scoring core every front end calls.

    Every system is read and joined to the split before any model loads, so a bad line costs nothing;
    ``request.require_complete`` makes a system that leaves papers out an error then. The models are loaded once
    for all systems. Nothing is written to disk (`sciwrite.scoring.files.evaluate_files` writes the files).

    Args:
        benchmark: The benchmark to score with (`sciwrite.benchmarks.get_benchmark`).
        systems: One `SystemPredictions` per system; their names must differ.
        request: What to score against and how.
        split: The split already open (papers in memory) instead of ``request.split``.
        models: The suite's models already loaded (`load_models`, `ModelCache`), to share them between calls.

    Returns:
        One `SystemResult` per system, in the order given.

    Raises:
        ValueError: Systems without distinct names, a malformed prediction line (under ``bad_records="error"``;
            every such line named ``FILE:LINE``) or a missing paper (under ``require_complete``).
    """
    steps = benchmark.suite.steps
    started = time.time()
    request = request.with_(options=benchmark.suite.option_values(request.options))
    names = [s.system for s in systems]
    if not systems or len(set(names)) != len(names):
        raise ValueError(f"need one or more systems with distinct names, got {names}")
    opened = split or steps.open_split(request)
    if request.cutoff is not None:  # a date --cutoff cannot read fails now, not after the scoring
        check_dates(opened.papers, f"{request.source or benchmark.name} split {opened.config!r}")
    files = [steps.read(system, opened, request) for system in systems]
    split_ids = opened.paper_ids
    if request.require_complete:
        check_complete({file.origin: [t["paper_id"] for t in file.targets] for file in files}, split_ids)
    if request.engine == RAY:
        scored, models = _score_on_ray(benchmark, files, opened, request)
    else:
        models = models or load_models(benchmark, request)
        scored = [steps.score(file, opened, models, request) for file in files]
    results = []
    for file, system, one in zip(files, names, scored, strict=True):
        aligned(one.rows, file)
        one = _with_memorisation(benchmark, file, one, opened)
        summary = _summary(benchmark, file, one, models, opened, request, system, started)
        results.append(SystemResult(system, summary, one.rows, file.rejected, steps.result_files(summary, system)))
    return results


def _score_on_ray(benchmark: Benchmark, files: Sequence[PredictionFile], split: OpenSplit,
                  request: ScoringRequest) -> tuple[list[Scored], SuiteModels]:
    """Every system's papers in one Ray Data run (`sciwrite.scale.ray_evaluate.score_on_ray`), each actor loading
    the suite's models once; each system's rows completed in this process when the benchmark says how."""
    steps = benchmark.suite.steps
    if steps.ray_items is None or steps.score_items is None:  # `runs_on_ray`, spelled for the type checker
        raise ValueError(f"{benchmark.title} declares no Ray steps (ray_items, score_items): use --engine local")
    batches = [steps.ray_items(file, split) for file in files]
    rows, seconds, models = ray_engine().score_on_ray(
        steps.load_models, steps.score_items, model_request(benchmark, request), batches,
        batch_size=request.batch_size, address=request.ray_address, actors=request.ray_actors,
        show_progress=request.show_progress)
    scored = []
    for file, file_rows, file_seconds in zip(files, rows, seconds, strict=True):
        if steps.after_ray is None:
            scored.append(Scored(file_rows, file_seconds))
            continue
        done = steps.after_ray(file, split, file_rows, request)
        scored.append(Scored(done.rows, {**file_seconds, **done.seconds}, done.lookups))
    return scored, models


def _with_memorisation(benchmark: Benchmark, file: PredictionFile, scored: Scored, split: OpenSplit) -> Scored:
    """Each row with its memorisation signal (`sciwrite.metrics.memorisation`), when the benchmark has one."""
    if benchmark.suite.steps.memorisation_texts is None:
        return scored
    texts = benchmark.suite.steps.memorisation_texts(file, split)
    return replace(scored, rows=[row.with_values(memorisation(text, reference, inputs)) for row, text, (reference, inputs)
                                 in zip(scored.rows, file.texts, texts, strict=True)])


def _summary(benchmark: Benchmark, file: PredictionFile, scored: Scored, models: SuiteModels, split: OpenSplit,
             request: ScoringRequest, system: str, started: float) -> Summary:
    """The benchmark's summary of one system (its suite's `summarize`), with what every benchmark's has: the schema
    version, coverage, memorisation, the judge panel, the cutoff split and the provenance."""
    steps = benchmark.suite.steps
    summary = steps.summarize(file, scored, models, split=split, request=request, system=system)
    # a judge panel or repeated judging: each judge's means, their agreement, the noise, what each judge scored
    panel = panel_summary(scored.rows, request.judge.panel, request.bootstrap, request.seed)
    judge = judge_record(summary.models.get("judge"), summary.judge_snapshots,
                         summary.details.get(JUDGE_SYSTEM_FINGERPRINTS), panel, panel_snapshot_counts(scored.rows),
                         request.judge_check)
    if judge is not None and request.human_agreement is not None:  # the judge's agreement with people, beside its check
        judge = replace(judge, human_agreement=request.human_agreement)
    return summary.with_(
        schema_version=SUMMARY_SCHEMA_VERSION, coverage=Coverage(len(file.targets), len(split.paper_ids)),
        memorisation=summarize_memorisation(scored.rows, request.bootstrap, request.seed)
        if steps.memorisation_texts is not None else None,
        judge_panel=panel,
        cutoff=cutoff_comparison(scored.rows, file.targets, [*steps.metrics, *MEMORISATION_KEYS[:1]], request.cutoff,
                                 request.bootstrap, request.seed) if request.cutoff is not None else None,
        provenance=run_provenance(
            benchmark=benchmark.name, config=split.config, dataset=split.papers, profile=summary.profile,
            models=summary.models, judge=judge, templates=steps.templates,
            seeds={"bootstrap": request.seed, "judge": JUDGE_SEED}, engine=request.engine, started=started,
            finished=time.time(), model_plan=plan_provenance(models)),
        details={**summary.details, **file.trailer})


def score_records(benchmark: Benchmark, records: Sequence[Mapping[str, Any]], split: OpenSplit,
                  request: ScoringRequest, cache: ModelCache | None = None) -> SystemResult:
    """One system's prediction records, in memory, on a split already open (papers given in memory): what an
    evaluate module computes; `cache` keeps the suite's models between calls."""
    models = cache.get(benchmark, request) if cache is not None else None
    [result] = score_systems(benchmark, [SystemPredictions.from_records(records, "predictions")], request,
                             split=split, models=models)
    return result


class ModelCache:
    """Suites' models kept between calls: one load per benchmark and model options.

    The leaderboard's worker, an evaluate module and an Inspect scorer keep one, so that scoring system after
    system loads the models once and computes the split's reference side once (the models remember it,
    `sciwrite.models.memo`).
    """

    def __init__(self) -> None:
        self._models: dict[tuple[Any, ...], SuiteModels] = {}

    def get(self, benchmark: Benchmark, request: ScoringRequest) -> SuiteModels:
        """The models of `benchmark` for `request`'s model options, loaded on the first call."""
        options = model_request(benchmark, request)
        # the ledger itself (a ledger compares by identity): the clients loaded write to the one they were made with
        key = (benchmark.name, options["profile"], tuple(sorted(options["models"].items())), options["metrics"],
               request.judge.cache_key(), request.ledger)
        if key not in self._models:
            self._models[key] = benchmark.suite.steps.load_models(**options)
        return self._models[key]

    def __len__(self) -> int:
        return len(self._models)


__all__ = ["ModelCache", "SystemResult", "load_models", "model_request", "score_records", "score_systems",
           "system_names"]
