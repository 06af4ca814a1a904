"""Sensitivity analysis: does each metric move the right way when the reference section is damaged on purpose?

The reference section itself is scored as the prediction (RWGBench: the paper's related work with its gold
citation list as candidates, so marker [i] is ``citations[i-1]``; SciIG: the paper's introduction), then each
controlled perturbation of it (`PERTURBATIONS`) is scored by the same loaded suite. Per metric x perturbation the
report gives the change of the mean (perturbed - reference) over papers with its paired bootstrap interval and
permutation p-value (`sciwrite.stats.paired_comparison`, Holm across the metrics of one perturbation), and
``moved_as_expected``: True when the interval excludes 0 in the direction `EXPECTED` gives, False when it does
not, None where any direction is acceptable ("any") or nothing could be scored.

Perturbations are seeded, and text-only ones keep the paragraph structure (blank lines). A section written as
one paragraph is treated as the blocks of `SENTENCES_PER_BLOCK` sentences positioning-structure similarity
reads it as, so that shuffling or dropping "paragraphs" changes something.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sciwrite.metrics.text import SENTENCES_PER_BLOCK, paragraphs, split_sentences
from sciwrite.rwgbench.metrics.suite import SUITE_METRICS as RWGBENCH_METRICS
from sciwrite.rwgbench.metrics.suite import SuiteModels, score_rwgbench
from sciwrite.sciig.metrics.suite import SUITE_METRICS as SCIIG_METRICS
from sciwrite.sciig.metrics.suite import SciIGModels, score_sciig
from sciwrite.sources.apa import find_citations
from sciwrite.sources.markers import MARKER_GROUP, marker_numbers, renumber_markers
from sciwrite.stats import paired_comparison

#: The perturbations, in report order, each with what it does.
PERTURBATIONS: dict[str, str] = {
    "drop_half_citations": "remove every second cited work (all its markers / author-year citations)",
    "random_citations": "RWGBench: candidates replaced by random corpus documents; SciIG: keys -> (Nobody et al., 1900)",
    "shift_markers": "move each sentence's citations to the next sentence (the last sentence's: to a random one)",
    "shuffle_paragraphs": "shuffle the order of the paragraphs",
    "drop_last_paragraph": "delete the last paragraph",
    "abstract_as_text": "replace the text with the paper's abstract",
    "duplicate_text": "the text twice",
    "empty_text": "an empty text",
}
DIRECTIONS = ("down", "up", "any")
FAKE_CITATION = "Nobody et al., 1900"

# Expected direction per metric, one column per perturbation in `PERTURBATIONS` order:
#   drop_half, random, shift, shuffle, drop_last, abstract, duplicate, empty
_RWGBENCH: dict[str, tuple[str, ...]] = {
    "precision": ("any", "down", "any", "any", "any", "down", "any", "down"),
    "recall": ("down", "down", "any", "any", "down", "down", "any", "down"),
    "soft_citation_recall": ("down", "down", "any", "any", "down", "down", "any", "down"),
    "claim_support_consistency": ("any", "down", "down", "any", "any", "down", "any", "down"),
    "topical_relevance": ("any", "down", "any", "any", "any", "down", "any", "down"),
    "citation_density": ("any",) * 8,
    "citation_distribution_balance": ("any",) * 8,
    "positioning_structure_similarity": ("any", "any", "any", "down", "down", "down", "down", "down"),
    "citation_frame_alignment": ("any", "any", "down", "any", "any", "down", "any", "down"),
    "rougeL": ("down", "any", "down", "down", "down", "down", "down", "down"),
    "bertscore_f1": ("down", "any", "down", "down", "down", "down", "down", "down"),
    "llm_judge": ("down", "any", "down", "down", "down", "down", "down", "down"),
}
_SCIIG: dict[str, tuple[str, ...]] = {
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

#: One-line reasons for the entries that are not obvious, keyed (benchmark, metric, perturbation); "*" for all.
REASONS: dict[tuple[str, str, str], str] = {
    ("rwgbench", "citation_density", "*"): "how many citations per sentence is good has no single direction",
    ("rwgbench", "citation_distribution_balance", "*"): "how evenly citations spread has no single good direction",
    ("sciig", "perplexity", "*"): "fluency under a small LM: repetition and odd text can both lower or raise it",
    ("rwgbench", "precision", "drop_half_citations"): "the kept markers still cite gold papers: precision must not drop",
    ("rwgbench", "precision", "drop_last_paragraph"): "the kept markers still cite gold papers",
    ("rwgbench", "claim_support_consistency", "drop_half_citations"): "the kept citations support their claims as before",
    ("rwgbench", "topical_relevance", "drop_half_citations"): "the kept cited papers are as relevant as the dropped",
    ("rwgbench", "citation_frame_alignment", "drop_half_citations"): "fewer contexts of the same kinds: the frame mix need not change",
    ("rwgbench", "citation_frame_alignment", "random_citations"): "the text, so every citing context, is unchanged",
    ("rwgbench", "citation_frame_alignment", "duplicate_text"): "every context twice: the frame mix is unchanged",
    ("rwgbench", "positioning_structure_similarity", "drop_half_citations"): "markers are stripped before blocks are embedded",
    ("rwgbench", "positioning_structure_similarity", "shift_markers"): "markers are stripped before blocks are embedded",
    ("rwgbench", "soft_citation_recall", "shift_markers"): "the same gold papers are cited",
    ("rwgbench", "topical_relevance", "shift_markers"): "the same papers are cited, only in other sentences",
    ("rwgbench", "rougeL", "random_citations"): "the text is unchanged, only the candidate list",
    ("rwgbench", "bertscore_f1", "random_citations"): "the text is unchanged, only the candidate list",
    ("rwgbench", "llm_judge", "random_citations"): "the judge reads the text, which is unchanged",
    ("rwgbench", "bertscore_f1", "duplicate_text"): "greedy matching finds every token twice; a good metric should still penalise repetition",
    ("sciig", "rouge1", "shift_markers"): "unigram overlap cannot see word order",
    ("sciig", "rouge1", "shuffle_paragraphs"): "unigram overlap cannot see order",
    ("sciig", "contextual_relevance", "abstract_as_text"): "the abstract is as relevant to the paper as its introduction",
    ("sciig", "keyphrase_coverage_free", "abstract_as_text"): "the abstract covers the paper's keyphrases as well",
    ("sciig", "citation_precision", "abstract_as_text"): "no citations: precision is 0 or undefined by convention",
    ("sciig", "citation_precision", "empty_text"): "no citations: precision is 0 or undefined by convention",
    ("sciig", "citation_precision", "drop_half_citations"): "the kept citations are still the paper's: precision must not drop",
    ("sciig", "bleu", "duplicate_text"): "clipped n-gram counts halve BLEU's precision",
}

EXPECTED: dict[str, dict[str, dict[str, str]]] = {
    benchmark: {metric: dict(zip(PERTURBATIONS, row, strict=True)) for metric, row in table.items()}
    for benchmark, table in (("rwgbench", _RWGBENCH), ("sciig", _SCIIG))
}
BENCHMARK_METRICS: dict[str, tuple[str, ...]] = {"rwgbench": RWGBENCH_METRICS, "sciig": SCIIG_METRICS}


def expectation(benchmark: str, metric: str, perturbation: str) -> tuple[str, str]:
    """(expected direction, its reason or "") of `metric` under `perturbation`."""
    direction = EXPECTED[benchmark][metric][perturbation]
    reason = REASONS.get((benchmark, metric, perturbation)) or REASONS.get((benchmark, metric, "*"), "")
    return direction, reason


# --- text perturbations ---------------------------------------------------------------------------------------

def _tidy(text: str) -> str:
    """Spaces left by removed citations: '( ; A, 2020)' -> '(A, 2020)', '()' gone, no space before punctuation."""
    text = re.sub(r"\(\s*[;,]\s*", "(", text)
    text = re.sub(r"\s*[;,]\s*\)", ")", text)
    text = re.sub(r"\s*\(\s*\)", "", text)
    text = re.sub(r"[ \t]+([.,;:!?)])", r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text)


def drop_every_second_marker(text: str) -> str:
    """Remove every second cited number (in order of first appearance), all its markers: [1][2][3][4] -> [1][3]."""
    kept = list(dict.fromkeys(marker_numbers(text)))[::2]
    return _tidy(renumber_markers(text, {n: n for n in kept}))


def drop_every_second_citation(text: str) -> str:
    """Remove every second author-year cited work (in order of first appearance), all its citations."""
    cites = find_citations(text)
    keys = list(dict.fromkeys(c.key for c in cites))
    dropped = set(keys[1::2])
    for c in sorted((c for c in cites if c.key in dropped), key=lambda c: c.start, reverse=True):
        text = text[:c.start] + text[c.end:]
    return _tidy(text)


def replace_citations(text: str, fake: str = FAKE_CITATION) -> str:
    """Every author-year citation replaced by a work the paper does not cite: 'Li et al. (2020)' ->
    'Nobody et al. (1900)', '(Li, 2020; Wu, 2021)' -> '(Nobody et al., 1900; Nobody et al., 1900)'."""
    authors, year = fake.rsplit(", ", 1)
    for c in sorted(find_citations(text), key=lambda c: c.start, reverse=True):
        replacement = f"{authors} ({year})" if c.text.rstrip().endswith(")") else fake
        text = text[:c.start] + replacement + text[c.end:]
    return text


def _marker_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in MARKER_GROUP.finditer(text)]


def _citation_spans(text: str) -> list[tuple[int, int]]:
    """Parenthesised author-year citation groups: '(Li, 2020; Wu, 2021)'. Narrative ones ('Li (2020) shows')
    stay, since moving them would take the sentence's subject away."""
    starts = [c.start for c in find_citations(text)]
    return [m.span() for m in re.finditer(r"\([^()]*\)", text) if any(m.start() < s < m.end() for s in starts)]


def _units(text: str) -> list[str]:
    """Paragraphs, or for a one-paragraph text its blocks of `SENTENCES_PER_BLOCK` sentences."""
    paras = paragraphs(text)
    if len(paras) != 1:
        return paras
    sentences = split_sentences(paras[0])
    return [" ".join(sentences[i:i + SENTENCES_PER_BLOCK]) for i in range(0, len(sentences), SENTENCES_PER_BLOCK)]


def _append_before_end(sentence: str, moved: Sequence[str]) -> str:
    if not moved:
        return sentence
    body, end = re.match(r"(.*?)([.!?:;\"')\]]*)$", sentence, re.S).groups()  # type: ignore[union-attr]
    return f"{body.rstrip()} {' '.join(moved)}{end}"


def _shift(text: str, spans_of: Callable[[str], list[tuple[int, int]]], seed: int) -> str:
    """Each sentence's citation spans moved to the end of the next sentence; the last sentence's to a seeded
    random other sentence. Paragraph breaks are kept."""
    sentences = [(p, s) for p, para in enumerate(paragraphs(text)) for s in split_sentences(para)]
    if len(sentences) < 2:
        return text
    stripped, moved = [], []
    for _, sentence in sentences:
        spans = spans_of(sentence)
        moved.append([sentence[a:b] for a, b in spans])
        for a, b in reversed(spans):
            sentence = sentence[:a] + sentence[b:]
        stripped.append(_tidy(sentence).strip())
    n = len(sentences)
    target = [i + 1 for i in range(n - 1)] + [random.Random(seed).randrange(n - 1)]
    incoming: list[list[str]] = [[] for _ in range(n)]
    for i, units in enumerate(moved):
        incoming[target[i]].extend(units)
    out: dict[int, list[str]] = {}
    for (p, _), sentence, units in zip(sentences, stripped, incoming):
        out.setdefault(p, []).append(_append_before_end(sentence, units))
    return "\n\n".join(" ".join(s for s in parts if s) for parts in out.values())


def shift_markers(text: str, seed: int = 0) -> str:
    """Numeric markers moved to the wrong sentences (see `_shift`)."""
    return _shift(text, _marker_spans, seed)


def shift_citations(text: str, seed: int = 0) -> str:
    """Parenthesised author-year citations moved to the wrong sentences (see `_shift`)."""
    return _shift(text, _citation_spans, seed)


def shuffle_paragraphs(text: str, seed: int = 0) -> str:
    """Paragraphs (or a one-paragraph text's sentence blocks) in a seeded random order other than the original."""
    units = _units(text)
    if len(units) < 2:
        return text
    order = list(range(len(units)))
    random.Random(seed).shuffle(order)
    if order == sorted(order):
        order = order[1:] + order[:1]
    return "\n\n".join(units[i] for i in order)


def drop_last_paragraph(text: str) -> str:
    """The text without its last paragraph (or a one-paragraph text without its last sentence block)."""
    return "\n\n".join(_units(text)[:-1])


def duplicate_text(text: str) -> str:
    return f"{text}\n\n{text}" if text else text


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


# --- scoring and the report -----------------------------------------------------------------------------------

def sensitivity_rows(benchmark: str, per_paper: Mapping[str, Sequence[Mapping[str, Any]]], metrics: Sequence[str],
                     n_resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """One row per metric x perturbation from the per-paper rows of ``reference`` and each perturbation."""
    reference = {str(i): row for i, row in enumerate(per_paper["reference"])}
    rows: list[dict[str, Any]] = []
    for name in PERTURBATIONS:
        perturbed = {str(i): row for i, row in enumerate(per_paper[name])}
        compared = paired_comparison(reference, perturbed, metrics, n_resamples=n_resamples, seed=seed)
        for metric in metrics:
            c = compared[metric]
            direction, reason = expectation(benchmark, metric, name)
            rows.append({"metric": metric, "perturbation": name, "expected": direction,
                         "n_papers": c["n_papers"], "reference": c["mean_a"], "perturbed": c["mean_b"],
                         "difference": c["difference"], "ci_low": c["ci_low"], "ci_high": c["ci_high"],
                         "p_value": c["p_value"], "p_holm": c["p_holm"],
                         "moved_as_expected": moved_as_expected(direction, c["ci_low"], c["ci_high"]),
                         "reason": reason})
    return rows


def moved_as_expected(direction: str, low: float | None, high: float | None) -> bool | None:
    """True when the interval [low, high] excludes 0 on the `direction` side; None for "any" or no interval."""
    if direction == "any" or low is None or high is None:
        return None
    return high < 0 if direction == "down" else low > 0


def failures(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows whose metric did not move as expected (an interval that does not exclude 0 that way)."""
    return [r for r in rows if r["moved_as_expected"] is False]


def not_scored(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows with an expected direction but no interval (fewer than 2 papers scored both ways)."""
    return [r for r in rows if r["expected"] != "any" and r["ci_low"] is None]


def rwgbench_sensitivity(papers: Sequence[Mapping[str, Any]], corpus: Any, suite: SuiteModels, seed: int = 0,
                         n_resamples: int = 1000, show_progress: bool = False) -> list[dict[str, Any]]:
    """Score the reference related work and its perturbations with one loaded `suite`; the report rows."""
    corpus_ids = list(corpus.keys()) if isinstance(corpus, Mapping) else list(corpus["doc_id"])
    batches = perturb_rwgbench(papers, corpus_ids, seed)
    texts = [t for ts, _ in batches.values() for t in ts]
    candidates = [c for _, cs in batches.values() for c in cs]
    rows = score_rwgbench(texts, candidates, list(papers) * len(batches), corpus, suite, show_progress=show_progress)
    metrics = [m for m in RWGBENCH_METRICS if m not in suite.not_computed]
    return sensitivity_rows("rwgbench", _split(rows, batches, len(papers)), metrics, n_resamples, seed)


def sciig_sensitivity(papers: Sequence[Mapping[str, Any]], models: SciIGModels, seed: int = 0,
                      n_resamples: int = 1000, show_progress: bool = False) -> list[dict[str, Any]]:
    """Score the reference introduction and its perturbations with one loaded suite; the report rows (BLEU is
    the per-paper sentence BLEU here: a paired comparison needs a value per paper)."""
    batches = perturb_sciig(papers, seed)
    texts = [t for ts in batches.values() for t in ts]
    rows, _ = score_sciig(texts, list(papers) * len(batches), models, show_progress=show_progress)
    metrics = [m for m in SCIIG_METRICS if m not in models.not_computed]
    return sensitivity_rows("sciig", _split(rows, batches, len(papers)), metrics, n_resamples, seed)


def _split(rows: Sequence[dict[str, Any]], batches: Mapping[str, Any], n: int) -> dict[str, list[dict[str, Any]]]:
    return {name: list(rows[k * n:(k + 1) * n]) for k, name in enumerate(batches)}


__all__ = ["BENCHMARK_METRICS", "DIRECTIONS", "EXPECTED", "FAKE_CITATION", "PERTURBATIONS", "REASONS",
           "drop_every_second_citation", "drop_every_second_marker", "drop_last_paragraph", "duplicate_text",
           "expectation", "failures", "moved_as_expected", "not_scored", "perturb_rwgbench", "perturb_sciig",
           "random_candidates", "replace_citations", "rwgbench_sensitivity", "sciig_sensitivity",
           "sensitivity_rows", "shift_citations", "shift_markers", "shuffle_paragraphs"]
