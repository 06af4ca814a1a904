"""SurGE SH-Recall with fake embedders (one-hot and hand-chosen 2-D vectors): values worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sciwrite.surge.metrics.sh_recall import soft_cardinality, soft_heading_recall, target_headings


class FakeEmbedder:
    """Looks texts up in a table of vectors, recording every call."""

    def __init__(self, table):
        self.table = {text: np.asarray(vector, dtype=float) for text, vector in table.items()}
        self.calls: list[list[str]] = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return np.stack([self.table[text] for text in texts])


ONE_HOT = FakeEmbedder({"a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0, 1]})


@pytest.mark.parametrize("matrix, expected", [
    ([[1, 0], [0, 1]], 2.0),  # 1/1 + 1/1
    ([[1, 1], [1, 1]], 1.0),  # 1/2 + 1/2: two identical items count once
    ([[0, 0], [0, 1]], 1.0),  # a zero row adds 0, as upstream
    ([[1, 0.5], [0.5, 1]], 4 / 3),  # 1/1.5 + 1/1.5
])
def test_soft_cardinality(matrix, expected):
    assert soft_cardinality(np.array(matrix)) == pytest.approx(expected)


def test_orthogonal_gold_half_covered():
    # card(G={a,b}) = 2, card(P={a}) = 1, card({a,b}) = 2 -> intersection 1 -> recall 1/2.
    assert soft_heading_recall(["a", "b"], ["a"], ONE_HOT) == pytest.approx(0.5)
    assert soft_heading_recall(["a", "b"], ["b", "a"], ONE_HOT) == pytest.approx(1.0)
    assert soft_heading_recall(["a", "b"], ["c"], ONE_HOT) == pytest.approx(0.0)


def test_non_orthogonal_one_by_one():
    # a = (1, 0), b = (0.6, 0.8): cos = 0.6. card({a}) = card({b}) = 1; union rows sum 1.6 -> 2 / 1.6 = 1.25;
    # intersection = 1 + 1 - 1.25 = 0.75; recall = 0.75 / 1.
    embed = FakeEmbedder({"a": [1, 0], "b": [0.6, 0.8]})
    assert soft_heading_recall(["a"], ["b"], embed) == pytest.approx(0.75)


def test_non_orthogonal_two_gold_one_generated():
    # a = (1, 0), b = (0, 1), c = (1, 1): s = cos(a, c) = cos(b, c) = 1/sqrt(2). card(G) = 2, card(P) = 1;
    # union rows sum 1+s, 1+s, 1+2s: 2/(1+s) + 1/(1+2s) = (4 - 2 sqrt 2) + (sqrt 2 - 1) = 3 - sqrt 2;
    # intersection = 3 - (3 - sqrt 2) = sqrt 2; recall = sqrt(2) / 2.
    embed = FakeEmbedder({"a": [1, 0], "b": [0, 1], "c": [1, 1]})
    assert soft_heading_recall(["a", "b"], ["c"], embed) == pytest.approx(math.sqrt(2) / 2)


def test_duplicates_in_gold_count_once_softly():
    # G = [a, a, b]: rows sum 2, 2, 1 -> card 1/2 + 1/2 + 1 = 2; P = [a]: 1; union {a, b}: 2 -> 1 / 2.
    assert soft_heading_recall(["a", "a", "b"], ["a"], ONE_HOT) == pytest.approx(0.5)


def test_each_distinct_heading_is_embedded_once_in_one_call():
    embed = FakeEmbedder({"a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0, 1]})
    soft_heading_recall(["a", "b", "a"], ["c", "a"], embed)
    assert embed.calls == [["a", "b", "c"]]


def test_one_call_equals_embedding_g_p_and_the_union_separately():
    # Upstream's procedure: embed G, P and the union each on their own, cosine, soft cardinalities.
    rng = np.random.default_rng(0)
    texts = [f"heading {i}" for i in range(6)]
    embed = FakeEmbedder({text: rng.normal(size=4) for text in texts})
    gold, generated = texts[:4] + [texts[0]], texts[2:]

    def card(items):
        vectors = embed(items)
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return soft_cardinality(unit @ unit.T)

    card_g = card(gold)
    expected = (card_g + card(generated) - card(list(set(gold + generated)))) / card_g
    assert soft_heading_recall(gold, generated, embed) == pytest.approx(expected, abs=1e-12)


def test_no_generated_or_no_gold_heading_is_zero_without_embedding():
    embed = FakeEmbedder({})
    assert soft_heading_recall(["a"], [], embed) == 0.0
    assert soft_heading_recall([], ["a"], embed) == 0.0
    assert embed.calls == []


def test_a_zero_embedding_is_an_error():
    with pytest.raises(ValueError, match="zero embedding"):
        soft_heading_recall(["a"], ["z"], FakeEmbedder({"a": [1, 0], "z": [0, 0]}))


def test_target_headings_keep_sections_with_100_characters_root_included():
    structure = [
        {"id": "0", "parent_id": "", "title": "root", "content": "r" * 150},
        {"id": "1", "parent_id": "0", "title": "Intro", "content": "x" * 100},
        {"id": "2", "parent_id": "0", "title": "Short", "content": "x" * 99},
        {"id": "3", "parent_id": "1", "title": "Deep", "content": "y" * 300},
    ]
    assert target_headings(structure) == ["root", "Intro", "Deep"]
