"""RWGBench's part of the sensitivity analysis (`sciwrite.metrics.sensitivity`): the reference related work scored
with its gold citation list as candidates (marker [i] is ``citations[i-1]``), its perturbations, and the direction
each metric should move under each."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.benchmark import SensitivityRun
from sciwrite.metrics.sensitivity import (
    drop_every_second_marker,
    drop_last_paragraph,
    duplicate_text,
    expected_directions,
    sensitivity_rows,
    shift_markers,
    shuffle_paragraphs,
    split_batches,
)
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.suite import SUITE_METRICS, RWGBenchModels, load_rwgbench_models, score_rwgbench

# Expected direction per metric, one column per perturbation in `PERTURBATIONS` order:
#   drop_half, random, shift, shuffle, drop_last, abstract, duplicate, empty
_DIRECTIONS: dict[str, tuple[str, ...]] = {
    "precision": ("any", "down", "any", "any", "any", "down", "any", "down"),
    "recall": ("down", "down", "any", "any", "down", "down", "any", "down"),
    "soft_citation_recall": ("down", "down", "any", "any", "down", "down", "any", "down"),
    "claim_support_consistency": ("any", "down", "down", "any", "any", "down", "any", "down"),
    "topical_relevance": ("any", "down", "any", "any", "any", "down", "any", "down"),
    "citation_density": ("any",) * 8,
    "citation_distribution_balance": ("any",) * 8,
    "positioning_structure_similarity": ("any", "any", "any", "down", "down", "down", "down", "down"),
    "citation_frame_alignment": ("any", "any", "down", "any", "any", "down", "any", "down"),
    "rougeL": ("any", "any", "any", "down", "down", "down", "down", "down"),
    "bertscore_f1": ("any", "any", "any", "down", "down", "down", "down", "down"),
    "llm_judge": ("any", "any", "any", "down", "down", "down", "down", "down"),
}
EXPECTED = expected_directions(_DIRECTIONS)
#: One-line reasons for the entries that are not obvious, keyed (metric, perturbation); "*" for all.
REASONS: dict[tuple[str, str], str] = {
    ("citation_density", "*"): "how many citations per sentence is good has no single direction",
    ("citation_distribution_balance", "*"): "how evenly citations spread has no single good direction",
    ("precision", "drop_half_citations"): "the kept markers still cite gold papers: precision must not drop",
    ("precision", "drop_last_paragraph"): "the kept markers still cite gold papers",
    ("claim_support_consistency", "drop_half_citations"): "the kept citations support their claims as before",
    ("topical_relevance", "drop_half_citations"): "the kept cited papers are as relevant as the dropped",
    ("citation_frame_alignment", "drop_half_citations"): "fewer contexts of the same kinds: the frame mix need not change",
    ("citation_frame_alignment", "random_citations"): "the text, so every citing context, is unchanged",
    ("citation_frame_alignment", "duplicate_text"): "every context twice: the frame mix is unchanged",
    ("positioning_structure_similarity", "drop_half_citations"): "markers are stripped before blocks are embedded",
    ("positioning_structure_similarity", "shift_markers"): "markers are stripped before blocks are embedded",
    ("soft_citation_recall", "shift_markers"): "the same gold papers are cited",
    ("topical_relevance", "shift_markers"): "the same papers are cited, only in other sentences",
    ("rougeL", "drop_half_citations"): "markers are stripped before ROUGE-L: the words compared are unchanged",
    ("rougeL", "shift_markers"): "markers are stripped before ROUGE-L: the words compared are unchanged",
    ("bertscore_f1", "drop_half_citations"): "markers are stripped before BERTScore: the words compared are unchanged",
    ("bertscore_f1", "shift_markers"): "markers are stripped before BERTScore: the words compared are unchanged",
    ("llm_judge", "drop_half_citations"): "the rubric (§4.4) leaves citation coverage out of the score",
    ("llm_judge", "shift_markers"): "the rubric (§4.4) leaves citation correctness out of the score",
    ("rougeL", "random_citations"): "the text is unchanged, only the candidate list",
    ("bertscore_f1", "random_citations"): "the text is unchanged, only the candidate list",
    ("llm_judge", "random_citations"): "the judge reads the text, which is unchanged",
    ("bertscore_f1", "duplicate_text"): "greedy matching finds every token twice; a good metric should still penalise repetition",
}


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
    return sensitivity_rows(EXPECTED, REASONS, split_batches(rows, batches, len(papers)), metrics, n_resamples, seed)




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
