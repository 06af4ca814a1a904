"""RWGBench's part of the sensitivity analysis (`sciwrite.metrics.sensitivity`): the reference related work scored
with its gold citation list as candidates (marker [i] is ``citations[i-1]``), its perturbations, and the direction
each metric should move under each."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.benchmark import SensitivityRun
from sciwrite.core.paper_row import typed_rows
from sciwrite.metrics.sensitivity import (
    drop_every_second_marker,
    drop_last_paragraph,
    duplicate_text,
    sensitivity_rows,
    shift_markers,
    shuffle_paragraphs,
    spec_expectations,
    split_batches,
)
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.specs import METRICS
from sciwrite.rwgbench.metrics.suite import SUITE_METRICS, RWGBenchModels, load_rwgbench_models, score_rwgbench

#: Expected direction per metric and perturbation, and the reasons for the entries that are not obvious, keyed
#: (metric, perturbation) ("*": all): declared with each metric (`sciwrite.rwgbench.metrics.specs`).
EXPECTED, REASONS = spec_expectations(METRICS)


def random_candidates(gold: Sequence[str], pool: Sequence[str], rng: random.Random) -> list[str]:
    """As many random documents of `pool` as `gold` has, none of them gold (markers keep their numbers)."""
    others = [d for d in pool if d not in set(gold)]
    return rng.sample(others, min(len(gold), len(others)))


def perturb_rwgbench(papers: Sequence[Mapping[str, Any]], corpus_ids: Sequence[str],
                     seed: int = 0) -> dict[str, tuple[list[str], list[list[str]]]]:
    """(texts, candidate lists) of the reference (key ``reference``) and of every perturbation, per paper."""
    texts = [p["related_work"] for p in papers]
    gold = [list(p["citations"]) for p in papers]
    rng = random.Random(seed)
    return {
        "reference": (texts, gold),
        "drop_half_citations": ([drop_every_second_marker(t) for t in texts], gold),
        "random_citations": (texts, [random_candidates(g, corpus_ids, rng) for g in gold]),
        "shift_markers": ([shift_markers(t, seed + i) for i, t in enumerate(texts)], gold),
        "shuffle_paragraphs": ([shuffle_paragraphs(t, seed + i) for i, t in enumerate(texts)], gold),
        "drop_last_paragraph": ([drop_last_paragraph(t) for t in texts], gold),
        "abstract_as_text": ([p["abstract"] for p in papers], gold),
        "duplicate_text": ([duplicate_text(t) for t in texts], gold),
        "empty_text": (["" for _ in texts], gold),
    }


def rwgbench_sensitivity(papers: Sequence[Mapping[str, Any]], corpus: Any, suite: RWGBenchModels, seed: int = 0,
                         n_resamples: int = 1000, show_progress: bool = False) -> list[dict[str, Any]]:
    """Score the reference related work and its perturbations with one loaded `suite`; the report rows."""
    corpus_ids = list(corpus.keys()) if isinstance(corpus, Mapping) else list(corpus["doc_id"])
    batches = perturb_rwgbench(papers, corpus_ids, seed)
    texts = [t for ts, _ in batches.values() for t in ts]
    candidates = [c for _, cs in batches.values() for c in cs]
    rows, _ = score_rwgbench(texts, list(papers) * len(batches), suite, candidates=candidates, corpus=corpus,
                             show_progress=show_progress)
    metrics = [m for m in SUITE_METRICS if m not in suite.not_computed]
    return sensitivity_rows(EXPECTED, REASONS, split_batches(typed_rows(rows), batches, len(papers)), metrics,
                            n_resamples, seed)




def run_sensitivity(profile: str | None = None, metrics: Sequence[str] | None = None, limit: int | None = None,
                    seed: int = 0, n_resamples: int = 1000, show_progress: bool = True
                    ) -> SensitivityRun:
    """`rwgbench_sensitivity` on the offline sample's first `limit` papers: (rows, papers, the suite's models)."""
    papers = [dict(p) for p in load_rwgbench("sample")][:limit]
    suite = load_rwgbench_models(profile, metrics=metrics)
    rows = rwgbench_sensitivity(papers, load_rwgbench("sample_corpus"), suite, seed=seed, n_resamples=n_resamples,
                                show_progress=show_progress)
    return SensitivityRun(rows, len(papers), suite)


__all__ = ["EXPECTED", "REASONS", "perturb_rwgbench", "random_candidates", "run_sensitivity", "rwgbench_sensitivity"]
