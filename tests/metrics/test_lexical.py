"""The bit-parallel ROUGE-L must give rouge_score's numbers exactly."""

from __future__ import annotations

import random

import pytest
from rouge_score import rouge_scorer

from sciwrite.metrics.lexical import lcs_length, rouge_l, rouge_l_batch, rouge_tokens


def _table_lcs(a, b):
    """The textbook O(m * n) table, as rouge_score fills it."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


@pytest.mark.parametrize("a, b, expected", [
    ("", "abc", 0), ("abc", "abc", 3), ("abcbdab", "bdcaba", 4), ("aaaa", "aa", 2), ("abc", "xyz", 0),
])
def test_lcs_by_hand(a, b, expected):
    assert lcs_length(list(a), list(b)) == expected


def test_lcs_equals_the_table_on_random_sequences():
    rng = random.Random(0)
    for _ in range(300):
        alphabet = "abcde"[: rng.randint(1, 5)]
        a = [rng.choice(alphabet) for _ in range(rng.randint(0, 80))]
        b = [rng.choice(alphabet) for _ in range(rng.randint(0, 80))]
        assert lcs_length(a, b) == _table_lcs(a, b)


def test_rouge_l_equals_rouge_score_on_real_sections(sample_folder):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    sections = load_rwgbench("sample", source=sample_folder)["related_work"][:12]
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    pairs = [(sections[i], sections[(i + 1) % len(sections)]) for i in range(len(sections))]
    pairs += [(s[: len(s) // 2], s) for s in sections[:3]] + [("", sections[0]), ("Ünïcode — text!", "unicode text")]
    ours = rouge_l_batch([p for p, _ in pairs], [r for _, r in pairs])
    for (prediction, reference), (p, r, f) in zip(pairs, ours):
        expected = scorer.score(reference, prediction)["rougeL"]
        assert (p, r, f) == pytest.approx((expected.precision, expected.recall, expected.fmeasure), abs=0, rel=1e-12)


def test_tokens_are_rouge_scores():
    assert rouge_tokens("Graph Networks were applied, e.g. to molecules.") == ["graph", "network", "were", "appli", "e", "g", "to", "molecul"]
    assert rouge_l(["a", "b"], []) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        rouge_l_batch(["a", "b"], ["a"])
