"""The shared evaluation runner with a third, toy benchmark's steps: every file read before any model loads, the
models loaded once, one summary per system with its schema version, provenance and trailer, the shared result
files in ``<out>/<system>/``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from datasets import Dataset

from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION
from sciwrite.metrics.runner import EvaluationSteps, OpenSplit, PredictionFile, ResultFiles, evaluate_files

PAPERS = Dataset.from_list([{"paper_id": f"p{i}", "reference": "word " * (i + 1)} for i in range(3)])


def toy_steps(calls: list[str]) -> EvaluationSteps:
    def open_split(split, source):
        calls.append(f"open {split}")
        if split != "toy":
            raise ValueError(f"unknown split {split!r}")
        return OpenSplit("toy", PAPERS)

    def read(path, split, bad_records, shout=False):
        calls.append(f"read {Path(path).name}")
        records = [json.loads(line) for line in Path(path).read_text().splitlines()]
        if any("text" not in r for r in records):
            raise ValueError(f"{path}: a line without 'text'")
        by_id = {p["paper_id"]: p for p in split.papers}
        return PredictionFile(path, [r["text"].upper() if shout else r["text"] for r in records],
                              [by_id[r["paper_id"]] for r in records], [], trailer={"toy_note": "after provenance"})

    def load_models(profile, models, metrics, judge_options):
        calls.append("load models")
        return {"profile": profile or "lite"}

    def score(file, split, suite, batch_size, show_progress):
        calls.append(f"score {Path(file.path).name}")
        rows = [{"paper_id": t["paper_id"], "length_ratio": len(text.split()) / len(t["reference"].split())}
                for text, t in zip(file.texts, file.targets)]
        return rows, {"length": 0.0}

    def summarize(file, rows, timings, suite, *, system, split_name, split, bootstrap, seed, judge_options,
                  shout=False):
        return {"system": system, "split": split_name, "profile": suite["profile"], "models": {},
                "length_ratio": sum(r["length_ratio"] for r in rows) / len(rows)}

    return EvaluationSteps(benchmark="toy", open_split=open_split, read=read, load_models=load_models, score=score,
                           score_on_ray=lambda *a: pytest.fail("not on Ray"), summarize=summarize,
                           result_files=lambda s, system: ResultFiles([{"system": system,
                                                                        "length_ratio": s["length_ratio"]}]),
                           templates={"toy": "Score this."})


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_third_benchmark_runs_through_the_shared_runner(tmp_path):
    calls: list[str] = []
    a = write(tmp_path / "a.jsonl", [{"paper_id": "p0", "text": "word"}, {"paper_id": "p1", "text": "word"}])
    b = write(tmp_path / "b.jsonl", [{"paper_id": "p2", "text": "word word word"}])
    summaries = evaluate_files(toy_steps(calls), [a, b], "toy", out_dir=tmp_path / "out", bootstrap=0, seed=7,
                               shout=True)
    assert calls == ["open toy", "read a.jsonl", "read b.jsonl", "load models", "score a.jsonl", "score b.jsonl"]
    first, second = summaries
    assert first["length_ratio"] == pytest.approx((1 + 0.5) / 2) and second["length_ratio"] == 1.0
    assert list(first)[0] == "schema_version" and first["schema_version"] == SUMMARY_SCHEMA_VERSION
    assert list(first)[-2:] == ["provenance", "toy_note"]  # the trailer follows the provenance
    block = first["provenance"]
    assert block["benchmark"] == "toy" and block["dataset"] == {"config": "toy", "fingerprint": PAPERS._fingerprint,
                                                                "n_papers": 3}
    assert block["seeds"] == {"bootstrap": 7, "judge": 42} and block["model_plan"] == {} and block["judge"] is None
    for system in ("a", "b"):
        folder = tmp_path / "out" / system
        assert sorted(p.name for p in folder.iterdir()) == ["per_paper.jsonl", "summary.csv", "summary.json"]
        rows = [json.loads(line) for line in (folder / "per_paper.jsonl").read_text().splitlines()]
        assert all(row["system"] == system for row in rows)
    assert json.loads((tmp_path / "out" / "a" / "summary.json").read_text()) == first


def test_a_bad_file_is_refused_before_any_model_loads(tmp_path):
    calls: list[str] = []
    good = write(tmp_path / "good.jsonl", [{"paper_id": "p0", "text": "word"}])
    bad = write(tmp_path / "bad.jsonl", [{"paper_id": "p0"}])
    with pytest.raises(ValueError, match="a line without 'text'"):
        evaluate_files(toy_steps(calls), [good, bad], "toy")
    assert "load models" not in calls
    with pytest.raises(ValueError, match="one distinct system name per prediction file"):
        evaluate_files(toy_steps(calls), [good, good], "toy")
    with pytest.raises(ValueError, match="unknown split 'other'"):
        evaluate_files(toy_steps(calls), [good], "other")


def test_one_file_into_its_own_folder_with_models_already_loaded(tmp_path):
    calls: list[str] = []
    path = write(tmp_path / "sys.jsonl", [{"paper_id": "p1", "text": "word word"}])
    [summary] = evaluate_files(toy_steps(calls), [path], "toy", out_dir=tmp_path / "here", system_folders=False,
                               suite={"profile": "paper"}, bootstrap=0)
    assert "load models" not in calls and summary["profile"] == "paper"
    assert (tmp_path / "here" / "summary.json").exists() and not (tmp_path / "here" / "sys").exists()
