"""`CachedSentenceEncoder`: the same vectors with and without the cache, a second run re-embeds nothing, a changed
model or text misses, ONNX Runtime agrees with PyTorch, and calls it does not handle reach the library."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from sciwrite.models import onnx_runtime
from sciwrite.models.encoders import embed
from sciwrite.models.registry import PACKAGED_MINILM
from sciwrite.models.sentence_encoder import CachedSentenceEncoder, pooling_plan

TEXTS = ["Graph neural networks for molecules.", "Short.", "retrieval augmented generation " * 120,
         "neural network", "Short.", "  padded with spaces  "]


class Counting(CachedSentenceEncoder):
    """Counts the texts that reach the model."""

    computed: list[str]

    def _compute(self, texts, batch_size, normalize, show_progress):  # type: ignore[no-untyped-def]
        self.computed = [*getattr(self, "computed", []), *texts]
        return super()._compute(texts, batch_size, normalize, show_progress)


@pytest.fixture(scope="module")
def raw(minilm):
    return minilm.inner


def test_the_same_vectors_with_and_without_the_cache_and_none_recomputed_on_a_second_run(raw, tmp_path):
    uncached = CachedSentenceEncoder(raw, PACKAGED_MINILM, cache_dir=False, onnx=False)
    first = Counting(raw, PACKAGED_MINILM, cache_dir=tmp_path, onnx=False)
    expected = uncached.encode(TEXTS, normalize_embeddings=True)
    vectors = first.encode(TEXTS, normalize_embeddings=True)
    assert np.array_equal(vectors, expected) and vectors.dtype == np.float32
    assert sorted(first.computed) == sorted(set(TEXTS))  # each distinct text once
    assert np.array_equal(first.encode(TEXTS, normalize_embeddings=True), expected)
    first.flush()
    second = Counting(raw, PACKAGED_MINILM, cache_dir=tmp_path, onnx=False)  # as the next run would
    assert np.array_equal(second.encode(TEXTS, normalize_embeddings=True), expected)
    assert getattr(second, "computed", []) == []
    # the unnormalised vectors are other entries, equal to the library's own output
    assert np.array_equal(second.encode(TEXTS[:2]), raw.encode(TEXTS[:2], batch_size=2))
    assert second.computed == TEXTS[:2]


def test_a_changed_text_or_model_is_a_miss(raw, tmp_path):
    encoder = Counting(raw, PACKAGED_MINILM, cache_dir=tmp_path, onnx=False)
    encoder.encode(["neural network"], normalize_embeddings=True)
    encoder.encode(["neural networks"], normalize_embeddings=True)
    assert encoder.computed == ["neural network", "neural networks"]
    encoder.flush()
    changed = copy.deepcopy(raw)
    with torch.no_grad():
        changed[0].auto_model.embeddings.word_embeddings.weight[0, 0] += 1.0  # one weight of one unused token
    other = Counting(changed, PACKAGED_MINILM, cache_dir=tmp_path, onnx=False)
    assert other.namespace != encoder.namespace
    other.encode(["neural network"], normalize_embeddings=True)
    assert other.computed == ["neural network"]
    longer = copy.deepcopy(raw)
    longer.max_seq_length = 128
    assert CachedSentenceEncoder(longer, PACKAGED_MINILM, cache_dir=tmp_path, onnx=False).namespace != encoder.namespace


def test_the_namespace_names_the_backend(raw, tmp_path):
    torch_side = CachedSentenceEncoder(raw, PACKAGED_MINILM, cache_dir=tmp_path, onnx=False)
    onnx_side = CachedSentenceEncoder(raw, PACKAGED_MINILM, cache_dir=tmp_path, onnx=True)
    assert torch_side.backend.startswith("torch-cpu") and onnx_side.backend == "onnx-cpu-fp32"
    assert torch_side.namespace != onnx_side.namespace


@pytest.mark.skipif(not onnx_runtime.available(), reason="onnxruntime / onnx not installed")
def test_onnx_runtime_agrees_with_pytorch_and_embed_uses_it(raw, tmp_path):
    onnx_side = CachedSentenceEncoder(raw, PACKAGED_MINILM, cache_dir=False, onnx=True)
    expected = raw.encode(TEXTS, normalize_embeddings=True)
    got = onnx_side.encode(TEXTS, normalize_embeddings=True)
    assert np.abs(got - expected).max() < 1e-6
    assert np.abs(embed(onnx_side, TEXTS) - expected).max() < 1e-6
    assert np.abs(onnx_side.encode(TEXTS[:3]) - raw.encode(TEXTS[:3])).max() < 1e-6


def test_pooling_plan_and_pass_through(raw):
    assert pooling_plan(raw) == ("mean", True)
    assert pooling_plan(object()) is None
    wrapper = CachedSentenceEncoder(raw, PACKAGED_MINILM, cache_dir=False, onnx=False)
    assert wrapper.encode("Short.").shape == (384,)
    tensor = wrapper.encode(["Short."], convert_to_tensor=True)  # not handled here: the library's own call
    assert isinstance(tensor, torch.Tensor) and tensor.shape == (1, 384)
    assert wrapper.max_seq_length == raw.max_seq_length and len(wrapper) == len(raw)
    assert wrapper.encode([], normalize_embeddings=True).shape == (0, 384)


def test_progress_is_shown_over_the_texts_that_reach_the_model(raw, capsys):
    wrapper = CachedSentenceEncoder(raw, PACKAGED_MINILM, cache_dir=False, onnx=False)
    embed(wrapper, ["one text", "another text", "one text"], show_progress=True)
    err = capsys.readouterr().err
    assert "embedding" in err and "2/2" in err  # distinct texts


def test_onnx_runs_only_the_architectures_checked_against_torch():
    """`auto` exports BERT (MiniLM, SciBERT, BGE); Longformer, whose export fails in ONNX Runtime, stays on torch."""
    from transformers import BertConfig, BertModel, LongformerConfig, LongformerModel

    from sciwrite.models.onnx_runtime import onnx_supported

    tiny = {"vocab_size": 99, "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
            "intermediate_size": 32}
    assert onnx_supported(BertModel(BertConfig(**tiny)))
    assert not onnx_supported(LongformerModel(LongformerConfig(**tiny, attention_window=4)))
    assert not onnx_supported(object())


def test_tokenizer_fingerprint_without_a_special_tokens_map():
    """Some tokenizer classes have no special_tokens_map; their fingerprint still names their vocabulary."""
    from sciwrite.models.fingerprint import tokenizer_fingerprint

    class Plain:
        def __init__(self, vocab):
            self.vocab = vocab

        def get_vocab(self):
            return self.vocab

    assert tokenizer_fingerprint(Plain({"a": 0})) == tokenizer_fingerprint(Plain({"a": 0}))
    assert tokenizer_fingerprint(Plain({"a": 0})) != tokenizer_fingerprint(Plain({"b": 0}))
