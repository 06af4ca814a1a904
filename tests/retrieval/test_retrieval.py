"""BM25 and dense retrieval, saved indexes, retrieval metrics and evaluation, model resolution, reporting."""

from __future__ import annotations

import csv
import json
import logging
import math

import faiss
import numpy as np
import pytest

from sciwrite.core.tables import format_table, plot_metric_bars, write_table
from sciwrite.models.registry import (
    DENSE_ENCODER,
    PACKAGED_MINILM,
    ModelUnavailableError,
    current_profile,
    model_location,
    packaged_model_path,
    resolve_model,
)
from sciwrite.retrieval import (
    BM25Retriever,
    DenseRetriever,
    SearchResult,
    build_query,
    document_text,
    evaluate_retrieval,
    load_retriever,
    ndcg_at_k,
    recall_at_k,
)
from sciwrite.retrieval.base import CONFIG_FILE
from sciwrite.rwgbench.metrics.model_roles import NLI, SCIBERT

CORPUS = [
    {"doc_id": "transformer", "title": "Attention is all you need",
     "abstract": "The Transformer relies entirely on self-attention mechanisms for machine translation."},
    {"doc_id": "bert", "title": "BERT: pre-training of deep bidirectional transformers",
     "abstract": "Masked language modelling pre-trains deep bidirectional representations from unlabeled text."},
    {"doc_id": "resnet", "title": "Deep residual learning for image recognition",
     "abstract": "Residual networks ease the training of very deep convolutional networks for image classification."},
    {"doc_id": "adam", "title": "Adam: a method for stochastic optimization",
     "abstract": "An algorithm for first-order gradient-based optimization of stochastic objective functions."},
    {"doc_id": "dpr", "title": "Dense passage retrieval for open-domain question answering",
     "abstract": "Dense representations of questions and passages outperform sparse retrieval."},
    {"doc_id": "lda", "title": "Latent Dirichlet allocation",
     "abstract": None},  # title only
]
IDS = [d["doc_id"] for d in CORPUS]


@pytest.fixture(scope="module")
def bm25():
    return BM25Retriever.from_corpus(CORPUS, show_progress=False)


# ---------------------------------------------------------------- BM25


@pytest.mark.parametrize(
    ("query", "top"),
    [
        ("self-attention for translation", "transformer"),
        ("classifying images with residual networks", "resnet"),  # stemming: images ~ image
        ("stochastic gradient optimizer", "adam"),
        ("answering questions by retrieving passages", "dpr"),
        ("the Dirichlet allocation", "lda"),  # title-only document
        ("masked language models", "bert"),
    ],
)
def test_bm25_top_document(bm25, query, top):
    [result] = bm25.search([query], k=3, show_progress=False)
    assert result.doc_ids[0] == top
    assert result.scores == sorted(result.scores, reverse=True)
    assert all(s > 0 for s in result.scores)
    assert len(result.doc_ids) == len(result.scores) <= 3


def test_bm25_batch_keeps_query_order_and_unknown_words_get_nothing(bm25):
    results = bm25.search(["residual image networks", "zyzzyva quux", "attention translation"], k=6,
                          show_progress=False)
    assert results[0].doc_ids[0] == "resnet"
    assert results[1] == SearchResult([], [])
    assert results[2].doc_ids[0] == "transformer"
    # only stop-words: nothing left to match
    assert bm25.search(["the of and"], k=2, show_progress=False) == [SearchResult([], [])]


def test_bm25_only_matching_documents_are_hits(bm25):
    [result] = bm25.search(["optimization"], k=6, show_progress=False)
    assert result.doc_ids == ["adam"]


@pytest.mark.parametrize("queries", [["fine", "  "], ["fine", ""]])
def test_bm25_empty_query_is_an_error_naming_its_position(bm25, queries):
    with pytest.raises(ValueError, match=r"empty query at position\(s\) \[1\]"):
        bm25.search(queries, show_progress=False)


def test_search_takes_a_list(bm25):
    with pytest.raises(TypeError, match="list of queries"):
        bm25.search("attention", show_progress=False)
    with pytest.raises(ValueError, match="k must be >= 1"):
        bm25.search(["attention"], k=0, show_progress=False)


def test_bm25_k_larger_than_corpus_returns_all_with_warning(bm25, caplog):
    query = "transformer residual optimization retrieval dirichlet masked"  # one word from every document
    with caplog.at_level(logging.WARNING, logger="sciwrite.retrieval.base"):
        [result] = bm25.search([query], k=100, show_progress=False)
    assert sorted(result.doc_ids) == sorted(IDS)
    assert "k=100 is larger than the corpus (6 documents); returning all 6" in caplog.text


def test_bm25_corpus_errors():
    with pytest.raises(ValueError, match=r"1 duplicate doc_id\(s\) in the corpus, e\.g\. \['a'\]"):
        BM25Retriever.from_corpus([{"doc_id": "a", "title": "x y"}, {"doc_id": "a", "title": "z w"}], show_progress=False)
    with pytest.raises(ValueError, match=r"corpus record 1 \(doc_id 'blank'\) has no title and no abstract"):
        BM25Retriever.from_corpus([{"doc_id": "a", "title": "x y"}, {"doc_id": "blank", "title": "", "abstract": None}],
                                  show_progress=False)
    with pytest.raises(ValueError, match="cannot index an empty corpus"):
        BM25Retriever.from_corpus([], show_progress=False)
    with pytest.raises(ValueError, match="2 doc_ids but 1 texts"):
        BM25Retriever().index(["a", "b"], ["x"], show_progress=False)
    with pytest.raises(RuntimeError, match="the BM25 index is empty"):
        BM25Retriever().search(["x"])


def test_bm25_save_load_round_trip(bm25, tmp_path):
    bm25.save(tmp_path / "bm25")
    config = json.loads((tmp_path / "bm25" / CONFIG_FILE).read_text())
    assert config == {"kind": "bm25", "k1": 1.5, "b": 0.75, "method": "lucene", "stemmer": "english",
                      "stopwords": "en", "fields": ["title", "abstract"]}
    queries = ["self-attention for translation", "deep networks", "zyzzyva", "stochastic gradient optimizer"]
    expected = bm25.search(queries, k=4, show_progress=False)
    for loaded in (BM25Retriever.load(tmp_path / "bm25"), load_retriever(tmp_path / "bm25"),
                   BM25Retriever.load(tmp_path / "bm25", mmap=True)):
        assert isinstance(loaded, BM25Retriever)
        assert loaded.doc_ids == IDS
        assert loaded.search(queries, k=4, show_progress=False) == expected


def test_load_retriever_errors(tmp_path, bm25):
    with pytest.raises(FileNotFoundError, match=f"holds no saved sciwrite retriever \\({CONFIG_FILE} missing\\)"):
        load_retriever(tmp_path)
    bm25.save(tmp_path / "bm25")
    with pytest.raises(ValueError, match="holds a 'bm25' retriever, not dense"):
        DenseRetriever.load(tmp_path / "bm25")


def lucene_term(tf, dl, avgdl, df, n_docs, k1=1.5, b=0.75):
    """One query term's BM25 score as bm25s's "lucene" method computes it.

    bm25s (like Lucene >= 8) leaves out the constant (k1 + 1) factor of the classic tf saturation.
    """
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))


def test_bm25_scores_match_hand_computation():
    # no stemming, no stop-words: tokens are the lower-cased words of two letters or more
    retriever = BM25Retriever(stemmer=None, stopwords=None).index(
        ["a", "b", "c"], ["The cat sat on the mat", "the dog ate the cat food", "Birds fly high"], show_progress=False)
    # lengths 6, 6, 3 -> avgdl 5; df: the 2, cat 2, dog 1, fly 1, high 1
    [cat] = retriever.search(["cat"], k=3, show_progress=False)
    assert sorted(cat.doc_ids) == ["a", "b"]
    assert cat.scores == pytest.approx([lucene_term(1, 6, 5, 2, 3)] * 2, rel=1e-5)
    assert cat.scores[0] == pytest.approx(0.172478, rel=1e-4)

    [dog_cat] = retriever.search(["dog cat"], k=3, show_progress=False)
    assert dog_cat.doc_ids == ["b", "a"]
    assert dog_cat.scores == pytest.approx([lucene_term(1, 6, 5, 1, 3) + lucene_term(1, 6, 5, 2, 3),
                                            lucene_term(1, 6, 5, 2, 3)], rel=1e-5)

    [the] = retriever.search(["the"], k=3, show_progress=False)  # tf 2 in both a and b
    assert the.scores == pytest.approx([lucene_term(2, 6, 5, 2, 3)] * 2, rel=1e-5)

    [short] = retriever.search(["fly high"], k=3, show_progress=False)
    assert short.doc_ids == ["c"]
    assert short.scores == pytest.approx([2 * lucene_term(1, 3, 5, 1, 3)], rel=1e-5)
    assert short.scores[0] == pytest.approx(0.956907, rel=1e-4)


ANALYZER_TEXTS = [
    "The Running dogs RUN; they ran and were running!",
    "Café au lait, naïve résumé — über-fast x-ray 3D models in 2024 (v2.0)",
    "a I x of to",  # only stop-words and one-character tokens
    "",
    "BERT's pre-training: token_ids and snake_case words, ÉCOLE normale",
]


@pytest.mark.parametrize("stemmer,stopwords", [("english", "en"), (None, "en"), ("english", None), (None, None)])
def test_analyzer_gives_exactly_the_terms_of_bm25s_tokenize(stemmer, stopwords):
    """The fast analyzer must agree with the library it replaces, term for term and document for document."""
    import bm25s
    import Stemmer

    from sciwrite.retrieval.bm25 import Analyzer

    reference = bm25s.tokenize(ANALYZER_TEXTS, stopwords=stopwords or [], return_ids=False, show_progress=False,
                               stemmer=Stemmer.Stemmer(stemmer) if stemmer else None)
    analyzer = Analyzer(stemmer, stopwords)
    tokenized = analyzer.term_ids(ANALYZER_TEXTS, show_progress=False)
    term_of = {i: t for t, i in tokenized.vocab.items()}
    assert [[term_of[i] for i in ids] for ids in tokenized.ids] == reference
    assert [analyzer.terms(t) for t in ANALYZER_TEXTS] == reference
    assert reference[2] == ([] if stopwords else ["of", "to"])


def test_vectorised_index_equals_bm25s_own_index():
    """The array-based score matrix must equal the one bm25s builds with its own per-document loop."""
    import bm25s

    from sciwrite.retrieval.bm25 import Analyzer

    rng = np.random.default_rng(7)
    vocab = ["".join(rng.choice(list("abcdefghij"), rng.integers(2, 6))) for _ in range(300)] + ["the", "running"]
    texts = [" ".join(rng.choice(vocab, rng.integers(1, 60))) for _ in range(500)] + ["the of and"]  # last: no terms
    tokenized = Analyzer().term_ids(texts, show_progress=False)
    reference = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    reference.index(bm25s.tokenization.Tokenized(ids=list(tokenized.ids), vocab=tokenized.vocab), show_progress=False)
    ours = BM25Retriever().index([f"d{i}" for i in range(len(texts))], texts, show_progress=False)._bm25
    assert np.array_equal(ours.scores["indices"], reference.scores["indices"])
    assert np.array_equal(ours.scores["indptr"], reference.scores["indptr"])
    np.testing.assert_allclose(ours.scores["data"], reference.scores["data"], rtol=1e-6)
    assert ours.scores["num_docs"] == reference.scores["num_docs"] == 501


# ---------------------------------------------------------------- dense


@pytest.fixture(scope="module")
def dense_texts():
    return [document_text(d) for d in CORPUS]


@pytest.fixture(scope="module")
def dense(minilm):
    """The 6 documents embedded once with the session MiniLM (tests must not change it)."""
    import sciwrite.retrieval.dense as dense_module

    asked = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dense_module, "load_encoder", lambda name, device=None: asked.append(name) or minilm)
        retriever = DenseRetriever.from_corpus(CORPUS, profile="lite", batch_size=8, show_progress=False)
    assert asked == [PACKAGED_MINILM]  # the lite profile's packaged model, loaded once
    return retriever


def test_dense_paraphrase_queries(dense):
    queries = {
        "a network architecture that uses only attention to translate between languages": "transformer",
        "which optimiser adapts learning rates per parameter from gradient moments": "adam",
        "skip connections make very deep CNNs trainable for recognising pictures": "resnet",
        "a probabilistic topic model for collections of documents": "lda",
    }
    results = dense.search(list(queries), k=6, show_progress=False)
    assert [r.doc_ids[0] for r in results] == list(queries.values())
    for r in results:
        assert sorted(r.doc_ids) == sorted(IDS)  # dense search ranks every document
        assert r.scores == sorted(r.scores, reverse=True)
        assert all(-1.0 - 1e-5 <= s <= 1.0 + 1e-5 for s in r.scores)  # cosine similarities


def test_dense_embeddings_are_normalised(dense, dense_texts):
    vectors = dense.encode(dense_texts, show_progress=False)
    assert vectors.shape == (6, 384) and vectors.dtype == np.float32
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(6), abs=1e-4)
    assert dense.index.ntotal == 6 and dense.index.d == 384


def test_dense_k_larger_than_corpus(dense, caplog):
    with caplog.at_level(logging.WARNING, logger="sciwrite.retrieval.base"):
        [result] = dense.search(["deep learning"], k=50, show_progress=False)
    assert len(result.doc_ids) == 6
    assert "k=50 is larger than the corpus (6 documents)" in caplog.text
    with pytest.raises(ValueError, match=r"empty query at position\(s\) \[0\]"):
        dense.search([" "], show_progress=False)


def test_dense_save_load_round_trip_keeps_portable_encoder_id(dense, tmp_path, patch_encoder):
    dense.save(tmp_path / "dense")
    config = json.loads((tmp_path / "dense" / CONFIG_FILE).read_text())
    assert config["encoder"] == "packaged:all-MiniLM-L6-v2"  # not the site-packages path
    assert (config["kind"], config["factory"], config["dimension"], config["query_instruction"]) == ("dense", "Flat", 384, "")
    assert json.loads((tmp_path / "dense" / "doc_ids.json").read_text()) == IDS
    queries = ["attention-based translation", "optimising stochastic objectives"]
    expected = dense.search(queries, k=3, show_progress=False)
    loaded = load_retriever(tmp_path / "dense")
    assert isinstance(loaded, DenseRetriever)
    assert loaded.encoder_name == PACKAGED_MINILM
    got = loaded.search(queries, k=3, show_progress=False)
    assert patch_encoder == [PACKAGED_MINILM]  # the loaded retriever asked for the portable id
    assert [r.doc_ids for r in got] == [r.doc_ids for r in expected]
    assert [r.scores for r in got] == [pytest.approx(r.scores, abs=1e-5) for r in expected]


def test_dense_load_detects_index_and_doc_ids_mismatch(dense, tmp_path):
    dense.save(tmp_path / "dense")
    (tmp_path / "dense" / "doc_ids.json").write_text(json.dumps(IDS[:5]))
    with pytest.raises(ValueError, match="the index holds 6 vectors but doc_ids.json lists 5"):
        DenseRetriever.load(tmp_path / "dense")


def random_unit_vectors(n, d, seed):
    x = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_ivf_with_all_lists_probed_equals_exact_search():
    doc_ids = [f"d{i}" for i in range(300)]
    vectors, queries = random_unit_vectors(300, 32, 0), random_unit_vectors(8, 32, 1)
    exact = DenseRetriever(profile="lite").index_embeddings(doc_ids, vectors, show_progress=False)
    ivf = DenseRetriever(profile="lite", factory="IVF4,Flat", nprobe=4).index_embeddings(doc_ids, vectors,
                                                                                          show_progress=False)
    assert faiss.extract_index_ivf(ivf.index).nlist == 4
    exact_hits, ivf_hits = exact.search_embeddings(queries, k=10), ivf.search_embeddings(queries, k=10)
    assert faiss.extract_index_ivf(ivf._searcher()).nprobe == 4
    assert [h.doc_ids for h in ivf_hits] == [h.doc_ids for h in exact_hits]
    # the exact top hit is the largest inner product, worked out directly
    assert [h.doc_ids[0] for h in exact_hits] == [doc_ids[i] for i in np.argmax(queries @ vectors.T, axis=1)]
    assert exact_hits[0].scores[0] == pytest.approx(float(np.max(queries[0] @ vectors.T)), abs=1e-5)


def test_hnsw_index_finds_each_document_by_its_own_vector(tmp_path):
    doc_ids = [f"d{i}" for i in range(300)]
    vectors = random_unit_vectors(300, 32, 2)
    hnsw = DenseRetriever(profile="lite", factory="HNSW8", ef_search=64, ef_construction=80).index_embeddings(
        doc_ids, vectors, show_progress=False)
    assert faiss.downcast_index(hnsw.index).hnsw.efConstruction == 80
    hits = hnsw.search_embeddings(vectors[:20], k=5)
    assert [h.doc_ids[0] for h in hits] == doc_ids[:20]
    assert all(h.scores[0] == pytest.approx(1.0, abs=1e-5) for h in hits)
    assert faiss.downcast_index(hnsw._searcher()).hnsw.efSearch == 64
    hnsw.save(tmp_path / "hnsw")
    loaded = DenseRetriever.load(tmp_path / "hnsw")
    assert (loaded.factory, loaded.ef_search, loaded.ef_construction) == ("HNSW8", 64, 80)
    assert [h.doc_ids for h in loaded.search_embeddings(vectors[:20], k=5)] == [h.doc_ids for h in hits]


def test_dense_index_errors():
    retriever = DenseRetriever(profile="lite")
    with pytest.raises(RuntimeError, match="the dense index is empty"):
        retriever.search_embeddings(random_unit_vectors(1, 8, 0), k=1)
    with pytest.raises(ValueError, match="2 doc_ids but 1 embeddings"):
        retriever.index_embeddings(["a", "b"], random_unit_vectors(1, 8, 0))
    with pytest.raises(ValueError, match=r"duplicate doc_id\(s\)"):
        retriever.index_embeddings(["a", "a"], random_unit_vectors(2, 8, 0))
    with pytest.raises(ValueError, match="corpus record 1 has an empty doc_id"):
        retriever.index_embeddings(["a", ""], random_unit_vectors(2, 8, 0))
    with pytest.raises(RuntimeError, match="nothing to save"):
        retriever.save("unused")


def test_missing_encoder_path_is_model_unavailable(tmp_path):
    missing = str(tmp_path / "no-such-encoder")
    retriever = DenseRetriever(encoder=missing)
    assert retriever.encoder_name == missing
    with pytest.raises(ModelUnavailableError, match="cannot load the dense encoder") as err:
        retriever.encode(["anything"], show_progress=False)
    assert missing in str(err.value)
    assert "--profile lite" in str(err.value)


def test_query_and_document_text():
    paper = {"title": "T", "abstract": "A", "introduction": "I"}
    assert build_query(paper) == "T\nA"
    assert build_query(paper, include_introduction=True) == "T\nA\nI"
    assert build_query({"title": "", "abstract": None}) == ""
    assert document_text({"title": "T", "abstract": None}) == "T"
    assert document_text({"abstract": "only abstract"}) == "only abstract"


# ---------------------------------------------------------------- metrics and evaluation


def test_recall_at_k():
    assert recall_at_k(["a", "x", "b"], {"a", "b"}, 1) == 0.5
    assert recall_at_k(["a", "x", "b"], {"a", "b"}, 3) == 1.0
    assert recall_at_k(["x", "y"], ["a", "b", "c", "a"], 10) == 0.0  # duplicates in gold count once
    assert recall_at_k(["c", "a"], ["a", "b", "c"], 10) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="without gold"):
        recall_at_k(["a"], [], 10)


def test_ndcg_at_k():
    assert ndcg_at_k(["a", "x", "b"], {"a", "b"}) == pytest.approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["a", "b", "x"], {"a", "b"}) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "a"], {"a"}) == pytest.approx(1 / math.log2(3))
    # the ideal DCG counts at most k relevant documents
    assert ndcg_at_k(["a", "x"], {"a", "b", "c"}, k=2) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["x"] * 10 + ["a"], {"a"}, k=10) == 0.0
    with pytest.raises(ValueError, match="without gold"):
        ndcg_at_k(["a"], set())


class FixedRetriever:
    """Returns a fixed ranking per query text; records the k it was asked for."""

    def __init__(self, rankings):
        self.rankings, self.calls = rankings, []

    def search(self, queries, k=50, show_progress=True):
        self.calls.append((list(queries), k))
        return [SearchResult(self.rankings[q][:k], [1.0 / (i + 1) for i in range(len(self.rankings[q][:k]))])
                for q in queries]


def test_evaluate_retrieval_skips_and_excludes_self(caplog):
    papers = [
        {"paper_id": "p1", "title": "One", "abstract": "first", "citations": ["a", "b"]},
        {"paper_id": "p2", "title": "Two", "abstract": "", "citations": []},
        {"paper_id": "p3", "title": "", "abstract": "", "citations": ["a"]},
        {"paper_id": "p4", "title": "Four", "abstract": "", "citations": ["c"]},
    ]
    retriever = FixedRetriever({"One\nfirst": ["p1", "a", "x", "b"], "Four": ["c", "p4"]})
    with caplog.at_level(logging.WARNING, logger="sciwrite.retrieval.evaluation"):
        report = evaluate_retrieval(retriever, papers, "fixed", ks=(1, 2), show_progress=False)
    assert retriever.calls == [(["One\nfirst", "Four"], 11)]  # depth max(ks, 10) + 1 for the paper itself
    assert report.skipped == {"no-citations": ["p2"], "no-query-text": ["p3"]}
    assert "skipped 1 paper(s) (no-citations)" in caplog.text
    p1, p4 = report.per_paper
    # p1's own record is dropped: ranked [a, x, b]
    assert p1 == {"paper_id": "p1", "n_gold": 2, "recall@1": 0.5, "recall@2": 0.5,
                  "ndcg@10": pytest.approx((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)))}
    assert p4 == {"paper_id": "p4", "n_gold": 1, "recall@1": 1.0, "recall@2": 1.0, "ndcg@10": 1.0}
    assert report.means == pytest.approx({"recall@1": 0.75, "recall@2": 0.75, "ndcg@10": (p1["ndcg@10"] + 1) / 2})
    assert report.summary_row()["papers"] == 2 and report.summary_row()["retriever"] == "fixed"


def test_evaluate_retrieval_without_exclude_self():
    papers = [{"paper_id": "p1", "title": "One", "abstract": "first", "citations": ["a", "b"]}]
    retriever = FixedRetriever({"One\nfirst": ["p1", "a", "x", "b"]})
    report = evaluate_retrieval(retriever, papers, "fixed", ks=(1, 2), exclude_self=False, show_progress=False)
    assert retriever.calls[0][1] == 10
    assert report.per_paper[0]["recall@1"] == 0.0 and report.per_paper[0]["recall@2"] == 0.5


def test_evaluate_retrieval_with_no_usable_paper():
    report = evaluate_retrieval(FixedRetriever({}), [{"paper_id": "p", "title": "t", "citations": []}], "r",
                                show_progress=False)
    assert report.per_paper == [] and report.skipped == {"no-citations": ["p"]}
    assert all(math.isnan(v) for v in report.means.values())


def test_evaluate_bm25_on_the_small_corpus(bm25):
    papers = [{"paper_id": "q", "title": "Residual networks for image classification", "abstract": "",
               "citations": ["resnet", "adam"]}]
    report = evaluate_retrieval(bm25, papers, "bm25", ks=(1, 10), show_progress=False)
    assert report.per_paper[0]["recall@1"] == 0.5
    assert report.per_paper[0]["recall@10"] == 0.5  # adam shares no term with the query


# ---------------------------------------------------------------- models


def test_resolve_model_precedence(monkeypatch):
    assert resolve_model(DENSE_ENCODER) == "BAAI/bge-large-en-v1.5"  # the paper profile by default
    assert resolve_model(DENSE_ENCODER, profile="lite") == PACKAGED_MINILM
    monkeypatch.setenv("SCIWRITE_PROFILE", "lite")
    assert current_profile() == "lite"
    assert resolve_model(DENSE_ENCODER) == PACKAGED_MINILM
    assert resolve_model(DENSE_ENCODER, profile="paper") == "BAAI/bge-large-en-v1.5"  # argument beats profile env
    monkeypatch.setenv("SCIWRITE_MODEL_DENSE_ENCODER", "/models/my-encoder")
    assert resolve_model(DENSE_ENCODER) == "/models/my-encoder"
    assert resolve_model(DENSE_ENCODER, profile="paper") == "/models/my-encoder"  # env model beats any profile
    assert resolve_model(DENSE_ENCODER, "explicit/encoder") == "explicit/encoder"  # override beats everything


def test_resolve_model_errors(monkeypatch):
    with pytest.raises(ValueError, match=r"unknown profile 'huge'; choose one of \('paper', 'lite'\)"):
        resolve_model(DENSE_ENCODER, profile="huge")
    monkeypatch.setenv("SCIWRITE_PROFILE", "tiny")
    with pytest.raises(ValueError, match="unknown profile 'tiny'"):
        DenseRetriever()


def test_roles_without_a_model_in_a_profile_say_what_they_need(monkeypatch):
    assert resolve_model(SCIBERT, profile="paper") == "allenai/scibert_scivocab_uncased"
    assert resolve_model(SCIBERT, profile="lite") == PACKAGED_MINILM
    assert resolve_model(NLI, profile="paper").startswith("MoritzLaurer/DeBERTa-v3")
    with pytest.raises(ModelUnavailableError, match=r"'lite' profile has no nli model .* MoritzLaurer/DeBERTa-v3-large"):
        resolve_model(NLI, profile="lite")
    monkeypatch.setenv("SCIWRITE_MODEL_NLI", "/models/tiny-nli")  # an explicit model always wins
    assert resolve_model(NLI, profile="lite") == "/models/tiny-nli"


def test_packaged_model_location():
    path = model_location(PACKAGED_MINILM)
    assert path == packaged_model_path(PACKAGED_MINILM)
    assert not path.startswith("packaged:")
    assert model_location("BAAI/bge-large-en-v1.5") == "BAAI/bge-large-en-v1.5"
    with pytest.raises(ModelUnavailableError, match="no package ships 'packaged:other-model'"):
        model_location("packaged:other-model")


# ---------------------------------------------------------------- reporting


def test_format_table_alignment():
    rows = [{"name": "bm25", "score": 0.25, "n": 3}, {"name": "dense-long", "score": 1 / 3, "n": 10},
            {"name": "x", "score": float("nan"), "n": 0}]
    assert format_table(rows).splitlines() == [
        "name         score   n",
        "----------  ------  --",
        "bm25        0.2500   3",
        "dense-long  0.3333  10",
        "x              nan   0",
    ]
    assert format_table(rows, columns=["n", "name"]).splitlines()[0] == "n         name"
    assert format_table([]) == "(no rows)"


def test_write_table(tmp_path):
    rows = [{"retriever": "bm25", "recall@10": 0.5}, {"retriever": "dense", "papers": 3}]
    json_path, csv_path = write_table(rows, tmp_path / "out" / "table")
    assert (json_path.name, csv_path.name) == ("table.json", "table.csv")
    assert json.loads(json_path.read_text(encoding="utf-8")) == rows
    with csv_path.open(newline="", encoding="utf-8") as f:
        assert list(csv.reader(f)) == [["retriever", "recall@10", "papers"], ["bm25", "0.5", ""], ["dense", "", "3"]]


def test_plot_metric_bars(tmp_path):
    rows = [{"retriever": "bm25", "recall@10": 0.2, "ndcg@10": 0.3}, {"retriever": "dense", "recall@10": 0.4, "ndcg@10": 0.1}]
    path = plot_metric_bars(rows, "retriever", ["recall@10", "ndcg@10"], tmp_path / "plots" / "bars.png", title="t")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 2000
