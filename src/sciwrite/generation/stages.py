"""Methods that run in named stages (RWGBench's Workflow: plan, search, draft, refinements), so that a front end can
run them one stage at a time: ``sciwrite generate`` runs every stage in one go (`run_stages`), an Inspect task
chains one solver per stage and shows each in its transcript.

A staged method gives `start(record)` (its progress before the first stage), `stages()` (the `MethodStage`s in
order; each reads and updates the progress) and `finish(progress)` (the `Generated` output). A method that is not
staged is one request: its `run` is its only stage.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from sciwrite.generation.runner import Generated, PaperLLM


@dataclass(frozen=True)
class MethodStage:
    """One named stage of a method's run on one paper: ``await run(progress, llm)`` updates the progress."""

    name: str
    # (progress, model): a `PaperLLM`, or `sciwrite.harness.inspect_model.InspectLLM` (its interface) under Inspect
    run: Callable[[Any, Any], Awaitable[None]]


@runtime_checkable
class StagedMethod(Protocol):
    """A method whose run on a paper is `stages()` applied in order to `start(record)`, then `finish`."""

    name: str

    def start(self, record: Mapping[str, Any]) -> Any: ...

    def stages(self) -> tuple[MethodStage, ...]: ...

    def finish(self, progress: Any) -> Generated: ...


async def run_stages(method: StagedMethod, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
    """`method`'s whole run on `record`: every stage in order, then its output."""
    progress = method.start(record)
    for stage in method.stages():
        await stage.run(progress, llm)
    return method.finish(progress)


__all__ = ["MethodStage", "StagedMethod", "run_stages"]
