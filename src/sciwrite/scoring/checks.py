"""A scored run's numbers checked against its benchmark's declared scales (`BenchmarkSuite.scales`) before they are
written (``summary.json``), stored on the board or imported: the results table's values and intervals, the board's
extra columns, every per-paper value, and, for a run read from files, each mean recomputed from its rows."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sciwrite.benchmark import Benchmark
from sciwrite.core.errors import Where
from sciwrite.core.metric_scales import check_means, check_rows, check_summary, check_value
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Summary


def check_scored(bench: Benchmark, summary: Summary, rows: Sequence[PaperRow], *,
                 summary_path: str | Path, rows_path: str | Path, row_lines: Sequence[int] | None = None) -> None:
    """Every value the results table, the board and the per-paper view show is a finite number in its metric's
    range; the first that is not raises `sciwrite.core.errors.InputError` naming the metric, the file and the
    record (the summary's system, or the row's paper and line)."""
    scales = bench.suite.scales
    where = Where(path=summary_path, record=summary.system)
    check_summary(summary, scales, bench.suite.metrics, where)
    if bench.presentation.board_values is not None:
        for key, values in bench.presentation.board_values(summary).items():
            for value in values:
                check_value(key, value, scales.get(key), Where(summary_path, None, where.record, key))
    check_rows(rows, scales, bench.board_metrics, rows_path, row_lines)


def check_recomputed(bench: Benchmark, summary: Summary, rows: Sequence[PaperRow], *,
                     summary_path: str | Path, rows_path: str | Path) -> None:
    """Each results-table value of the summary is what its per-paper rows give (`check_means`)."""
    check_means(summary, rows, bench.suite.scales, bench.suite.metrics,
                Where(path=summary_path, record=summary.system), rows_path)


__all__ = ["check_recomputed", "check_scored"]
