"""The one evaluation runner every benchmark's `sciwrite evaluate` goes through: open the split, read and join every
prediction file (before any model runs), load the models once (or score on Ray), score each system, summarize it
with its bootstrap intervals, add the schema version and the provenance, write ``<out>/<system>/``.

What differs between benchmarks is a handful of steps (`EvaluationSteps`), each a plain function in the
benchmark's package: how its split is opened, how a file is read and joined, how its models load, how a system
is scored (here or on Ray), what its summary holds, and which result files it writes besides the shared ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from sciwrite.core.coverage import Coverage, check_complete
from sciwrite.core.engine import LOCAL, RAY, check_engine
from sciwrite.core.predictions import check_bad_records
from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION, plan_provenance, provenance
from sciwrite.core.results import SideFiles, check_output_folder, write_results
from sciwrite.metrics.cutoff import cutoff_comparison
from sciwrite.metrics.judge import JUDGE_SEED, judge_provenance
from sciwrite.metrics.memorisation import KEYS as MEMORISATION_KEYS
from sciwrite.metrics.memorisation import memorisation, summarize_memorisation

#: One system's scores: its per-paper rows and the seconds of each scorer.
Scored = tuple[list[dict[str, Any]], dict[str, float]]


@dataclass(frozen=True)
class OpenSplit:
    """The split a run scores: its config name (the provenance's), its papers (a `datasets.Dataset`) and whatever
    else the benchmark's steps read (RWGBench: the corpus; SciIG: the holdout split)."""

    config: str
    papers: Any
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class PredictionFile:
    """One prediction file, read and joined to the split: the texts to score and their papers, in order."""

    path: str | Path  # as given (the summary names it so)
    texts: list[str]
    targets: list[dict[str, Any]]
    rejected: list[dict[str, Any]]  # lines left out under ``--bad-records skip``
    context: dict[str, Any] = field(default_factory=dict)  # what the benchmark's summary needs of the read
    trailer: dict[str, Any] = field(default_factory=dict)  # summary keys written after the provenance


@dataclass(frozen=True)
class ResultFiles:
    """What a benchmark writes besides per_paper.jsonl and summary.json (`sciwrite.core.results`)."""

    table_rows: list[dict[str, Any]]
    extra_json: Mapping[str, Any] = field(default_factory=dict)
    side_files: SideFiles | None = None


@dataclass(frozen=True)
class EvaluationSteps:
    """A benchmark's part of the runner; every step is a function of plain arguments."""

    benchmark: str
    #: open_split(split, source) -> OpenSplit; a clear error for an unknown split
    open_split: Callable[[str, Any], OpenSplit]
    #: read(path, split, bad_records, **flags) -> PredictionFile; a file that matches no paper is an error
    read: Callable[..., PredictionFile]
    #: load_models(profile, models, metrics, judge_options) -> the suite's models
    load_models: Callable[..., Any]
    #: score(file, split, models, batch_size, show_progress) -> (rows, seconds per scorer)
    score: Callable[[PredictionFile, OpenSplit, Any, int, bool], Scored]
    #: score_on_ray(files, split, suite_options, batch_size, address, actors, show_progress) -> ([Scored], models)
    score_on_ray: Callable[..., tuple[list[Scored], Any]]
    #: summarize(file, rows, timings, models, system=, split_name=, split=, bootstrap=, seed=, judge_options=,
    #: **flags) -> the summary (its means, intervals, join report, LLM record), before the provenance is added
    summarize: Callable[..., dict[str, Any]]
    result_files: Callable[[Mapping[str, Any], str], ResultFiles]
    templates: Mapping[str, str]  # the prompt templates the metrics send (their hash goes in the provenance)
    metrics: tuple[str, ...] = ()  # every table's per-paper metric keys (what ``--cutoff`` splits)
    #: memorisation_texts(file, split) -> one (reference text, [the texts the model was given]) per scored paper,
    #: in the file's order (`sciwrite.metrics.memorisation`); None: no memorisation signal
    memorisation_texts: Callable[[PredictionFile, OpenSplit], list[tuple[str, list[str]]]] | None = None


def add_memorisation(rows: Sequence[dict[str, Any]], file: PredictionFile,
                     texts: Sequence[tuple[str, list[str]]]) -> None:
    """Each row's `memorisation` and `memorised_span_words`, from its prediction, reference and inputs."""
    for row, target, text, (reference, inputs) in zip(rows, file.targets, file.texts, texts, strict=True):
        if row.get("paper_id", target["paper_id"]) != target["paper_id"]:
            raise RuntimeError(f"scored rows out of order: {row.get('paper_id')} where {target['paper_id']} was")
        row.update(memorisation(text, reference, inputs))


def system_names(predictions: Sequence[str | Path], systems: Sequence[str] | None) -> list[str]:
    """One distinct name per prediction file (default: the file stems)."""
    names = list(systems or [Path(p).stem for p in predictions])
    if len(names) != len(predictions) or len(set(names)) != len(names):
        raise ValueError(f"need one distinct system name per prediction file, got {names}")
    return names


def evaluate_files(steps: EvaluationSteps, predictions: Sequence[str | Path], split: str, *,
                   systems: Sequence[str] | None = None, out_dir: str | Path | None = None,
                   source: str | Path | None = None, profile: str | None = None,
                   models: Mapping[str, str] | None = None, metrics: Sequence[str] | None = None,
                   judge_options: Mapping[str, Any] | None = None, batch_size: int = 64, show_progress: bool = True,
                   bootstrap: int = 1000, seed: int = 0, engine: str = LOCAL, ray_address: str | None = None,
                   ray_actors: int | None = None, bad_records: str = "error", suite: Any = None,
                   system_folders: bool = True, require_complete: bool = False, cutoff: date | None = None,
                   **flags: Any) -> list[dict[str, Any]]:
    """Score each prediction file on `split`; one summary per file (system), each written to ``out_dir/<system>/``
    (to `out_dir` itself with `system_folders` False, for one file). `suite`: models already loaded. Each summary
    records its ``coverage`` (papers scored of the split's, `sciwrite.core.coverage`); `require_complete` (the CLI's
    ``--require-complete``) makes a file that leaves papers out an error, before any model loads.

    Each paper's row also gets the memorisation signal (`sciwrite.metrics.memorisation`, when the benchmark says
    what its model was given) and each summary its ``memorisation``; with `cutoff`, each summary's ``cutoff`` holds
    every metric before and after that date (`sciwrite.metrics.cutoff`)."""
    check_engine(engine)
    check_bad_records(bad_records)
    started = time.time()
    names = system_names(predictions, systems)
    if out_dir is not None:  # before any scoring: a bad output path must not cost a finished run
        check_output_folder(out_dir)
        for system in names if system_folders else ():
            if (Path(out_dir) / system).exists() and not (Path(out_dir) / system).is_dir():
                raise ValueError(f"--out {out_dir}: {Path(out_dir) / system} (system {system!r}) is a file, not a "
                                 "folder")
    opened = steps.open_split(split, source)
    files = [steps.read(path, opened, bad_records, **flags) for path in predictions]
    split_ids = list(opened.papers["paper_id"])
    if require_complete:
        check_complete({str(file.path): [t["paper_id"] for t in file.targets] for file in files}, split_ids)
    if engine == RAY:
        options = {"profile": profile, "models": models, "metrics": metrics, "judge_options": judge_options}
        scored, suite = steps.score_on_ray(files, opened, options, batch_size, ray_address, ray_actors, show_progress)
    else:
        suite = suite or steps.load_models(profile, models, metrics, judge_options)
        scored = (steps.score(file, opened, suite, batch_size, show_progress) for file in files)
    summaries = []
    for file, system, (rows, timings) in zip(files, names, scored):
        body = steps.summarize(file, rows, timings, suite, system=system, split_name=split, split=opened,
                               bootstrap=bootstrap, seed=seed, judge_options=judge_options, **flags)
        body["coverage"] = Coverage(len(file.targets), len(split_ids)).as_dict()
        if steps.memorisation_texts is not None:
            add_memorisation(rows, file, steps.memorisation_texts(file, opened))
            body["memorisation"] = summarize_memorisation(rows, bootstrap, seed)
        if cutoff is not None:
            body["cutoff"] = cutoff_comparison(rows, file.targets, [*steps.metrics, *MEMORISATION_KEYS[:1]], cutoff,
                                               bootstrap, seed)
        summary = {"schema_version": SUMMARY_SCHEMA_VERSION, **body, "provenance": provenance(
            benchmark=steps.benchmark, config=opened.config, dataset=opened.papers, profile=body.get("profile"),
            models=body.get("models", {}), judge=judge_provenance(body), templates=steps.templates,
            seeds={"bootstrap": seed, "judge": JUDGE_SEED}, engine=engine, started=started, finished=time.time(),
            model_plan=plan_provenance(suite)), **file.trailer}
        if out_dir is not None:
            folder = Path(out_dir) / system if system_folders else Path(out_dir)
            extra = steps.result_files(summary, system)
            write_results(folder, system, rows, summary, extra.table_rows, rejected=file.rejected,
                          extra_json=extra.extra_json, side_files=extra.side_files, benchmark=steps.benchmark)
        summaries.append(summary)
    return summaries


__all__ = ["EvaluationSteps", "OpenSplit", "PredictionFile", "ResultFiles", "Scored", "add_memorisation",
           "evaluate_files", "system_names"]
