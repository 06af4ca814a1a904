"""QA-based (Q²-style) faithfulness and consistency: answer normalisation, token F1 and span rules worked by hand;
the scoring logic on a fake QG / QA pair with hand-computed scores; the real code path on tiny random T5 and BERT
QA models the test builds (shapes, ranges, determinism, strided windows; never a quality assertion); the suite's
lite profile and bad records."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

import sciwrite
from sciwrite.models.qa import QAModels, load_extractive_qa, load_question_generator, qa_models_for_profile
from sciwrite.models.registry import PACKAGED_MINILM, packaged_model_path
from sciwrite.sciig.metrics.model_roles import QA_ROLES
from sciwrite.sciig.metrics.qa import (
    answer_score,
    candidate_spans,
    normalize_answer,
    score_qa,
    sentence_spans,
    token_f1,
)
from sciwrite.sciig.metrics.suite import (
    STAGES,
    SUITE_METRICS,
    SciIGModels,
    load_sciig_models,
    score_sciig,
)

QG_ID, QA_ID = "mrm8488/t5-base-finetuned-question-generation-ap", "deepset/roberta-base-squad2"


# ---------------------------------------------------------------------------------------------- pure helpers


def test_normalize_answer_like_squad():
    assert normalize_answer("The  Graph-Networks!") == "graphnetworks"  # article, punctuation, spaces
    assert normalize_answer("an Apple a day") == "apple day"
    assert normalize_answer("  the. ") == ""


@pytest.mark.parametrize(("prediction", "gold", "expected"), [
    ("graph neural network", "a neural network model", 2 / 3),  # 2 shared of 3 and of 3
    ("neural networks", "neural network", 0.5),  # 'networks' != 'network': 1 of 2 each side
    ("graph model", "graph neural model", 0.8),  # P 2/2, R 2/3 -> 2 * (2/3) / (5/3)
    ("the the cat", "cat cat", 2 / 3),  # articles go first: 'cat' vs 'cat cat', common 1: P 1, R 1/2
    ("x", "y", 0.0),
    ("the", "a", 1.0),  # both normalise to nothing
])
def test_token_f1_by_hand(prediction, gold, expected):
    assert token_f1(prediction, gold) == pytest.approx(expected)


def test_answer_score_by_hand():
    assert answer_score("", "QM9") == 0.0  # unanswerable
    assert answer_score("the", "a") == 0.0  # an answer that normalises to nothing is no answer
    assert answer_score("The QM9.", "QM9") == 1.0  # exact after normalisation
    assert answer_score("graph model", "graph neural model") == pytest.approx(0.8)


def test_span_rule_by_hand():
    text = ("We propose GraphFormer, a graph neural network for molecule property prediction (Smith et al., 2020). "
            "It improves accuracy by 25% on QM9. Transformers are popular.")
    assert [s for s, _ in candidate_spans(text)] == [
        "propose GraphFormer", "graph neural network", "molecule property prediction",  # citation left out
        "improves accuracy", "25%", "QM9"]  # 'Transformers' opens its sentence; 'popular' is a lone lower-case word
    assert sentence_spans("one two three four five six") == ["three four five six"]  # the tail of a long run
    # a lone capitalised first word is not kept; names are; the comma ends a run
    assert sentence_spans("Results on ImageNet and CIFAR-10, with BERT.") == ["ImageNet", "CIFAR-10", "BERT"]
    # more spans than allowed: evenly spread (indices 0, 2 of 5)
    five = "Alpha beta. Gamma delta. Epsilon zeta. Eta theta. Iota kappa."
    assert [s for s, _ in candidate_spans(five, max_spans=2)] == ["Alpha beta", "Epsilon zeta"]
    assert candidate_spans("We did it.") == []


# ---------------------------------------------------------------------------------------------- fake models

GEN = "We use GraphFormer on QM9. It reaches 25% gains."
SOURCE_TITLE, SOURCE_ABSTRACT = "GraphFormer", "A model for molecules."
SOURCE = "GraphFormer\n\nA model for molecules."
REFERENCE = "We use GraphFormer. Results on the QM9 data."
# context -> question -> answer; a question absent from a context gets no answer
ANSWERS = {
    GEN: {"Q[use GraphFormer]": "use GraphFormer", "Q[QM9]": "QM9.", "Q[reaches 25% gains]": "25%"},
    SOURCE: {"Q[use GraphFormer]": "GraphFormer", "Q[reaches 25% gains]": "25% gains"},
    REFERENCE: {"Q[use GraphFormer]": "we use GraphFormer", "Q[QM9]": "the QM9"},
}


class FakeQG:
    def __init__(self):
        self.calls = []

    def generate(self, inputs, batch_size=32):
        self.calls.append(list(inputs))
        return [f"Q[{re.match(r'answer: (.*?)  context: ', x).group(1)}]" for x in inputs]


class FakeQA:
    def __init__(self):
        self.calls = []

    def answer(self, questions, contexts, batch_size=32):
        self.calls.append(list(zip(questions, contexts)))
        return [{"answer": ANSWERS.get(c, {}).get(q, "")} for q, c in zip(questions, contexts)]


class FakeEncoder:
    """BERTScore by hand: each lower-cased word token is a one-hot vector, so a token matches only itself."""

    vocab: dict[str, int] = {}

    def token_embeddings_many(self, texts, batch_size=16, show_progress=False):
        out = []
        for text in texts:
            words = re.findall(r"\w+", text.lower())
            vectors = np.zeros((len(words), 256))
            for row, word in enumerate(words):
                vectors[row, self.vocab.setdefault(word, len(self.vocab))] = 1.0
            out.append((vectors, np.ones(len(words), dtype=bool)))
        return out


def fake_models():
    return QAModels(FakeQG(), FakeQA(), {"question_generation": "fake-qg", "question_answering": "fake-qa"},
                    FakeEncoder())


def bertscore_f1(candidate_tokens, matched, reference_tokens=9):
    """BERTScore F1 with one-hot tokens: `matched` candidate tokens occur in G (9 tokens: we use graphformer on
    qm9 it reaches 25 gains), and cover as many of G's tokens."""
    if not candidate_tokens:
        return 0.0
    p, r = matched / candidate_tokens, matched / reference_tokens
    return 2 * p * r / (p + r) if p + r else 0.0


def test_bertscore_by_hand():
    assert bertscore_f1(1, 1) == pytest.approx(0.2)  # 'GraphFormer': P 1, R 1/9
    assert bertscore_f1(2, 2) == pytest.approx(4 / 11)  # '25% gains': P 1, R 2/9
    assert bertscore_f1(3, 3) == pytest.approx(0.5)  # 'we use GraphFormer': P 1, R 3/9
    assert bertscore_f1(2, 1) == pytest.approx(2 / 11)  # 'the QM9': 'the' is not in G: P 1/2, R 1/9


def test_appendix_a_scores_by_hand():
    """Appendix A: mean over ALL K questions of BERTScore(a_k, G), no validation filter."""
    models = fake_models()
    [row] = score_qa([GEN], [REFERENCE], [SOURCE_TITLE], [SOURCE_ABSTRACT], models)
    # answers over C = title + abstract: 'GraphFormer', none, '25% gains'
    assert row["qa_faithfulness"] == pytest.approx((0.2 + 0.0 + 4 / 11) / 3)
    # answers over the reference introduction: 'we use GraphFormer', 'the QM9', none
    assert row["qa_consistency"] == pytest.approx((0.5 + 2 / 11 + 0.0) / 3)
    # the separately named token-F1 variant: answers against their spans
    assert row["qa_faithfulness_f1"] == pytest.approx((2 / 3 + 0 + 0.8) / 3)
    assert row["qa_consistency_f1"] == pytest.approx((0.8 + 1 + 0) / 3)
    assert row["qa_questions"] == 3 and [i["faithfulness_bertscore"] for i in row["qa_items"]] == \
        pytest.approx([0.2, 0.0, 4 / 11])


def test_faithfulness_context_holds_the_cited_works():
    cited = [["Smith et al., 2020: QM9 benchmark. A dataset."]]
    models = fake_models()
    [row] = score_qa([GEN], [REFERENCE], [SOURCE_TITLE], [SOURCE_ABSTRACT], models, cited=cited)
    contexts = {c for q, c in models.qa.calls[-1]}
    assert SOURCE + "\n\nSmith et al., 2020: QM9 benchmark. A dataset." in contexts and REFERENCE in contexts
    assert row["qa_faithfulness"] == 0.0  # the fake QA knows no answer over that longer context


def test_scores_by_hand_with_validation():
    models = fake_models()
    rows = score_qa([GEN, "We did it."], [REFERENCE, REFERENCE], [SOURCE_TITLE, SOURCE_TITLE],
                    [SOURCE_ABSTRACT, SOURCE_ABSTRACT], models, validate_questions=True)
    # spans: 'use GraphFormer', 'QM9', 'reaches 25% gains'; the third validates to '25%' only: dropped
    # faithfulness: BERTScore('GraphFormer', G) 0.2; QM9 unanswered 0 -> 0.1
    # consistency: 'we use GraphFormer' 0.5; 'the QM9' 2/11
    first, second = rows
    assert first["qa_faithfulness"] == pytest.approx(0.1)
    assert first["qa_consistency"] == pytest.approx((0.5 + 2 / 11) / 2)
    assert first["qa_faithfulness_f1"] == pytest.approx(1 / 3) and first["qa_consistency_f1"] == pytest.approx(0.9)
    assert (first["qa_spans"], first["qa_questions"], first["qa_reason"]) == (3, 2, None)
    items = first["qa_items"]
    assert [i["span"] for i in items] == ["use GraphFormer", "QM9", "reaches 25% gains"]
    assert [i["valid"] for i in items] == [True, True, False]
    assert [i["faithfulness_f1"] for i in items[:2]] == pytest.approx([2 / 3, 0.0])
    assert [i["consistency_f1"] for i in items[:2]] == pytest.approx([0.8, 1.0])
    assert items[0]["faithfulness_answer"] == "GraphFormer" and items[1]["consistency_f1"] == 1.0
    assert "faithfulness_bertscore" not in items[2] and items[2]["generation_answer"] == "25%"
    # the paper without a span: None, with the reason
    assert second["qa_faithfulness"] is None and second["qa_consistency"] is None
    assert second["qa_spans"] == 0 and "no candidate answer span" in second["qa_reason"]
    # one QG call for all papers; one validation call, then one call for both sources
    assert len(models.qg.calls) == 1 and len(models.qg.calls[0]) == 3
    assert len(models.qa.calls) == 2 and len(models.qa.calls[1]) == 4


def test_no_question_validates():
    class Deaf(FakeQA):
        def answer(self, questions, contexts, batch_size=32):
            return [{"answer": ""} for _ in questions]

    rows = score_qa([GEN], [REFERENCE], None, [SOURCE_ABSTRACT], QAModels(FakeQG(), Deaf(), {}, FakeEncoder()),
                    validate_questions=True)
    assert rows[0]["qa_faithfulness"] is None and "validation" in rows[0]["qa_reason"]


def test_bad_inputs():
    with pytest.raises(ValueError, match="record 0: field 'predictions' is empty"):
        score_qa([""], [REFERENCE], None, [SOURCE_ABSTRACT], fake_models())
    with pytest.raises(ValueError, match="same length"):
        score_qa([GEN, GEN], [REFERENCE], None, [SOURCE_ABSTRACT], fake_models())
    with pytest.raises(ValueError, match="BERTScore token encoder"):
        score_qa([GEN], [REFERENCE], None, [SOURCE_ABSTRACT], QAModels(FakeQG(), FakeQA(), {}))


# ---------------------------------------------------------------------------------------------- suite


def test_lite_profile_reports_not_computed_with_both_models():
    models, why = qa_models_for_profile(QA_ROLES, profile="lite")
    assert models is None and QG_ID in why and QA_ID in why
    suite = load_sciig_models("lite", metrics=["qa"])
    assert not suite.wants("qa")
    for metric in STAGES["qa"].metrics:
        assert QG_ID in suite.not_computed[metric] and QA_ID in suite.not_computed[metric]


def test_suite_stage_with_fake_models_and_an_empty_generation():
    suite = SciIGModels(profile="paper", qa=fake_models(),
                        not_computed={m: "not requested" for m in SUITE_METRICS if m not in STAGES["qa"].metrics})
    paper = {"paper_id": "p1", "title": SOURCE_TITLE, "abstract": SOURCE_ABSTRACT, "introduction": REFERENCE,
             "neighbors": []}
    rows, timings = score_sciig([GEN, ""], [paper, {**paper, "paper_id": "p2"}], suite, show_progress=False)
    assert set(timings) == {"qa"}
    assert rows[0]["qa_faithfulness"] == pytest.approx((0.2 + 0.0 + 4 / 11) / 3)
    assert rows[0]["qa_consistency"] == pytest.approx((0.5 + 2 / 11 + 0.0) / 3)
    assert rows[1]["qa_faithfulness"] is None and "empty" in rows[1]["errors"]["qa"]


# ---------------------------------------------------------------------------------------------- tiny models


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """A tiny random T5 (QG) and a tiny random BERT QA head (64 positions, so contexts need windows), both with
    the packaged MiniLM tokenizer."""
    from transformers import (
        AutoTokenizer,
        BertConfig,
        BertForQuestionAnswering,
        T5Config,
        T5ForConditionalGeneration,
    )

    root = tmp_path_factory.mktemp("tiny-qa")
    tokenizer = AutoTokenizer.from_pretrained(packaged_model_path(PACKAGED_MINILM))
    torch.manual_seed(0)
    t5 = T5ForConditionalGeneration(T5Config(
        vocab_size=tokenizer.vocab_size, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_decoder_layers=1,
        num_heads=2, pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.sep_token_id,
        decoder_start_token_id=tokenizer.pad_token_id))
    t5.generation_config.max_length = 20
    t5.save_pretrained(root / "qg")
    tokenizer.save_pretrained(root / "qg")
    BertForQuestionAnswering(BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                        num_attention_heads=2, intermediate_size=64,
                                        max_position_embeddings=64)).save_pretrained(root / "qa")
    tokenizer.save_pretrained(root / "qa")
    return str(root / "qg"), str(root / "qa")


LONG_REFERENCE = " ".join(["Graph networks such as GraphFormer learn molecular properties on QM9 benchmarks."] * 6)


def test_tiny_models_end_to_end(tiny_models):
    qg_path, qa_path = tiny_models
    models, why = qa_models_for_profile(QA_ROLES, *tiny_models, profile="lite")  # explicit models win over the profile
    assert why is None and models.model_ids == {"question_generation": qg_path, "question_answering": qa_path,
                                                "bertscore": PACKAGED_MINILM}  # BERTScore of answers vs G
    assert load_question_generator(qg_path) is models.qg and load_extractive_qa(qa_path) is models.qa  # once
    models.qg.max_new_tokens, models.qg.num_beams = 6, 2  # keep the random model's questions short
    preds = [GEN, "Transformers such as BERT improve retrieval on MS MARCO by 3 points."]
    args = (preds, [LONG_REFERENCE, REFERENCE], [SOURCE_TITLE, "Retrieval"], [SOURCE_ABSTRACT, "Dense retrieval."])
    rows = score_qa(*args, models, validate_questions=False)
    again = score_qa(*args, models, validate_questions=False)
    assert rows == again  # deterministic
    sources = [SOURCE, "Retrieval\n\nDense retrieval."]
    for row, source, reference in zip(rows, sources, [LONG_REFERENCE, REFERENCE]):
        assert 0 < row["qa_spans"] <= 32 and row["qa_questions"] <= row["qa_spans"]
        for key in ("qa_faithfulness", "qa_consistency"):
            assert row[key] is None or 0.0 <= row[key] <= 1.0
        for item in row["qa_items"]:
            if "faithfulness_answer" in item:  # extractive: an answer is a piece of its context
                assert item["faithfulness_answer"] in source and item["consistency_answer"] in reference
                assert 0.0 <= item["faithfulness_bertscore"] <= 1.0 + 1e-6
    validated = score_qa(*args, models)  # Q²'s filter on: whatever survives, values stay in range
    assert all(r["qa_faithfulness"] is None or 0 <= r["qa_faithfulness"] <= 1 for r in validated)


def test_strided_windows_and_batching(tiny_models):
    qa = load_extractive_qa(tiny_models[1])
    assert qa.max_length == 64 and 0 < qa.stride < qa.max_length
    questions = ["What learns properties?", "Which benchmark?", "Who?"]
    contexts = [LONG_REFERENCE, "Short context about QM9.", LONG_REFERENCE]
    batched = qa.answer(questions, contexts, batch_size=2)
    single = [qa.answer([q], [c])[0] for q, c in zip(questions, contexts)]
    assert batched[0]["windows"] > 1 and batched[1]["windows"] == 1
    for b, s, context in zip(batched, single, contexts):
        assert b["answer"] == s["answer"] and b["windows"] == s["windows"]
        assert b["score"] == pytest.approx(s["score"], abs=1e-4)
        assert b["answer"] in context
    qg = load_question_generator(tiny_models[0])
    qg.max_new_tokens, qg.num_beams = 6, 2
    inputs = ["answer: QM9  context: Results on QM9.", "answer: BERT  context: We fine-tune BERT on a long corpus."]
    assert qg.generate(inputs, batch_size=2) == [qg.generate([x])[0] for x in inputs]


def test_evaluate_module_on_tiny_models(tiny_models):
    metric = sciwrite.load_metric("sciig_qa")
    results = metric.compute(predictions=[GEN], references=[REFERENCE], abstracts=[SOURCE_ABSTRACT],
                             titles=[SOURCE_TITLE], qg_model=tiny_models[0], qa_model=tiny_models[1],
                             profile="lite", return_rows=True)
    assert results["models"]["question_answering"] == tiny_models[1] and results["models"]["bertscore"] == PACKAGED_MINILM
    assert len(results["rows"]) == 1 and results["rows"][0]["qa_spans"] == 3
    assert results["qa_faithfulness"] is None or 0 <= results["qa_faithfulness"] <= 1
    assert Path(tiny_models[0]).is_dir()
