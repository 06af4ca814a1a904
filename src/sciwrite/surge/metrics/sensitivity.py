"""SurGE's part of the sensitivity analysis (`sciwrite.metrics.sensitivity`): the expert survey's ``text`` (its
Markdown, `sciwrite.surge.data.expert`) scored as the prediction by SurGE's suite, each perturbation of it scored by
the same loaded models, and the direction each metric should move under each (declared with the metrics,
`sciwrite.surge.metrics.specs`).

A survey is a heading tree, numbered markers and a reference list, so the shared perturbations are applied to its
parts: its heading lines and its ``## References`` list stay where they are unless a perturbation is about them.

- ``drop_half_citations``: every second cited work (by number: first appearance) removed, its markers and its
  reference line;
- ``random_citations``: each reference line's title replaced by a random corpus paper's that is none of the
  survey's (numbers and markers kept), seeded;
- ``shift_markers``: each sentence's markers moved to the end of the next sentence of the survey, across headings
  (the expert's markers close their section, so they move into the next section); the last sentence's to a seeded
  random other sentence;
- ``shuffle_paragraphs``: the paragraphs in a seeded random order other than the original, put back in the
  paragraph places (each heading keeps its place, so text lands under other headings);
- ``drop_last_paragraph``: the last paragraph before the reference list deleted;
- ``abstract_as_text``, ``duplicate_text``, ``empty_text``: the survey's abstract, the text twice, "".
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.benchmark import SensitivityRun
from sciwrite.core.paper_row import PaperRow
from sciwrite.metrics.sensitivity import duplicate_text, sensitivity_rows, spec_expectations, split_batches
from sciwrite.metrics.text import split_sentences
from sciwrite.sources.markers import MARKER_GROUP, renumber_markers
from sciwrite.surge.data.expert import insert_before_closing, join_references, split_references
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.metrics.coverage import surge_normalize
from sciwrite.surge.metrics.evaluation import SurgeSplit
from sciwrite.surge.metrics.items import prepare_items
from sciwrite.surge.metrics.specs import METRICS
from sciwrite.surge.metrics.suite import SUITE_METRICS, SurgeModels, load_surge_models, score_items
from sciwrite.surge.survey_markdown import HEADER

#: Expected direction per metric and perturbation, and the reasons for the entries that are not obvious, keyed
#: (metric, perturbation) ("*": all): declared with each metric (`sciwrite.surge.metrics.specs`).
EXPECTED, REASONS = spec_expectations(METRICS)

_BLANK_RUN = re.compile(r"\n{3,}")
_SPACE_BEFORE = re.compile(r"[ \t]+([.,;:!?])")


def _is_paragraph(line: str) -> bool:
    return bool(line.strip()) and not HEADER.match(line.rstrip())


def _lines(text: str) -> tuple[list[str], list[int], list[tuple[int, str]]]:
    """(the body's lines, the indices of its paragraphs, the references) of a survey text."""
    body, references = split_references(text)
    lines = body.split("\n")
    return lines, [i for i, line in enumerate(lines) if _is_paragraph(line)], references


def _join(lines: Sequence[str | None], references: Sequence[tuple[int, str]]) -> str:
    """The survey again from its body lines (None: a line deleted) and references."""
    body = _BLANK_RUN.sub("\n\n", "\n".join(line for line in lines if line is not None)).strip()
    return join_references(body, references)


def drop_half_citations(text: str) -> str:
    """Every second cited work (in reference-list order) removed: all its markers and its reference line."""
    lines, paragraphs, references = _lines(text)
    kept = {n for n, _ in references[::2]}
    out: list[str | None] = list(lines)
    for i in paragraphs:
        out[i] = renumber_markers(lines[i], {n: n for n in kept}).strip() or None
    return _join(out, [(n, title) for n, title in references if n in kept])


def random_citations(text: str, pool: Sequence[str], rng: random.Random) -> str:
    """Each reference line's title replaced by a title of `pool` that normalises (as SurGE resolves titles) to none
    of the survey's own; the numbers and the markers stay."""
    lines, _, references = _lines(text)
    own = {surge_normalize(title) for _, title in references}
    others = [title for title in pool if (key := surge_normalize(title)) and key not in own]
    drawn = rng.sample(others, min(len(references), len(others)))
    return _join(lines, [(n, title) for (n, _), title in zip(references, drawn)])


def _tidy(sentence: str) -> str:
    """What removed markers leave: no space before punctuation, single spaces."""
    return re.sub(r"[ \t]{2,}", " ", _SPACE_BEFORE.sub(r"\1", sentence)).strip()


def shift_markers(text: str, seed: int = 0) -> str:
    """Each sentence's markers moved to the end of the next sentence of the body (across headings), the last
    sentence's to a seeded random other one; headings and the reference list stay."""
    lines, paragraphs, references = _lines(text)
    sentences = [(i, s) for i in paragraphs for s in split_sentences(lines[i])]
    if len(sentences) < 2:
        return text
    stripped, moved = [], []
    for _, sentence in sentences:
        moved.append("".join(m.group(0) for m in MARKER_GROUP.finditer(sentence)))
        stripped.append(_tidy(MARKER_GROUP.sub("", sentence)))
    n = len(sentences)
    target = [k + 1 for k in range(n - 1)] + [random.Random(seed).randrange(n - 1)]
    incoming = [""] * n
    for k, markers in enumerate(moved):
        incoming[target[k]] += markers
    rebuilt: dict[int, list[str]] = {}
    for (i, _), sentence, markers in zip(sentences, stripped, incoming):
        rebuilt.setdefault(i, []).append(insert_before_closing(sentence, markers) if markers else sentence)
    out: list[str | None] = list(lines)
    for i in paragraphs:
        out[i] = " ".join(s for s in rebuilt.get(i, []) if s) or None
    return _join(out, references)


def shuffle_paragraphs(text: str, seed: int = 0) -> str:
    """The paragraphs in a seeded random order other than the original, in the paragraphs' places: the headings
    and the reference list stay, the text under them changes."""
    lines, paragraphs, references = _lines(text)
    if len({lines[i] for i in paragraphs}) < 2:
        return text
    order = list(paragraphs)
    rng = random.Random(seed)
    while [lines[i] for i in order] == [lines[i] for i in paragraphs]:
        rng.shuffle(order)
    out: list[str | None] = list(lines)
    for place, source in zip(paragraphs, order):
        out[place] = lines[source]
    return _join(out, references)


def drop_last_paragraph(text: str) -> str:
    """The survey without the last paragraph before its reference list."""
    lines, paragraphs, references = _lines(text)
    if not paragraphs:
        return text
    out: list[str | None] = list(lines)
    out[paragraphs[-1]] = None
    return _join(out, references)


def perturb_surge(surveys: Sequence[Mapping[str, Any]], pool: Sequence[str], seed: int = 0) -> dict[str, list[str]]:
    """Texts of the expert survey (key ``reference``) and of every perturbation, per survey; `pool` holds the
    corpus titles ``random_citations`` draws from."""
    texts = [s["text"] for s in surveys]
    rng = random.Random(seed)
    return {
        "reference": texts,
        "drop_half_citations": [drop_half_citations(t) for t in texts],
        "random_citations": [random_citations(t, pool, rng) for t in texts],
        "shift_markers": [shift_markers(t, seed + i) for i, t in enumerate(texts)],
        "shuffle_paragraphs": [shuffle_paragraphs(t, seed + i) for i, t in enumerate(texts)],
        "drop_last_paragraph": [drop_last_paragraph(t) for t in texts],
        "abstract_as_text": [s["abstract"] for s in surveys],
        "duplicate_text": [duplicate_text(t) for t in texts],
        "empty_text": ["" for _ in texts],
    }


def surge_sensitivity(surveys: Sequence[Mapping[str, Any]], corpus: Any, models: SurgeModels, seed: int = 0,
                      n_resamples: int = 1000, show_progress: bool = False) -> list[dict[str, Any]]:
    """Score the expert surveys and their perturbations with one loaded suite (every text read and its references
    resolved as `sciwrite evaluate surge` does: `prepare_items`, `score_items`); the report rows."""
    split = SurgeSplit.of("sensitivity", list(surveys), corpus)
    batches = perturb_surge(surveys, list(split.corpus["title"]), seed)
    texts = [t for ts in batches.values() for t in ts]
    assert split.titles is not None  # SurgeSplit.of indexes the corpus's titles
    items = prepare_items(texts, list(surveys) * len(batches), split.titles, split.papers_of)
    rows, _ = score_items(items, models, show_progress=show_progress)
    metrics = [m for m in SUITE_METRICS if m not in models.not_computed]
    per_batch: dict[str, list[PaperRow]] = split_batches(rows, batches, len(surveys))
    return sensitivity_rows(EXPECTED, REASONS, per_batch, metrics, n_resamples, seed)


def run_sensitivity(profile: str | None = None, metrics: Sequence[str] | None = None, limit: int | None = None,
                    seed: int = 0, n_resamples: int = 1000, show_progress: bool = True) -> SensitivityRun:
    """`surge_sensitivity` on the offline sample's first `limit` surveys: (rows, surveys, the suite's models)."""
    surveys = load_surge("sample").to_list()[:limit]
    suite = load_surge_models(profile, metrics=metrics)
    rows = surge_sensitivity(surveys, load_surge("sample_corpus"), suite, seed=seed, n_resamples=n_resamples,
                             show_progress=show_progress)
    return SensitivityRun(rows, len(surveys), suite)


__all__ = ["EXPECTED", "REASONS", "drop_half_citations", "drop_last_paragraph", "perturb_surge", "random_citations",
           "run_sensitivity", "shift_markers", "shuffle_paragraphs", "surge_sensitivity"]
