#!/usr/bin/env python
"""Issue 26's figure for the memorisation signal: on the offline samples, the signal for the reference sections
scored as predictions (a model that recites what it read: it must be high) and for the extractive floor (sentences
copied from the inputs: it must be low), for RWGBench (Oracle candidates) and SciIG.

The signal is computed exactly as `sciwrite evaluate` computes it (each benchmark's `memorisation_texts`, then
`sciwrite.metrics.memorisation.memorisation`), without the rest of the suite.

    python scripts/bench/memorisation.py [--limit N] [--out figures.json]
"""

from __future__ import annotations

import argparse
import json
from statistics import mean, median

from tqdm.auto import tqdm

from sciwrite.core.predictions import JoinReport
from sciwrite.core.tables import format_table
from sciwrite.generation.corpus_lookup import CorpusLookup
from sciwrite.generation.extractive import ExtractiveRWGBench, ExtractiveSciIG
from sciwrite.metrics.memorisation import memorisation
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.generation.methods import prepare_records
from sciwrite.rwgbench.metrics import evaluation as rwgbench_steps
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics import evaluation as sciig_steps


def signal(file, split, memorisation_texts) -> list[dict]:
    return [memorisation(text, reference, inputs)
            for text, (reference, inputs) in zip(file.texts, memorisation_texts(file, split), strict=True)]


def rwgbench_signal(texts: list[str], papers: list[dict], split, candidates: list[list[str]]) -> list[dict]:
    file = rwgbench_steps.RWGBenchFile("bench", texts, papers, [], records=[], candidates=candidates,
                                       references=[None] * len(texts), join=JoinReport([], [], [], []),
                                       missing_as_empty=False)
    return signal(file, split, rwgbench_steps.memorisation_texts)


def sciig_signal(texts: list[str], papers: list[dict], split) -> list[dict]:
    file = sciig_steps.SciIGFile("bench", texts, papers, [], join=JoinReport([], [], [], []), extra=[], holdout=[])
    return signal(file, split, sciig_steps.memorisation_texts)


def row(benchmark: str, system: str, scores: list[dict]) -> dict:
    shares = [s["memorisation"] for s in scores if s["memorisation"] is not None]
    return {"benchmark": benchmark, "predictions": system, "papers": len(shares), "mean": round(mean(shares), 4),
            "median": round(median(shares), 4), "min": round(min(shares), 4), "max": round(max(shares), 4),
            "mean longest span (words)": round(mean(s["memorised_span_words"] for s in scores), 1)}


def rwgbench_rows(limit: int | None) -> list[dict]:
    papers = load_rwgbench("sample").to_list()[:limit]
    corpus = load_rwgbench("sample_corpus")
    split = rwgbench_steps.RWGBenchSplit.of("sample", papers, corpus, show_progress=False)
    records = prepare_records(papers, CorpusLookup(corpus), None, oracle=True)
    writer = ExtractiveRWGBench()
    floor = [writer.generate(r) for r in tqdm(records, desc="RWGBench extractive floor (oracle)")]
    gold = [p["citations"] for p in papers]
    return [row("RWGBench sample", "reference sections (Human GT)",
                rwgbench_signal([p["related_work"] for p in papers], papers, split, gold)),
            row("RWGBench sample", "extractive floor (Oracle)",
                rwgbench_signal([g.pred for g in floor], papers, split, [g.extra["candidates"] for g in floor]))]


def sciig_rows(limit: int | None) -> list[dict]:
    papers = load_sciig("sample", split="test").to_list()[:limit]
    split = sciig_steps.SciIGSplit.of("sample", papers)
    writer = ExtractiveSciIG()
    floor = [writer.generate(p).pred for p in tqdm(papers, desc="SciIG extractive floor")]
    return [row("SciIG sample", "reference introductions",
                sciig_signal([p["introduction"] for p in papers], papers, split)),
            row("SciIG sample", "extractive floor", sciig_signal(floor, papers, split))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, help="only the first N papers of each sample")
    parser.add_argument("--out", help="also write the rows as JSON")
    args = parser.parse_args()
    rows = rwgbench_rows(args.limit) + sciig_rows(args.limit)
    print("memorisation: share of the prediction's word 8-grams found in the reference but in none of the inputs")
    print(format_table(rows))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
