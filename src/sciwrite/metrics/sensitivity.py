"""Sensitivity analysis, the part every benchmark shares: does each metric move the right way when the reference section is damaged on purpose?

The reference section itself is scored as the prediction (RWGBench: the paper's related work with its gold
citation list as candidates, so marker [i] is ``citations[i-1]``; SciIG: the paper's introduction), then each
controlled perturbation of it (`PERTURBATIONS`) is scored by the same loaded suite. Per metric x perturbation the
report gives the change of the mean (perturbed - reference) over papers with its paired bootstrap interval and
permutation p-value (`sciwrite.stats.paired_results`, Holm across the metrics of one perturbation), and
``moved_as_expected``: True when the interval excludes 0 in the direction `EXPECTED` gives, False when it does
not, None where any direction is acceptable ("any") or nothing could be scored.

Perturbations are seeded, and text-only ones keep the paragraph structure (blank lines). A section written as
one paragraph is treated as the blocks of `SENTENCES_PER_BLOCK` sentences positioning-structure similarity
reads it as, so that shuffling or dropping "paragraphs" changes something.

Each benchmark declares its expected directions and the reasons for the less obvious ones with its metrics
(`sciwrite.core.metric_spec.MetricSpec.expected` and ``reasons``, written with `down`; `spec_expectations` reads
them off), owns how it perturbs and scores its references (`sciwrite.rwgbench.metrics.sensitivity`,
`sciwrite.sciig.metrics.sensitivity`), and shared code reaches them as `Benchmark.studies.sensitivity`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sciwrite.core.metric_spec import MetricSpec, sensitivity_expectations
from sciwrite.core.paper_row import PaperRow
from sciwrite.metrics.text import SENTENCES_PER_BLOCK, paragraphs, split_sentences
from sciwrite.sources.apa import find_citations
from sciwrite.sources.markers import MARKER_GROUP, marker_numbers, renumber_markers
from sciwrite.stats import paired_results

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
#: Every perturbation, for a metric expected to drop under each.
EVERY_PERTURBATION: tuple[str, ...] = tuple(PERTURBATIONS)
FAKE_CITATION = "Nobody et al., 1900"

#: Directions per metric: {metric: {perturbation: "down" | "up" | "any"}}; reasons: {(metric, perturbation or "*"): text}.
Expected = Mapping[str, Mapping[str, str]]
Reasons = Mapping[tuple[str, str], str]


def expected_directions(table: Mapping[str, Sequence[str]]) -> dict[str, dict[str, str]]:
    """{metric: {perturbation: direction}} from one row of directions per metric, in `PERTURBATIONS` order."""
    return {metric: dict(zip(PERTURBATIONS, row, strict=True)) for metric, row in table.items()}


def down(*perturbations: str) -> dict[str, str]:
    """A metric's expected directions (`MetricSpec.expected`): "down" under each of `perturbations`, the others
    "any"; an unknown perturbation is a `ValueError`."""
    unknown = [p for p in perturbations if p not in PERTURBATIONS]
    if unknown:
        raise ValueError(f"unknown perturbations {unknown}; choose from {list(PERTURBATIONS)}")
    return {p: "down" for p in PERTURBATIONS if p in perturbations}


def spec_expectations(specs: Sequence[MetricSpec]) -> tuple[dict[str, dict[str, str]], dict[tuple[str, str], str]]:
    """(metric -> perturbation -> direction, (metric, perturbation or "*") -> reason) of a benchmark's results-table
    metrics, read off their specs: a `Sensitivity`'s ``expected`` and ``reasons``."""
    return sensitivity_expectations(specs, PERTURBATIONS)


def expectation_in(expected: Expected, reasons: Reasons, metric: str, perturbation: str) -> tuple[str, str]:
    """(expected direction, its reason or "") of `metric` under `perturbation`."""
    return expected[metric][perturbation], reasons.get((metric, perturbation)) or reasons.get((metric, "*"), "")


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


# --- scoring and the report -----------------------------------------------------------------------------------

def _numbers_by_paper(rows: Sequence[PaperRow]) -> dict[str, Mapping[str, Any]]:
    """Position -> the paper's numbers: the reference and a perturbation are paired by the paper's place."""
    return {str(i): row.values for i, row in enumerate(rows)}


def sensitivity_rows(expected: Expected, reasons: Reasons, per_paper: Mapping[str, Sequence[PaperRow]],
                     metrics: Sequence[str], n_resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """One row per metric x perturbation from the per-paper rows of ``reference`` and each perturbation."""
    reference = _numbers_by_paper(per_paper["reference"])
    rows: list[dict[str, Any]] = []
    for name in PERTURBATIONS:
        compared = paired_results(reference, _numbers_by_paper(per_paper[name]), metrics, n_resamples=n_resamples,
                                  seed=seed)
        for metric in metrics:
            c = compared[metric]
            direction, reason = expectation_in(expected, reasons, metric, name)
            rows.append({"metric": metric, "perturbation": name, "expected": direction,
                         "n_papers": c.n_papers, "reference": c.mean_a, "perturbed": c.mean_b,
                         "difference": c.difference, "ci_low": c.ci_low, "ci_high": c.ci_high,
                         "p_value": c.p_value, "p_holm": c.p_holm,
                         "moved_as_expected": moved_as_expected(direction, c.ci_low, c.ci_high),
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


def split_batches(rows: Sequence[PaperRow], batches: Mapping[str, Any], n: int) -> dict[str, list[PaperRow]]:
    """The rows of one batched scoring pass, split back into the reference and each perturbation."""
    return {name: list(rows[k * n:(k + 1) * n]) for k, name in enumerate(batches)}



__all__ = ["DIRECTIONS", "EVERY_PERTURBATION", "FAKE_CITATION", "PERTURBATIONS", "down", "drop_every_second_citation", "drop_every_second_marker",
           "drop_last_paragraph", "duplicate_text", "expectation_in", "expected_directions", "failures",
           "moved_as_expected", "not_scored", "replace_citations", "sensitivity_rows", "shift_citations",
           "shift_markers", "shuffle_paragraphs", "spec_expectations", "split_batches"]
