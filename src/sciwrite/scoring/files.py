"""The scoring core's file layer: prediction files in, ``<out>/<system>/`` (`sciwrite.core.results`) and the run's
tables across systems (`sciwrite.scoring.run_tables`) out. What ``sciwrite evaluate`` and the quick start call, so
both leave the same folder; the scoring itself is `sciwrite.scoring.core.score_systems`."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from sciwrite.benchmark import Benchmark
from sciwrite.core.errors import Where
from sciwrite.core.metric_scales import check_result
from sciwrite.core.predictions import SystemPredictions
from sciwrite.core.results import check_output_folder, write_results
from sciwrite.core.system_names import system_path
from sciwrite.llm.ledger import LEDGER_NAME, UsageLedger
from sciwrite.scoring.checks import result_rules
from sciwrite.scoring.core import SystemResult, score_systems, system_names
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.run_tables import run_tables, write_run_tables
from sciwrite.scoring.steps import SuiteModels


def evaluate_files(benchmark: Benchmark, predictions: Sequence[str | Path], request: ScoringRequest, *,
                   systems: Sequence[str] | None = None, out_dir: str | Path | None = None,
                   system_folders: bool = True, models: SuiteModels | None = None,
                   keep_usage: bool = True) -> list[SystemResult]:
    """Score prediction files and write each system's results and the run's tables: what `sciwrite evaluate` does,
    file for file.

    The output path is checked before anything is scored, so that a finished run is never lost to it. Each
    system's folder gets ``per_paper.jsonl``, ``summary.json`` and ``summary.csv`` (and the benchmark's side
    files, and ``rejected.jsonl`` for the lines ``bad_records="skip"`` left out), written whole or not at all. The
    output folder gets the run's tables across systems (`sciwrite.scoring.run_tables`): with a cutoff,
    ``cutoff.json``, ``cutoff.csv``, ``cutoff.png`` and ``cutoff_across_systems.json``/``.csv``; with judge
    panels, ``judge_panel_systems.json``; and, with `keep_usage`, the LLM requests' usage ledger ``usage.jsonl``
    (`with_usage_ledger`) and each summary's ``llm_usage``.

    Args:
        benchmark: The benchmark to score with.
        predictions: Prediction files (JSON Lines, a dataset folder or a Hub dataset id), one system each.
        request: What to score against and how.
        systems: The systems' names, one per file; None: the file stems.
        out_dir: Where to write; None: write nothing, only return the results.
        system_folders: Write each system to ``out_dir/<system>/``; False writes one file's results to `out_dir`
            itself.
        models: The suite's models already loaded, to share them between calls.
        keep_usage: Keep a usage ledger under `out_dir` when the request has none, as `sciwrite evaluate` does
            (False: a run that asks no LLM and says nothing of usage, as the offline quick start).

    Returns:
        One `SystemResult` per file, in order (as `score_systems`).
    """
    names = system_names(predictions, systems)
    if out_dir is not None:
        check_output_folder(out_dir)
        for system, path in zip(names, predictions) if system_folders else ():
            folder = system_path(out_dir, system, Where(field="--system") if systems else Where(path=path))
            if folder.exists() and not folder.is_dir():
                raise ValueError(f"--out {out_dir}: {folder} (system {system!r}) is a file, not a folder")
    if not system_folders and len(predictions) != 1:
        raise ValueError("one prediction file only when its results go into the output folder itself")
    sources = [SystemPredictions.from_file(path, name) for path, name in zip(predictions, names)]
    if out_dir is not None and models is None and keep_usage:
        request = with_usage_ledger(request, out_dir)
    results = score_systems(benchmark, sources, request, models=models)
    # the predictions' absolute path: the folder imports from anywhere
    results = [result.with_summary(result.summary.with_(predictions=str(Path(path).resolve())))
               if result.summary.predictions is not None and Path(path).is_file() else result
               for result, path in zip(results, predictions, strict=True)]
    if out_dir is not None:
        for result in results:
            write_system(benchmark, result, system_path(out_dir, result.system) if system_folders else Path(out_dir))
        write_run_tables(run_tables(benchmark, [result.summary for result in results]), out_dir)
    return results


def with_usage_ledger(request: ScoringRequest, out_dir: str | Path) -> ScoringRequest:
    """`request` with a usage ledger at ``<out_dir>/usage.jsonl`` when it has none, its lines tagged with this run's
    id: every request's tokens and cost are recorded, and each summary's ``llm_usage`` counts this run's, as
    `sciwrite evaluate` does (the file appears with the first request)."""
    if request.ledger is not None:
        return request
    run = f"evaluate-{datetime.datetime.now(datetime.UTC).strftime('%Y%m%dT%H%M%S.%fZ')}"
    return request.with_(ledger=UsageLedger(Path(out_dir) / LEDGER_NAME, tags={"run": run}))


def write_system(benchmark: Benchmark, result: SystemResult, folder: str | Path) -> list[Path]:
    """Write one system's files to `folder`, whole or not at all; returns the paths written.

    The result is checked first (`sciwrite.core.metric_scales.check_result`: types, declared ranges, counts,
    intervals, finite numbers, each mean what the rows give), so that nothing impossible reaches a table.
    """
    check_result(result.summary, result.rows, result_rules(benchmark), summary_path=Path(folder) / "summary.json",
                 rows_path=Path(folder) / "per_paper.jsonl")
    return write_results(Path(folder), result.system, result.rows, result.summary.to_json(), result.files.table_rows,
                         rejected=result.rejected, extra_json=result.files.extra_json,
                         side_files=result.files.side_files, benchmark=benchmark.name)


__all__ = ["LEDGER_NAME", "evaluate_files", "with_usage_ledger", "write_system"]
