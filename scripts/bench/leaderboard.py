"""Benchmark: the leaderboard's server-side view work at 200 systems per benchmark.

Builds a temporary results store with `--systems` FINISHED submissions for each of RWGBench (144 papers) and SciIG
(215 papers): per-paper rows with random values for every metric (a few None), means and 95% intervals from
`sciwrite.stats.summary_intervals`, inserted with `ResultsStore.add_submission`. Then times, best of `--repeat`
(time.perf_counter), per benchmark: `leaderboard_rows` + `leaderboard_frame` + `category_bars` for every category
+ `metric_chart` for the first metric (built, and built + rendered to PNG as the page's plot component does), and
one `compare_submissions` (1,000 resamples). Reports peak traced Python memory (tracemalloc, one extra untimed pass)
and the process's peak RSS. Target: < 1 s server-side per benchmark page.

    .venv/bin/python scripts/bench/leaderboard.py
"""

from __future__ import annotations

import argparse
import hashlib
import io
import resource
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.compare import compare_submissions
from sciwrite.leaderboard.plots import category_bars, metric_chart
from sciwrite.leaderboard.store import FINISHED, ResultsStore
from sciwrite.leaderboard.tables import leaderboard_frame, leaderboard_rows
from sciwrite.stats import summary_intervals

PAPERS = {"rwgbench": 144, "sciig": 215}
MODELS = ("gpt-4o", "llama-3.1-70b", "qwen2.5-72b", "mistral-large", "deepseek-v3")
METHODS = {"rwgbench": ("rag", "alce", "tag", "workflow", "direct"), "sciig": ("level1", "level2", "level3")}
TARGET_S = 1.0


def fill(store: ResultsStore, benchmark: str, n_systems: int, n_resamples: int, rng: np.random.Generator) -> list[str]:
    """`n_systems` finished submissions of `benchmark` with random per-paper rows; their ids."""
    metrics = get_benchmark(benchmark).suite.metrics
    n_papers = PAPERS[benchmark]
    ids = []
    for s in range(n_systems):
        quality = rng.uniform(0.2, 0.8)
        values = np.clip(rng.normal(quality, 0.15, (n_papers, len(metrics))), 0, 1)
        rows = []
        for p in range(n_papers):
            row: dict[str, Any] = {"paper_id": f"{benchmark}-paper-{p:04d}"}
            for m, metric in enumerate(metrics):
                value = float(values[p, m]) * (60 if metric == "perplexity" else 1)
                row[metric] = None if rng.random() < 0.02 else value
            rows.append(row)
        means: dict[str, float | None] = {m: float(np.mean([r[m] for r in rows if r[m] is not None])) for m in metrics}
        if s % 3 == 0:
            means[metrics[-1]] = None  # e.g. the LLM judge not computed under the lite profile
        typed = typed_rows(rows)
        summary = Summary(n_papers=n_papers, profile="lite" if s % 3 == 0 else "paper", metrics=means,
                          intervals=summary_intervals(typed, metrics, n_resamples, seed=s, means=means),
                          not_computed={metrics[-1]: "no LLM endpoint"} if s % 3 == 0 else {})
        system = f"{benchmark}-system-{s:03d}"
        sub = store.add_submission(
            benchmark=benchmark, split="test" if benchmark == "rwgbench" else "sample", system=system,
            submitter=f"user{s % 17}", predictions_jsonl="", sha256=hashlib.sha256(system.encode()).hexdigest(),
            n_predictions=n_papers, status=FINISHED, summary=summary, rows=typed, profile=summary.profile,
            model=MODELS[s % len(MODELS)], method=METHODS[benchmark][s % len(METHODS[benchmark])],
            retriever=("bm25", "dense", "oracle")[s % 3] if benchmark == "rwgbench" else "", weights="open")
        ids.append(sub.id)
    return ids


def page(store: ResultsStore, benchmark: str, render: bool, every_category: bool = True) -> None:
    """What one benchmark's leaderboard and plots tabs compute: the rows, the frame, the category charts (every
    category, or the first one as one request of the plots tab draws) and the first metric's chart."""
    bench = get_benchmark(benchmark)
    rows = leaderboard_rows(store, benchmark)
    leaderboard_frame(rows, benchmark, search="system", sort_by=bench.suite.metrics[0])
    categories = list(bench.suite.table_groups) if every_category else list(bench.suite.table_groups)[:1]
    figures = [category_bars(rows, benchmark, category) for category in categories]
    figures.append(metric_chart(rows, benchmark, bench.suite.metrics[0]))
    if render:
        for fig in figures:
            fig.savefig(io.BytesIO(), format="png", dpi=100)


def best_of(repeat: int, call: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the stored intervals")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultsStore(Path(tmp) / "leaderboard.sqlite")
        start = time.perf_counter()
        ids = {b: fill(store, b, args.systems, args.resamples, rng) for b in PAPERS}
        sizes = ", ".join(f"{b} {n} papers" for b, n in PAPERS.items())
        mib = (Path(tmp) / "leaderboard.sqlite").stat().st_size / 2**20
        print(f"store: {args.systems} systems x {len(PAPERS)} benchmarks ({sizes}) built in "
              f"{time.perf_counter() - start:.1f} s, {mib:.1f} MiB")
        page(store, "rwgbench", render=True)  # warm-up: imports, font cache
        results = []
        for benchmark in PAPERS:
            rows_s = best_of(args.repeat, lambda: leaderboard_rows(store, benchmark))
            rows = leaderboard_rows(store, benchmark)
            frame_s = best_of(args.repeat, lambda: leaderboard_frame(rows, benchmark, search="system"))
            built = best_of(args.repeat, lambda: page(store, benchmark, render=False))
            rendered = best_of(args.repeat, lambda: page(store, benchmark, render=True))
            request = best_of(args.repeat, lambda: page(store, benchmark, render=True, every_category=False))
            tracemalloc.start()
            page(store, benchmark, render=True)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            n_plots = len(get_benchmark(benchmark).suite.table_groups) + 1
            results.append((benchmark, rows_s, frame_s, n_plots, built, rendered, request, peak))
        a, b = ids["rwgbench"][:2]
        compare_s = best_of(args.repeat, lambda: compare_submissions(store, a, b, n_resamples=1000, seed=0))
    print(f"\n{'benchmark':<10} {'rows':>8} {'frame':>8} {'plots':>6} {'all built':>10} {'all + PNG':>10} "
          f"{'1 request + PNG':>16} {'peak traced':>12}")
    for benchmark, rows_s, frame_s, n_plots, built, rendered, request, peak in results:
        print(f"{benchmark:<10} {rows_s * 1e3:>6.1f}ms {frame_s * 1e3:>6.1f}ms {n_plots:>6} {built * 1e3:>8.0f}ms "
              f"{rendered * 1e3:>8.0f}ms {request * 1e3:>14.0f}ms {peak / 2**20:>8.1f} MiB")
    print("all: rows + frame + category_bars for every category + metric_chart; 1 request: rows + frame + one "
          "category + one metric chart, as one click of the plots tab (PNG at 100 dpi)")
    print(f"compare_submissions (rwgbench, {PAPERS['rwgbench']} papers x {len(get_benchmark('rwgbench').suite.metrics)} metrics, "
          f"1000 resamples): {compare_s * 1e3:.0f} ms")
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10  # KiB on Linux
    print(f"peak RSS of the process: {maxrss:.0f} MiB")
    worst = max(r[4] for r in results)
    worst_request = max(r[6] for r in results)
    print(f"target: < {TARGET_S:.0f} s server-side: all plots built, worst {worst:.2f} s -> "
          f"{'met' if worst < TARGET_S else 'NOT met'}; one rendered request, worst {worst_request:.2f} s -> "
          f"{'met' if worst_request < TARGET_S else 'NOT met'}")


if __name__ == "__main__":
    main()
