"""The Ray Data index build equals the single-process one: same doc_ids in the same order, same vectors and search
results, in the layout `load_rwgbench(..., faiss_index=True)` reads."""

from __future__ import annotations

import shutil

import faiss
import numpy as np
import pytest

from sciwrite.cli import main
from sciwrite.models.registry import PACKAGED_MINILM
from sciwrite.retrieval import DenseRetriever, load_retriever
from sciwrite.retrieval.bm25 import _ids_and_texts
from sciwrite.retrieval.dense import training_rows
from sciwrite.rwgbench.data.corpus_files import corpus_files, read_doc_ids
from sciwrite.rwgbench.data.loading import load_rwgbench

TOLERANCE = 1e-5


QUERIES = ["statistical machine translation of names", "question answering over documents",
           "named entity transliteration", "parsing with a grammar"]


def _vectors(retriever):
    return retriever.index.reconstruct_n(0, retriever.index.ntotal)


def _single_process(corpus, minilm, **settings):
    retriever = DenseRetriever(encoder=PACKAGED_MINILM, **settings)
    retriever._model = minilm  # the session's MiniLM, as `patch_encoder` gives every DenseRetriever
    return retriever.index_texts(*_ids_and_texts(corpus), show_progress=False)


def _same_hits(a, b, k):
    for ray_hits, hits in zip(a.search(QUERIES, k=k, show_progress=False), b.search(QUERIES, k=k, show_progress=False)):
        assert ray_hits.doc_ids == hits.doc_ids
        assert np.allclose(ray_hits.scores, hits.scores, atol=TOLERANCE)


@pytest.fixture(scope="module")
def built(engine, mini_sample_folder, tmp_path_factory):
    """The mini sample's dense index built on Ray, in the layout `sciwrite index build` writes: two actors, four
    rows per call (26 documents: seven calls, spread over the actors and gathered back in order), shards of 10 rows
    (three) kept for inspection; (dataset folder, shards folder)."""
    folder = shutil.copytree(mini_sample_folder, tmp_path_factory.mktemp("ray_index") / "mini_sample")
    shards = folder.parent / "shards"
    engine.build_dense_index(corpus_files("sample_corpus", folder), folder / "faiss" / "sample_corpus",
                             encoder=PACKAGED_MINILM, actors=2, rows_per_call=4, shard_rows=10, shards_dir=shards,
                             show_progress=False)
    return folder, shards


def test_ray_index_equals_the_single_process_index(built, minilm):
    folder, shards = built
    assert sorted(p.name for p in shards.iterdir()) == [f"embeddings-0000{i}.npy" for i in range(3)]
    corpus = load_rwgbench("sample_corpus", source=folder)
    single = _single_process(corpus, minilm)
    ray_built = load_retriever(folder / "faiss" / "sample_corpus")
    ray_built._model = minilm
    assert ray_built.doc_ids == single.doc_ids == list(corpus["doc_id"])
    assert ray_built.config() == single.config()
    assert np.abs(_vectors(ray_built) - _vectors(single)).max() < TOLERANCE
    _same_hits(ray_built, single, k=5)

    # the layout load_rwgbench reads: the index attaches to the corpus it was built from
    attached = load_rwgbench("sample_corpus", source=folder, faiss_index=True)
    query = single.encode(QUERIES[:1], show_progress=False)
    _, examples = attached.get_nearest_examples("embeddings", query[0], k=3)
    assert examples["doc_id"] == single.search(QUERIES[:1], k=3, show_progress=False)[0].doc_ids


def test_an_ivf_index_from_the_shards_is_trained_on_the_same_sample(built, minilm):
    from sciwrite.scale.ray_index import index_shards

    folder, shards = built
    corpus = load_rwgbench("sample_corpus", source=folder)
    single = _single_process(corpus, minilm, factory="IVF2,Flat", nprobe=1)
    index = index_shards(sorted(shards.iterdir()), "IVF2,Flat", show_progress=False)
    from_shards = DenseRetriever(encoder=PACKAGED_MINILM, factory="IVF2,Flat", nprobe=1)
    from_shards.with_index(index, single.doc_ids)
    from_shards._model = minilm
    centroids = [faiss.extract_index_ivf(r.index).quantizer.reconstruct_n(0, 2) for r in (from_shards, single)]
    assert np.abs(centroids[0] - centroids[1]).max() < TOLERANCE
    assert from_shards.index.ntotal == len(corpus)
    _same_hits(from_shards, single, k=4)


def test_gather_rows_reads_the_sample_across_shards(engine):
    from sciwrite.scale.ray_index import gather_rows

    full = np.arange(26 * 3, dtype=np.float32).reshape(26, 3)
    shards = [full[:10], full[10:20], full[20:]]
    rows = np.array([0, 9, 10, 11, 25])
    assert np.array_equal(gather_rows(shards, rows), full[rows])
    index = faiss.index_factory(3, "IVF2,Flat", faiss.METRIC_INNER_PRODUCT)
    assert np.array_equal(training_rows(index, 26), np.arange(26))  # fewer vectors than the sample: all of them


def test_corpus_files_check_the_columns_and_ids(mini_sample_copy, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = corpus_files("sample_corpus", mini_sample_copy)
    assert read_doc_ids(files) == list(load_rwgbench("sample_corpus", source=mini_sample_copy)["doc_id"])
    with pytest.raises(ValueError, match="is a paper config"):
        corpus_files("sample", mini_sample_copy)
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"doc_id": ["a"], "title": ["t"]}), bad)
    with pytest.raises(Exception, match=r"has no field\(s\) \['abstract'\]"):
        read_doc_ids([str(bad)])
    twice = tmp_path / "twice.parquet"
    pq.write_table(pa.table({"doc_id": ["a", "a"], "title": ["t", "u"], "abstract": ["x", "y"]}), twice)
    with pytest.raises(ValueError, match="duplicate doc_id"):
        read_doc_ids([str(twice)])


def test_the_command_builds_on_ray(monkeypatch, mini_sample_copy, capsys):
    """`sciwrite index build --engine ray` hands the corpus files and every option to the Ray engine."""
    from sciwrite.cli import index as index_cli

    asked = {}

    class FakeEngine:
        @staticmethod
        def build_dense_index(files, out, **kwargs):
            asked.update(files=files, out=out, **kwargs)
            return DenseRetriever(encoder=PACKAGED_MINILM).with_index(faiss.IndexFlatIP(4), [])

    monkeypatch.setattr(index_cli, "ray_engine", FakeEngine)
    argv = ["index", "build", "--kind", "dense", "--engine", "ray", "--source", str(mini_sample_copy), "--config",
            "sample_corpus", "--encoder", PACKAGED_MINILM, "--factory", "IVF64,PQ8", "--shard-rows", "10",
            "--shards-dir", "shards", "--ray-address", "auto", "--ray-actors", "4"]
    assert main(argv) == 0
    assert asked["files"] == corpus_files("sample_corpus", mini_sample_copy)
    assert asked["out"] == mini_sample_copy / "faiss" / "sample_corpus"
    assert (asked["factory"], asked["shard_rows"], asked["shards_dir"], asked["address"], asked["actors"]) == \
        ("IVF64,PQ8", 10, "shards", "auto", 4)
    assert "written to" in capsys.readouterr().out
