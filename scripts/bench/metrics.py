"""Benchmark: the RWGBench suite (batched, each model loaded once) against a naive per-example loop.

The naive loop is how reference evaluation code usually runs: for each paper, each metric calls the same,
already loaded models one text (or one text pair) at a time, and ROUGE-L comes from `rouge_score`. Both
produce the same scores (checked here); the suite batches every model call across the whole set, encodes
each distinct text once, and computes ROUGE-L's LCS bit-parallel.

Predictions are perturbed reference sections (sentences reversed within each paragraph, every third one
dropped, every fifth word of each sentence dropped, candidates = the gold citations shuffled with as many
distractors), so that no score is trivially 1, no sentence or block equals a reference one (the suite's
deduplication gains nothing from the perturbation) and no API is called. Each part runs in its own process, so that its peak RSS
is its own.

    .venv/bin/python scripts/bench/metrics.py                      # lite profile, 100 sample papers (CPU)
    .venv/bin/python scripts/bench/metrics.py --profile paper      # on a GPU machine, with the paper's models
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

NO_JUDGE = ("precision", "recall", "soft_citation_recall", "claim_support_consistency", "topical_relevance",
            "citation_density", "citation_distribution_balance", "positioning_structure_similarity",
            "citation_frame_alignment", "rougeL", "bertscore_f1")


def perturbed_predictions(papers: list[dict], corpus_ids: list[str], seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """A plausible system output per paper: reordered, shortened reference text over shuffled candidates."""
    from sciwrite.metrics.text import paragraphs, split_sentences
    from sciwrite.sources.markers import MARKER_GROUP, expand_group

    rng = random.Random(seed)
    texts, candidates = [], []
    for paper in papers:
        gold = list(paper["citations"])
        cands = gold + rng.sample(corpus_ids, k=min(len(corpus_ids), len(gold)))
        rng.shuffle(cands)
        position = {doc: i + 1 for i, doc in enumerate(cands)}

        def remap(match):  # reference marker [k] -> the same paper's position in the shuffled candidates
            numbers = [position[gold[n - 1]] for n in expand_group(match.group(1)) if 1 <= n <= len(gold)]
            return "[" + ", ".join(map(str, numbers)) + "]" if numbers else ""

        paras = []
        for para in paragraphs(paper["related_work"]):
            # which sentences and words are dropped depends on the seed, so systems differ in every text
            sentences = [" ".join(w for j, w in enumerate(s.split()) if (j + seed) % 5 != 4)
                         for i, s in enumerate(reversed(split_sentences(para))) if (i + seed) % 3 != 2]
            paras.append(MARKER_GROUP.sub(remap, " ".join(sentences)))
        texts.append("\n\n".join(paras))
        candidates.append(cands)
    return texts, candidates


def load_inputs(n_papers: int, data_dir: str | None, seed: int = 0):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    papers = load_rwgbench("sample", source=data_dir)
    papers = papers.select(range(min(n_papers, len(papers)))).to_list()
    corpus = load_rwgbench("sample_corpus", source=data_dir)
    texts, candidates = perturbed_predictions(papers, corpus["doc_id"], seed)
    return papers, corpus, texts, candidates


def run_suite(args: argparse.Namespace) -> dict:
    """The first system cold; then `--systems - 1` more systems (other perturbation seeds) on the same models."""
    from sciwrite.rwgbench.metrics.suite import load_rwgbench_models, score_rwgbench

    papers, corpus, texts, candidates = load_inputs(args.papers, args.data_dir)
    start = time.perf_counter()
    suite = load_rwgbench_models(args.profile, metrics=NO_JUDGE)
    loaded = time.perf_counter()
    rows, _ = score_rwgbench(texts, papers, suite, candidates=candidates, corpus=corpus, batch_size=args.batch_size,
                             show_progress=False)
    done = time.perf_counter()
    later = []
    for seed in range(1, args.systems):
        _, _, more_texts, more_candidates = load_inputs(args.papers, args.data_dir, seed)
        began = time.perf_counter()
        score_rwgbench(more_texts, papers, suite, candidates=more_candidates, corpus=corpus, batch_size=args.batch_size,
                       show_progress=False)
        later.append(time.perf_counter() - began)
    return {"load_s": loaded - start, "score_s": done - loaded, "later_systems_s": later, "rows": rows,
            "not_computed": suite.not_computed}


def run_naive(args: argparse.Namespace) -> dict:
    """Every model call takes one text (or one pair); the formulas are the library's pure functions."""
    import numpy as np
    from rouge_score import rouge_scorer

    from sciwrite.metrics.bertscore import greedy_match
    from sciwrite.metrics.text import content_blocks, strip_markers
    from sciwrite.rwgbench.metrics.formulas import (
        citation_frame_alignment,
        positioning_structure_similarity,
        resolve_citations,
    )
    from sciwrite.rwgbench.metrics.frames import citation_contexts, frame_counts
    from sciwrite.rwgbench.metrics.scorers import citing_sentences, corpus_texts
    from sciwrite.rwgbench.metrics.suite import load_rwgbench_models

    papers, corpus, texts, candidates = load_inputs(args.papers, args.data_dir)
    start = time.perf_counter()
    suite = load_rwgbench_models(args.profile, metrics=NO_JUDGE)
    loaded = time.perf_counter()
    # the raw models, without the suite's memos: the naive loop recomputes whatever it meets again
    encoder, frames, tokens = suite.encoder.inner, suite.frame_classifier.inner, suite.token_encoder.inner
    nli = suite.nli.inner if suite.nli is not None else None
    encode = lambda text: encoder.encode([text], batch_size=1, normalize_embeddings=True)[0]  # noqa: E731
    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    rows = []
    for paper, text, cands in zip(papers, texts, candidates):
        resolved = resolve_citations(text, cands)
        cited = corpus_texts(corpus, resolved.unique_ids)  # one corpus lookup per paper
        target = encode(paper["abstract"])
        sims = [float(encode(cited[d]) @ target) for d in resolved.unique_ids]
        gen_blocks, ref_blocks = content_blocks(text), content_blocks(paper["related_work"])
        gen_vecs, ref_vecs = [encode(b) for b in gen_blocks], [encode(b) for b in ref_blocks]
        sim = np.array([[float(g @ r) for r in ref_vecs] for g in gen_vecs]).reshape(len(gen_vecs), len(ref_vecs))
        gen_ctx, ref_ctx = citation_contexts(text, cands), citation_contexts(paper["related_work"], paper["citations"])
        gen_frames = frame_counts([frames.predict([c], batch_size=1)[0] for c in gen_ctx])
        ref_frames = frame_counts([frames.predict([c], batch_size=1)[0] for c in ref_ctx])
        generated, published = strip_markers(text), strip_markers(paper["related_work"])
        bert = greedy_match(tokens.token_embeddings(generated, batch_size=1),
                            tokens.token_embeddings(published, batch_size=1))
        row = {"topical_relevance": sum(sims) / len(sims) if sims else 0.0,
               "positioning_structure_similarity": positioning_structure_similarity(sim),
               "citation_frame_alignment": 0.0 if resolved.is_empty_citation_output
               else citation_frame_alignment(gen_frames, ref_frames),
               "rougeL": rouge.score(published, generated)["rougeL"].fmeasure, "bertscore_f1": bert[2]}
        if nli is not None:
            gold = list(dict.fromkeys(paper["citations"]))
            texts_of = corpus_texts(corpus, [*resolved.unique_ids, *gold])
            matrix = [[float(nli.soft_scores([texts_of[g]], [texts_of[r]], 1)[0]) for r in gold]
                      for g in resolved.unique_ids]
            row["soft_citation_recall"] = float(np.max(matrix, axis=0).mean()) if matrix else 0.0
            support = [float(nli.soft_scores([texts_of[d]], [s], 1)[0])
                       for s, d in citing_sentences(text, cands)]
            row["claim_support_consistency"] = sum(support) / len(support) if support else 0.0
        rows.append(row)
    done = time.perf_counter()
    return {"load_s": loaded - start, "score_s": done - loaded, "rows": rows}


def _child(part: str, args: argparse.Namespace, queue: mp.Queue) -> None:
    result = (run_suite if part == "suite" else run_naive)(args)
    result["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    queue.put(result)


def in_process(part: str, args: argparse.Namespace) -> dict:
    return run_spawned(_child, (part, args), f"the {part} part")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100, help="sample papers to score")
    parser.add_argument("--profile", default="lite", choices=["lite", "paper"])
    parser.add_argument("--data-dir", help="RWGBench sample folder (default: $SCIWRITE_DATA_DIR, built if missing)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--systems", type=int, default=3,
                        help="systems scored in one process (the first cold, the others reusing the reference side)")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()

    import torch

    device = "cuda" if torch.cuda.is_available() else f"cpu ({torch.get_num_threads()} threads)"
    suite, naive = in_process("suite", args), in_process("naive", args)
    # Same numbers from both paths: the speed is not bought with different scores.
    worst = {}
    for metric in naive["rows"][0]:
        diffs = [abs(s[metric] - n[metric]) for s, n in zip(suite["rows"], naive["rows"])]
        worst[metric] = max(diffs)
    ratio = naive["score_s"] / suite["score_s"]
    figures = {
        "profile": args.profile, "device": device, "papers": len(suite["rows"]),
        "suite_score_s": round(suite["score_s"], 2), "naive_score_s": round(naive["score_s"], 2),
        "speedup": round(ratio, 2), "target_speedup": 5.0,
        "later_systems_score_s": [round(t, 2) for t in suite["later_systems_s"]],
        "speedup_later_systems": round(naive["score_s"] / (sum(suite["later_systems_s"]) / len(suite["later_systems_s"])), 2)
        if suite["later_systems_s"] else None,
        "speedup_over_all_systems": round(args.systems * naive["score_s"] / (suite["score_s"] + sum(suite["later_systems_s"])), 2),
        "model_load_s": round(suite["load_s"], 2),
        "suite_peak_rss_gib": round(suite["peak_rss_gib"], 2), "naive_peak_rss_gib": round(naive["peak_rss_gib"], 2),
        "max_abs_difference": {k: float(f"{v:.2e}") for k, v in worst.items()},
        "not_computed": sorted(suite["not_computed"]),
    }
    print(f"RWGBench metrics, {args.profile} profile, {figures['papers']} papers, {device}")
    print(f"  suite (batched):     {figures['suite_score_s']:8.1f} s   peak RSS {figures['suite_peak_rss_gib']:.2f} GiB")
    print(f"  naive (per example): {figures['naive_score_s']:8.1f} s   peak RSS {figures['naive_peak_rss_gib']:.2f} GiB")
    print(f"  speed-up: {ratio:.1f}x (target >= 5x: {'PASS' if ratio >= 5 else 'FAIL'}); model loading "
          f"{figures['model_load_s']:.1f} s, not included")
    if suite["later_systems_s"]:
        print(f"  further systems on the same models (reference side remembered): {figures['later_systems_score_s']} s "
              f"each, {figures['speedup_later_systems']}x the naive loop; all {args.systems} systems: "
              f"{figures['speedup_over_all_systems']}x")
    print(f"  largest per-paper difference between the two: {figures['max_abs_difference']}")
    print(f"  not computed in this profile: {figures['not_computed']}")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
