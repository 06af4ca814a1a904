"""SciIG's part of the sensitivity analysis (`sciwrite.metrics.sensitivity`): the reference introduction scored as
the prediction, its perturbations (author-year citations moved, dropped or replaced), and the direction each
metric should move under each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.benchmark import SensitivityRun
from sciwrite.metrics.sensitivity import (
    drop_every_second_citation,
    drop_last_paragraph,
    duplicate_text,
    expected_directions,
    replace_citations,
    sensitivity_rows,
    shift_citations,
    shuffle_paragraphs,
    split_batches,
)
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics.suite import SUITE_METRICS, SciIGModels, load_sciig_models, score_sciig

# Expected direction per metric, one column per perturbation in `PERTURBATIONS` order:
#   drop_half, random, shift, shuffle, drop_last, abstract, duplicate, empty
_DIRECTIONS: dict[str, tuple[str, ...]] = {
    "rouge1": ("down", "down", "any", "any", "down", "down", "down", "down"),
    "rouge2": ("down", "down", "down", "down", "down", "down", "down", "down"),
    "rougeL": ("down", "down", "down", "down", "down", "down", "down", "down"),
    "bleu": ("down", "down", "down", "down", "down", "down", "down", "down"),
    "meteor": ("down", "down", "down", "down", "down", "down", "down", "down"),
    "bertscore_f1": ("down", "down", "down", "down", "down", "down", "down", "down"),
    "bleurt": ("down", "down", "down", "down", "down", "down", "down", "down"),
    "contextual_relevance": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "keyphrase_coverage_ref": ("any", "any", "any", "any", "down", "down", "any", "down"),
    "keyphrase_coverage_free": ("any", "any", "any", "any", "down", "any", "any", "down"),
    "keyphrase_faithfulness": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "keyphrase_consistency": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "summac_faithfulness": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "summac_consistency": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "qa_faithfulness": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "qa_consistency": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "citation_precision": ("any", "down", "any", "any", "any", "any", "any", "any"),
    "citation_recall": ("down", "down", "any", "any", "down", "down", "any", "down"),
    "perplexity": ("any",) * 8,
    "judge_coverage": ("any", "any", "any", "any", "down", "any", "any", "down"),
    "judge_consistency": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "judge_faithfulness": ("any", "any", "any", "any", "any", "any", "any", "down"),
    "judge_citation_quality": ("down", "down", "down", "any", "any", "down", "any", "down"),
    "judge_narrative_quality": ("any", "any", "down", "down", "down", "any", "down", "down"),
}

EXPECTED = expected_directions(_DIRECTIONS)
#: One-line reasons for the entries that are not obvious, keyed (metric, perturbation); "*" for all.
REASONS: dict[tuple[str, str], str] = {
    ("perplexity", "*"): "fluency under a small LM: repetition and odd text can both lower or raise it",
    ("rouge1", "shift_markers"): "unigram overlap cannot see word order",
    ("rouge1", "shuffle_paragraphs"): "unigram overlap cannot see order",
    ("contextual_relevance", "abstract_as_text"): "the abstract is as relevant to the paper as its introduction",
    ("keyphrase_coverage_free", "abstract_as_text"): "the abstract covers the paper's keyphrases as well",
    ("citation_precision", "abstract_as_text"): "no citations: precision is 0 or undefined by convention",
    ("citation_precision", "empty_text"): "no citations: precision is 0 or undefined by convention",
    ("citation_precision", "drop_half_citations"): "the kept citations are still the paper's: precision must not drop",
    ("bleu", "duplicate_text"): "clipped n-gram counts halve BLEU's precision",
}


def perturb_sciig(papers: Sequence[Mapping[str, Any]], seed: int = 0) -> dict[str, list[str]]:
    """Texts of the reference introduction (key ``reference``) and of every perturbation, per paper."""
    texts = [p["introduction"] for p in papers]
    return {
        "reference": texts,
        "drop_half_citations": [drop_every_second_citation(t) for t in texts],
        "random_citations": [replace_citations(t) for t in texts],
        "shift_markers": [shift_citations(t, seed + i) for i, t in enumerate(texts)],
        "shuffle_paragraphs": [shuffle_paragraphs(t, seed + i) for i, t in enumerate(texts)],
        "drop_last_paragraph": [drop_last_paragraph(t) for t in texts],
        "abstract_as_text": [p["abstract"] for p in papers],
        "duplicate_text": [duplicate_text(t) for t in texts],
        "empty_text": ["" for _ in texts],
    }


def sciig_sensitivity(papers: Sequence[Mapping[str, Any]], models: SciIGModels, seed: int = 0,
                      n_resamples: int = 1000, show_progress: bool = False) -> list[dict[str, Any]]:
    """Score the reference introduction and its perturbations with one loaded suite; the report rows (BLEU is
    the per-paper sentence BLEU here: a paired comparison needs a value per paper)."""
    batches = perturb_sciig(papers, seed)
    texts = [t for ts in batches.values() for t in ts]
    rows, _ = score_sciig(texts, list(papers) * len(batches), models, show_progress=show_progress)
    metrics = [m for m in SUITE_METRICS if m not in models.not_computed]
    return sensitivity_rows(EXPECTED, REASONS, split_batches(rows, batches, len(papers)), metrics, n_resamples, seed)




def run_sensitivity(profile: str | None = None, metrics: Sequence[str] | None = None, limit: int | None = None,
                    seed: int = 0, n_resamples: int = 1000, show_progress: bool = True
                    ) -> SensitivityRun:
    """`sciig_sensitivity` on the offline sample's first `limit` test papers: (rows, papers, the suite's models)."""
    papers = [dict(p) for p in load_sciig("sample", split="test")][:limit]
    suite = load_sciig_models(profile, metrics=metrics)
    rows = sciig_sensitivity(papers, suite, seed=seed, n_resamples=n_resamples, show_progress=show_progress)
    return SensitivityRun(rows, len(papers), suite)


__all__ = ["EXPECTED", "REASONS", "perturb_sciig", "run_sensitivity", "sciig_sensitivity"]
