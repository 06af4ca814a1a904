"""`evaluate rwgbench|sciig --engine ray` equals one process: the same per-paper rows (floats within 1e-6) and the
same summaries, corpus-level quantities (SciIG's corpus BLEU, bootstrap intervals) included."""

from __future__ import annotations

import json
import math

import pytest

from sciwrite.cli import main
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.report import evaluate_prediction_files
from sciwrite.sciig import load_sciig
from sciwrite.sciig.metrics.report import evaluate_sciig_file

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


@pytest.mark.slow
def test_rwgbench_on_ray_equals_one_process(local_ray, mini_sample_folder, tmp_path):
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
    local = evaluate_prediction_files(files, "sample", out_dir=tmp_path / "local", **options)
    on_ray = evaluate_prediction_files(files, "sample", out_dir=tmp_path / "ray", engine="ray", ray_actors=2, **options)
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


@pytest.mark.slow
def test_sciig_on_ray_equals_one_process(local_ray, sciig_mini_folder, tmp_path):
    papers = load_sciig("sample", source=sciig_mini_folder).to_list()
    texts = [papers[0]["introduction"], "Graph parsing is widely studied (Smith et al., 2020). We extend it.", ""]
    predictions = write_jsonl(tmp_path / "preds.jsonl",
                              [{"paper_id": p["paper_id"], "text": t} for p, t in zip(papers, texts)])
    options = {"source": sciig_mini_folder, "profile": "lite", "bootstrap": 200, "show_progress": False,
               "metrics": ["rouge", "bleu", "meteor", "bertscore", "contextual_relevance", "keyphrases", "citations"]}
    local = evaluate_sciig_file(predictions, "sample", out_dir=tmp_path / "local", **options)
    # one actor: the SciIG scorer and the summary from gathered rows are what this test adds; papers spread over
    # two actors and gathered back in order are the RWGBench test's (the same `_run`), and a second actor's start-up
    # (imports, models) costs ~5 s of the test run on 2 cores
    on_ray = evaluate_sciig_file(predictions, "sample", out_dir=tmp_path / "ray", engine="ray", ray_actors=1, **options)
    # the scorers' seconds differ by nature; everything else, corpus BLEU and the intervals included, is equal
    assert set(on_ray.pop("metric_timings")) == set(local.pop("metric_timings"))
    ray_block, local_block = on_ray.pop("provenance"), local.pop("provenance")
    assert (ray_block["engine"], local_block["engine"]) == ("ray", "local") and ray_block["dataset"] == local_block["dataset"]
    assert_same(on_ray, local, "summary")
    assert local["bleu"] is not None and local["scoring_errors"]  # corpus BLEU, and a paper a scorer refused
    assert_same(read_rows(tmp_path / "ray" / "per_paper.jsonl"), read_rows(tmp_path / "local" / "per_paper.jsonl"))
    for log in sorted((tmp_path / "local" / "keyphrase_outputs").iterdir()):
        assert_same(json.loads((tmp_path / "ray" / "keyphrase_outputs" / log.name).read_text()),
                    json.loads(log.read_text()), log.name)


def test_an_unknown_engine_is_refused_before_anything_is_read(tmp_path):
    missing = tmp_path / "no-such-file.jsonl"
    with pytest.raises(ValueError, match="unknown engine 'nope'"):
        evaluate_sciig_file(missing, "sample", source=tmp_path, engine="nope")
    with pytest.raises(ValueError, match="unknown engine 'nope'"):
        evaluate_prediction_files([missing], "sample", source=tmp_path, engine="nope")


@pytest.mark.parametrize("what", ["rwgbench", "sciig"])
def test_the_commands_pass_the_engine_through(what, monkeypatch, tmp_path):
    asked = {}

    def fake(*args, **kwargs):
        asked.update(kwargs)
        raise ValueError("stop here")

    import dataclasses

    from sciwrite.benchmarks import BENCHMARKS

    monkeypatch.setitem(BENCHMARKS, what, dataclasses.replace(BENCHMARKS[what], evaluate=fake))
    argv = ["evaluate", what, "--predictions", str(tmp_path / "p.jsonl")]
    assert main([*argv, "--engine", "ray", "--ray-address", "auto", "--ray-actors", "3"]) == 2
    assert (asked["engine"], asked["ray_address"], asked["ray_actors"]) == ("ray", "auto", 3)
    assert main(argv) == 2
    assert (asked["engine"], asked["ray_address"], asked["ray_actors"]) == ("local", None, None)
