"""The scoring core's file layer: prediction files in, ``<out>/<system>/`` out (`sciwrite.core.results`). What
``sciwrite evaluate`` and the quick start call; the scoring itself is `sciwrite.scoring.core.score_systems`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sciwrite.benchmark import Benchmark
from sciwrite.core.predictions import SystemPredictions
from sciwrite.core.results import check_output_folder, write_results
from sciwrite.scoring.checks import check_scored
from sciwrite.scoring.core import SystemResult, score_systems, system_names
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.steps import SuiteModels


def evaluate_files(benchmark: Benchmark, predictions: Sequence[str | Path], request: ScoringRequest, *,
                   systems: Sequence[str] | None = None, out_dir: str | Path | None = None,
                   system_folders: bool = True, models: SuiteModels | None = None) -> list[SystemResult]:
    """Score prediction files and write each system's results: what `sciwrite evaluate` does.

    The output path is checked before anything is scored, so that a finished run is never lost to it. Each
    system's folder gets ``per_paper.jsonl``, ``summary.json`` and ``summary.csv`` (and the benchmark's side
    files), written whole or not at all.

    Args:
        benchmark: The benchmark to score with.
        predictions: Prediction files (JSON Lines, a dataset folder or a Hub dataset id), one system each.
        request: What to score against and how.
        systems: The systems' names, one per file; None: the file stems.
        out_dir: Where to write; None: write nothing, only return the results.
        system_folders: Write each system to ``out_dir/<system>/``; False writes one file's results to `out_dir`
            itself.
        models: The suite's models already loaded, to share them between calls.

    Returns:
        One `SystemResult` per file, in order (as `score_systems`).
    """
    names = system_names(predictions, systems)
    if out_dir is not None:
        check_output_folder(out_dir)
        for system in names if system_folders else ():
            if (Path(out_dir) / system).exists() and not (Path(out_dir) / system).is_dir():
                raise ValueError(f"--out {out_dir}: {Path(out_dir) / system} (system {system!r}) is a file, not a "
                                 "folder")
    if not system_folders and len(predictions) != 1:
        raise ValueError("one prediction file only when its results go into the output folder itself")
    sources = [SystemPredictions.from_file(path, name) for path, name in zip(predictions, names)]
    results = score_systems(benchmark, sources, request, models=models)
    for result, path in zip(results, predictions, strict=True):
        if "predictions" in result.summary and Path(path).is_file():  # absolute: the folder imports from anywhere
            result.summary["predictions"] = str(Path(path).resolve())
    if out_dir is not None:
        for result in results:
            write_system(benchmark, result, Path(out_dir) / result.system if system_folders else Path(out_dir))
    return results


def write_system(benchmark: Benchmark, result: SystemResult, folder: str | Path) -> list[Path]:
    """Write one system's files to `folder`, whole or not at all; returns the paths written.

    A value its metric's scale makes impossible (NaN, infinity, out of range) is refused first, so none reaches a
    table.
    """
    check_scored(benchmark, result.summary, result.rows, summary_path=Path(folder) / "summary.json",
                 rows_path=Path(folder) / "per_paper.jsonl")
    return write_results(Path(folder), result.system, result.rows, result.summary, result.files.table_rows,
                         rejected=result.rejected, extra_json=result.files.extra_json,
                         side_files=result.files.side_files, benchmark=benchmark.name)


__all__ = ["evaluate_files", "write_system"]
