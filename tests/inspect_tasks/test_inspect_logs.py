"""`sciwrite leaderboard import --inspect-log`: a real Inspect run of a sciwrite task (offline, ``mockllm/model``)
goes on the board with its per-paper rows, as an evaluation folder does; a file that is no Inspect log, and a log
whose metrics are not what its rows give, are refused in one line with exit 2 and add nothing."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("inspect_ai", reason="reading Inspect logs needs the inspect extra (pip install sciwrite[inspect])")

from inspect_ai.log import read_eval_log, write_eval_log  # noqa: E402

from sciwrite.cli import main  # noqa: E402
from sciwrite.leaderboard.store import ResultsStore  # noqa: E402
from sciwrite.sciig.inspect_task import sciig  # noqa: E402
from sciwrite.sciig.metrics.row_fields import BLEU_STATS  # noqa: E402
from tests.inspect_tasks.test_inspect_tasks import Echo, run  # noqa: E402

METRICS = ("rouge1", "rougeL", "bleu")


@pytest.fixture(scope="module")
def sciig_log(sciig_mini_folder, tmp_path_factory):
    """A finished SciIG run of 3 papers: its log file and the log."""
    task = sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics=",".join(METRICS))
    log = run(task, Echo(""), tmp_path_factory.mktemp("inspect"))
    return log.location, log


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("sciwrite: error: ") and "\n" not in err and "Traceback" not in err
    return err


def test_an_inspect_log_goes_on_the_board_with_its_rows(sciig_log, tmp_path, capsys):
    path, log = sciig_log
    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--inspect-log", path]) == 0
    assert "added: sciig mockllm/model ELABORATE" in capsys.readouterr().out
    [submission] = ResultsStore(store).submissions()
    assert (submission.benchmark, submission.split, submission.status) == ("sciig", "sample", "FINISHED")
    assert (submission.model, submission.method, submission.n_predictions) == ("mockllm/model", "ELABORATE", 3)
    summary = ResultsStore(store).summary(submission.id).to_json()
    reported = {m.name: m.value for score in log.results.scores for m in score.metrics.values()}
    for key in METRICS:
        assert summary[key] == pytest.approx(reported[key])
    assert summary["provenance"]["inspect"]["model"] == "mockllm/model"
    assert summary["provenance"]["inspect"]["task_args"]["level"] == "ELABORATE"
    assert summary["provenance"]["sciwrite"]
    rows = ResultsStore(store).paper_rows(submission.id)
    assert sorted(row.paper_id for row in rows) == sorted(str(sample.id) for sample in log.samples)
    assert all(row.details.get(BLEU_STATS) for row in rows)  # the drill-down's rows as per_paper.jsonl holds them
    assert all(row.system is None and "system" not in row.to_json() for row in rows)  # the board names the system
    predictions = [json.loads(line) for line in ResultsStore(store).predictions(submission.id).splitlines()]
    assert {p["paper_id"]: p["pred"] for p in predictions} == {str(s.id): s.output.completion for s in log.samples}
    # the same run again: already there, not added twice
    assert main(["leaderboard", "import", "--store", str(store), "--inspect-log", path]) == 0
    assert "already there" in capsys.readouterr().out
    assert len(ResultsStore(store).submissions()) == 1


@pytest.mark.parametrize("content", ["", '{"a": 1}\n', "not a log"])
def test_a_file_that_is_no_inspect_log_is_refused(content, tmp_path, capsys):
    bad = tmp_path / "run.eval"
    bad.write_text(content, encoding="utf-8")
    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--inspect-log", str(bad)]) == 2
    assert f"{bad}: is not an Inspect log" in _error(capsys)
    assert ResultsStore(store).submissions() == []


def test_a_log_whose_metric_was_edited_is_refused_and_its_batch_adds_nothing(sciig_log, tmp_path, capsys):
    path, _ = sciig_log
    log = read_eval_log(path)
    metric = log.results.scores[0].metrics["rouge1"]
    metric.value = metric.value + 0.1
    tampered = tmp_path / "tampered.eval"
    write_eval_log(log, str(tampered))
    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--inspect-log", path, str(tampered)]) == 2
    err = _error(capsys)
    assert str(tampered) in err and "rouge1" in err and "per-paper rows" in err
    assert ResultsStore(store).submissions() == []  # the good log listed first is not imported either


def test_a_log_of_another_task_or_an_unfinished_run_is_refused(sciig_log, tmp_path, capsys):
    path, _ = sciig_log
    store = tmp_path / "board.sqlite"
    for change, expected in ((lambda log: setattr(log.eval, "task", "theirs/mmlu"), "not of sciwrite's"),
                             (lambda log: setattr(log, "status", "error"), "status is 'error'")):
        log = read_eval_log(path)
        change(log)
        other = tmp_path / "other.eval"
        write_eval_log(log, str(other))
        assert main(["leaderboard", "import", "--store", str(store), "--inspect-log", str(other)]) == 2
        assert expected in _error(capsys)
    assert ResultsStore(store).submissions() == []


def test_without_the_inspect_extra_the_flag_is_refused_naming_it(sciig_log, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sciwrite.harness.inspect_available", lambda: False)  # as when inspect-ai is not installed
    store = tmp_path / "board.sqlite"
    assert main(["leaderboard", "import", "--store", str(store), "--inspect-log", sciig_log[0]]) == 2
    assert "sciwrite[inspect]" in _error(capsys)
