"""What every benchmark's part of the quick start is given (`QuickstartRun`), so that `sciwrite.quickstart` can run
the parts of every benchmark of `sciwrite.benchmarks.BENCHMARKS` alike (`Benchmark.studies.quickstart`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciwrite.core.summary import Summary
from sciwrite.generation.generate import build_request, generate
from sciwrite.generation.jobs import EXTRACTIVE, GenerationBenchmark
from sciwrite.generation.runner import RunReport
from sciwrite.generation.writer import RunOptions, WriterModel


@dataclass(frozen=True)
class QuickstartRun:
    """One quick start: where it writes, its sample folder for this benchmark, and how it generates (through the
    library's one entry point, `sciwrite.generation.generate.generate`, for `benchmark`)."""

    out_dir: Path
    source: Path | None  # the benchmark's sample folder (None: its default)
    profile: str = "lite"
    model: str | None = None  # None: the extractive floor
    base_url: str | None = None
    limit: int | None = None  # only the first N papers are generated and scored
    rebuild: bool = False
    show_progress: bool = True
    #: score(prediction files, system names, output folder, sample folder) -> one summary per system, each written
    #: to ``<output folder>/<system>/``: the scoring core on the benchmark's offline config, made by
    #: `sciwrite.quickstart` (every metric the profile computes; the LLM judge only with a model)
    score: Callable[[Sequence[Path], Sequence[str], Path, Path], list[Summary]] | None = None
    #: the benchmark the part generates for (`sciwrite.benchmark.Benchmark`), as ``sciwrite generate`` does
    benchmark: GenerationBenchmark | None = field(default=None, kw_only=True)

    def generate_system(self, out: Path, file_name: str, meta_keys: tuple[str, ...],
                        options: Mapping[str, Any]) -> RunReport:
        """Generate one quick-start system as ``sciwrite generate`` would (`generate`, with a request built as the
        command builds its own): the writer (or the extractive floor), the first `limit` papers, the benchmark's
        `options`; written to ``<out>/<file_name>`` with the plan's run metadata cut to `meta_keys` (what the quick
        start's files have always carried). Returns the run's report."""
        request = build_request(self.generating(), model=self.model or EXTRACTIVE, out=out, limit=self.limit,
                                options=options, file_name=file_name, meta_keys=meta_keys)
        writer = None if self.model is None else WriterModel(self.model, base_url=self.base_url)
        [job] = generate(self.generating(), request, writer, RunOptions(show_progress=self.show_progress)).jobs
        assert job.report is not None  # the quick start never dry-runs
        return job.report

    def generating(self) -> GenerationBenchmark:
        """`benchmark`; an error when the run was not given one."""
        if self.benchmark is None:
            raise ValueError("this QuickstartRun has no benchmark (sciwrite.quickstart.run_quickstart gives one)")
        return self.benchmark

    @property
    def writer(self) -> str:
        return self.model or "extractive (floor, no model)"


def scorer(run: QuickstartRun) -> Callable[[Sequence[Path], Sequence[str], Path, Path], list[Summary]]:
    """The run's `score`; an error when the quick start was not given one."""
    if run.score is None:
        raise ValueError("this QuickstartRun has no scorer (sciwrite.quickstart.run_quickstart gives one)")
    return run.score


def say(what: str, report: Any) -> None:
    """One line per generation run: written, already there, failed."""
    failed = f", {report.n_failed} failed (see {report.failures_path})" if report.n_failed else ""
    print(f"{what}: {report.n_written} generated, {report.n_already_done} already there{failed}")


__all__ = ["QuickstartRun", "say", "scorer"]
