"""Length-sorted, token-budget batching: every item once, budgets kept, results in the caller's order."""

from __future__ import annotations

import numpy as np
import pytest

from sciwrite.models.encoders import embed, length_batches


def test_length_batches_keep_every_item_and_the_budget():
    lengths = [5, 100, 3, 200, 4, 6, 1000]
    batches = length_batches(lengths, batch_size=3, max_tokens=250)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert batches == [[2, 4, 0], [5, 1], [3], [6]]  # the 1000-token item exceeds the budget alone: its own batch
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 250
    assert length_batches([], 4, 100) == []


def test_embed_returns_rows_in_the_callers_order(minilm):
    texts = ["A long sentence about graph neural networks for molecules and proteins, " * 8, "Short.",
             "Medium length text on retrieval.", "Short."]
    vectors = embed(minilm, texts, batch_size=2)
    expected = minilm.encode(texts, normalize_embeddings=True)
    assert vectors.shape == (4, 384) and np.allclose(vectors, expected, atol=1e-5)
    assert vectors[1] == pytest.approx(vectors[3])
    assert embed(minilm, []).shape == (0, 384)
