"""The main job, end to end, on the offline embedded default (the `lite` profile).

Its steps:

1. build the RWGBench and SciIG samples (from the aclsum package's 250 GROBID-parsed ACL papers);
2. index the RWGBench corpus with BM25 and the packaged MiniLM (dense), retrieve for every target paper and
   report retrieval quality of the gold citations;
3. generate: RWGBench with RAG over BM25, RAG over dense retrieval and Oracle (the gold citations), SciIG from
   each paper's title, abstract and cited works — with the extractive floor (no model) by default, or with a
   language model (`model`, e.g. ``openai:gpt-4o`` or ``hf:<path>``), each system planned and run as
   ``sciwrite generate`` plans and runs it (`sciwrite.generation.generate.generate`);
4. evaluate both benchmarks with every metric the profile can compute;
5. print the tables and write them as JSON/CSV, with one plot comparing the systems.

Every step keeps its outputs under `out_dir`; generation resumes, so a rerun only does what is missing.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core.summary import Summary
from sciwrite.generation.quickstart_run import QuickstartRun
from sciwrite.leaderboard.runs import import_quickstart, serve_command
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.scoring.files import evaluate_files
from sciwrite.scoring.request import ScoringRequest

logger = logging.getLogger(__name__)


def run_quickstart(out_dir: str | Path = "outputs/quickstart", profile: str = "lite", rebuild: bool = False,
                   show_progress: bool = True, model: str | None = None, limit: int | None = None,
                   base_url: str | None = None, store: str | Path | None = None,
                   sources: Mapping[str, str | Path | None] | None = None) -> dict[str, Any]:
    """Run every benchmark's part (`Benchmark.studies.quickstart`), then put the scored systems on the leaderboard's
    store (`store`, default: the default store) and print the command that opens the leaderboard. Returns what the
    parts return by name (RWGBench: its summaries and the retrieval rows; SciIG: its summary).

    `sources` maps a benchmark to its sample folder (a folder is built when missing; default:
    `Benchmark.data.sample_dir()`). `model` None uses the extractive floor; `limit` generates and scores only the
    first N papers of each benchmark (RWGBench's retrieval quality is always reported on every paper).
    """
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be >= 1, got {limit}")
    folders = dict(sources or {})
    unknown = sorted(set(folders) - set(BENCHMARKS))
    if unknown:
        raise ValueError(f"--source names unknown benchmark(s) {unknown}; choose from {sorted(BENCHMARKS)}")
    not_folders = sorted(f"{name}={folder}" for name, folder in folders.items()
                         if folder is not None and Path(folder).is_file())
    if not_folders:  # checked, like the store, before any run, so that a finished run is never lost to them
        raise ValueError(f"--source {' '.join(not_folders)}: a file, not a sample folder; name a folder (built "
                         "when missing)")
    board = ResultsStore(store)
    results: dict[str, Any] = {}
    used: dict[str, Path] = {}
    for name, bench in BENCHMARKS.items():
        if bench.studies.quickstart is None:
            continue
        given = folders.get(name)
        folder = Path(given) if given else bench.data.sample_dir()
        run = QuickstartRun(Path(out_dir), folder, profile=profile, model=model, base_url=base_url, limit=limit,
                            rebuild=rebuild, show_progress=show_progress, benchmark=bench,
                            score=quickstart_scorer(bench, profile, judge=model is not None,
                                                    show_progress=show_progress))
        results.update(bench.studies.quickstart(run))
        if folder != Path(bench.data.sample_dir()):
            used[name] = folder
    added = sum(new for _, new in import_quickstart(board, out_dir))
    print(f"\nput {added} new system(s) on the leaderboard store {board.path}; open the leaderboard with:\n  "
          + serve_command(board.path, used))
    return results


def quickstart_scorer(bench: Benchmark, profile: str, judge: bool, show_progress: bool = True):
    """A quick start part's `QuickstartRun.score`: the scoring core on the benchmark's offline config, with every
    metric the profile computes (the LLM judge only when `judge`: a model was named)."""

    def score(predictions: Sequence[Path], systems: Sequence[str], out: Path, folder: Path) -> list[Summary]:
        request = ScoringRequest(split=bench.data.offline_config, source=folder, profile=profile,
                                 metrics=None if judge else bench.suite.metrics_without_judge(),
                                 show_progress=show_progress)
        # offline it asks no LLM: the usage ledger (and each summary's llm_usage) only when a judge is asked
        return [result.summary for result in evaluate_files(bench, predictions, request, systems=systems,
                                                            out_dir=out, keep_usage=judge)]

    return score
