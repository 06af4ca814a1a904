"""SurGE ROUGE/BLEU: equal to rouge_score and sacrebleu called directly as upstream calls them, and a ROUGE case
worked by hand."""

from __future__ import annotations

import statistics

import pytest
import sacrebleu
from rouge_score import rouge_scorer

from sciwrite.surge.metrics.lexical import BLEU_SCALE, LexicalScores, expert_sections, surge_rouge_bleu

PARAGRAPHS = [
    "Graph neural networks learn node representations by aggregating messages from neighbours. "
    "Message passing networks generalise convolutions to graphs, and attention weights the neighbours.",
    "Transformers were applied to molecules (e.g. MolBERT), learning embeddings of SMILES strings; "
    "pre-training on large corpora improved property prediction.",
    "Benchmarks remain small.",
]
SECTIONS = [
    "Graph neural networks (GNNs) aggregate neighbour messages to learn representations of nodes; attention-based "
    "networks weight the messages.",
    "Pre-trained transformers learned molecular embeddings from SMILES strings and improved property prediction "
    "on benchmarks.",
    "We conclude with open problems.",
]


def _upstream(paragraphs, sections):
    """rougeBleuFuncs.calculate_average_rouge_bleu's computation, with the libraries called directly."""
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    best: dict[str, list[float]] = {key: [] for key in ("rouge1", "rouge2", "rougeL")}
    bleu = []
    for a in paragraphs:
        for key in best:
            best[key].append(max([0.0] + [scorer.score(a, b)[key].fmeasure for b in sections]))
        bleu.append(sacrebleu.sentence_bleu(a, sections).score)
    return [statistics.mean(best[key]) for key in best] + [statistics.mean(bleu)]


def test_equals_rouge_score_and_sacrebleu():
    scores = surge_rouge_bleu(PARAGRAPHS, SECTIONS)
    r1, r2, rl, bleu = _upstream(PARAGRAPHS, SECTIONS)
    assert scores is not None
    assert (scores.rouge1, scores.rouge2, scores.rouge_l) == (r1, r2, rl)  # bit for bit
    assert scores.bleu == pytest.approx(bleu * BLEU_SCALE, rel=1e-12)
    assert 0 < scores.rouge2 < scores.rouge1 < 1 and 0 < scores.bleu < 1


def test_bleu_is_reported_on_a_0_1_scale():
    assert BLEU_SCALE == 0.01


def test_rouge_by_hand():
    # "the cat sat on the mat" vs "the cat lay on the rug" (no token over 3 letters, so no stemming):
    # unigrams 6 and 6, overlap the x2, cat, on = 4 -> P = R = F = 2/3;
    # bigrams 5 and 5, overlap (the cat), (on the) = 2 -> F = 2/5; LCS "the cat on the" = 4 -> F = 2/3.
    # Against the second section "a dog" it scores 0, so the max keeps the first.
    scores = surge_rouge_bleu(["the cat sat on the mat"], ["the cat lay on the rug", "a dog"])
    assert scores is not None
    assert scores.rouge1 == pytest.approx(2 / 3)
    assert scores.rouge2 == pytest.approx(2 / 5)
    assert scores.rouge_l == pytest.approx(2 / 3)


def test_rouge_1_mean_over_paragraphs_by_hand():
    # Paragraph 2 "a dog ran" vs section "a dog": overlap 2, P = 2/2, R = 2/3 -> F = 2 * (2/3) / (5/3) = 0.8;
    # paragraph 1 as above: 2/3. Mean (2/3 + 0.8) / 2 = 11/15.
    scores = surge_rouge_bleu(["the cat sat on the mat", "a dog ran"], ["the cat lay on the rug", "a dog"])
    assert scores is not None
    assert scores.rouge1 == pytest.approx(11 / 15)


def test_empty_inputs_give_none():
    assert surge_rouge_bleu([], SECTIONS) is None
    assert surge_rouge_bleu(PARAGRAPHS, []) is None


def test_lexical_scores_are_frozen():
    scores = LexicalScores(0.1, 0.2, 0.3, 0.4)
    with pytest.raises(AttributeError):
        scores.bleu = 1.0


def test_expert_sections_keep_contents_of_100_characters():
    structure = [
        {"id": "0", "parent_id": "", "title": "root", "content": ""},
        {"id": "1", "parent_id": "0", "title": "A", "content": "a" * 100},
        {"id": "2", "parent_id": "0", "title": "B", "content": "b" * 99},
        {"id": "3", "parent_id": "1", "title": "C", "content": "c" * 250},
    ]
    assert expert_sections(structure) == ["a" * 100, "c" * 250]
