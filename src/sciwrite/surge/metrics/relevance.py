"""SurGE's citation relevance at paper, section and sentence level: NLI credit of the cited papers.

Definitions from SurGE (Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE src/evaluator.py ``single_eval`` and
src/informationFuncs.py ``eval_relevance_paper``/``eval_relevance_section``/``eval_relevance_sentence``), where the
NLI model is ``cross-encoder/nli-deberta-v3-base`` (a `CrossEncoder` whose ``predict`` returns logits in the label
order ``contradiction, entailment, neutral``). The model is not loaded here: each function takes an `nli` callable,
called once with all its pairs, that returns a (pairs, 3) score matrix in `NLI_LABELS_UPSTREAM` order (see
`to_upstream_order` for a model whose label order differs).

The premise and statement texts are upstream's, character for character (the paper level quotes the abstract, the
section and sentence levels do not). Pair order differs by level, as upstream's code has it:

- paper level: (paper, statement), as ``single_eval`` builds ``refcontent[k] = (sen_1, sen_paper)`` and
  ``eval_relevance_paper`` passes those tuples on unchanged;
- section and sentence level: (statement, paper). ``single_eval`` builds ``(sen_1, sen_section)`` (paper first),
  but ``eval_relevance_section`` unpacks each tuple as ``for citation, subtitle in nli_pairs_origin`` and appends
  ``(subtitle, citation)``, so the model sees the statement as the premise and the paper as the hypothesis
  (``eval_relevance_sentence`` does the same with ``(sentence, citation)``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

#: Column order of upstream's NLI scores (``label_mapping`` in informationFuncs.py; the order of
#: cross-encoder/nli-deberta-v3-base's ``id2label``).
NLI_LABELS_UPSTREAM = ("contradiction", "entailment", "neutral")

#: Takes (premise, hypothesis) pairs, returns their (pairs, 3) scores (logits or probabilities) in upstream order.
NLIScorer = Callable[[list[tuple[str, str]]], np.ndarray]
#: doc id -> (title, abstract) of a corpus paper.
PaperLookup = Callable[[str], tuple[str, str]]


def label_credit(contradiction: float, entailment: float, neutral: float) -> float:
    """Upstream's credit for one NLI judgement: 1 when entailment is the strict maximum; 0.5 when neutral is the
    strict maximum and entailment beats contradiction; else 0 (so any tie for the maximum gives 0, and so does a
    neutral win with entailment <= contradiction). Only the order of the scores matters: logits or softmax
    probabilities give the same credit."""
    if entailment > contradiction and entailment > neutral:
        return 1.0
    if neutral > contradiction and neutral > entailment and entailment > contradiction:
        return 0.5
    return 0.0


def to_upstream_order(scores: np.ndarray, id2label: Mapping[int, str]) -> np.ndarray:
    """Reorder the columns of a model's (pairs, 3) score matrix to `NLI_LABELS_UPSTREAM`, using the model's
    ``id2label`` (labels matched case-insensitively), so that the credit rule never depends on column order."""
    column = {label.lower(): index for index, label in id2label.items()}
    missing = [label for label in NLI_LABELS_UPSTREAM if label not in column]
    if missing or len(column) != len(NLI_LABELS_UPSTREAM):
        raise ValueError(f"NLI labels {sorted(column)} are not exactly {list(NLI_LABELS_UPSTREAM)}")
    return np.asarray(scores)[:, [column[label] for label in NLI_LABELS_UPSTREAM]]


def paper_premise(title: str, abstract: str) -> str:
    """Paper-level premise (abstract in quotes)."""
    return f"There is a paper. Title: '{title}'. Abstract: '{abstract}'"


def paper_statement(title: str, survey_title: str) -> str:
    """Paper-level hypothesis: the cited paper could be cited in the survey."""
    return f"The paper titled '{title}' with the given abstract could be cited in the paper: '{survey_title}'."


def marker_paper(title: str, abstract: str) -> str:
    """Section- and sentence-level paper text (abstract NOT in quotes, unlike `paper_premise`)."""
    return f"There is a paper. Title: '{title}'. Abstract: {abstract}"


def section_statement(title: str, subtitle: str) -> str:
    """Section-level statement: the cited paper is relevant to the section whose heading is `subtitle`."""
    return f"The paper titled '{title}' with the given abstract is relevant to the section: '{subtitle}'."


def sentence_statement(title: str, sentence: str) -> str:
    """Sentence-level statement: the cited paper could be cited in the citing sentence."""
    return f"The paper titled '{title}' with the given abstract could be cited in the sentence: '{sentence}'."


def _credits(nli: NLIScorer, pairs: list[tuple[str, str]]) -> float:
    """Summed `label_credit` of `pairs` under one call of `nli` (none when there is no pair)."""
    if not pairs:
        return 0.0
    scores = np.asarray(nli(pairs), dtype=float)
    if scores.shape != (len(pairs), len(NLI_LABELS_UPSTREAM)):
        raise ValueError(f"NLI scores have shape {scores.shape}, expected ({len(pairs)}, 3)")
    return sum(label_credit(c, e, n) for c, e, n in scores)


def paper_relevance(
    references: Sequence[str | None],
    gold_cites: Collection[str],
    survey_title: str,
    paper: PaperLookup,
    nli: NLIScorer,
) -> float:
    """SurGE's paper-level relevance: (references in the gold cites, 1 each without NLI, plus the NLI credit of
    the other resolved references against the survey title) / number of references. An unresolved reference
    (None) counts 0. `references` has one resolved doc id (or None) per reference entry. 0 with no reference,
    as upstream."""
    if not references:
        return 0.0
    gold = set(gold_cites)
    hits = 0.0
    pairs = []
    for doc_id in references:
        if doc_id is None:
            continue
        if doc_id in gold:
            hits += 1
        else:
            title, abstract = paper(doc_id)
            pairs.append((paper_premise(title, abstract), paper_statement(title, survey_title)))
    return (hits + _credits(nli, pairs)) / len(references)


def resolve_markers(
    markers: Sequence[tuple[int, str]], references: Mapping[int, str | None]
) -> list[tuple[str | None, str]]:
    """(reference number, text) markers -> (doc id or None, text): None when the number has no reference or its
    reference is unresolved (both are upstream's ``[NOTEXIST]``)."""
    return [(references.get(number), text) for number, text in markers]


def _marker_relevance(
    markers: Sequence[tuple[str | None, str]],
    statement: Callable[[str, str], str],
    paper: PaperLookup,
    nli: NLIScorer,
) -> float:
    if not markers:
        return 0.0
    pairs = []
    for doc_id, text in markers:
        if doc_id is not None:
            title, abstract = paper(doc_id)
            pairs.append((statement(title, text), marker_paper(title, abstract)))  # reversed, as upstream
    return _credits(nli, pairs) / len(markers)


def section_relevance(markers: Sequence[tuple[str | None, str]], paper: PaperLookup, nli: NLIScorer) -> float:
    """SurGE's section-level relevance: mean NLI credit over every citation marker, each a (resolved doc id or
    None, heading of the section it sits in) pair; a None marker counts 0. 0 with no marker, as upstream. NLI
    pairs are (statement, paper): see the module docstring."""
    return _marker_relevance(markers, section_statement, paper, nli)


def sentence_relevance(markers: Sequence[tuple[str | None, str]], paper: PaperLookup, nli: NLIScorer) -> float:
    """SurGE's sentence-level relevance: as `section_relevance`, each marker paired with its citing sentence."""
    return _marker_relevance(markers, sentence_statement, paper, nli)


__all__ = [
    "NLI_LABELS_UPSTREAM",
    "NLIScorer",
    "PaperLookup",
    "label_credit",
    "marker_paper",
    "paper_premise",
    "paper_relevance",
    "paper_statement",
    "resolve_markers",
    "section_relevance",
    "section_statement",
    "sentence_relevance",
    "sentence_statement",
    "to_upstream_order",
]
