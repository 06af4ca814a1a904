"""Replacing one step of a registered benchmark's scoring core for one test (a spy, or a step that must not run)."""

from __future__ import annotations

import dataclasses
from typing import Any

from sciwrite.benchmarks import BENCHMARKS


def patch_steps(monkeypatch: Any, name: str, **steps: Any) -> None:
    """`BENCHMARKS[name]` with its `EvaluationSteps` fields `steps` replaced, until the test ends."""
    bench = BENCHMARKS[name]
    suite = dataclasses.replace(bench.suite, steps=dataclasses.replace(bench.suite.steps, **steps))
    monkeypatch.setitem(BENCHMARKS, name, dataclasses.replace(bench, suite=suite))
