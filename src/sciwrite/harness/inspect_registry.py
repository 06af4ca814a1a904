"""The ``inspect_ai`` entry point of sciwrite (``[project.entry-points.inspect_ai]``): importing it registers the
tasks ``sciwrite/rwgbench`` and ``sciwrite/sciig``."""

from sciwrite.harness.inspect_tasks import rwgbench, sciig

__all__ = ["rwgbench", "sciig"]
