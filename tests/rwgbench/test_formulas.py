"""The RWGBench formulas on cases worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sciwrite.models.citation_frames import FRAMES
from sciwrite.rwgbench.metrics.formulas import (
    citation_counts,
    citation_density,
    citation_distribution_balance,
    citation_frame_alignment,
    citation_precision_recall,
    claim_support_consistency,
    marker_keys,
    nli_label_scores,
    parse_citation_markers,
    positioning_structure_similarity,
    resolve_citations,
    soft_citation_recall,
    topical_relevance,
)


@pytest.mark.parametrize("text,expected", [
    ("A [1] and B [2].", [1, 2]),
    ("grouped [1, 2] and ranged [4-6] and glued [7][8]", [1, 2, 4, 5, 6, 7, 8]),
    ("semicolons [3; 1] repeat [3]", [3, 1, 3]),
    ("no markers at all, (1) or [a] or [Smith 2020]", []),
    ("", []),
    ("non-ASCII Übersicht [2] – café [1–2]", [2, 1, 2]),  # en-dash range
])
def test_parse_citation_markers(text, expected):
    assert parse_citation_markers(text) == expected


def test_resolve_citations_counts_out_of_range_and_malformed():
    candidates = ["d1", "d2", "d3"]
    r = resolve_citations("X [1] Y [2, 5] Z [0] W [3,] V [2]", candidates)
    assert r.doc_ids == ["d1", "d2", "d2"]
    assert r.unique_ids == ["d1", "d2"]
    assert r.out_of_range == [5, 0]
    assert r.n_malformed == 1  # "[3,]"
    assert r.n_unresolved == 3
    assert r.n_markers == 5
    assert not r.is_empty_citation_output


def test_a_negative_marker_is_unresolved_like_zero_and_out_of_range():
    """Issue 23: "[-1]" was ignored, while "[0]" and "[999]" counted as unresolved."""
    r = resolve_citations("A [-1] B [0] C [999] D [1] E [ - 2 ]", ["d1"])
    assert r.doc_ids == ["d1"] and sorted(r.out_of_range) == [-2, -1, 0, 999]
    assert r.n_unresolved == 4 and r.n_markers == 5


def test_resolve_citations_empty_outputs():
    assert resolve_citations("", ["d1"]).is_empty_citation_output
    only_bad = resolve_citations("see [4] and [9]", ["d1", "d2"])
    assert only_bad.is_empty_citation_output and only_bad.out_of_range == [4, 9]
    assert resolve_citations("see [1]", []).out_of_range == [1]


def test_citation_precision_recall():
    # generated {a, b, c, x}, gold {a, b, y}: 2 hits -> P = 2/4, R = 2/3
    assert citation_precision_recall(["a", "b", "c", "x", "a"], ["a", "b", "y"]) == (0.5, pytest.approx(2 / 3))
    assert citation_precision_recall([], ["a"]) == (0.0, 0.0)  # empty-citation output
    assert citation_precision_recall(["a", "b"], ["b", "a"]) == (1.0, 1.0)
    with pytest.raises(ValueError, match="without gold citations"):
        citation_precision_recall(["a"], [])


def test_soft_citation_recall():
    # 2 generated x 3 reference: column maxima 0.9, 0.5, 0.75 -> mean 0.7166...
    scores = [[0.9, 0.2, 0.75],
              [0.1, 0.5, 0.25]]
    assert soft_citation_recall(scores) == pytest.approx((0.9 + 0.5 + 0.75) / 3)
    assert soft_citation_recall(np.zeros((0, 3))) == 0.0
    with pytest.raises(ValueError, match="without reference"):
        soft_citation_recall(np.zeros((2, 0)))
    with pytest.raises(ValueError, match="matrix"):
        soft_citation_recall([0.1, 0.2])


def test_citation_density():
    assert citation_density(6, 4) == 1.5
    assert citation_density(0, 5) == 0.0
    assert citation_density(3, 0) == 0.0
    with pytest.raises(ValueError, match="counts cannot be negative"):
        citation_density(-1, 2)


def test_citation_distribution_balance():
    # a cited 3x, b once, c once, d twice -> 2 of 4 papers cited exactly once
    counts = citation_counts(["a", "b", "a", "c", "d", "a", "d"])
    assert counts == {"a": 3, "b": 1, "c": 1, "d": 2}
    assert citation_distribution_balance(counts) == 0.5
    assert citation_distribution_balance([1, 1, 1]) == 1.0
    assert citation_distribution_balance([]) == 0.0


def test_positioning_structure_similarity_by_hand():
    # a = [[0.9, 0.1], [0.2, 0.8], [-0.5, 0.3]] (negative clipped to 0)
    # L row 1: [0.9, 0.9]; row 2: [0.9, max(0.9, 0.9, 0.9 + 0.8) = 1.7]; row 3: [0.9, max(1.7, 0.9, 0.9 + 0.3)] = 1.7
    sim = [[0.9, 0.1], [0.2, 0.8], [-0.5, 0.3]]
    assert positioning_structure_similarity(sim) == pytest.approx(2 * 1.7 / 5)


def test_positioning_structure_similarity_identity_order_and_empty():
    assert positioning_structure_similarity(np.eye(4)) == 1.0  # a section against itself
    # the same blocks in reverse order keep only one aligned pair: 2 * 1 / 6
    assert positioning_structure_similarity(np.fliplr(np.eye(3))) == pytest.approx(2 / 6)
    assert positioning_structure_similarity(np.zeros((0, 3))) == 0.0
    assert positioning_structure_similarity(-np.ones((2, 2))) == 0.0


def test_citation_frame_alignment_by_hand():
    gen = {"background": 4, "uses": 1, "differences": 0}
    ref = {"background": 2, "uses": 1, "motivation": 1}
    # active: motivation (0 vs 1) -> 0; background 2*2/6 = 2/3; uses 2*1/2 = 1 -> mean (0 + 2/3 + 1) / 3
    assert citation_frame_alignment(gen, ref) == pytest.approx((0 + 2 / 3 + 1) / 3)
    assert citation_frame_alignment(ref, ref) == 1.0
    assert citation_frame_alignment({}, {}) == 1.0
    assert citation_frame_alignment({}, {"uses": 2}) == 0.0
    assert len(FRAMES) == 7 and "future_work" in FRAMES


def test_citation_frame_alignment_rejects_unknown_frames():
    with pytest.raises(ValueError, match=r"gen_counts has unknown frames \['method'\]"):
        citation_frame_alignment({"method": 1}, {})
    with pytest.raises(ValueError, match="negative"):
        citation_frame_alignment({}, {"uses": -1})


def test_large_matrix_is_fine():
    sim = np.full((60, 80), 0.5)
    assert math.isclose(positioning_structure_similarity(sim), 2 * 30 / 140)


def test_nli_label_scores_map_the_predicted_label_not_the_probabilities():
    # rows are (entailment, neutral, contradiction): argmax -> 1 / 0.5 / 0 (Eq. 3), never P(e) + 0.5 P(n)
    probs = [[0.6, 0.3, 0.1],   # entailment -> 1.0 (soft would be 0.75)
             [0.2, 0.5, 0.3],   # neutral -> 0.5 (soft 0.45)
             [0.4, 0.1, 0.5],   # contradiction -> 0.0 (soft 0.45)
             [0.4, 0.4, 0.2]]   # tie entailment / neutral -> the first, entailment
    assert nli_label_scores(probs).tolist() == [1.0, 0.5, 0.0, 1.0]
    assert nli_label_scores(np.zeros((0, 3))).tolist() == []


def test_claim_support_consistency_by_hand():
    # C_g = {a, b, c}: a cited in two sentences (entail 1, neutral 0.5 -> s_a = 0.75), b contradicted (0), c entailed (1)
    # CSC = (0.75 + 0 + 1) / |C_g| = 1.75 / 3
    assert claim_support_consistency([[1.0, 0.5], [0.0], [1.0]]) == pytest.approx(1.75 / 3)
    assert claim_support_consistency([]) == 0.0  # empty-citation output with a candidate list
    with pytest.raises(ValueError, match="citing sentence"):
        claim_support_consistency([[1.0], []])


def test_topical_relevance_by_hand():
    # Eq. 4: mean cosine over the distinct cited papers
    assert topical_relevance([0.8, 0.4, 0.3]) == pytest.approx(0.5)
    assert topical_relevance([]) == 0.0


def test_marker_keys_count_markers_without_candidates():
    # Direct: each marker number is one cited item; repeats kept for CDB's f(c)
    assert marker_keys("A [1, 2]. B [2]. C [4-5].") == ["[1]", "[2]", "[2]", "[4]", "[5]"]
    assert citation_distribution_balance(citation_counts(marker_keys("A [1, 2]. B [2]."))) == 0.5
    assert marker_keys("no markers") == []
