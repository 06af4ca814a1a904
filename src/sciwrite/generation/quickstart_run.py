"""What every benchmark's part of the quick start is given (`QuickstartRun`), so that `sciwrite.quickstart` can run
the parts of every benchmark of `sciwrite.benchmarks.BENCHMARKS` alike (`Benchmark.studies.quickstart`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.llm.backends import make_backend
from sciwrite.llm.ledger import UsageLedger


@dataclass(frozen=True)
class QuickstartRun:
    """One quick start: where it writes, its sample folder for this benchmark, and how it generates."""

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
    score: Callable[[Sequence[Path], Sequence[str], Path, Path], list[dict[str, Any]]] | None = None

    def backend(self) -> Any:
        """The language model (a new backend for each run_generation, which closes it), or None for the floor."""
        return None if self.model is None else make_backend(self.model, base_url=self.base_url)

    def ledger(self, folder: Path) -> UsageLedger | None:
        """With a language model, its usage and cost go to ``<folder>/usage.jsonl``."""
        return None if self.model is None else UsageLedger(folder / "usage.jsonl")

    @property
    def writer(self) -> str:
        return self.model or "extractive (floor, no model)"


def scorer(run: QuickstartRun) -> Callable[[Sequence[Path], Sequence[str], Path, Path], list[dict[str, Any]]]:
    """The run's `score`; an error when the quick start was not given one."""
    if run.score is None:
        raise ValueError("this QuickstartRun has no scorer (sciwrite.quickstart.run_quickstart gives one)")
    return run.score


def say(what: str, report: Any) -> None:
    """One line per generation run: written, already there, failed."""
    failed = f", {report.n_failed} failed (see {report.failures_path})" if report.n_failed else ""
    print(f"{what}: {report.n_written} generated, {report.n_already_done} already there{failed}")


__all__ = ["QuickstartRun", "say", "scorer"]
