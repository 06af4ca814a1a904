"""Benchmark: bootstrap intervals at leaderboard size through `sciwrite.stats.bootstrap_intervals`.

11 metrics x 1,000 papers x 10 systems, 1,000 resamples each (the default of `sciwrite evaluate`), on synthetic
scores with some None values (papers a metric does not apply to). Prints the wall time; target < 5 s on 2 cores.

    .venv/bin/python scripts/bench/stats.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sciwrite.stats import bootstrap_intervals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--metrics", type=int, default=11)
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    systems = []
    for _ in range(args.systems):
        scores = rng.uniform(0, 1, (args.metrics, args.papers))
        systems.append({f"metric_{m}": [None if rng.random() < 0.02 else float(v) for v in scores[m]]
                        for m in range(args.metrics)})
    start = time.perf_counter()
    results = [bootstrap_intervals(per_paper, n_resamples=args.resamples) for per_paper in systems]
    elapsed = time.perf_counter() - start
    width = np.mean([high - low for r in results for low, high in r.values()])
    print(f"{args.metrics} metrics x {args.papers} papers x {args.systems} systems, {args.resamples} resamples: "
          f"{elapsed:.2f} s wall (target < 5 s); mean interval width {width:.4f}")


if __name__ == "__main__":
    main()
