"""`sciwrite push results`: a scored run as the Hub's `.eval_results` YAML (written with huggingface_hub's helpers and
read back with `parse_eval_result_entries`), and the board importing them as self-reported rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from huggingface_hub import parse_eval_result_entries

from sciwrite.benchmarks import get_benchmark
from sciwrite.cli import main
from sciwrite.core.eval_results import read_results_files, result_entries, results_filename, variant
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.hub_results import import_hub_results
from sciwrite.leaderboard.store import ResultsStore
from sciwrite.leaderboard.tables import leaderboard_rows
from sciwrite.rwgbench.data.build_commands import human_gt_records
from sciwrite.rwgbench.data.loading import load_rwgbench


@pytest.fixture()
def scored(mini_sample_copy, tmp_path) -> Path:
    """The reference sections of the mini sample, scored (precision, recall) as an Oracle-RAG run."""
    papers = load_rwgbench("sample", source=mini_sample_copy)
    records = [{**r, "model": "openai:gpt-5.5", "method": "RAG", "retriever": "oracle"}
               for r in human_gt_records(papers, "sample")]
    predictions = tmp_path / "run.jsonl"
    predictions.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "eval"
    assert main(["evaluate", "rwgbench", "--predictions", str(predictions), "--source", str(mini_sample_copy),
                 "--profile", "lite", "--metrics", "precision", "recall", "--bootstrap", "0", "--out", str(out)]) == 0
    return out / "run"


def test_the_round_trip_from_a_run_to_a_self_reported_board_row(scored, tmp_path, capsys):
    model_dir = tmp_path / "org-model"
    assert main(["push", "results", str(scored), "--model-repo", "org/model", "--dry-run", "--out", str(model_dir),
                 "--source-url", "https://huggingface.co/spaces/sciwrite/leaderboard"]) == 0
    assert "dry run: wrote" in capsys.readouterr().out
    [path] = (model_dir / ".eval_results").glob("*.yaml")
    assert path.name == "rwgbench-rag-oracle-lite.yaml"  # one file per setting
    entries = parse_eval_result_entries(yaml.safe_load(path.read_text()))
    by_task = {e.task_id: e for e in entries}
    assert set(by_task) == {"sample_citation_precision", "sample_citation_recall"}  # computed metrics only
    summary = json.loads((scored / "summary.json").read_text())
    entry = by_task["sample_citation_recall"]
    assert entry.value == round(summary["recall"], 4) and entry.dataset_id == "sciwrite/rwgbench"
    assert entry.source_url == "https://huggingface.co/spaces/sciwrite/leaderboard" and entry.source_name == "sciwrite"
    assert entry.date == summary["provenance"]["started"][:10]
    for part in ("profile: lite", "model: openai:gpt-5.5", "method: RAG", "retriever: oracle", "split: sample"):
        assert part in entry.notes

    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--benchmark", "rwgbench",
                 "--hub-eval-results", str(model_dir)]) == 0
    assert "added (self-reported): rwgbench sample org-model (rwgbench-rag-oracle-lite)" in capsys.readouterr().out
    [row] = leaderboard_rows(ResultsStore(store), "rwgbench", "sample")
    assert row["self_reported"] and row["condition"].startswith("self-reported on the Hub (.eval_results)")
    assert row["recall"] == entry.value and row["recall_low"] is None  # no per-paper rows: no interval
    assert ResultsStore(store).paper_rows(row["id"]) == []
    assert (row["model"], row["method"], row["retriever"]) == ("openai:gpt-5.5", "RAG", "oracle")  # from the notes
    # importing the same file again adds nothing
    assert main(["leaderboard", "import", "--store", str(store), "--benchmark", "rwgbench",
                 "--hub-eval-results", str(model_dir)]) == 0
    assert "already there: rwgbench sample" in capsys.readouterr().out


def test_push_results_opens_a_pull_request_with_the_files(scored, monkeypatch, capsys):
    sent = {}

    class FakeApi:
        def __init__(self, token=None):
            pass

        def create_commit(self, **kwargs):
            sent.update(kwargs)
            return type("Info", (), {"pr_url": "https://huggingface.co/org/model/discussions/3"})()

    monkeypatch.setattr("huggingface_hub.HfApi", FakeApi)
    assert main(["push", "results", str(scored), "--model-repo", "org/model"]) == 0
    assert sent["repo_id"] == "org/model" and sent["repo_type"] == "model" and sent["create_pr"] is True
    [operation] = sent["operations"]
    assert operation.path_in_repo == ".eval_results/rwgbench-rag-oracle-lite.yaml"
    entries = parse_eval_result_entries(yaml.safe_load(operation.path_or_fileobj.decode()))
    assert {e.task_id for e in entries} == {"sample_citation_precision", "sample_citation_recall"}
    assert "opened a pull request on org/model: https://huggingface.co/org/model/discussions/3" in \
        capsys.readouterr().out


def test_entries_skip_what_was_not_computed_and_name_the_setting():
    bench = get_benchmark("sciig")
    summary = Summary.from_json({
        "system": "s", "dataset": "naacl_2025", "rouge1": 0.41, "perplexity": 28.5, "bleurt": None,
        "run": {"model": "m", "method": "THREE_SHOT"},
        "provenance": {"profile": "paper", "dataset": {"config": "naacl_2025", "revision": "abc123"},
                       "started": "2026-12-01T10:00:00+00:00"}})
    entries = result_entries(summary, bench.hub.tasks, bench.hub.repo())
    assert [(e.task_id, e.value) for e in entries] == [("naacl_2025_rouge_1", 0.41), ("naacl_2025_perplexity", 28.5)]
    assert entries[0].dataset_revision == "abc123" and entries[0].dataset_id == "sciwrite/sciig"
    assert variant(summary) == "three-shot" and results_filename("sciig", summary) == ".eval_results/sciig-three-shot.yaml"
    with pytest.raises(ValueError, match="holds none of the benchmark's headline metrics"):
        result_entries(Summary.from_json({"system": "s", "provenance": {}}), bench.hub.tasks, bench.hub.repo())


def test_other_benchmarks_entries_are_left_out(tmp_path):
    folder = tmp_path / "m" / ".eval_results"
    folder.mkdir(parents=True)
    (folder / "hle.yaml").write_text(yaml.safe_dump([{"dataset": {"id": "cais/hle", "task_id": "default"},
                                                      "value": 20.9}]))
    [results] = read_results_files(tmp_path / "m").values()
    assert [e.dataset_id for e in results.entries] == ["cais/hle"] and results.lines == (1,)
    report = import_hub_results(ResultsStore(tmp_path / "s.sqlite"), get_benchmark("rwgbench"), tmp_path / "m")
    assert not report.added
    assert report.skipped == [f"{folder / 'hle.yaml'}:1: cais/hle / default is not a RWGBench task (another dataset)"]


@pytest.mark.parametrize("name", ["rwgbench", "sciig", "surge"])
def test_eval_yaml_is_the_generated_one_and_names_every_task(name):
    from sciwrite.core.eval_results import eval_yaml, task_id

    bench = get_benchmark(name)
    path = Path(__file__).resolve().parents[2] / "datasets" / name / "eval.yaml"
    assert path.read_text() == eval_yaml(bench), "regenerate it: eval_yaml(bench) changed"
    document = yaml.safe_load(path.read_text())
    assert set(document) == {"name", "description", "evaluation_framework", "tasks"}
    assert document["evaluation_framework"] == "inspect-ai"  # on the Hub's list (huggingface.js eval.ts)
    assert all(f"`inspect eval sciwrite/{name} -T split={t['config']}`" in t["description"] for t in document["tasks"])
    ids = [t["id"] for t in document["tasks"]]
    assert len(ids) == len(set(ids)) == len(bench.hub.tasks) * len(bench.hub.configs)
    assert {task_id(c, t) for c, _ in bench.hub.configs for t in bench.hub.tasks} == set(ids)
    assert all({"id", "name", "description", "config", "split"} == set(t) for t in document["tasks"])
    assert all(("Higher is better" in t["description"]) != ("Lower is better" in t["description"])
               for t in document["tasks"])


def test_push_sciig_script_dry_run(sciig_mini_folder, monkeypatch, capsys):
    import runpy
    import sys

    script = Path(__file__).resolve().parents[2] / "scripts" / "push_sciig.py"
    monkeypatch.setattr(sys, "argv", ["push_sciig.py", "--folder", str(sciig_mini_folder), "--push-to-hub", "me/sciig",
                                      "--dry-run"])
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "sample/test: " in out and "sample/holdout: " in out
    assert "datasets/sciig/eval.yaml -> me/sciig:eval.yaml" in out


@pytest.mark.parametrize("name", ["rwgbench", "sciig"])
def test_the_card_lists_every_task_and_never_claims_registration(name):
    card = (Path(__file__).resolve().parents[2] / "datasets" / name / "README.md").read_text()
    section = card.split("## Evaluation results on the Hub", 1)[1].split("\n## ", 1)[0]
    assert all(f"| `{t.task_id}` |" in section for t in get_benchmark(name).hub.tasks)
    assert "sciwrite is not on that list" in section and "is registered" not in section
    assert "`inspect-ai`" in section and "hf jobs run" in section and f"inspect eval sciwrite/{name}" in section
