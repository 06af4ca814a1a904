"""One way to generate for any benchmark: build the request (`build_request`), plan its jobs (`plan`), run them
(`generate`).

``sciwrite generate <benchmark>`` (from its flags), the quick start (from its `QuickstartRun`) and the Inspect tasks
(from their task arguments) all build their `GenerationRequest` with `build_request`, so a request is made in one
place: the benchmark's option defaults filled in, an unknown option refused. The Inspect tasks run each paper
themselves (their solvers run the job's method with Inspect's model), so they use only the planning half, `plan`;
the command and the quick start call `generate`, which plans the jobs and runs each, before planning the next,
with the writer's backend, its usage ledger and the run's options (`sciwrite.generation.writer`), and returns a
typed `GenerationRun`. Nothing here prints but the runner's progress bars: a caller that reports as the run goes
(the command prints each job's notes and report, and pushes its file to the Hub) passes a `JobObserver`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sciwrite.core.commands import resolved_options
from sciwrite.generation.jobs import EXTRACTIVE, GenerationBenchmark, GenerationJob, GenerationRequest
from sciwrite.generation.runner import RunReport, dry_run, run_generation
from sciwrite.generation.writer import RunOptions, WriterModel
from sciwrite.llm.ledger import UsageLedger
from sciwrite.llm.types import GenerationSettings

#: The seed of a request that names none: the papers' (and ``sciwrite generate --seed``'s default).
DEFAULT_SEED = GenerationSettings().seed


def generation_options(benchmark: GenerationBenchmark, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every generation option of `benchmark` by keyword: `given` over the declared defaults (None: the default);
    an unknown keyword is an error."""
    return resolved_options(benchmark.generation.options, given, f"{benchmark.name} generation", none_is_default=True)


def build_request(benchmark: GenerationBenchmark, *, model: str, out: str | Path, seed: int | None = DEFAULT_SEED,
                  limit: int | None = None, dry_run: bool = False, retry_failed: bool = False,
                  options: Mapping[str, Any] | None = None, file_name: str | None = None,
                  meta_keys: tuple[str, ...] | None = None) -> GenerationRequest:
    """The one way a `GenerationRequest` is made: the shared run options, and the benchmark's own `options` by
    keyword over their defaults (`generation_options`). See `GenerationRequest` for each field."""
    return GenerationRequest(model=model, out=Path(out), seed=seed, limit=limit, dry_run=dry_run,
                             retry_failed=retry_failed, options=generation_options(benchmark, options or {}),
                             file_name=file_name, meta_keys=meta_keys)


def plan(benchmark: GenerationBenchmark, request: GenerationRequest) -> Iterator[GenerationJob]:
    """The benchmark's jobs for `request` (`Benchmark.generation.plan`), each prepared when reached, with the output
    file and the run metadata the request asks for (`GenerationRequest.file_name`, `.meta_keys`)."""
    for n, job in enumerate(benchmark.generation.plan(request)):
        if n and request.file_name is not None:
            raise ValueError(f"the request names one output file ({request.file_name}), but it plans more than one "
                             f"{benchmark.name} job: ask for one method or level")
        yield shaped(job, request)


def shaped(job: GenerationJob, request: GenerationRequest) -> GenerationJob:
    """`job` written to `request.file_name` in the output folder, its metadata cut to `request.meta_keys`."""
    if request.file_name is not None:
        job = replace(job, out_path=request.out / request.file_name)
    if request.meta_keys is not None:
        job = replace(job, meta={key: value for key, value in job.meta.items() if key in request.meta_keys})
    return job


@dataclass(frozen=True)
class JobRun:
    """One planned job as it ran: the runner's report, or for a dry run the exact prompts; and the usage ledger its
    requests were written to (None: no model was called)."""

    job: GenerationJob
    report: RunReport | None  # None for a dry run
    prompts: tuple[tuple[str, str], ...] = ()  # a dry run's (paper_id, exact prompt text) of the first paper(s)
    ledger: UsageLedger | None = None


@dataclass(frozen=True)
class GenerationRun:
    """What `generate` did: the request, and each planned job as it ran, in the plan's order."""

    request: GenerationRequest
    jobs: tuple[JobRun, ...]

    @property
    def reports(self) -> list[RunReport | None]:
        """The runner's report of each job (None for a dry run)."""
        return [job.report for job in self.jobs]


class JobObserver:
    """What a caller of `generate` is told as the run goes: each job before it runs (`starting`) and once it has
    run (`finished`). The base class listens to nothing."""

    def starting(self, job: GenerationJob) -> None:
        """Before `job` runs (its `notes` are what to say first)."""

    def finished(self, run: JobRun) -> None:
        """After a job ran (or, for a dry run, its prompts were made)."""


def generate(benchmark: GenerationBenchmark, request: GenerationRequest, writer: WriterModel | None = None,
             options: RunOptions | None = None, observer: JobObserver | None = None) -> GenerationRun:
    """Plan `benchmark`'s jobs for `request` and run each with `writer`'s backend (None, as the extractive floor
    needs: no model), its usage ledger and `options` (default: `RunOptions()`), telling `observer` of each job.

    A dry run calls no model: each job's `JobRun.prompts` hold the exact prompts of its first paper(s). The
    writer's ``model_options`` go into every line's metadata, as ``model_options``.
    """
    if writer is not None and not request.extractive and writer.model != request.model:
        raise ValueError(f"the request names model {request.model!r} but the writer is {writer.model!r}")
    if writer is None and not (request.extractive or request.dry_run):
        raise ValueError(f"model {request.model!r} needs a writer (a WriterModel); only the extractive floor "
                         f"({EXTRACTIVE!r}) runs without one")
    options, observer = options or RunOptions(), observer or JobObserver()
    runs = []
    for job in plan(benchmark, request):
        observer.starting(job)
        runs.append(run_job(job, request, writer, options))
        observer.finished(runs[-1])
    return GenerationRun(request, tuple(runs))


def run_job(job: GenerationJob, request: GenerationRequest, writer: WriterModel | None,
            options: RunOptions) -> JobRun:
    """One job: its dry run, or its run with a new backend of `writer` (none for the extractive floor)."""
    if request.dry_run:
        return JobRun(job, None, prompts=tuple(dry_run(job.records, job.method, request.limit or 1)))
    backend = None if writer is None or request.extractive else writer.backend()
    ledger = None if backend is None else options.ledger(job.out_path)
    meta = {**job.meta, **({"model_options": dict(writer.model_options)} if writer is not None and writer.model_options
                                 else {})}
    report = run_generation(job.records, job.method, backend, job.out_path, settings=options.settings, meta=meta,
                            limit=request.limit, retry_failed=request.retry_failed, ledger=ledger,
                            keep_reasoning=options.keep_reasoning, show_progress=options.show_progress)
    return JobRun(job, report, ledger=ledger)


__all__ = ["DEFAULT_SEED", "GenerationRun", "JobObserver", "JobRun", "build_request", "generate", "generation_options",
           "plan", "run_job", "shaped"]
