"""What generating for a benchmark asks it, and what the benchmark answers.

A run's options every benchmark shares (writer model, seed, out, limit, dry run, retry) and the benchmark's own
options (`Benchmark.generation.options`, by keyword) make one `GenerationRequest`, built in one place
(`sciwrite.generation.generate.build_request`) for ``sciwrite generate``, the quick start and the Inspect tasks. The
benchmark plans the run (`Benchmark.generation.plan`): which methods or prompt levels, which papers, their
candidates, and one `GenerationJob` per output file. `sciwrite.generation.generate` runs each job before asking for
the next, so what a job prepares (a retriever, a candidate list) is built only when a job needs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from sciwrite.core.commands import Option

#: The model id of the offline extractive floor (no language model).
EXTRACTIVE = "extractive"


@dataclass(frozen=True)
class GenerationRequest:
    """What one generation run writes: the writer model, where, for which papers, and the benchmark's options.

    Built by `sciwrite.generation.generate.build_request` (the benchmark's option defaults filled in); how the
    model is called (sampling, budget) is not part of it (`sciwrite.generation.writer.RunOptions`).
    """

    model: str  # the writer model id (`EXTRACTIVE`: the extractive floor, no model)
    out: Path  # the output folder (the command's default: outputs/generations/<benchmark>)
    seed: int | None = None
    limit: int | None = None  # only the first N papers
    dry_run: bool = False  # the exact prompts of the first paper(s) instead of a run; no model is called
    retry_failed: bool = False  # only the papers in the failures file
    options: Mapping[str, Any] = field(default_factory=dict)  # the benchmark's own options, by keyword
    #: the output file's name in `out` instead of the benchmark's naming (a plan of one job only: the quick
    #: start's system names); None: the benchmark's name
    file_name: str | None = None
    #: the keys of the plan's run metadata that every line and the ``.meta.json`` carry (in the plan's order);
    #: None: all of them. The quick start keeps its lines' shorter metadata this way.
    meta_keys: tuple[str, ...] | None = None

    @property
    def extractive(self) -> bool:
        """Whether the run is the extractive floor instead of a language model."""
        return self.model == EXTRACTIVE

    @property
    def reach(self) -> int | None:
        """How many papers the run can reach: the first --limit, one for a plain dry run, else all (None)."""
        if self.limit and self.limit > 0:
            return self.limit
        return 1 if self.dry_run else None


@dataclass(frozen=True)
class GenerationJob:
    """One output file: the records to write for, the method, where, the metadata every line carries, the fields
    of its dataset card when it is pushed to the Hub, and notes the command prints first."""

    records: Sequence[Mapping[str, Any]]
    method: Any  # a `sciwrite.generation.runner.Method`
    out_path: Path
    meta: Mapping[str, Any]
    card: Mapping[str, Any]
    notes: tuple[str, ...] = ()  # what the command says before the run (or dry run): a choice the paper leaves open
    #: the record field holding the candidate list the plan retrieved for each paper (one batched search before any
    #: request), which the method writes over; None: the method reads none, or retrieves by itself
    retrieved_field: str | None = None


class GenerationPlanner(Protocol):
    """What generating for a benchmark reads of it (`sciwrite.benchmark.BenchmarkGeneration` is one): the options
    its generation declares, and its plan (request -> one job per output file, each prepared when reached)."""

    @property
    def options(self) -> tuple[Option, ...]: ...

    @property
    def plan(self) -> Callable[[GenerationRequest], Iterable[GenerationJob]]: ...


class GenerationBenchmark(Protocol):
    """A benchmark as generation sees it (`sciwrite.benchmark.Benchmark` is one): its name and its generation."""

    @property
    def name(self) -> str: ...

    @property
    def generation(self) -> GenerationPlanner: ...


def file_label(text: str) -> str:
    """`text` made safe as part of a file name: 'openrouter:deepseek/deepseek-chat' -> 'openrouter-deepseek_deepseek-chat'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace(":", "-")).strip("_") or "model"


__all__ = ["EXTRACTIVE", "GenerationJob", "GenerationPlanner", "GenerationRequest", "GenerationBenchmark", "file_label"]
