"""The one scoring core with a third, toy benchmark (`tests.toy_benchmark`, registered by one line): every system
read before any model loads, the models loaded once, one typed result per system with its schema version,
provenance, coverage and trailer, in memory; the file layer writes the shared result files in ``<out>/<system>/``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import main
from sciwrite.core.predictions import SystemPredictions
from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION, rows_fingerprint
from sciwrite.llm.ledger import UsageLedger
from sciwrite.metrics.judge_config import JudgeConfig
from sciwrite.scoring.core import ModelCache, model_request, score_systems
from sciwrite.scoring.files import evaluate_files
from sciwrite.scoring.request import ScoringRequest
from tests.benchmark_patch import patch_steps
from tests.toy_benchmark import TOY
from tests.toy_benchmark.scoring import PAPERS, STEPS


@pytest.fixture
def toy(monkeypatch):
    """The toy benchmark registered (the one registry line a third benchmark adds), its steps spied on: `calls`."""
    monkeypatch.setitem(BENCHMARKS, TOY.name, TOY)
    calls: list[str] = []

    def spy(name, step, label):
        def spied(*args, **kwargs):
            calls.append(label(*args))
            return step(*args, **kwargs)
        return spied

    patch_steps(monkeypatch, "toy",
                open_split=spy("open", STEPS.open_split, lambda request: f"open {request.split}"),
                read=spy("read", STEPS.read, lambda predictions, *_: f"read {predictions.system}"),
                load_models=spy("load", STEPS.load_models, lambda *_: "load models"),
                score=spy("score", STEPS.score, lambda file, *_: f"score {Path(file.origin).stem}"))
    return calls


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_third_benchmark_runs_through_the_scoring_core(toy, tmp_path):
    a = write(tmp_path / "a.jsonl", [{"paper_id": "p0", "text": "word"}, {"paper_id": "p1", "text": "word"}])
    b = write(tmp_path / "b.jsonl", [{"paper_id": "p2", "text": "word word word"}])
    request = ScoringRequest(split="toy", bootstrap=0, seed=7, options={"shout": True})
    first, second = evaluate_files(BENCHMARKS["toy"], [a, b], request, out_dir=tmp_path / "out")
    assert toy == ["open toy", "read a", "read b", "load models", "score a", "score b"]
    assert first.summary.to_json()["length_ratio"] == pytest.approx((1 + 0.5) / 2) and second.summary.to_json()["length_ratio"] == 1.0
    assert [row.value("length_ratio") for row in first.rows] == [1.0, 0.5] and first.rejected == []
    assert list(first.summary.to_json())[0] == "schema_version" and first.schema_version == SUMMARY_SCHEMA_VERSION
    keys = list(first.summary.to_json())
    assert keys[-1] == "toy_note" and keys.index("provenance") < keys.index("toy_note")  # the trailer comes last
    assert first.coverage.scored == 2 and first.coverage.total == 3 and second.coverage.text == "1/3 papers"
    block = first.summary.to_json()["provenance"]
    assert first.provenance is not None and first.provenance.benchmark == "toy"
    assert block["benchmark"] == "toy" and block["dataset"] == {
        "config": "toy", "fingerprint": rows_fingerprint(PAPERS.to_list()), "n_papers": 3}  # the rows' content
    assert block["seeds"] == {"bootstrap": 7, "judge": 42} and block["judge"] is None
    for system in ("a", "b"):
        folder = tmp_path / "out" / system
        assert sorted(p.name for p in folder.iterdir()) == ["per_paper.jsonl", "summary.csv", "summary.json"]
        rows = [json.loads(line) for line in (folder / "per_paper.jsonl").read_text().splitlines()]
        assert all(row["system"] == system and row["benchmark"] == "toy" for row in rows)
    assert json.loads((tmp_path / "out" / "a" / "summary.json").read_text()) == first.summary.to_json()


def test_the_core_scores_records_in_memory_and_writes_nothing(toy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    systems = [SystemPredictions.from_records([{"paper_id": "p1", "text": "word word"}], "mine"),
               SystemPredictions.from_text('{"paper_id": "p2", "pred": "w w w"}\n', "theirs")]
    mine, theirs = score_systems(BENCHMARKS["toy"], systems, ScoringRequest(split="toy", bootstrap=0))
    assert (mine.system, mine.summary.to_json()["length_ratio"], theirs.summary.to_json()["length_ratio"]) == ("mine", 1.0, 1.0)
    assert mine.summary.to_json()["predictions"] == "<mine>" and list(tmp_path.iterdir()) == []
    assert mine.files.table_rows == [{"system": "mine", "length_ratio": 1.0}]


def test_a_bad_file_is_refused_before_any_model_loads(toy, tmp_path):
    good = write(tmp_path / "good.jsonl", [{"paper_id": "p0", "text": "word"}])
    bad = write(tmp_path / "bad.jsonl", [{"paper_id": "p0"}])
    request = ScoringRequest(split="toy")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: \(paper_id 'p0'\) field 'text'"):
        evaluate_files(BENCHMARKS["toy"], [good, bad], request)
    assert "load models" not in toy
    with pytest.raises(ValueError, match="one distinct system name per prediction file"):
        evaluate_files(BENCHMARKS["toy"], [good, good], request)
    with pytest.raises(ValueError, match="unknown split 'other'"):
        evaluate_files(BENCHMARKS["toy"], [good], request.with_(split="other"))
    with pytest.raises(ValueError, match=r"unknown evaluation option\(s\) \['loud'\]"):
        evaluate_files(BENCHMARKS["toy"], [good], request.with_(options={"loud": True}))


def test_one_file_into_its_own_folder_with_models_already_loaded(toy, tmp_path):
    path = write(tmp_path / "sys.jsonl", [{"paper_id": "p1", "text": "word word"}])
    models = STEPS.load_models(profile="paper")
    [result] = evaluate_files(BENCHMARKS["toy"], [path], ScoringRequest(split="toy", bootstrap=0),
                              out_dir=tmp_path / "here", system_folders=False, models=models)
    assert "load models" not in toy and result.summary.to_json()["profile"] == "paper"
    assert (tmp_path / "here" / "summary.json").exists() and not (tmp_path / "here" / "sys").exists()


def test_the_model_cache_loads_once_per_benchmark_and_options(toy, tmp_path):
    cache = ModelCache()
    ledger = UsageLedger(tmp_path / "usage.jsonl")
    request = ScoringRequest(split="toy", judge=JudgeConfig(base_url="http://judge", options=(("top_p", [1]),)),
                             ledger=ledger)
    first = cache.get(BENCHMARKS["toy"], request)
    # an equal judge config made anew is the same key (by value, never by the object's identity)
    same = request.with_(judge=JudgeConfig(base_url="http://judge", options=(("top_p", [1]),)))
    assert cache.get(BENCHMARKS["toy"], same) is first and toy == ["load models"]
    assert cache.get(BENCHMARKS["toy"], request.with_(metrics=("length",))) is not first and len(cache) == 2
    assert cache.get(BENCHMARKS["toy"], request.with_(judge=JudgeConfig(base_url="http://other"))) is not first
    # the clients write to the ledger they were made with: another ledger is another load
    assert cache.get(BENCHMARKS["toy"], request.with_(ledger=UsageLedger(tmp_path / "other.jsonl"))) is not first
    assert len(cache) == 4


def test_metric_names_are_expanded_and_the_judge_left_out(toy):
    [result] = score_systems(BENCHMARKS["toy"], [SystemPredictions.from_records([{"paper_id": "p0", "text": "w"}], "s")],
                             ScoringRequest(split="toy", bootstrap=0,
                                            metrics=BENCHMARKS["toy"].suite.metrics_without_judge()))
    assert result.summary.to_json()["judged_short"] is None and result.summary.to_json()["length_ratio"] == 1.0
    with pytest.raises(ValueError, match="unknown Toy metric 'nope'"):
        BENCHMARKS["toy"].suite.expand_metrics(["nope"])


def test_the_command_line_runs_the_registered_toy(toy, tmp_path, capsys):
    """`sciwrite evaluate toy`: the command is made from the registry, the toy's own option included."""
    path = write(tmp_path / "a.jsonl", [{"paper_id": "p0", "text": "word"}])
    assert main(["evaluate", "toy", "--predictions", str(path), "--out", str(tmp_path / "out"), "--bootstrap", "0",
                 "--shout", "--no-judge"]) == 0
    assert "a: length ratio 1.000" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "a" / "summary.json").read_text())["judged_short"] is None


def test_a_model_override_of_a_role_the_benchmark_lacks_is_an_error_naming_its_roles():
    """``--model-role nonsense=x`` (or ``models=`` from Python) was silently unused; it is refused before any
    model loads, with the roles the benchmark declares."""
    rwgbench = BENCHMARKS["rwgbench"]
    with pytest.raises(ValueError, match=r"unknown model role\(s\) \['nonsense'\] for RWGBench; its roles are "
                                         r"scibert, nli, citation_frame, judge"):
        model_request(rwgbench, ScoringRequest(models={"nonsense": "x", "nli": "y"}))
    assert model_request(rwgbench, ScoringRequest(models={"nli": "y"}))["models"] == {"nli": "y"}
