"""`sciwrite leaderboard import --ledger FILE`: the generator's usage ledger of one evaluation folder, given where it
is not beside the predictions, costs the imported row; a ledger that disagrees with the predictions adds nothing."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.leaderboard.store import ResultsStore
from tests.cli.test_leaderboard_cli import _evaluation

#: By hand: $0.25 + $0.75 over the run's 2 papers; a line of another run (run-b) in the same ledger is left out.
LEDGER = "".join(json.dumps({"purpose": "generate", "run": run, "paper_id": p, "prompt_tokens": 10,
                             "completion_tokens": 2, "cost_usd": c, "cost_source": "endpoint"}) + "\n"
                 for run, p, c in (("rag-bm25", "p1", 0.25), ("rag-bm25", "p2", 0.75), ("run-b", "p1", 9.0)))


def _import(store, folder, *more: str) -> int:
    return main(["leaderboard", "import", "--store", str(store), "--benchmark", "rwgbench", str(folder), *more])


def test_import_with_a_ledger_from_elsewhere_costs_the_row(tmp_path, capsys):
    folder = _evaluation(tmp_path)
    ledger = tmp_path / "elsewhere" / "usage.jsonl"
    ledger.parent.mkdir()
    ledger.write_text(LEDGER, encoding="utf-8")
    store = tmp_path / "lb.sqlite"
    assert _import(store, folder, "--ledger", str(ledger)) == 0
    assert "added: rwgbench rag-bm25" in capsys.readouterr().out
    [(submission, _)] = ResultsStore(store).finished("rwgbench", "sample")
    [kept] = ResultsStore(store).ledgers(submission.id)
    assert kept.name == "usage.jsonl" and "run-b" not in kept.text
    generator = ResultsStore(store).cost(submission.id).generator
    assert (generator.requests, generator.cost_usd) == (2, pytest.approx(1.0))


def test_without_the_flag_the_import_has_no_generator_ledger_and_its_cost_is_unknown(tmp_path):
    store = tmp_path / "lb.sqlite"
    assert _import(store, _evaluation(tmp_path)) == 0
    [(submission, _)] = ResultsStore(store).finished("rwgbench", "sample")
    assert ResultsStore(store).cost(submission.id).generator.cost_usd is None


def test_a_ledger_that_disagrees_with_the_predictions_adds_nothing(tmp_path, capsys):
    ledger = tmp_path / "bad.jsonl"
    ledger.write_text(LEDGER.replace('"p2"', '"p9"'), encoding="utf-8")
    store = tmp_path / "lb.sqlite"
    assert _import(store, _evaluation(tmp_path), "--ledger", str(ledger)) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"sciwrite: error: {ledger}:2, record 'p9', field 'paper_id': no prediction of this paper in the "
                   "predictions file; give the ledger of these predictions (a line per request of a predicted paper)")
    assert ResultsStore(store).submissions() == []


def test_the_ledger_goes_with_one_evaluation_folder_only(tmp_path, capsys):
    ledger = tmp_path / "usage.jsonl"
    ledger.write_text(LEDGER, encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = _evaluation(tmp_path / "a"), _evaluation(tmp_path / "b", "other")
    assert _import(tmp_path / "lb.sqlite", one, str(two), "--ledger", str(ledger)) == 2
    err = capsys.readouterr().err
    assert err.startswith("sciwrite: error: field '--ledger': goes with one evaluation folder"), err
    assert not (tmp_path / "lb.sqlite").exists()  # refused before the store is opened
