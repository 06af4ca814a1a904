#!/usr/bin/env python
"""Issue 49's figures for SurGE on the offline sample: seconds per survey of each stage (building the sample,
generating with the extractive floor, then each scorer) per profile, and the peak memory of the process.

Each profile runs in its own process (`spawned.run_spawned`), so its peak RSS is its own. The `lite` profile runs
offline; the `paper` profile needs models no package ships here (``cross-encoder/nli-deberta-v3-base``,
``BAAI/bge-large-en-v1.5``, ``gpt-4o``): with ``--paper-models DIR`` pointing at local copies it is timed too, else
the script prints what the profile needs and times nothing for it. Model loading is timed apart from scoring.

    .venv/bin/python scripts/bench/surge.py --limit 40
    .venv/bin/python scripts/bench/surge.py --limit 40 --method outline
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from spawned import run_spawned  # noqa: E402


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(profile: str, limit: int, method: str, work: str, queue: Any) -> None:
    """One profile's stage seconds, put on `queue` (run in a spawned child)."""
    from sciwrite.benchmarks import get_benchmark
    from sciwrite.core.predictions import SystemPredictions
    from sciwrite.generation.generate import build_request, generate
    from sciwrite.generation.writer import RunOptions
    from sciwrite.scoring.request import ScoringRequest
    from sciwrite.surge.data.sample_folder import write_sample_folder

    bench = get_benchmark("surge")
    folder = Path(work) / "sample"
    figures: dict[str, Any] = {"profile": profile}
    start = time.perf_counter()
    write_sample_folder(folder, show_progress=False)
    figures["build_sample_s"] = time.perf_counter() - start
    request = build_request(bench, model="extractive", out=Path(work) / "gen", limit=limit,
                            options={"split": "sample", "source": str(folder), "method": [method]})
    start = time.perf_counter()
    [job] = generate(bench, request, None, RunOptions(show_progress=False)).jobs
    assert job.report is not None
    figures["generate_s"] = time.perf_counter() - start
    scoring = ScoringRequest(split="sample", source=str(folder), profile=profile, bootstrap=0, show_progress=False)
    steps = bench.suite.steps
    start = time.perf_counter()
    split = steps.open_split(scoring)
    file = steps.read(SystemPredictions.from_file(job.report.out_path), split, scoring)
    figures["open_and_read_s"] = time.perf_counter() - start
    start = time.perf_counter()
    models = steps.load_models(profile=profile, metrics=bench.suite.metrics_without_judge(None))
    figures["load_models_s"] = time.perf_counter() - start
    figures["not_computed"] = sorted(models.not_computed)
    figures["models"] = dict(models.model_ids)
    start = time.perf_counter()
    scored = steps.score(file, split, models, scoring)
    figures["score_s"] = time.perf_counter() - start
    figures["surveys"] = len(file.texts)
    figures["stage_s_per_survey"] = {stage: seconds / len(file.texts) for stage, seconds in scored.seconds.items()}
    figures["grounding_s_per_survey"] = (figures["score_s"] - sum(scored.seconds.values())) / len(file.texts)
    figures["peak_rss_mb"] = _peak_mb()
    queue.put(figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=40, help="surveys generated and scored (default 40)")
    parser.add_argument("--method", default="rag", choices=("rag", "outline"), help="the extractive plan")
    parser.add_argument("--paper-models", help="folder with local copies of the paper profile's models")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()
    results = []
    profiles = ["lite", *(["paper"] if args.paper_models else [])]
    if not args.paper_models:
        print("paper profile: not timed here (needs cross-encoder/nli-deberta-v3-base, BAAI/bge-large-en-v1.5 and a "
              "gpt-4o endpoint; none is available offline)")
    for profile in profiles:
        with tempfile.TemporaryDirectory() as work:
            figures = run_spawned(measure, (profile, args.limit, args.method, work), f"profile {profile}")
        results.append(figures)
        print(f"\nprofile {profile}: {figures['surveys']} surveys ({args.method}, extractive floor), models "
              f"{figures['models']}; not computed: {', '.join(figures['not_computed']) or 'none'}")
        print(f"  build sample {figures['build_sample_s']:.2f} s; generate {figures['generate_s']:.2f} s "
              f"({figures['generate_s'] / figures['surveys']:.3f} s/survey); open + read "
              f"{figures['open_and_read_s']:.2f} s; load models {figures['load_models_s']:.2f} s")
        for stage, seconds in figures["stage_s_per_survey"].items():
            print(f"  {stage:<20} {seconds:.4f} s/survey")
        print(f"  {'grounding':<20} {figures['grounding_s_per_survey']:.4f} s/survey")
        print(f"  scoring {figures['score_s']:.2f} s in all ({figures['score_s'] / figures['surveys']:.3f} s/survey); "
              f"peak RSS {figures['peak_rss_mb']:.0f} MB")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
