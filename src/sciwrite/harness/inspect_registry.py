"""The ``inspect_ai`` entry point of sciwrite (``[project.entry-points.inspect_ai]``): importing it registers each
benchmark's own task, ``sciwrite/rwgbench``, ``sciwrite/sciig`` and ``sciwrite/surge``. Like `sciwrite.benchmarks`, it is a registry:
the one shared module that names the benchmark packages (a new benchmark adds its task here)."""

from sciwrite.rwgbench.inspect_task import rwgbench
from sciwrite.sciig.inspect_task import sciig
from sciwrite.surge.inspect_task import surge

__all__ = ["rwgbench", "sciig", "surge"]
