#!/usr/bin/env python
"""Issue 24's figures for the reference resolver: the title index over a synthetic corpus (build seconds, memory),
references resolved per second on one core and on every core, and the resolver's precision and recall on the
calibration set at the chosen threshold and at two others; issue 50's: references checked per second on one core
with the verdict taxonomy (`sciwrite.grounding.checker`) over the same corpus.

The synthetic corpus is the offline sample corpus's titles plus generated ones (5-14 words drawn from the sample's
title vocabulary, seeded) up to ``--n`` titles. The references are the calibration set's kinds (`sciwrite.grounding
.calibration`): real titles mistyped, and fabrications.

    python scripts/bench/grounding.py                    # 200,000 titles
    python scripts/bench/grounding.py --n 1090000 --out figures.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sciwrite.core.tables import format_table
from sciwrite.grounding import Reference, ReferenceResolver, TitleIndex
from sciwrite.grounding.calibration import calibration_set, choose_threshold, evaluate_thresholds
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.record_index import RecordIndex
from sciwrite.grounding.resolver import DEFAULT_THRESHOLD
from sciwrite.rwgbench.data.loading import load_rwgbench

_INDEX: TitleIndex | None = None  # the forked workers' copy


def synthetic_corpus(n: int, seed: int) -> list[dict]:
    """The sample corpus's records, then generated titles up to `n` records."""
    sample = load_rwgbench("sample_corpus").to_list()
    rng = random.Random(seed)
    vocabulary = sorted({w for r in sample for w in (r["title"] or "").split() if w.isalpha()})
    records = [{"doc_id": r["doc_id"], "title": r["title"], "authors": r["authors"], "year": r["year"]} for r in sample]
    while len(records) < n:
        words = rng.sample(vocabulary, rng.randint(5, 14))
        records.append({"doc_id": f"syn-{len(records)}", "title": " ".join(words).capitalize(), "authors": [],
                        "year": rng.randint(1990, 2025)})
    return records


def _resolve_chunk(titles: list[str]) -> int:
    assert _INDEX is not None
    return len(ReferenceResolver(_INDEX).resolve([Reference(t) for t in titles]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="titles in the synthetic corpus (default 200,000)")
    parser.add_argument("--references", type=int, default=20000, help="references resolved for the rate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="also write the figures as JSON")
    args = parser.parse_args()
    global _INDEX

    records = synthetic_corpus(args.n, args.seed)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    started = time.perf_counter()
    _INDEX = TitleIndex.from_corpus(records)
    build_s = time.perf_counter() - started
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"title index: {len(_INDEX):,} titles in {build_s:.1f} s; peak memory {rss_after:.0f} MiB "
          f"({rss_after - rss_before:+.0f} MiB while building)")

    items = calibration_set(_INDEX, n_papers=max(args.references // 16, 10), seed=args.seed)
    titles = [item.title for item in items][:args.references]
    started = time.perf_counter()
    ReferenceResolver(_INDEX).resolve([Reference(t) for t in titles])
    one_core = len(titles) / (time.perf_counter() - started)
    workers = os.cpu_count() or 1
    chunks = [titles[i::workers] for i in range(workers)]
    started = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:  # forked: each worker reads the parent's index
        done = sum(pool.map(_resolve_chunk, chunks))
    all_cores = done / (time.perf_counter() - started)
    print(f"resolved: {one_core:,.0f} references/s on one core, {all_cores:,.0f}/s on {workers} cores "
          f"({len(titles):,} references; goal 2,000/s)")

    # The checker's taxonomy (sciwrite.grounding.checker) over the same corpus: its own record index (built once
    # per run, as the benchmarks build it), each reference compared field by field with the work it names.
    started = time.perf_counter()
    records_index = RecordIndex.from_corpus(records, complete=True)
    checker_build_s = time.perf_counter() - started
    started = time.perf_counter()
    checks = ReferenceChecker(records_index).check([Reference(t) for t in titles])
    checked = len(titles) / (time.perf_counter() - started)
    verdicts = Counter(c.verdict for c in checks)
    print(f"checked with the taxonomy: {checked:,.0f} references/s on one core (record index built in "
          f"{checker_build_s:.1f} s; goal 2,000/s): " + ", ".join(f"{n:,} {v}" for v, n in verdicts.most_common()))

    sample_index = TitleIndex.from_corpus(load_rwgbench("sample_corpus"))
    calibration = calibration_set(sample_index, n_papers=300, seed=args.seed)
    points = evaluate_thresholds(sample_index, calibration)
    chosen = choose_threshold(points)
    shown = [p for p in points if p.threshold in (0.80, chosen.threshold, 0.90, 0.95)]
    rows = [{"threshold": p.threshold, "precision": p.precision, "recall": p.recall, "found": p.n_found,
             "wrong found": p.false_found, **{f"recall {k}": v for k, v in p.recall_by_kind.items()}} for p in shown]
    print(f"\ncalibration on the sample corpus ({len(calibration):,} references: "
          f"{sum(i.doc_id is not None for i in calibration):,} real, the rest fabricated); chosen threshold "
          f"{chosen.threshold} (the lowest with precision >= 0.99; the default is {DEFAULT_THRESHOLD}):")
    print(format_table([{k: v for k, v in r.items() if not k.startswith("recall ")} for r in rows]))
    print(format_table([{"threshold": r["threshold"], **{k[7:]: v for k, v in r.items() if k.startswith("recall ")}}
                        for r in rows]))
    if args.out:
        Path(args.out).write_text(json.dumps({
            "titles": len(_INDEX), "build_s": build_s, "peak_rss_mib": rss_after, "per_s_one_core": one_core,
            "per_s_all_cores": all_cores, "cores": workers, "checked_per_s_one_core": checked,
            "checker_build_s": checker_build_s, "chosen_threshold": chosen.threshold,
            "calibration": [p.as_dict() for p in points]}, indent=2), encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
