"""SciIG semantic metrics and perplexity: whole-text BERTScore, the BLEURT loader on a tiny random checkpoint in the
port's format, contextual relevance by hand on the packaged MiniLM, strided GPT-2 perplexity on a tiny random GPT-2
(never a quality assertion on a random model)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

import sciwrite
from sciwrite.models.registry import PACKAGED_MINILM, packaged_model_path

SENTENCES = ["Graph neural networks learn molecular properties from atoms and bonds.",
             "Transformers with attention dominate machine translation and summarization.",
             "We propose a retrieval augmented model for question answering over papers."]
LONG = " ".join(SENTENCES * 40)  # ~450 words: several windows for every model here


# --- BERTScore -------------------------------------------------------------------------------------------------

def test_bertscore_scores_long_introductions_whole():
    from sciwrite.sciig.metrics.bertscore import (
        sciig_bertscore_encoder,
        score_sciig_bertscore,
    )

    encoder = sciig_bertscore_encoder(profile="lite")
    assert len(encoder.windows(LONG)) > 1
    rows = score_sciig_bertscore([LONG, "", LONG + " Bread rises overnight in a warm kitchen." * 30], [LONG, LONG, LONG], encoder)
    assert rows[0]["bertscore_f1"] == pytest.approx(1.0, abs=1e-5)
    assert rows[1] == {"bertscore_precision": 0.0, "bertscore_recall": 0.0, "bertscore_f1": 0.0}
    assert rows[2]["bertscore_precision"] < 0.95  # the text past the first window counts
    results = sciwrite.load_metric("sciig_bertscore").compute(predictions=[LONG], references=[LONG], profile="lite")
    assert results["bertscore_f1"] == pytest.approx(1.0, abs=1e-5) and results["model"] == PACKAGED_MINILM


# --- BLEURT ----------------------------------------------------------------------------------------------------

def to_port_name(key: str) -> str:
    """Inverse of `port_key`: how lucadiliello's BLEURT port names a `BleurtRegressor` weight."""
    if key.startswith("bert.embeddings.projection."):
        return key.replace("bert.embeddings.projection.", "bleurt.encoder.embedding_projection.")
    return "bleurt." + key.removeprefix("bert.") if key.startswith("bert.") else key


@pytest.fixture(scope="module")
def tiny_bleurt(tmp_path_factory):
    """A random BLEURT checkpoint in the port's format: config.json (model_type bleurt, factorised embeddings),
    pytorch_model.bin with `bleurt.*` names, and a SentencePiece spm.model with BLEURT's special pieces."""
    import sentencepiece

    from sciwrite.models.bleurt import BleurtRegressor

    folder = tmp_path_factory.mktemp("tiny-bleurt")
    (folder / "corpus.txt").write_text("\n".join(SENTENCES * 20))
    sentencepiece.SentencePieceTrainer.train(
        input=str(folder / "corpus.txt"), model_prefix=str(folder / "spm"), vocab_size=60, pad_id=0, pad_piece="[PAD]",
        unk_id=1, unk_piece="[UNK]", bos_id=-1, eos_id=-1, user_defined_symbols=["[CLS]", "[SEP]", "[MASK]"], minloglevel=2)
    config = {"model_type": "bleurt", "vocab_size": 60, "embedding_size": 16, "hidden_size": 32, "num_hidden_layers": 2,
              "num_attention_heads": 2, "intermediate_size": 64, "hidden_act": "gelu", "max_position_embeddings": 512,
              "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0}
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": False}))
    torch.manual_seed(0)
    state = {to_port_name(k): v for k, v in BleurtRegressor(config).state_dict().items()}
    state["bleurt.embeddings.position_ids"] = torch.arange(512).unsqueeze(0)  # the port saves this buffer too
    torch.save(state, folder / "pytorch_model.bin")
    return str(folder)


def test_bleurt_loader_maps_every_port_weight(tiny_bleurt):
    from pathlib import Path

    from sciwrite.models.bleurt import load_bleurt

    bleurt = load_bleurt(tiny_bleurt)
    assert load_bleurt(tiny_bleurt) is bleurt  # loaded once
    saved = torch.load(Path(tiny_bleurt) / "pytorch_model.bin", weights_only=True)
    params = bleurt.model.state_dict()
    assert torch.equal(params["bert.embeddings.projection.weight"], saved["bleurt.encoder.embedding_projection.weight"])
    assert torch.equal(params["classifier.weight"], saved["classifier.weight"])
    assert torch.equal(params["bert.encoder.layer.1.output.dense.weight"], saved["bleurt.encoder.layer.1.output.dense.weight"])
    # factorised embeddings by hand: LayerNorm(word + position + type) of size 16, projected to 32
    ids = torch.tensor([[2, 7, 9, 3]])
    emb = bleurt.model.bert.embeddings
    by_hand = torch.nn.functional.layer_norm(
        saved["bleurt.embeddings.word_embeddings.weight"][ids] + saved["bleurt.embeddings.position_embeddings.weight"][:4]
        + saved["bleurt.embeddings.token_type_embeddings.weight"][0], (16,),
        saved["bleurt.embeddings.LayerNorm.weight"], saved["bleurt.embeddings.LayerNorm.bias"], 1e-12)
    by_hand = by_hand @ saved["bleurt.encoder.embedding_projection.weight"].T + saved["bleurt.encoder.embedding_projection.bias"]
    with torch.inference_mode():
        torch.testing.assert_close(emb(input_ids=ids), by_hand)


def test_bleurt_scores_pairs_and_long_texts(tiny_bleurt):
    import sentencepiece

    from sciwrite.models.bleurt import bleurt_windows, load_bleurt
    from sciwrite.sciig.metrics.bleurt import score_bleurt

    bleurt = load_bleurt(tiny_bleurt)
    sp = sentencepiece.SentencePieceProcessor(model_file=f"{tiny_bleurt}/spm.model")
    cls, sep = sp.piece_to_id("[CLS]"), sp.piece_to_id("[SEP]")
    ref, cand = SENTENCES[0], SENTENCES[1]
    ids = [cls, *sp.encode(ref), sep, *sp.encode(cand), sep]
    types = [0] * (len(sp.encode(ref)) + 2) + [1] * (len(sp.encode(cand)) + 1)
    with torch.inference_mode():
        direct = float(bleurt.model(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                    token_type_ids=torch.tensor([types]))[0])
    rows = score_bleurt([cand, SENTENCES[2], ""], [ref, ref, ref], bleurt, batch_size=2)
    assert rows[0] == {"bleurt": pytest.approx(direct, abs=1e-5), "windows": 1}  # batched with padding == alone
    long_rows = score_bleurt([LONG, LONG + " " + LONG], [LONG, SENTENCES[0]], bleurt)
    assert all(r["windows"] > 1 and math.isfinite(r["bleurt"]) for r in long_rows)
    pieces = bleurt_windows(list(range(1000)), list(range(300)), 512)
    assert [len(r) + len(c) + 3 <= 512 for r, c in pieces] == [True] * len(pieces)
    assert sum(len(r) for r, _ in pieces) == 1000 and sum(len(c) for _, c in pieces) == 300  # nothing dropped
    results = sciwrite.load_metric("sciig_bleurt").compute(predictions=[cand], references=[ref], model=tiny_bleurt)
    assert results["bleurt"] == pytest.approx(direct, abs=1e-5) and results["model"] == tiny_bleurt


def test_bleurt_not_computed_offline_and_bad_checkpoint(tmp_path):
    from sciwrite.models.bleurt import load_bleurt
    from sciwrite.models.registry import ModelUnavailableError

    results = sciwrite.load_metric("sciig_bleurt").compute(predictions=["a"], references=["a"], profile="lite")
    assert results["bleurt"] is None and "lucadiliello/BLEURT-20-D12" in results["not_computed"]
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(ModelUnavailableError, match="not a BLEURT checkpoint"):
        load_bleurt(str(tmp_path))


# --- contextual relevance --------------------------------------------------------------------------------------

def test_contextual_relevance_by_hand(minilm):
    from sciwrite.models.encoders import contextual_encoder_for_profile
    from sciwrite.sciig.metrics.contextual_relevance import score_contextual_relevance
    from sciwrite.sciig.metrics.model_roles import CONTEXTUAL_ENCODER

    encoder, _ = contextual_encoder_for_profile(CONTEXTUAL_ENCODER, profile="lite")
    title, abstract, cited = "Graph networks for molecules", SENTENCES[0], [SENTENCES[1], SENTENCES[2], ""]
    generated = "Molecules are modelled with graph neural networks."
    rows = score_contextual_relevance([generated, title, ""], [title, title, title], [abstract] * 3, [cited, [], cited], encoder)
    v = minilm.encode([generated, title, abstract, *cited[:2]], normalize_embeddings=True)
    assert rows[0]["contextual_relevance"] == pytest.approx(float(np.mean(v[1:] @ v[0])), abs=1e-4)
    assert rows[0]["n_sources"] == 4  # the empty cited abstract is skipped
    assert rows[1]["contextual_relevance"] == pytest.approx((1.0 + float(v[1] @ v[2])) / 2, abs=1e-4)
    assert rows[2] == {"contextual_relevance": 0.0, "n_sources": 4}  # empty generation
    results = sciwrite.load_metric("contextual_relevance").compute(
        predictions=[LONG], titles=[""], abstracts=[LONG], cited_abstracts=[[LONG]], profile="lite")
    assert results["contextual_relevance"] == pytest.approx(1.0, abs=1e-5)


def test_long_texts_are_embedded_window_by_window(minilm):
    from sciwrite.models.encoders import contextual_encoder_for_profile
    from sciwrite.sciig.metrics.contextual_relevance import long_text_embeddings, text_windows
    from sciwrite.sciig.metrics.model_roles import CONTEXTUAL_ENCODER

    encoder, _ = contextual_encoder_for_profile(CONTEXTUAL_ENCODER, profile="lite")
    windows = text_windows(encoder, LONG)
    n_tokens = len(encoder.tokenizer(LONG, add_special_tokens=False)["input_ids"])
    assert len(windows) > 1 and sum(n for _, n in windows) == n_tokens and max(n for _, n in windows) == 254
    vectors = minilm.encode([w for w, _ in windows], normalize_embeddings=True)
    expected = sum(n * v for (_, n), v in zip(windows, vectors))
    np.testing.assert_allclose(long_text_embeddings(encoder, [LONG])[0], expected / np.linalg.norm(expected), atol=1e-4)


def test_contextual_relevance_bad_input():
    from sciwrite.sciig.metrics.contextual_relevance import check_sources

    with pytest.raises(ValueError, match=r"cited_abstracts \(1\) must have the same length"):
        check_sources(["a", "b"], ["t", "t"], ["a", "a"], [[]])
    with pytest.raises(ValueError, match="record 0: field 'cited_abstracts' must be a list of strings"):
        check_sources(["a"], ["t"], ["a"], ["one string"])
    with pytest.raises(ValueError, match="record 0: field 'abstracts' is empty"):
        check_sources(["a"], ["t"], [""], [[]])


# --- perplexity ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory):
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    config = GPT2Config(vocab_size=tokenizer.vocab_size, n_positions=64, n_embd=32, n_layer=2, n_head=2)
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-gpt2")
    GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def guide_perplexity(folder: str, text: str, stride: int) -> float:
    """The transformers perplexity guide's loop, one window at a time, written out independently."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = AutoTokenizer.from_pretrained(folder)(text, add_special_tokens=False, return_tensors="pt").input_ids
    total, count, prev_end = 0.0, 0, 0
    for begin in range(0, ids.size(1), stride):
        end = min(begin + 64, ids.size(1))
        target = ids[:, begin:end].clone()
        target[:, :-(end - prev_end)] = -100
        with torch.inference_mode():
            loss = model(ids[:, begin:end], labels=target).loss
        n = int((target[:, 1:] != -100).sum())
        total, count, prev_end = total + float(loss) * n, count + n, end
        if end == ids.size(1):
            break
    return math.exp(total / count)


def test_perplexity_matches_direct_and_strided_computation(tiny_gpt2):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from sciwrite.models.causal_lm import load_causal_lm
    from sciwrite.sciig.metrics.perplexity import score_perplexity

    lm = load_causal_lm(tiny_gpt2)
    assert lm.max_length == 64 and load_causal_lm(tiny_gpt2) is lm
    short = SENTENCES[0]
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    ids = AutoTokenizer.from_pretrained(tiny_gpt2)(short, add_special_tokens=False, return_tensors="pt").input_ids
    with torch.inference_mode():
        direct = math.exp(float(model(ids, labels=ids).loss))
    for stride in (8, 32, 64):  # fits one window: every stride gives the full-context value
        assert score_perplexity([short], lm, stride)[0]["perplexity"] == pytest.approx(direct, rel=1e-5)
    long = " ".join(SENTENCES * 4)  # ~ 150 tokens: several windows
    rows = score_perplexity([long, short, long], lm, stride=24, batch_size=2)
    assert rows[0]["perplexity"] == pytest.approx(guide_perplexity(tiny_gpt2, long, 24), rel=1e-5)
    assert rows[0]["n_tokens"] == len(lm.tokenizer(long, add_special_tokens=False)["input_ids"]) - 1
    assert rows[1]["perplexity"] == pytest.approx(direct, rel=1e-5) and rows[2] == rows[0]
    results = sciwrite.load_metric("perplexity").compute(predictions=[short, ""], model=tiny_gpt2)
    assert results["perplexity"] == pytest.approx(direct, rel=1e-5) and results["unscored"] == 1


@pytest.mark.slow  # tens of seconds on 2 cores; `make test` leaves it out, `make test-slow` runs it
def test_perplexity_empty_huge_and_offline(tiny_gpt2):
    from sciwrite.models.causal_lm import load_causal_lm
    from sciwrite.sciig.metrics.perplexity import score_perplexity

    lm = load_causal_lm(tiny_gpt2)
    huge = " ".join(["graph"] * 6_000)  # ~95 windows of the tiny model's 64 positions
    rows = score_perplexity(["", huge], lm, stride=63)  # one token of overlap: few windows, yet every token scored
    assert rows[0] == {"perplexity": None, "n_tokens": 0}
    assert rows[1]["n_tokens"] == 5_999 and math.isfinite(rows[1]["perplexity"])  # every token scored, none cut
    results = sciwrite.load_metric("perplexity").compute(predictions=["a"], profile="lite")
    assert results["perplexity"] is None and "gpt2" in results["not_computed"]
    with pytest.raises(ValueError, match="record 0: field 'predictions' must be a string"):
        score_perplexity([3], lm)


def test_sciig_bertscore_is_bert_score_default_english_model():
    """SciIG names no BERTScore model; its Table 2 scale is bert_score's English default (roberta-large, layer 17),
    not SciBERT, which RWGBench names. `scibert=X` is still read as SciIG's BERTScore model."""
    from bert_score.utils import lang2model, model2layers

    from sciwrite.models.plan import resolve_plan
    from sciwrite.rwgbench.metrics.model_roles import SCIBERT
    from sciwrite.sciig.benchmark import SCIIG
    from sciwrite.sciig.metrics.model_roles import BERTSCORE

    assert BERTSCORE.defaults["paper"] == lang2model["en"] == "roberta-large"
    assert model2layers["roberta-large"] == 17  # the layer load_token_encoder takes for it
    assert SCIBERT.defaults["paper"] == "allenai/scibert_scivocab_uncased"  # RWGBench keeps SciBERT
    assert "bertscore" in SCIIG.suite.model_roles and "scibert" not in SCIIG.suite.model_roles
    assert resolve_plan([BERTSCORE], "lite").choices["bertscore"].model_id == "packaged:all-MiniLM-L6-v2"
