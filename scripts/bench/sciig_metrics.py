"""Benchmark: the SciIG suite (`score_sciig`: each scorer called once on the whole batch) against a naive loop.

The naive loop calls `score_sciig` on one paper at a time, with the same loaded models but without the suite's
memos (`sciwrite.models.memo`: the raw encoders, so nothing one call embedded is remembered by the next), as
per-example evaluation code runs. Both must give the same per-paper scores (checked here).

Two conditions, on the SciIG sample's introductions (test split; ``--split all`` adds the holdout papers):

- ``self``: each paper's own introduction as the prediction (the suite then embeds each text once);
- ``perturbed``: a seeded perturbation of it (in each paragraph the sentences shuffled and about a third dropped,
  at least one kept, and every fifth word of each sentence dropped at a seed-dependent offset), so that no score
  is trivially 1 and no text equals a reference one.

Each (condition, path) runs in its own process, on freshly loaded models, so that its peak RSS is its own and no
path profits from another's remembered embeddings. The naive loop is slow: ``--naive-limit N`` runs it on the
first N papers only, and the suite is then timed on those N papers as well (in another process), so that the ratio
compares the same papers; the full run's time per paper gives the projected time of the whole sample. Wall and CPU
seconds are both printed (on a shared machine CPU seconds are the steadier figure). Model loading is timed apart
and counted in neither. The `lite` profile runs offline; its metrics without a model
(BLEURT, SummaC, QA, perplexity, the judge) are not computed.

    .venv/bin/python scripts/bench/sciig_metrics.py --limit 40 --naive-limit 10     # a few minutes on 2 cores
    .venv/bin/python scripts/bench/sciig_metrics.py                                  # all 215 test papers
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import resource
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from spawned import run_spawned  # noqa: E402

CONDITIONS = ("self", "perturbed")


def perturb(text: str, rng: random.Random, seed: int) -> str:
    """Sentences shuffled within each paragraph, about a third dropped (one kept), every fifth word dropped."""
    from sciwrite.metrics.text import paragraphs, split_sentences

    paras = []
    for para in paragraphs(text):
        sentences = split_sentences(para)
        rng.shuffle(sentences)
        kept = [s for s in sentences if rng.random() >= 1 / 3] or sentences[:1]
        paras.append(" ".join(" ".join(w for j, w in enumerate(s.split()) if (j + seed) % 5 != 4) or s
                              for s in kept))
    return "\n\n".join(p for p in paras if p.strip()) or text


def load_inputs(args: argparse.Namespace, condition: str, limit: int | None) -> tuple[list[dict], list[str]]:
    from sciwrite.sciig.data.loading import load_sciig

    if args.split == "all":
        splits = load_sciig("sample", source=args.source, split="all")
        papers = [*splits["test"].to_list(), *splits["holdout"].to_list()]
    else:
        papers = load_sciig("sample", source=args.source, split="test").to_list()
    papers = papers[:limit] if limit else papers
    if condition == "self":
        return papers, [p["introduction"] for p in papers]
    rng = random.Random(args.seed)
    return papers, [perturb(p["introduction"], rng, args.seed) for p in papers]


def _numeric(row: dict) -> dict[str, float]:
    from sciwrite.sciig.metrics.suite import SUITE_METRICS

    return {m: float(row[m]) for m in SUITE_METRICS if isinstance(row.get(m), (int, float))}


def run_suite(args: argparse.Namespace, condition: str, limit: int | None) -> dict:
    from sciwrite.sciig.metrics.suite import load_sciig_models, score_sciig

    papers, texts = load_inputs(args, condition, limit)
    start = time.perf_counter()
    suite = load_sciig_models(args.profile)
    loaded, cpu = time.perf_counter(), time.process_time()
    rows, timings = score_sciig(texts, papers, suite, show_progress=False, batch_size=args.batch_size)
    done = time.perf_counter()
    return {"load_s": loaded - start, "score_s": done - loaded, "cpu_s": time.process_time() - cpu,
            "papers": len(papers), "timings": timings,
            "rows": [_numeric(r) for r in rows], "errors": sum(bool(r["errors"]) for r in rows),
            "not_computed": sorted(suite.not_computed)}


def run_naive(args: argparse.Namespace, condition: str, limit: int | None) -> dict:
    """`score_sciig` one paper at a time on the raw models (the memos unwrapped: nothing is remembered)."""
    from sciwrite.sciig.metrics.suite import load_sciig_models, score_sciig

    papers, texts = load_inputs(args, condition, limit)
    n = len(papers)
    start = time.perf_counter()
    suite = load_sciig_models(args.profile)
    for role in ("token_encoder", "contextual_encoder", "keyphrase_encoder"):
        model = getattr(suite, role)
        if model is not None and hasattr(model, "inner"):
            setattr(suite, role, model.inner)
    loaded, cpu = time.perf_counter(), time.process_time()
    rows, timings = [], {}
    for paper, text in zip(papers, texts):
        [row], times = score_sciig([text], [paper], suite, show_progress=False, batch_size=args.batch_size)
        rows.append(_numeric(row))
        for stage, seconds in times.items():
            timings[stage] = timings.get(stage, 0.0) + seconds
    done = time.perf_counter()
    return {"load_s": loaded - start, "score_s": done - loaded, "cpu_s": time.process_time() - cpu, "papers": n,
            "timings": timings, "rows": rows}


def run_systems(args: argparse.Namespace, condition: str, limit: int | None) -> dict:
    """Several systems on ONE loaded suite, as `sciwrite evaluate` scores a grid of runs: the perturbed copy with
    seeds seed, seed+1, ... (each system's texts differ); the memos keep the references' and sources' side."""
    from sciwrite.sciig.metrics.suite import load_sciig_models, score_sciig

    suite = load_sciig_models(args.profile)
    seconds = []
    for offset in range(args.systems):
        papers, _ = load_inputs(args, "self", limit)
        rng = random.Random(args.seed + offset)
        texts = [perturb(p["introduction"], rng, args.seed + offset) for p in papers]
        start = time.perf_counter()
        score_sciig(texts, papers, suite, show_progress=False, batch_size=args.batch_size)
        seconds.append(time.perf_counter() - start)
    return {"papers": len(papers), "system_s": seconds}


def _child(part: str, condition: str, args: argparse.Namespace, limit: int | None, queue: mp.Queue) -> None:
    result = {"suite": run_suite, "naive": run_naive, "systems": run_systems}[part](args, condition, limit)
    result["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    queue.put(result)


def in_process(part: str, condition: str, args: argparse.Namespace, limit: int | None) -> dict:
    began = time.perf_counter()
    result = run_spawned(_child, (part, condition, args, limit), f"the {part} part ({condition})")
    result["process_wall_s"] = time.perf_counter() - began
    return result


def compare(suite: dict, naive: dict) -> dict:
    """Per-stage and total seconds of both paths on the same papers, their ratio, the largest per-paper difference."""
    stages = {}
    for stage, seconds in suite["timings"].items():
        naive_s = naive["timings"].get(stage, 0.0)
        stages[stage] = {"suite_s": round(seconds, 2), "naive_s": round(naive_s, 2),
                         "ratio": round(naive_s / seconds, 2) if seconds else None}
    worst: dict[str, float] = {}
    for s_row, n_row in zip(suite["rows"], naive["rows"]):
        for metric in set(s_row) | set(n_row):
            if metric not in s_row or metric not in n_row:
                worst[metric] = float("inf")  # scored by one path only
            else:
                worst[metric] = max(worst.get(metric, 0.0), abs(s_row[metric] - n_row[metric]))
    return {"papers": naive["papers"], "suite_score_s": round(suite["score_s"], 2),
            "naive_score_s": round(naive["score_s"], 2), "suite_cpu_s": round(suite["cpu_s"], 1),
            "naive_cpu_s": round(naive["cpu_s"], 1), "speedup": round(naive["score_s"] / suite["score_s"], 2),
            "speedup_cpu": round(naive["cpu_s"] / suite["cpu_s"], 2), "naive_peak_rss_gib": round(naive["peak_rss_gib"], 2),
            "stages": stages, "max_abs_difference": {k: float(f"{v:.2e}") for k, v in sorted(worst.items())}}


def compare_naive_only(naive: dict) -> dict:
    return {"naive_score_s": round(naive["score_s"], 2), "papers": naive["papers"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, help="score only the first N papers (default: all)")
    parser.add_argument("--naive-limit", type=int,
                        help="compare with the naive loop on the first N of them (default: all of them)")
    parser.add_argument("--split", default="test", choices=["test", "all"],
                        help="test (215 papers) or all (test + the 24 holdout papers: 239)")
    parser.add_argument("--conditions", nargs="+", default=list(CONDITIONS), choices=CONDITIONS)
    parser.add_argument("--profile", default="lite", choices=["lite", "paper"])
    parser.add_argument("--source", help="SciIG folder (default: the sample folder, built from aclsum if missing)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0, help="seed of the perturbation")
    parser.add_argument("--systems", type=int, default=0,
                        help="also score this many perturbed systems (seeds seed, seed+1, ...) one after another on "
                             "one loaded suite, on the naive loop's papers, and compare each with the naive loop")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()

    import torch

    device = "cuda" if torch.cuda.is_available() else f"cpu ({torch.get_num_threads()} threads)"
    figures: dict = {"profile": args.profile, "device": device, "split": args.split, "limit": args.limit,
                     "naive_limit": args.naive_limit}
    sample_size = {"test": 215, "all": 239}[args.split]
    for condition in args.conditions:
        full = in_process("suite", condition, args, args.limit)
        n_naive = min(args.naive_limit or full["papers"], full["papers"])
        same = full if n_naive == full["papers"] else in_process("suite", condition, args, n_naive)
        naive = in_process("naive", condition, args, n_naive)
        result = {"papers": full["papers"], "suite_score_s": round(full["score_s"], 2),
                  "suite_cpu_s": round(full["cpu_s"], 1), "suite_s_per_paper": round(full["score_s"] / full["papers"], 3),
                  "projected_full_sample_s": round(full["score_s"] / full["papers"] * sample_size, 1),
                  "suite_peak_rss_gib": round(full["peak_rss_gib"], 2), "model_load_s": round(full["load_s"], 2),
                  "stages_s": {k: round(v, 2) for k, v in full["timings"].items()},
                  "papers_with_errors": full["errors"], "against_naive": compare(same, naive)}
        figures[condition] = result
        figures["not_computed"] = full["not_computed"]
        versus = result["against_naive"]
        print(f"\nSciIG metrics, {condition} predictions, {args.profile} profile, {device}")
        print(f"  suite on {result['papers']} papers: {result['suite_score_s']:.1f} s ({result['suite_s_per_paper']:.2f} "
              f"s/paper, CPU {result['suite_cpu_s']:.0f} s), peak RSS {result['suite_peak_rss_gib']:.2f} GiB; projected "
              f"for all {sample_size} papers: {result['projected_full_sample_s'] / 60:.1f} min; model loading "
              f"{result['model_load_s']:.1f} s, not included; papers with a scoring error: {result['papers_with_errors']}")
        print(f"  against the naive loop on the first {versus['papers']} papers (each path in its own process):")
        print(f"  {'scorer':22s} {'suite s (N)':>12s} {'suite s':>9s} {'naive s':>9s} {'ratio':>7s}")
        for stage, seconds in result["stages_s"].items():
            row = versus["stages"].get(stage, {})
            ratio = f"{row['ratio']:.1f}x" if row.get("ratio") else "-"
            print(f"  {stage:22s} {seconds:12.2f} {row.get('suite_s', 0):9.2f} {row.get('naive_s', 0):9.2f} {ratio:>7s}")
        print(f"  {'total':22s} {result['suite_score_s']:12.2f} {versus['suite_score_s']:9.2f} "
              f"{versus['naive_score_s']:9.2f} {versus['speedup']:6.1f}x   (CPU seconds: {versus['suite_cpu_s']:.0f} vs "
              f"{versus['naive_cpu_s']:.0f}, {versus['speedup_cpu']:.1f}x); naive peak RSS "
              f"{versus['naive_peak_rss_gib']:.2f} GiB")
        differences = versus["max_abs_difference"]
        print(f"  largest per-paper difference: {max(differences.values()) if differences else 0:.1e} {differences}")
    if args.systems:
        n = min(args.naive_limit or args.limit or sample_size, args.limit or sample_size)
        grid = in_process("systems", "perturbed", args, n)
        naive = figures.get("perturbed", {}).get("against_naive") or compare_naive_only(in_process("naive", "perturbed", args, n))
        per_system = [round(x, 2) for x in grid["system_s"]]
        figures["systems_on_one_suite"] = {"papers": grid["papers"], "system_s": per_system,
                                           "naive_s": naive["naive_score_s"],
                                           "ratios": [round(naive["naive_score_s"] / x, 2) for x in grid["system_s"]]}
        print(f"\n{args.systems} perturbed systems scored one after another on one loaded suite ({grid['papers']} "
              f"papers each): {per_system} s; the naive loop on the same papers: {naive['naive_score_s']:.1f} s; "
              f"ratios {figures['systems_on_one_suite']['ratios']}")
    print(f"\nnot computed in this profile: {figures.get('not_computed')}")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
