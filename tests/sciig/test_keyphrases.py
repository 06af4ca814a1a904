"""SciIG keyphrase metrics: the matching criteria and the four denominators by hand, batched KeyBERT extraction on
the packaged MiniLM, the per-paper log, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import sciwrite
from sciwrite.models.encoders import keyphrase_encoder_for_profile
from sciwrite.models.registry import resolve_model
from sciwrite.sciig.metrics import keyphrases
from sciwrite.sciig.metrics.keyphrases import (
    Keyphrases,
    extract_keyphrases,
    match_criterion,
    match_sets,
    phrase_stems,
    score_keyphrases,
)
from sciwrite.sciig.metrics.model_roles import KEYPHRASE_ENCODER


@pytest.mark.parametrize("a, b, cosine, expected", [
    ("neural networks", "neural network", 0.0, "stem"),  # Porter: networks -> network
    ("Graph Neural Networks", "graph neural network", 0.0, "stem"),  # case does not matter
    ("predicting properties", "predicted property", 0.0, "stem"),
    ("network", "neural network", 0.0, "partial"),  # Jaccard 1/2
    ("graph neural network", "neural network", 0.0, "partial"),  # 2/3
    ("passing messages", "message passing", 0.0, "partial"),  # same stems, another order: 2/2, not 'stem'
    ("deep neural network", "graph neural network", 0.0, "partial"),  # 2/4
    ("neural network", "network pruning", 0.0, "partial"),  # the README's rule: any shared stem (1 of 3)
    ("language model", "protein folding", 0.0, None),
    ("car", "automobile", 0.69, None),
    ("car", "automobile", 0.7, "cosine"),  # the threshold is inclusive
    ("neural networks", "neural network", 0.99, "stem"),  # the first criterion that holds is reported
])
def test_match_criteria(a, b, cosine, expected):
    assert match_criterion(a, b, cosine) == expected


@pytest.mark.parametrize("a, b, expected", [
    ("network", "neural network", "partial"),  # Jaccard 1/2
    ("deep neural network", "graph neural network", "partial"),  # 2/4
    ("neural network", "network pruning", None),  # 1/3 < 0.5
])
def test_the_former_jaccard_bound_is_an_option(a, b, expected):
    from sciwrite.sciig.metrics.keyphrases import FORMER_PARTIAL_MIN_JACCARD

    assert match_criterion(a, b, 0.0, partial_min_jaccard=FORMER_PARTIAL_MIN_JACCARD) == expected


def test_phrase_stems():
    assert phrase_stems("Predicting Molecular Properties") == ("predict", "molecular", "properti")


def one_hot(phrases: list[str], offset: int) -> Keyphrases:
    """Phrases with mutually orthogonal embeddings (cosine 0), so only the stem and partial criteria can match."""
    return Keyphrases(phrases, np.eye(16, dtype=np.float32)[offset:offset + len(phrases)])


GEN = one_hot(["graph neural networks", "message passing", "drug discovery"], 0)
REF = one_hot(["graph neural network", "protein folding"], 3)
SRC = one_hot(["passing messages", "molecule", "toxicity prediction", "drug", "benchmark"], 5)


def test_four_denominators_by_hand(monkeypatch):
    monkeypatch.setattr(keyphrases, "extract_keyphrases", lambda texts, model, batch_size=64, **_: [GEN, REF, SRC])
    [row] = score_keyphrases(["generated"], ["reference"], ["title"], ["abstract"], model=None)
    assert row["keyphrase_coverage_ref"] == pytest.approx(1 / 2)  # of R: graph neural network (stem) / |R| = 2
    assert row["keyphrase_coverage_free"] == pytest.approx(2 / 5)  # of S: passing messages, drug / |S| = 5
    assert row["keyphrase_faithfulness"] == pytest.approx(2 / 3)  # of G: message passing, drug discovery / |G| = 3
    assert row["keyphrase_consistency"] == pytest.approx(1 / 3)  # of G: graph neural networks / |G| = 3
    assert row["generated_keyphrases"] == GEN.phrases and row["source_keyphrases"] == SRC.phrases
    log = {(e["metric"], e["phrase"]): e for e in row["keyphrase_log"]}
    assert len(row["keyphrase_log"]) == 2 + 5 + 3 + 3
    assert log["keyphrase_coverage_ref", "graph neural network"] == {
        "metric": "keyphrase_coverage_ref", "phrase": "graph neural network", "matched": "graph neural networks",
        "criterion": "stem", "cosine": 0.0}
    assert log["keyphrase_faithfulness", "drug discovery"]["matched"] == "drug"
    assert log["keyphrase_faithfulness", "drug discovery"]["criterion"] == "partial"
    assert log["keyphrase_coverage_free", "passing messages"]["criterion"] == "partial"
    assert log["keyphrase_consistency", "drug discovery"]["matched"] is None
    assert log["keyphrase_consistency", "drug discovery"]["criterion"] is None


def test_empty_phrase_set_scores_zero(monkeypatch):
    empty = Keyphrases([], np.zeros((0, 16), dtype=np.float32))
    monkeypatch.setattr(keyphrases, "extract_keyphrases", lambda texts, model, batch_size=64, **_: [empty, REF, SRC])
    [row] = score_keyphrases(["the of and"], ["reference"], None, ["abstract"], model=None)
    assert row == {**row, "keyphrase_coverage_ref": 0.0, "keyphrase_faithfulness": 0.0, "keyphrase_consistency": 0.0}


def test_best_match_prefers_stem_over_partial_over_cosine():
    pool = Keyphrases(["neural", "neural nets", "neural networks"], np.eye(3, dtype=np.float32))
    target = Keyphrases(["neural network"], np.array([[0.8, 0.6, 0.0]], dtype=np.float32))
    [entry] = match_sets(target, pool)
    assert (entry["matched"], entry["criterion"]) == ("neural networks", "stem")


def test_cosine_criterion_on_the_packaged_minilm(minilm):
    vectors = minilm.encode(["car", "automobile"], normalize_embeddings=True)
    [entry] = match_sets(Keyphrases(["car"], vectors[:1]), Keyphrases(["automobile"], vectors[1:]))
    assert entry["criterion"] == "cosine" and entry["cosine"] >= 0.7
    unrelated = minilm.encode(["bread baking"], normalize_embeddings=True)
    [entry] = match_sets(Keyphrases(["car"], vectors[:1]), Keyphrases(["bread baking"], unrelated))
    assert entry["matched"] is None and entry["cosine"] < 0.7


DOCS = [
    "Graph neural networks predict molecular properties from atoms and bonds, helping drug discovery.",
    "Large language models write scientific introductions, but citations are often wrong.",
    "We study dense retrieval of scientific papers with dual encoders and contrastive training.",
]


def test_batched_extraction_matches_keybert_per_document(minilm, monkeypatch):
    from keybert import KeyBERT

    calls = []
    real_embed = keyphrases.embed
    monkeypatch.setattr(keyphrases, "embed", lambda model, texts, batch_size=64, **kw: calls.append(len(texts))
                        or real_embed(model, texts, batch_size, **kw))
    batched = extract_keyphrases([*DOCS, DOCS[0]], minilm)
    assert len(calls) == 2 and calls[0] == 3  # one pass over the distinct documents, one over the whole vocabulary
    kw = KeyBERT(model=minilm.inner)  # the library's own model (KeyBERT does not know sciwrite's cached wrapper)
    for doc, found in zip(DOCS, batched):
        alone = [p for p, _ in kw.extract_keywords(doc, keyphrase_ngram_range=(1, 3), stop_words="english", top_n=5)]
        assert found.phrases == alone
        np.testing.assert_allclose(found.vectors, minilm.encode(alone, normalize_embeddings=True), atol=1e-5)
    assert batched[3] == batched[0]
    small_chunks = extract_keyphrases(DOCS, minilm, docs_per_chunk=1)  # a document's phrases do not depend on chunks
    assert [k.phrases for k in small_chunks] == [k.phrases for k in batched[:3]]


@pytest.fixture(scope="module")
def aclsum_introductions(tmp_path_factory) -> list[dict]:
    """Three real aclsum papers as SciIG records (introductions of 306 to 949 words)."""
    import shutil

    from sciwrite.sciig.data.builder import build_sciig_records
    from sciwrite.sources.aclsum import aclsum_paper_dir

    folder = tmp_path_factory.mktemp("aclsum_introductions")
    for stem in ("2020.acl-main.282", "E06-1051", "P02-1051"):
        shutil.copy(aclsum_paper_dir() / f"{stem}.json", folder / f"{stem}.json")
    records, _ = build_sciig_records(folder, allow_missing_abstracts=True, show_progress=False)
    assert len(records) == 3
    return records


@pytest.mark.slow  # tens of seconds on 2 cores; `make test` leaves it out, `make test-slow` runs it
def test_own_selection_equals_keybert_on_real_introductions(minilm, aclsum_introductions):
    """`extract_keyphrases` re-does KeyBERT's cosine selection (one batched embedding pass for every document);
    its phrases must be exactly those `KeyBERT.extract_keywords` finds on each document alone."""
    from keybert import KeyBERT

    from sciwrite.models.memo import MemoSentenceEncoder
    from sciwrite.sciig.metrics.inputs import source_text

    texts = [r["introduction"] for r in aclsum_introductions]
    texts += [source_text(r["title"], r["abstract"]) for r in aclsum_introductions]
    batched = extract_keyphrases(texts, MemoSentenceEncoder(minilm))  # as the suite calls it
    kw = KeyBERT(model=minilm.inner)  # PyTorch, the library's path; ours runs ONNX Runtime when installed
    for text, found in zip(texts, batched):
        alone = kw.extract_keywords(text, keyphrase_ngram_range=(1, 3), stop_words="english", top_n=5)
        assert found.phrases == [phrase for phrase, _ in alone]
        doc = minilm.encode([text], normalize_embeddings=True)[0]
        np.testing.assert_allclose(found.vectors @ doc, [score for _, score in alone], atol=1e-4)


def test_stop_word_only_text_has_no_phrases(minilm):
    only_stop_words, normal = extract_keyphrases(["The of and it is.", DOCS[0]], minilm)
    assert only_stop_words.phrases == [] and only_stop_words.vectors.shape == (0, 384)
    assert len(normal.phrases) == 5
    [alone] = extract_keyphrases(["The of and it is."], minilm)
    assert alone.phrases == [] and alone.vectors.shape == (0, 384)


def test_module_end_to_end_on_the_packaged_minilm():
    metric = sciwrite.load_metric("sciig_keyphrases")
    results = metric.compute(predictions=[DOCS[0], DOCS[1]], references=[DOCS[0], DOCS[2]],
                             titles=["Molecules", ""], abstracts=[DOCS[0], DOCS[1]], profile="lite", return_rows=True)
    first, second = results["rows"]
    assert first["keyphrase_coverage_ref"] == first["keyphrase_consistency"] == 1.0  # generation == reference
    assert second["keyphrase_faithfulness"] == 1.0  # generation == abstract
    assert results["keyphrase_faithfulness"] == pytest.approx((first["keyphrase_faithfulness"] + 1.0) / 2)
    assert results["model"] == "packaged:all-MiniLM-L6-v2"
    assert all(len(r["generated_keyphrases"]) == 5 for r in results["rows"])
    assert {e["criterion"] for e in first["keyphrase_log"] if e["metric"] == "keyphrase_consistency"} == {"stem"}


def test_roles():
    assert resolve_model(KEYPHRASE_ENCODER, profile="paper") == "sentence-transformers/all-MiniLM-L6-v2"
    assert resolve_model(KEYPHRASE_ENCODER, profile="lite") == "packaged:all-MiniLM-L6-v2"
    encoder, why = keyphrase_encoder_for_profile(KEYPHRASE_ENCODER, profile="lite")
    assert encoder is not None and why is None


@pytest.mark.parametrize("kwargs, message", [
    ({"predictions": ["  "]}, "record 0: field 'predictions' is empty"),
    ({"predictions": ["word " * 30_000]}, "record 0: field 'predictions' has 30000 words"),
    ({"references": [""]}, "record 0: field 'references' is empty"),
    ({"abstracts": ["x", "y"]}, r"predictions \(1\), references \(1\), titles \(1\), abstracts \(2\) must have the same"),
    ({"titles": [None]}, "record 0: field 'titles' must be a string"),
])
def test_bad_input_names_the_field(kwargs, message):
    args = {"predictions": ["A generation."], "references": ["A reference."], "titles": ["T"], "abstracts": ["An abstract."],
            **kwargs}
    with pytest.raises(ValueError, match=message):
        score_keyphrases(args["predictions"], args["references"], args["titles"], args["abstracts"], model=None)


def test_module_bad_input():
    metric = sciwrite.load_metric("sciig_keyphrases")
    with pytest.raises(ValueError, match="`abstracts` is required"):
        metric.compute(predictions=["a"], references=["b"], profile="lite")
    with pytest.raises(ValueError, match="record 1: field 'predictions' is empty"):
        metric.compute(predictions=["a", ""], references=["b", "c"], abstracts=["d", "e"], profile="lite")
