"""Every benchmark sciwrite implements, by name."""

from __future__ import annotations

from sciwrite.benchmark import Benchmark
from sciwrite.rwgbench.benchmark import RWGBENCH
from sciwrite.sciig.benchmark import SCIIG
from sciwrite.surge.benchmark import SURGE

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (RWGBENCH, SCIIG, SURGE)}
"""Every benchmark by its name (``rwgbench``, ``sciig``, ``surge``)."""


def get_benchmark(name: str) -> Benchmark:
    """The benchmark called `name` (``rwgbench``, ``sciig`` or ``surge``).

    Raises:
        ValueError: No benchmark has that name; the message lists the known ones.
    """
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {sorted(BENCHMARKS)}")
    return BENCHMARKS[name]
