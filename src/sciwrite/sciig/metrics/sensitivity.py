"""SciIG's part of the sensitivity analysis (`sciwrite.metrics.sensitivity`): the reference introduction scored as
the prediction, its perturbations (author-year citations moved, dropped or replaced), and the direction each
metric should move under each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.benchmark import SensitivityRun
from sciwrite.core.paper_row import typed_rows
from sciwrite.metrics.sensitivity import (
    drop_every_second_citation,
    drop_last_paragraph,
    duplicate_text,
    replace_citations,
    sensitivity_rows,
    shift_citations,
    shuffle_paragraphs,
    spec_expectations,
    split_batches,
)
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics.specs import METRICS
from sciwrite.sciig.metrics.suite import SUITE_METRICS, SciIGModels, load_sciig_models, score_sciig

#: Expected direction per metric and perturbation, and the reasons for the entries that are not obvious, keyed
#: (metric, perturbation) ("*": all): declared with each metric (`sciwrite.sciig.metrics.specs`).
EXPECTED, REASONS = spec_expectations(METRICS)


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
    return sensitivity_rows(EXPECTED, REASONS, split_batches(typed_rows(rows), batches, len(papers)), metrics,
                            n_resamples, seed)




def run_sensitivity(profile: str | None = None, metrics: Sequence[str] | None = None, limit: int | None = None,
                    seed: int = 0, n_resamples: int = 1000, show_progress: bool = True
                    ) -> SensitivityRun:
    """`sciig_sensitivity` on the offline sample's first `limit` test papers: (rows, papers, the suite's models)."""
    papers = [dict(p) for p in load_sciig("sample", split="test")][:limit]
    suite = load_sciig_models(profile, metrics=metrics)
    rows = sciig_sensitivity(papers, suite, seed=seed, n_resamples=n_resamples, show_progress=show_progress)
    return SensitivityRun(rows, len(papers), suite)


__all__ = ["EXPECTED", "REASONS", "perturb_sciig", "run_sensitivity", "sciig_sensitivity"]
