"""What a benchmark's results may hold, read off its metric declarations, for the one check of a result
(`sciwrite.core.metric_scales.check_result`) that every door runs: the summary writer, `push results`, the board's
imports (evaluation folders, Inspect logs, a model's Hub results), the Space's worker and `paper-table`."""

from __future__ import annotations

from sciwrite.benchmark import Benchmark
from sciwrite.core.metric_scales import ResultRules


def result_rules(bench: Benchmark) -> ResultRules:
    """`bench`'s rules: each metric's declared scale (`BenchmarkSuite.scales`), the results table's metrics (each
    summary value what its per-paper rows give) and the board's extra columns (`Presentation.board_values`)."""
    return ResultRules(scales=bench.suite.scales, recomputed=bench.suite.metrics,
                       extra_values=bench.presentation.board_values)


__all__ = ["result_rules"]
