"""What `sciwrite generate <benchmark>` asks a benchmark, and what the benchmark answers.

The command reads the run options every benchmark shares (model, seed, out, limit, dry run, retry) into a
`GenerationRequest`, with the benchmark's own options (`Benchmark.generation.options`) by keyword. The benchmark
plans the run (`Benchmark.generation.plan`): which methods or prompt levels, which papers, their candidates, and
one `GenerationJob` per output file. The command executes each job (`sciwrite.generation.runner`) before asking
for the next, so what a job prepares (a retriever, a candidate list) is built only when a job needs it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The model id of the offline extractive floor (no language model).
EXTRACTIVE = "extractive"


@dataclass(frozen=True)
class GenerationRequest:
    """The run options of one ``sciwrite generate`` command."""

    model: str
    out: Path  # the output folder (the command's default: outputs/generations/<benchmark>)
    seed: int | None = None
    limit: int | None = None
    dry_run: bool = False
    retry_failed: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)  # the benchmark's own options, by keyword

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


def file_label(text: str) -> str:
    """`text` made safe as part of a file name: 'openrouter:deepseek/deepseek-chat' -> 'openrouter-deepseek_deepseek-chat'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace(":", "-")).strip("_") or "model"


__all__ = ["EXTRACTIVE", "GenerationJob", "GenerationRequest", "file_label"]
