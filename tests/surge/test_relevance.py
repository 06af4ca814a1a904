"""SurGE NLI relevance (paper, section, sentence level) with a fake NLI scorer returning fixed logits: the credit
rule, the exact texts and pair order upstream builds, one batched call, and the arithmetic worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from sciwrite.surge.metrics.relevance import (
    NLI_LABELS_UPSTREAM,
    label_credit,
    paper_relevance,
    resolve_markers,
    section_relevance,
    sentence_relevance,
    to_upstream_order,
)

PAPERS = {"p1": ("Paper One", "Abstract one."), "p2": ("Paper Two", "Abstract two.")}

# Logit rows (contradiction, entailment, neutral) and their credit under upstream's rule.
ENTAIL = [0.0, 3.0, 1.0]  # entailment strict max -> 1
NEUTRAL = [0.0, 1.0, 2.0]  # neutral strict max, entailment > contradiction -> 0.5
CONTRA = [2.0, 1.0, 0.0]  # contradiction max -> 0


class FakeNLI:
    """Returns fixed logit rows, recording every call."""

    def __init__(self, rows):
        self.rows = rows
        self.calls: list[list[tuple[str, str]]] = []

    def __call__(self, pairs):
        self.calls.append(list(pairs))
        return np.array(self.rows[: len(pairs)])


@pytest.mark.parametrize("c, e, n, credit", [
    (0, 1, 0, 1.0),  # entailment strict max
    (0, 1, 0.5, 1.0),
    (0, 0.5, 1, 0.5),  # neutral strict max, e > c
    (0.6, 0.5, 1, 0.0),  # neutral strict max, e < c
    (0.5, 0.5, 1, 0.0),  # neutral strict max, e == c: upstream needs e > c
    (0, 1, 1, 0.0),  # e and n tie for max: neither is a strict max
    (1, 1, 0, 0.0),  # e ties c for max
    (1, 0, 1, 0.0),  # n ties c for max
    (1, 0, 0, 0.0),
    (0, 0, 0, 0.0),
    (-3.1, -0.2, -0.9, 1.0),  # logits may be negative
])
def test_label_credit(c, e, n, credit):
    assert label_credit(c, e, n) == credit


def test_labels_are_upstreams_order():
    assert NLI_LABELS_UPSTREAM == ("contradiction", "entailment", "neutral")


def test_to_upstream_order_reorders_columns_by_id2label():
    scores = np.array([[5.0, 1.0, 0.0], [0.0, 2.0, 7.0]])  # columns: entailment, neutral, contradiction
    reordered = to_upstream_order(scores, {0: "ENTAILMENT", 1: "neutral", 2: "Contradiction"})
    assert reordered.tolist() == [[0.0, 5.0, 1.0], [7.0, 0.0, 2.0]]
    assert label_credit(*reordered[0]) == 1.0  # the entailment row stays an entailment
    with pytest.raises(ValueError, match="not exactly"):
        to_upstream_order(scores, {0: "entailment", 1: "neutral", 2: "other"})


def test_paper_relevance_by_hand_and_its_texts():
    nli = FakeNLI([ENTAIL, NEUTRAL])
    # 5 references: g1 twice (gold: 1 each, no NLI), one unresolved (0), p1 (NLI 1), p2 (NLI 0.5) -> 3.5 / 5.
    score = paper_relevance(["g1", None, "p1", "p2", "g1"], ["g1", "g9"], "A Survey of X", PAPERS.__getitem__, nli)
    assert score == pytest.approx(0.7)
    assert nli.calls == [[
        ("There is a paper. Title: 'Paper One'. Abstract: 'Abstract one.'",
         "The paper titled 'Paper One' with the given abstract could be cited in the paper: 'A Survey of X'."),
        ("There is a paper. Title: 'Paper Two'. Abstract: 'Abstract two.'",
         "The paper titled 'Paper Two' with the given abstract could be cited in the paper: 'A Survey of X'."),
    ]]


def test_paper_relevance_without_nli_pairs_does_not_call_nli():
    nli = FakeNLI([])
    assert paper_relevance([], ["g1"], "S", PAPERS.__getitem__, nli) == 0.0  # no reference: 0, as upstream
    assert paper_relevance(["g1", None], ["g1"], "S", PAPERS.__getitem__, nli) == 0.5  # 1 gold of 2
    assert nli.calls == []


def test_resolve_markers_maps_missing_and_unresolved_numbers_to_none():
    markers = [(1, "s1"), (2, "s2"), (3, "s3")]
    assert resolve_markers(markers, {1: "p1", 2: None}) == [("p1", "s1"), (None, "s2"), (None, "s3")]


def test_section_relevance_by_hand_with_reversed_pairs():
    nli = FakeNLI([ENTAIL, CONTRA, NEUTRAL])
    markers = [("p1", "Methods"), (None, "Intro"), ("p2", "Results"), ("p1", "Methods")]
    # 4 markers: p1 -> 1, None -> 0 (no NLI), p2 -> 0, p1 -> 0.5; (1 + 0 + 0 + 0.5) / 4.
    assert section_relevance(markers, PAPERS.__getitem__, nli) == pytest.approx(0.375)
    assert len(nli.calls) == 1 and len(nli.calls[0]) == 3
    # (statement, paper): upstream's eval_relevance_section swaps the tuples single_eval builds.
    assert nli.calls[0][0] == (
        "The paper titled 'Paper One' with the given abstract is relevant to the section: 'Methods'.",
        "There is a paper. Title: 'Paper One'. Abstract: Abstract one.",
    )
    assert nli.calls[0][1][1] == "There is a paper. Title: 'Paper Two'. Abstract: Abstract two."


def test_sentence_relevance_by_hand_with_reversed_pairs():
    nli = FakeNLI([NEUTRAL, NEUTRAL])
    markers = [("p2", "X improves Y [2]"), ("p1", "Z is known [1]"), (None, "W [9]")]
    assert sentence_relevance(markers, PAPERS.__getitem__, nli) == pytest.approx(1.0 / 3)  # (0.5 + 0.5 + 0) / 3
    assert nli.calls == [[
        ("The paper titled 'Paper Two' with the given abstract could be cited in the sentence: 'X improves Y [2]'.",
         "There is a paper. Title: 'Paper Two'. Abstract: Abstract two."),
        ("The paper titled 'Paper One' with the given abstract could be cited in the sentence: 'Z is known [1]'.",
         "There is a paper. Title: 'Paper One'. Abstract: Abstract one."),
    ]]


def test_marker_levels_edge_cases():
    nli = FakeNLI([])
    assert section_relevance([], PAPERS.__getitem__, nli) == 0.0  # no marker: 0, as upstream
    assert sentence_relevance([(None, "s"), (None, "t")], PAPERS.__getitem__, nli) == 0.0
    assert nli.calls == []


def test_a_badly_shaped_score_matrix_is_an_error():
    def two_columns(pairs):
        return np.zeros((len(pairs), 2))

    with pytest.raises(ValueError, match="shape"):
        section_relevance([("p1", "Methods")], PAPERS.__getitem__, two_columns)
