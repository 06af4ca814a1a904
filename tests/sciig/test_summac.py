"""SummaC-ZS: a case worked by hand with a stub NLI model (exact score, one deduplicated call), the real code path
on a tiny random NLI model checked against transformers directly (never a quality assertion), labels, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import sciwrite
from sciwrite.models.nli import load_summac_nli, summac_label_columns, summac_nli_for_profile
from sciwrite.models.registry import PACKAGED_MINILM, ModelUnavailableError, packaged_model_path, resolve_model
from sciwrite.sciig.metrics.model_roles import SUMMAC_NLI
from sciwrite.sciig.metrics.summac import score_summac, summac_zs_batch, summac_zs_score

A, B = "Graph networks predict molecules.", "They need labelled data."
X, Y = "Graph networks work on molecules.", "They need no data at all."
# (premise, hypothesis) -> P(entailment, neutral, contradiction)
TABLE = {
    (A, X): (0.9, 0.05, 0.05),  # e - c = 0.85
    (B, X): (0.2, 0.3, 0.5),  # -0.3
    (A, Y): (0.1, 0.2, 0.7),  # -0.6
    (B, Y): (0.3, 0.6, 0.1),  # 0.2
}


class StubNLI:
    """Returns fixed probabilities per pair and records every call."""

    model_id = "stub-nli"

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def probabilities(self, premises, hypotheses, batch_size=32):
        self.calls.append(list(zip(premises, hypotheses)))
        return np.array([TABLE[p, h] for p, h in zip(premises, hypotheses)], dtype=np.float32)


def test_summac_zs_by_hand():
    # generated sentence X: max(0.85, -0.3) = 0.85; Y: max(-0.6, 0.2) = 0.2; mean (0.85 + 0.2) / 2 = 0.525
    nli = StubNLI()
    [result] = summac_zs_batch([(f"{A} {B}", f"{X} {Y}")], nli)
    assert result["score"] == pytest.approx(0.525)
    assert result["sentence_scores"] == pytest.approx([0.85, 0.2])
    assert result["best_source_sentence"] == [0, 1]
    assert (result["source_sentences"], result["generated_sentences"]) == (2, 2)
    matrix = np.array([[TABLE[A, X], TABLE[A, Y]], [TABLE[B, X], TABLE[B, Y]]])
    assert summac_zs_score(matrix)[0] == pytest.approx(0.525)


def test_faithfulness_and_consistency_share_one_deduplicated_call():
    nli = StubNLI()
    rows = score_summac([f"{X} {Y}", X], [f"{A} {B}", B], ["", ""], [f"{A} {B}", A], nli)
    assert len(nli.calls) == 1 and sorted(nli.calls[0]) == sorted(TABLE)  # 4 distinct pairs, each sent once
    assert rows[0]["summac_faithfulness"] == pytest.approx(0.525)
    assert rows[0]["summac_consistency"] == pytest.approx(0.525)
    assert rows[1]["summac_faithfulness"] == pytest.approx(0.85)  # X against A alone
    assert rows[1]["summac_consistency"] == pytest.approx(-0.3)  # X against B alone
    assert rows[0]["faithfulness_sentence_scores"] == pytest.approx([0.85, 0.2])


def test_title_is_a_source_sentence():
    nli = StubNLI()
    [row] = score_summac([X], [A], [A], [B], nli)  # source = title A + abstract B
    assert row["summac_faithfulness"] == pytest.approx(0.85)


def test_faithfulness_source_holds_the_cited_papers():
    """§4.2: faithfulness against "title, abstract, and cited papers": a cited work's sentence is a premise too."""
    nli = StubNLI()
    [without] = score_summac([Y], [A], [""], [A], nli)  # Y against A alone: -0.6
    [row] = score_summac([Y], [A], [""], [A], nli, cited=[[B]])  # B, a cited work, supports Y: 0.2
    assert without["summac_faithfulness"] == pytest.approx(-0.6)
    assert row["summac_faithfulness"] == pytest.approx(0.2) and row["summac_consistency"] == pytest.approx(-0.6)
    with pytest.raises(ValueError, match="cited .* must have the same length"):
        score_summac([Y], [A], [""], [A], nli, cited=[])


@pytest.fixture(scope="module")
def tiny_vitc(tmp_path_factory):
    """A tiny random ALBERT classifier labelled like VitaminC checkpoints (SUPPORTS / REFUTES / NOT ENOUGH INFO)."""
    from transformers import AlbertConfig, AlbertForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    labels = {0: "SUPPORTS", 1: "REFUTES", 2: "NOT ENOUGH INFO"}
    config = AlbertConfig(vocab_size=tokenizer.vocab_size, embedding_size=16, hidden_size=32, num_hidden_layers=2,
                          num_attention_heads=2, intermediate_size=64, max_position_embeddings=128, num_labels=3,
                          id2label=labels, label2id={v: k for k, v in labels.items()})
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-vitc")
    AlbertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_real_code_path_on_a_tiny_random_model(tiny_vitc):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    nli = load_summac_nli(tiny_vitc)
    assert load_summac_nli(tiny_vitc) is nli and nli.columns == (0, 2, 1)
    [result] = summac_zs_batch([(f"{A} {B}", f"{X} {Y}")], nli)
    tokenizer = AutoTokenizer.from_pretrained(tiny_vitc)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_vitc).eval()

    def e_minus_c(premise: str, hypothesis: str) -> float:
        with torch.inference_mode():
            p = torch.softmax(model(**tokenizer(premise, hypothesis, return_tensors="pt")).logits, -1)[0]
        return float(p[0] - p[1])  # SUPPORTS - REFUTES

    expected = np.mean([max(e_minus_c(A, h), e_minus_c(B, h)) for h in (X, Y)])
    assert result["score"] == pytest.approx(expected, abs=1e-5)
    metric = sciwrite.load_metric("sciig_summac")
    results = metric.compute(predictions=[f"{X} {Y}"], references=[f"{A} {B}"], abstracts=[f"{A} {B}"],
                             model=tiny_vitc)
    assert results["summac_faithfulness"] == pytest.approx(expected, abs=1e-5)
    assert results["summac_consistency"] == pytest.approx(expected, abs=1e-5)
    assert results["model"] == tiny_vitc and -1.0 <= expected <= 1.0


def test_label_columns():
    assert summac_label_columns({0: "entailment", 1: "neutral", 2: "contradiction"}) == (0, 1, 2)
    assert summac_label_columns({0: "SUPPORTS", 1: "REFUTES", 2: "NOT ENOUGH INFO"}) == (0, 2, 1)
    generic = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    assert summac_label_columns(generic, "tals/albert-xlarge-vitaminc-mnli") == (0, 2, 1)
    with pytest.raises(ModelUnavailableError, match="name no entailment"):
        summac_label_columns(generic, "someone/else")


def test_lite_profile_is_not_computed_naming_the_model():
    assert resolve_model(SUMMAC_NLI, profile="paper") == "tals/albert-xlarge-vitaminc-mnli"
    assert summac_nli_for_profile(SUMMAC_NLI, profile="lite")[0] is None
    metric = sciwrite.load_metric("sciig_summac")
    results = metric.compute(predictions=["a"], references=["b"], abstracts=["c"], profile="lite")
    assert results["summac_faithfulness"] is None and results["summac_consistency"] is None
    assert "tals/albert-xlarge-vitaminc-mnli" in results["not_computed"]


def test_a_named_model_that_cannot_load_is_an_error(tmp_path):
    metric = sciwrite.load_metric("sciig_summac")
    with pytest.raises(ModelUnavailableError, match="cannot load the SummaC NLI model"):
        metric.compute(predictions=["a"], references=["b"], abstracts=["c"], model=str(tmp_path / "missing"))


@pytest.mark.parametrize("args, message", [
    (([""], [A], None, [B]), "record 0: field 'predictions' is empty"),
    ((["w " * 30_000], [A], None, [B]), "record 0: field 'predictions' has 30000 words"),
    (([X, Y], [A], None, [B, B]), r"predictions \(2\), references \(1\), abstracts \(2\) must have the same length"),
    (([X], [A], None, [" "]), "record 0: field 'abstracts' is empty"),
])
def test_bad_input_names_the_field(args, message):
    nli = StubNLI()
    with pytest.raises(ValueError, match=message):
        score_summac(*args, nli)
    assert nli.calls == []
