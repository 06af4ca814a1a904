"""NLI-backed metrics on a tiny random NLI model the test builds: the real loading and scoring path, checked
against a direct computation with transformers (never a quality assertion on a random model)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import sciwrite
from sciwrite.models.nli import label_columns, load_nli
from sciwrite.models.registry import PACKAGED_MINILM, ModelUnavailableError, packaged_model_path

CORPUS = {
    "d1": "Graph neural networks for molecule property prediction.",
    "d2": "Transformers with attention for machine translation.",
    "d3": "Retrieval-augmented generation for question answering.",
}


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, num_labels=3, max_position_embeddings=128,
                        id2label={0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"},
                        label2id={"CONTRADICTION": 0, "ENTAILMENT": 1, "NEUTRAL": 2})
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)
    folder = tmp_path_factory.mktemp("tiny-nli")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def direct_soft(folder: str, premise: str, hypothesis: str) -> float:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.inference_mode():
        logits = model(**tokenizer(premise, hypothesis, return_tensors="pt")).logits
    p = torch.softmax(logits, -1)[0]
    return float(p[1] + 0.5 * p[2])  # ENTAILMENT is column 1, NEUTRAL column 2 in this model


def test_label_columns_follow_the_model_labels():
    assert label_columns({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}) == (1, 2, 0)
    assert label_columns({0: "entailment", 1: "neutral", 2: "contradiction"}) == (0, 1, 2)
    with pytest.raises(ModelUnavailableError, match="do not name"):
        label_columns({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})


def test_nli_loads_once_and_batches_like_single_calls(tiny_nli):
    nli = load_nli(tiny_nli)
    assert load_nli(tiny_nli) is nli  # loaded once per process
    premises, hypotheses = [CORPUS["d1"], CORPUS["d2"], CORPUS["d3"]], ["A sentence.", "Another one, longer.", "X"]
    batched = nli.soft_scores(premises, hypotheses, batch_size=2)
    single = [direct_soft(tiny_nli, p, h) for p, h in zip(premises, hypotheses)]
    np.testing.assert_allclose(batched, single, atol=1e-5)
    probs = nli.probabilities(premises, hypotheses)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)


def test_soft_citation_recall_matches_direct_computation(tiny_nli):
    metric = sciwrite.load_metric("soft_citation_recall")
    results = metric.compute(predictions=["Graphs [1] and attention [2]."], references=[["d2", "d3"]],
                             candidates=[["d1", "d2"]], corpus=CORPUS, model=tiny_nli)
    s = {(g, r): direct_soft(tiny_nli, CORPUS[g], CORPUS[r]) for g in ("d1", "d2") for r in ("d2", "d3")}
    expected = (max(s["d1", "d2"], s["d2", "d2"]) + max(s["d1", "d3"], s["d2", "d3"])) / 2
    assert results["soft_citation_recall"] == pytest.approx(expected, abs=1e-5)
    assert results["model"] == tiny_nli
    empty = metric.compute(predictions=["nothing [5]"], references=[["d1"]], candidates=[["d1"]], corpus=CORPUS,
                           model=tiny_nli)
    assert empty["soft_citation_recall"] == 0.0


def test_claim_support_consistency_matches_direct_computation(tiny_nli):
    metric = sciwrite.load_metric("claim_support_consistency")
    text = "Graph networks predict molecules [1]. Attention translates well [2, 1]. No citation here."
    results = metric.compute(predictions=[text, "none"], candidates=[["d1", "d2"], ["d1"]], corpus=CORPUS, model=tiny_nli)
    pairs = [(CORPUS["d1"], "Graph networks predict molecules."), (CORPUS["d2"], "Attention translates well."),
             (CORPUS["d1"], "Attention translates well.")]
    expected_first = sum(direct_soft(tiny_nli, p, h) for p, h in pairs) / 3
    assert results["claim_support_consistency"] == pytest.approx((expected_first + 0.0) / 2, abs=1e-5)


def test_lite_profile_reports_not_computed_with_the_model_it_needs():
    for name, key in (("soft_citation_recall", "soft_citation_recall"), ("claim_support_consistency", "claim_support_consistency")):
        metric = sciwrite.load_metric(name)
        kwargs = {"references": [["d1"]]} if name == "soft_citation_recall" else {}
        results = metric.compute(predictions=["A [1]."], candidates=[["d1"]], corpus=CORPUS, profile="lite", **kwargs)
        assert results[key] is None
        assert "MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli" in results["not_computed"]


def test_a_named_model_that_cannot_load_is_an_error(tmp_path):
    metric = sciwrite.load_metric("claim_support_consistency")
    with pytest.raises(ModelUnavailableError, match="cannot load the NLI model"):
        metric.compute(predictions=["A [1]."], candidates=[["d1"]], corpus=CORPUS, model=str(tmp_path / "missing"))
