"""Text quality: ROUGE-L through rouge_score, and whole-text BERTScore checked against the bert_score library."""

from __future__ import annotations

import pytest

import sciwrite
from sciwrite.metrics.bertscore import bertscore
from sciwrite.models.registry import PACKAGED_MINILM, packaged_model_path
from sciwrite.models.token_encoder import load_token_encoder

CANDIDATES = ["Graph neural networks were applied to molecules.", "Transformers dominate translation today."]
REFERENCES = ["Molecules have been modelled with graph networks.",
              "Attention models are the state of the art in machine translation."]


@pytest.fixture(scope="module")
def encoder():
    return load_token_encoder(PACKAGED_MINILM, 6)


def test_bertscore_equals_the_bert_score_library_within_one_window(encoder):
    import bert_score

    precision, recall, f1 = bert_score.score(CANDIDATES, REFERENCES, model_type=packaged_model_path(PACKAGED_MINILM),
                                             num_layers=6, idf=False, device="cpu")
    ours = bertscore(CANDIDATES, REFERENCES, encoder)
    for i, (p, r, f) in enumerate(ours):
        assert (p, r, f) == pytest.approx((float(precision[i]), float(recall[i]), float(f1[i])), abs=1e-5)


def test_long_texts_are_scored_whole_not_truncated(encoder):
    sentence = "Graph neural networks were applied to molecules and proteins in many studies. "
    long_text = sentence * 80  # about 1,000 word pieces: two windows
    vectors, content = encoder.token_embeddings(long_text)
    n_tokens = len(encoder.tokenizer(long_text, add_special_tokens=False)["input_ids"])
    assert n_tokens > encoder.window and int(content.sum()) == n_tokens
    assert bertscore([long_text], [long_text], encoder)[0] == pytest.approx((1.0, 1.0, 1.0), abs=1e-5)
    # the part past the first window counts: appending unrelated text lowers precision
    extra = " ".join(["Bread dough rises in a warm kitchen overnight."] * 60)
    precision, recall, _ = bertscore([long_text + " " + extra], [long_text], encoder)[0]
    # recall stays (almost) 1: only the last window's few reference tokens see new context
    assert precision < 0.95 and recall > 0.99


def test_empty_text_scores_zero(encoder):
    assert bertscore([""], ["Some reference."], encoder) == [(0.0, 0.0, 0.0)]


def test_module_by_hand_and_reference_against_itself():
    from rouge_score import rouge_scorer

    metric = sciwrite.load_metric("rwg_text_quality")
    generated = "Graph networks [1] model molecules. Attention [2, 3] helps."
    published = "Graph networks model molecules well [4]. Attention mechanisms help translation [5]."
    results = metric.compute(predictions=[generated, published], references=[published, published], profile="lite")
    expected_rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True).score(
        "Graph networks model molecules well. Attention mechanisms help translation.",
        "Graph networks model molecules. Attention helps.")["rougeL"].fmeasure
    assert results["rougeL"] == pytest.approx((expected_rouge + 1.0) / 2)
    assert 0.0 < results["bertscore_f1"] < 1.0
    assert results["model"] == PACKAGED_MINILM and results["layer"] == 6
    same = metric.compute(predictions=[published], references=[published], profile="lite")
    assert same["rougeL"] == 1.0 and same["bertscore_f1"] == pytest.approx(1.0, abs=1e-5)


def test_bertscore_shows_progress_over_the_windows(encoder, capsys):
    bertscore(["A generated sentence."], ["A reference sentence."], encoder, show_progress=True)
    assert "BERTScore windows" in capsys.readouterr().err
