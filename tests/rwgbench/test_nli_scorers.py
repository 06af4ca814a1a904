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


def direct_label_score(folder: str, premise: str, hypothesis: str) -> float:
    """Eq. 3's s_i: the predicted label (argmax) mapped to entailment 1, neutral 0.5, contradiction 0."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.inference_mode():
        label = int(model(**tokenizer(premise, hypothesis, return_tensors="pt")).logits[0].argmax())
    return {1: 1.0, 2: 0.5, 0: 0.0}[label]  # ENTAILMENT column 1, NEUTRAL 2, CONTRADICTION 0 in this model


def test_claim_support_consistency_matches_direct_computation(tiny_nli):
    metric = sciwrite.load_metric("claim_support_consistency")
    text = "Graph networks predict molecules [1]. Attention translates well [2, 1]. No citation here."
    results = metric.compute(predictions=[text, "none"], candidates=[["d1", "d2"], ["d1"]], corpus=CORPUS, model=tiny_nli)
    # C_g = {d1, d2}; d1 is cited in two sentences (s_d1 = their mean), d2 in one; CSC = (s_d1 + s_d2) / |C_g|
    s = {(d, h): direct_label_score(tiny_nli, CORPUS[d], h) for d, h in
         [("d1", "Graph networks predict molecules."), ("d1", "Attention translates well."),
          ("d2", "Attention translates well.")]}
    s_d1 = (s["d1", "Graph networks predict molecules."] + s["d1", "Attention translates well."]) / 2
    expected_first = (s_d1 + s["d2", "Attention translates well."]) / 2
    assert results["claim_support_consistency"] == pytest.approx((expected_first + 0.0) / 2, abs=1e-9)
    assert results["n_not_applicable"] == 0


def test_claim_support_consistency_is_not_applicable_without_candidates(tiny_nli):
    metric = sciwrite.load_metric("claim_support_consistency")
    direct = metric.compute(predictions=["Graphs [1] and attention [2]."], candidates=[[]], corpus=CORPUS,
                            model=tiny_nli)
    assert direct["claim_support_consistency"] is None and "Direct" in direct["not_applicable"]
    mixed = metric.compute(predictions=["Graph networks predict molecules [1].", "Graphs [1]."],
                           candidates=[["d1"], []], corpus=CORPUS, model=tiny_nli)
    expected = direct_label_score(tiny_nli, CORPUS["d1"], "Graph networks predict molecules.")
    assert mixed["claim_support_consistency"] == expected and mixed["n_not_applicable"] == 1


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


# --- hand-worked CSC and TRT on fake models ----------------------------------------------------------------------

class FakeNLI:
    """Probabilities (entailment, neutral, contradiction) looked up by (premise, hypothesis)."""

    def __init__(self, table):
        self.table, self.calls = table, []

    def probabilities(self, premises, hypotheses, batch_size=32):
        self.calls.append(list(zip(premises, hypotheses)))
        return np.array([self.table[p, h] for p, h in zip(premises, hypotheses)], dtype=float)


def test_claim_support_by_hand_on_a_fake_nli():
    from sciwrite.rwgbench.metrics.scorers import score_claim_support

    corpus = {"a": {"title": "Title A", "abstract": "Abstract A."}, "b": {"title": "Title B", "abstract": "Abstract B."},
              "c": {"title": "Title C", "abstract": "Abstract C."}}
    text = "X holds [1]. Y holds [1, 2]. Z holds [3]."
    nli = FakeNLI({("Abstract A.", "X holds."): (0.5, 0.4, 0.1),    # entailment -> 1 (soft would be 0.7)
                   ("Abstract A.", "Y holds."): (0.3, 0.6, 0.1),    # neutral -> 0.5
                   ("Abstract B.", "Y holds."): (0.2, 0.3, 0.5),    # contradiction -> 0
                   ("Abstract C.", "Z holds."): (0.1, 0.8, 0.1)})   # neutral -> 0.5
    rows = score_claim_support([text, text, "No marker."], [["a", "b", "c"], [], ["a"]], corpus, nli)
    # premises are the cited ABSTRACTS; s_a = (1 + 0.5) / 2, s_b = 0, s_c = 0.5; CSC = (0.75 + 0 + 0.5) / |C_g| = 3
    assert rows[0]["claim_support_consistency"] == pytest.approx(1.25 / 3)
    assert rows[0]["n_cited"] == 3 and rows[0]["n_citations"] == 4 and not rows[0]["no_candidates"]
    assert rows[1]["claim_support_consistency"] is None and rows[1]["no_candidates"]  # Direct: not applicable
    assert "Direct" in rows[1]["claim_support_consistency_not_applicable"]
    assert rows[2]["claim_support_consistency"] == 0.0 and rows[2]["empty_citation_output"]  # list, nothing cited
    assert len(nli.calls[0]) == 4  # each distinct (premise, hypothesis) once


class FakeEncoder:
    """A sentence encoder with fixed 2-d vectors (the interface `embed` uses)."""

    device = "cpu"
    max_seq_length = 16

    def __init__(self, vectors):
        self.vectors = vectors

    def tokenizer(self, texts, verbose=False):
        return {"input_ids": [[0] * len(t.split()) for t in texts]}

    def get_embedding_dimension(self):
        return 2

    def encode(self, texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False):
        out = np.array([self.vectors[t] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True) if normalize_embeddings else out


def test_topical_relevance_by_hand_on_a_fake_encoder():
    from sciwrite.rwgbench.metrics.scorers import score_topical_relevance

    corpus = {"a": {"title": "Title A", "abstract": "abs a"}, "b": {"title": "Title B", "abstract": "abs b"}}
    encoder = FakeEncoder({"target": (1.0, 0.0), "abs a": (1.0, 0.0), "abs b": (3.0, 4.0)})
    rows = score_topical_relevance(["A [1]. B [2]. A again [1].", "A [1].", "Nothing [9]."], ["target"] * 3,
                                   [["a", "b"], [], ["a"]], corpus, encoder)
    # C_g = {a, b}: cos(target, a) = 1, cos(target, b) = 3/5; TRT = (1 + 0.6) / 2 (a counted once)
    assert rows[0]["topical_relevance"] == pytest.approx(0.8)
    assert rows[1]["topical_relevance"] is None and "Direct" in rows[1]["topical_relevance_not_applicable"]
    assert rows[2]["topical_relevance"] == 0.0 and rows[2]["empty_citation_output"]
