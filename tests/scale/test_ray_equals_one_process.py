"""The Ray engine equals one process, in one module so that one test worker (`make test`: pytest-xdist,
``--dist loadfile``) runs every test that starts the session's local Ray:

- `evaluate rwgbench|sciig|surge --engine ray`: the same per-paper rows (floats within 1e-6) and the same summaries,
  corpus-level quantities (SciIG's corpus BLEU, bootstrap intervals) included, every system's papers in one Ray run;
- a third benchmark of the tests' own (`tests.toy_benchmark`) on Ray, through the same generic actor;
- the Ray Data index build: the same doc_ids in the same order, the same vectors and search results, in the layout
  `load_rwgbench(..., faiss_index=True)` reads."""

from __future__ import annotations

import json
import math
import shutil

import faiss
import numpy as np
import pytest

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import main
from sciwrite.core.schema import SchemaError
from sciwrite.models.registry import PACKAGED_MINILM
from sciwrite.retrieval import DenseRetriever, load_retriever
from sciwrite.retrieval.bm25 import _ids_and_texts
from sciwrite.retrieval.corpus_files import read_doc_ids
from sciwrite.retrieval.dense import training_rows
from sciwrite.rwgbench.data.corpus_files import corpus_files
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.scale import ray_evaluate
from sciwrite.sciig import load_sciig
from sciwrite.scoring.files import evaluate_files
from sciwrite.scoring.request import ScoringRequest
from sciwrite.surge.data.loading import load_surge
from tests.toy_benchmark import TOY

#: Starting the session's Ray takes tens of seconds: every test here is `make test-slow`'s (CI runs it).
pytestmark = pytest.mark.slow

TOLERANCE = 1e-6


def assert_same(a, b, where="value"):
    """Equal JSON-like values, floats within `TOLERANCE`; the message names the first differing key."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert sorted(a) == sorted(b), f"{where}: keys differ: {sorted(set(a) ^ set(b))}"
        for key in a:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list | tuple) and isinstance(b, list | tuple):
        assert len(a) == len(b), f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a is not None and b is not None and (math.isclose(a, b, abs_tol=TOLERANCE) or a == b), \
            f"{where}: {a!r} != {b!r}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def read_rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def evaluate(benchmark, files, out, **options):
    """The scoring core's file layer on the benchmark's offline sample: one summary per file."""
    bench = BENCHMARKS[benchmark] if isinstance(benchmark, str) else benchmark
    request = ScoringRequest(split=bench.data.offline_config, **options)
    summaries = [result.summary.to_json() for result in evaluate_files(bench, files, request, out_dir=out)]
    for summary in summaries:  # the usage ledger is under each run's own folder: its path differs by design
        summary.get("llm_usage", {}).pop("ledger", None)
    return summaries


@pytest.fixture
def ray_runs(monkeypatch):
    """How many Ray Data runs the scoring made (each `_run` is one)."""
    runs = []
    real = ray_evaluate._run

    def counted(*args, **kwargs):
        runs.append(len(args[2]))
        return real(*args, **kwargs)

    monkeypatch.setattr(ray_evaluate, "_run", counted)
    return runs


def test_rwgbench_on_ray_equals_one_process(local_ray, mini_sample_folder, tmp_path, ray_runs):
    """Two systems (each a whole scoring on both engines, so two and not more): the published sections over a
    mixed candidate list, and a Direct run whose listed references the grounding resolves on the driver."""
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    corpus = load_rwgbench("sample_corpus", source=mini_sample_folder)
    titles = dict(zip(corpus["doc_id"], corpus["title"]))
    corpus_ids = list(corpus["doc_id"])
    retrieved = write_jsonl(tmp_path / "retrieved.jsonl", [
        {"paper_id": p["paper_id"], "text": p["related_work"],
         "candidates": [*p["citations"][1:3], *corpus_ids[i:i + 3]]} for i, p in enumerate(papers)])
    direct = write_jsonl(tmp_path / "direct.jsonl", [
        {"paper_id": p["paper_id"], "text": "Earlier systems [1] and [2] did this.", "candidates": [],
         "references": [{"n": 1, "title": titles[p["citations"][0]]},
                        {"n": 2, "title": "An Invented Survey of Hyperbolic Llama Parsing"}]} for p in papers])
    files = [retrieved, direct]
    options = {"source": mini_sample_folder, "profile": "lite", "bootstrap": 200, "show_progress": False}
    local = evaluate("rwgbench", files, tmp_path / "local", **options)
    on_ray = evaluate("rwgbench", files, tmp_path / "ray", engine="ray", ray_actors=2, **options)
    assert ray_runs == [2 * len(papers)], "both systems' papers in one Ray run"
    # the provenance names the engine and the wall time, which differ by design; the dataset and models do not
    for ray_summary, local_summary in zip(on_ray, local):
        ray_block, local_block = ray_summary.pop("provenance"), local_summary.pop("provenance")
        assert (ray_block["engine"], local_block["engine"]) == ("ray", "local")
        assert ray_block["dataset"] == local_block["dataset"] and ray_block["models"] == local_block["models"]
    assert_same(on_ray, local, "summaries")
    assert 0 < local[0]["precision"] < 1 and local[1]["topical_relevance"] is None  # a real comparison
    assert local[1]["grounding"]["grounding_found_rate"] == 0.5
    for system in ("retrieved", "direct"):
        rows = read_rows(tmp_path / "ray" / system / "per_paper.jsonl")
        assert [r["paper_id"] for r in rows] == [p["paper_id"] for p in papers]
        assert_same(rows, read_rows(tmp_path / "local" / system / "per_paper.jsonl"), system)


def test_sciig_on_ray_equals_one_process(local_ray, sciig_mini_folder, tmp_path, ray_runs):
    papers = load_sciig("sample", source=sciig_mini_folder).to_list()
    texts = [papers[0]["introduction"], "Graph parsing is widely studied (Smith et al., 2020). We extend it.", ""]
    predictions = write_jsonl(tmp_path / "preds.jsonl",
                              [{"paper_id": p["paper_id"], "text": t} for p, t in zip(papers, texts)])
    second = write_jsonl(tmp_path / "other.jsonl",
                         [{"paper_id": p["paper_id"], "text": t} for p, t in zip(papers[1:], reversed(texts))])
    options = {"source": sciig_mini_folder, "profile": "lite", "bootstrap": 200, "show_progress": False,
               "metrics": ["rouge", "bleu", "meteor", "bertscore", "contextual_relevance", "keyphrases", "citations"]}
    local = evaluate("sciig", [predictions, second], tmp_path / "local", **options)
    # one actor: the SciIG scorer and the summary from gathered rows are what this test adds; papers spread over
    # two actors and gathered back in order are the RWGBench test's (the same `_run`), and a second actor's start-up
    # (imports, models) costs ~5 s of the test run on 2 cores
    on_ray = evaluate("sciig", [predictions, second], tmp_path / "ray", engine="ray", ray_actors=1, **options)
    assert ray_runs == [len(papers) + len(papers) - 1], "both systems' papers in one Ray run"
    for ray_summary, local_summary in zip(on_ray, local):
        # the scorers' seconds differ by nature; everything else, corpus BLEU and the intervals included, is equal
        assert set(ray_summary.pop("metric_timings")) == set(local_summary.pop("metric_timings"))
        ray_block, local_block = ray_summary.pop("provenance"), local_summary.pop("provenance")
        assert (ray_block["engine"], local_block["engine"]) == ("ray", "local")
        assert ray_block["dataset"] == local_block["dataset"]
    assert_same(on_ray, local, "summaries")
    assert local[0]["bleu"] is not None and local[0]["scoring_errors"]  # corpus BLEU, and a paper a scorer refused
    for system in ("preds", "other"):
        assert_same(read_rows(tmp_path / "ray" / system / "per_paper.jsonl"),
                    read_rows(tmp_path / "local" / system / "per_paper.jsonl"), system)
        for log in sorted((tmp_path / "local" / system / "keyphrase_outputs").iterdir()):
            assert_same(json.loads((tmp_path / "ray" / system / "keyphrase_outputs" / log.name).read_text()),
                        json.loads(log.read_text()), log.name)


def test_surge_on_ray_equals_one_process(local_ray, surge_mini_folder, tmp_path, ray_runs):
    """SurGE's actors score prepared surveys (references resolved and their corpus papers looked up on the driver,
    `ray_items`), and the driver grounds the reference lists after them (`after_ray`)."""
    surveys = load_surge("sample", source=surge_mini_folder).to_list()
    corpus = load_surge("sample_corpus", source=surge_mini_folder)
    titles = dict(zip(corpus["doc_id"], corpus["title"]))

    def survey(record, cited):
        sections = "\n".join(f"## {s['title']}\n{s['content'][:300]} As shown before [{i + 1}]."
                             for i, s in enumerate(record["structure"][1:4]))
        refs = "\n".join(f"[{i + 1}] {title}" for i, title in enumerate(cited))
        return f"# {record['title']}\n{sections}\n## References\n{refs}\n"

    predictions = write_jsonl(tmp_path / "preds.jsonl", [
        {"survey_id": r["paper_id"], "text": survey(r, [titles[c] for c in r["all_cites"][:3]] + ["An Invented Title"])}
        for r in surveys])
    options = {"source": surge_mini_folder, "profile": "lite", "bootstrap": 200, "show_progress": False}
    local = evaluate("surge", [predictions], tmp_path / "local", **options)
    on_ray = evaluate("surge", [predictions], tmp_path / "ray", engine="ray", ray_actors=1, **options)
    assert ray_runs == [len(surveys)]
    for ray_summary, local_summary in zip(on_ray, local):
        assert set(ray_summary.pop("stage_seconds")) == set(local_summary.pop("stage_seconds"))
        ray_block, local_block = ray_summary.pop("provenance"), local_summary.pop("provenance")
        assert (ray_block["engine"], local_block["engine"]) == ("ray", "local")
    assert_same(on_ray, local, "summaries")
    assert 0 < local[0]["reference_coverage"] < 1 and local[0]["grounding"]["counts"]["not_found"] == len(surveys)
    assert_same(read_rows(tmp_path / "ray" / "preds" / "per_paper.jsonl"),
                read_rows(tmp_path / "local" / "preds" / "per_paper.jsonl"), "preds")


def test_a_third_benchmark_runs_on_ray_through_the_generic_actor(local_ray, monkeypatch, tmp_path, ray_runs):
    """The tests' toy benchmark, registered by one line, scores on Ray as in one process: the actor takes its
    functions, and nothing in sciwrite names it."""
    monkeypatch.setitem(BENCHMARKS, TOY.name, TOY)
    a = write_jsonl(tmp_path / "a.jsonl", [{"paper_id": "p0", "text": "word"}, {"paper_id": "p1", "text": "word"}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"paper_id": "p2", "text": "word word word"}])
    local = evaluate("toy", [a, b], tmp_path / "local", bootstrap=0, show_progress=False)
    on_ray = evaluate("toy", [a, b], tmp_path / "ray", engine="ray", ray_actors=1, bootstrap=0, show_progress=False)
    assert ray_runs == [3]
    for summaries in (local, on_ray):
        assert [s["length_ratio"] for s in summaries] == [pytest.approx((1 + 0.5) / 2), 1.0]
    assert [s["provenance"]["engine"] for s in on_ray] == ["ray", "ray"]
    assert on_ray[0]["stage_seconds"].keys() == local[0]["stage_seconds"].keys() == {"length"}


def test_an_unknown_engine_is_refused_before_anything_is_read(tmp_path):
    with pytest.raises(ValueError, match="unknown engine 'nope'"):
        ScoringRequest(split="sample", source=tmp_path, engine="nope")


@pytest.mark.parametrize("what", ["rwgbench", "sciig"])
def test_the_commands_pass_the_engine_through(what, monkeypatch, tmp_path):
    from sciwrite.cli import evaluate as evaluate_cli

    asked = {}

    def fake(bench, predictions, request, **kwargs):
        asked.update(engine=request.engine, ray_address=request.ray_address, ray_actors=request.ray_actors)
        raise ValueError("stop here")

    monkeypatch.setattr(evaluate_cli, "evaluate_files", fake)
    argv = ["evaluate", what, "--predictions", str(tmp_path / "p.jsonl")]
    assert main([*argv, "--engine", "ray", "--ray-address", "auto", "--ray-actors", "3"]) == 2
    assert (asked["engine"], asked["ray_address"], asked["ray_actors"]) == ("ray", "auto", 3)
    assert main(argv) == 2
    assert (asked["engine"], asked["ray_address"], asked["ray_actors"]) == ("local", None, None)


# -- the index build ---------------------------------------------------------------------------------------------


VECTOR_TOLERANCE = 1e-5


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
        assert np.allclose(ray_hits.scores, hits.scores, atol=VECTOR_TOLERANCE)


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
    assert np.abs(_vectors(ray_built) - _vectors(single)).max() < VECTOR_TOLERANCE
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
    assert np.abs(centroids[0] - centroids[1]).max() < VECTOR_TOLERANCE
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
    with pytest.raises(SchemaError, match=r"bad\.parquet: corpus file has no field\(s\) \['abstract'\]"):
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
    argv = ["index", "build", "--kind", "dense", "--engine", "ray", "--source", str(mini_sample_copy), "--corpus",
            "sample_corpus", "--encoder", PACKAGED_MINILM, "--factory", "IVF64,PQ8", "--shard-rows", "10",
            "--shards-dir", "shards", "--ray-address", "auto", "--ray-actors", "4"]
    assert main(argv) == 0
    assert asked["files"] == corpus_files("sample_corpus", mini_sample_copy)
    assert asked["out"] == mini_sample_copy / "faiss" / "sample_corpus"
    assert (asked["factory"], asked["shard_rows"], asked["shards_dir"], asked["address"], asked["actors"]) == \
        ("IVF64,PQ8", 10, "shards", "auto", 4)
    assert "written to" in capsys.readouterr().out
