"""`sciwrite push results --inspect-log`: a real Inspect run of a sciwrite task (offline, ``mockllm/model``) becomes
the Hub's `.eval_results` entries, each value the task's metric in the log, naming the framework (``inspect-ai``),
the Inspect task and run; the sciwrite version and commit and the model snapshot are read back from the log. Bad
inputs end in one line with exit 2 and write nothing."""

from __future__ import annotations

import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from huggingface_hub import parse_eval_result_entries

pytest.importorskip("inspect_ai", reason="reading Inspect logs needs the inspect extra (pip install sciwrite[inspect])")

from inspect_ai.log import read_eval_log, write_eval_log  # noqa: E402

import sciwrite  # noqa: E402
from sciwrite.benchmarks import get_benchmark  # noqa: E402
from sciwrite.cli import main  # noqa: E402
from sciwrite.harness.inspect_logs import read_inspect_log  # noqa: E402
from sciwrite.harness.inspect_scorers import ROW  # noqa: E402
from tests.inspect_tasks.test_inspect_logs import sciig_log  # noqa: E402, F401 (the module's fixture: one real run)

#: The log's metrics (the fixture's) and the Hub task ids they are published under on the sample config.
TASK_IDS = {"rouge1": "sample_rouge_1", "rougeL": "sample_rouge_l", "bleu": "sample_bleu"}


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("sciwrite: error: ") and "\n" not in err and "Traceback" not in err
    return err


def _push(*argv: str) -> list[str]:
    return ["push", "results", *argv, "--model-repo", "org/model"]


def test_the_entries_are_the_logs_metrics_named_inspect_ai(sciig_log, tmp_path, capsys):  # noqa: F811
    path, log = sciig_log
    out = tmp_path / "org-model"
    assert main([*_push("--inspect-log", path), "--dry-run", "--out", str(out)]) == 0
    assert "dry run: wrote" in capsys.readouterr().out
    [file] = (out / ".eval_results").glob("*.yaml")
    assert file.name == "sciig-elaborate-lite.yaml"  # the setting: the level, and the profile the task ran with
    items = yaml.safe_load(file.read_text())
    reported = {m.name: m.value for score in log.results.scores for m in score.metrics.values()}
    by_task = {item["dataset"]["task_id"]: item for item in items}
    # every headline metric the run computed (its ROUGE stage gives ROUGE-2 too), and only those
    expected = {f"sample_{task.task_id}": reported[task.key] for task in get_benchmark("sciig").hub.tasks
                if task.key in reported}
    assert set(TASK_IDS.values()) <= set(by_task) == set(expected)
    for task, value in expected.items():
        assert by_task[task]["value"] == pytest.approx(value, abs=5e-5)  # published to 4 decimals
    for item in items:
        assert item["dataset"]["id"] == "sciwrite/sciig" and item["evaluation_framework"] == "inspect-ai"
        assert item["date"] == log.stats.completed_at[:10]
        assert list(item)[-2:] == ["evaluation_framework", "notes"]  # the order the Hub's format lists them in
        for part in ("inspect task: sciwrite/sciig", f"inspect run id: {log.eval.run_id}",
                     f"inspect log: {Path(path).name}", "model: mockllm/model", "method: ELABORATE", "split: sample",
                     "model snapshots: mockllm", f"scored with: sciwrite {metadata.version('sciwrite')}"):
            assert part in item["notes"]
        # the log's model calls, priced as the board prices them: mockllm has no price, so unknown, never 0
        assert ("cost: unknown/paper (gen) + $0/paper (judge) = unknown total over 3 papers [unknown: generator: 3 "
                "of the generator's 3 requests have no cost in its ledger (no price)]") in item["notes"]
    # huggingface_hub's own reader takes the file (it does not keep evaluation_framework, a field it lacks)
    assert {e.task_id for e in parse_eval_result_entries(items)} == set(expected)


def test_the_pull_request_carries_the_framework_and_the_source(sciig_log, monkeypatch, capsys):  # noqa: F811
    sent = {}

    class FakeApi:
        def __init__(self, token=None):
            pass

        def create_commit(self, **kwargs):
            sent.update(kwargs)
            return type("Info", (), {"pr_url": "https://huggingface.co/org/model/discussions/7"})()

    monkeypatch.setattr("huggingface_hub.HfApi", FakeApi)
    url = "https://huggingface.co/datasets/org/sciig-logs/blob/main/run.eval"
    assert main([*_push("--inspect-log", sciig_log[0]), "--source-url", url]) == 0
    assert "opened a pull request on org/model" in capsys.readouterr().out
    [operation] = sent["operations"]
    items = yaml.safe_load(operation.path_or_fileobj.decode())
    assert {item["evaluation_framework"] for item in items} == {"inspect-ai"}
    assert {(item["source"]["url"], item["source"]["name"]) for item in items} == {(url, "Inspect AI log")}


def test_version_commit_and_snapshot_are_read_back_from_the_log(sciig_log):  # noqa: F811
    path, log = sciig_log
    provenance = read_inspect_log(path).summary.to_json()["provenance"]
    assert provenance["sciwrite_version"] == metadata.version("sciwrite")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(sciwrite.__file__).parent, capture_output=True,
                          text=True, check=False).stdout.strip() if shutil.which("git") else ""
    if head:  # a checkout: the commit, "+dirty" when the tracked files differ from it
        assert provenance["git_commit"] in (head, f"{head}+dirty")
    else:
        assert provenance["git_commit"] is None
    # the reply's model (mockllm's custom outputs name "mockllm"), not the run's model name: one reply per paper
    assert log.eval.model == "mockllm/model"
    assert provenance["inspect"]["snapshots"] == {"mockllm": len(log.samples)}
    assert provenance["inspect"]["task_args"]["level"] == "ELABORATE"
    assert (provenance["started"], provenance["finished"]) == (log.eval.created, log.stats.completed_at)


def _rewritten(path: str, tmp_path: Path, change) -> str:
    log = read_eval_log(path)
    change(log)
    other = tmp_path / "other.eval"
    write_eval_log(log, str(other))
    return str(other)


def test_bad_inputs_are_one_line_and_write_nothing(sciig_log, tmp_path, capsys):  # noqa: F811
    path, _ = sciig_log
    not_a_log = tmp_path / "run.eval"
    not_a_log.write_text("not a log", encoding="utf-8")
    other_task = _rewritten(path, tmp_path, lambda log: setattr(log.eval, "task", "theirs/mmlu"))
    copy = tmp_path / "copy.eval"
    shutil.copy(path, copy)
    out = tmp_path / "out"
    cases = [
        (["--inspect-log", str(not_a_log)], f"{not_a_log}: is not an Inspect log"),
        (["--inspect-log", other_task], "not of sciwrite's"),
        ([str(tmp_path), "--inspect-log", path], "field '--inspect-log': give one of EVAL_DIR, --inspect-log or "
                                                 "--submission, not EVAL_DIR and --inspect-log"),
        ([], "field 'EVAL_DIR': nothing to push"),
        (["--inspect-log", path, "--benchmark", "sciig"], "field '--benchmark'"),
        (["--inspect-log", path, str(copy)], f"{copy}: gives sample_rouge_1 for .eval_results/sciig-elaborate-lite"),
    ]
    for argv, expected in cases:
        assert main([*_push(*argv), "--dry-run", "--out", str(out)]) == 2, argv
        assert expected in _error(capsys)
        assert not out.exists()


def test_a_log_whose_rows_were_edited_behind_an_unchanged_mean_is_refused(sciig_log, tmp_path, capsys):  # noqa: F811
    """Both doors of an Inspect log, `push results --inspect-log` and `leaderboard import --inspect-log`, run the one
    check of a result over its rows: a row out of range is refused though the task's mean is what it was."""
    path, _ = sciig_log

    def edit(log):
        first, second = (sample.scores["sciig_scores"].metadata[ROW] for sample in log.samples[:2])
        shift = 1.7 - first["rouge1"]
        first["rouge1"], second["rouge1"] = 1.7, second["rouge1"] - shift  # the sum, and the mean, unchanged

    edited = _rewritten(path, tmp_path, edit)
    out = tmp_path / "out"
    assert main([*_push("--inspect-log", edited), "--dry-run", "--out", str(out)]) == 2
    assert f"{edited}:1, record " in (err := _error(capsys)) and "field 'rouge1': rouge1 is 1.7, outside" in err
    assert not out.exists()
    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--inspect-log", edited]) == 2
    assert "field 'rouge1': rouge1 is 1.7, outside its range 0-1" in _error(capsys)
