"""A usage ledger given with an upload, through the app's own handlers (no browser): the Submit tab passes it to
the board, a refused one answers its one line and keeps the submission, and the Submissions tab's "Fix the ledger"
queues it again, to be scored with its cost."""

from __future__ import annotations

import pytest

from sciwrite.core.costs import GENERATOR, LedgerFile
from sciwrite.core.paper_row import typed_rows
from sciwrite.leaderboard.app import build_app, fix_ledger_message, submit_message
from sciwrite.leaderboard.service import NEEDS_FIX, BoardSettings, Leaderboard
from sciwrite.leaderboard.store import FAILED, FINISHED, PENDING, ResultsStore
from sciwrite.leaderboard.submission import SubmissionForm
from sciwrite.leaderboard.worker import Worker
from tests.leaderboard.test_costs import GEN, PAPERS, PREDICTIONS, SUMMARY

FORM = ("rwgbench", PREDICTIONS.encode(), "", "sys", "gpt-4o", "rag", "bm25", "closed", "https://example.org", "ann")


def _board(tmp_path, monkeypatch, **settings) -> Leaderboard:
    board = Leaderboard(ResultsStore(tmp_path / "lb.sqlite"), BoardSettings(**settings))
    monkeypatch.setattr(board, "split_ids", lambda benchmark: (tuple(sorted(PAPERS)), {}))
    return board


def _handler(board: Leaderboard, api_name: str):
    """The function behind the app's endpoint `api_name`, as the page and an API client call it."""
    app = build_app(board)
    return next(fn.fn for fn in app.fns.values() if fn.api_name == api_name)


def _score(board: Leaderboard) -> None:
    scored = (SUMMARY, typed_rows([{"paper_id": "p1", "precision": 0.5}, {"paper_id": "p2", "precision": 0.5}]))
    Worker(board.store, lambda submission, predictions: scored, heartbeat_s=0.01, stale_after_s=60).run_once()


def test_an_upload_with_its_ledger_is_queued_with_it_and_costed_when_scored(tmp_path, monkeypatch):
    board = _board(tmp_path, monkeypatch)
    submit = _handler(board, "submit")
    message = submit(*FORM, GEN.encode())
    assert message.startswith("Accepted: sys is queued as PENDING"), message
    [queued] = board.store.submissions()
    assert board.store.ledgers(queued.id) == [LedgerFile(GENERATOR, "usage.jsonl", GEN)]
    _score(board)
    assert board.store.costs("rwgbench")[queued.id].generator.cost_usd == pytest.approx(0.045)  # 0.010+0.005+0.030


def test_a_client_passing_the_ten_fields_of_before_submits_without_a_ledger(tmp_path, monkeypatch):
    board = _board(tmp_path, monkeypatch)
    assert _handler(board, "submit")(*FORM).startswith("Accepted:")
    [queued] = board.store.submissions()
    assert board.store.ledgers(queued.id) == []
    _score(board)
    assert board.store.costs("rwgbench")[queued.id].total_usd is None  # no ledger: unknown, never 0


def test_a_refused_ledger_says_its_one_line_and_the_fix_control_queues_the_kept_submission(tmp_path, monkeypatch):
    board = _board(tmp_path, monkeypatch)
    submit, fix = _handler(board, "submit"), _handler(board, "fix_ledger")
    message = submit(*FORM, GEN.replace("0.005", "-0.005").encode())
    [kept] = board.store.submissions()
    assert kept.status == FAILED and kept.error.startswith(NEEDS_FIX)
    first, second = message.splitlines()
    assert first.startswith("Kept, not queued: the usage ledger was refused: usage.jsonl:2, record 'p1', "
                            "field 'cost_usd': must be null or a finite number of USD >= 0, got -0.005")
    assert kept.id in second and "Fix the ledger" in second

    said, table = fix(kept.id, GEN.encode(), "bob")
    assert said == f"Not fixed: submission {kept.id} is another submitter's"
    said, _ = fix(kept.id, None, "ann")
    assert said.startswith("Not fixed: give the submission id and upload")
    said, _ = fix(kept.id, GEN.replace("p2", "p7").encode(), "ann")
    assert said.startswith("Not fixed: usage.jsonl:3, record 'p7', field 'paper_id'")
    assert board.store.get(kept.id).status == FAILED
    said, table = fix(f" {kept.id} ", GEN.encode(), "ann")
    assert said == f"Fixed: submission {kept.id} is queued again as PENDING, to be scored and costed with this ledger."
    assert table.set_index("Id").loc[kept.id, "Status"] == PENDING  # the listing shown with the answer
    _score(board)
    assert board.store.get(kept.id).status == FINISHED
    assert board.store.costs("rwgbench")[kept.id].generator.cost_usd == pytest.approx(0.045)
    said, _ = fix(kept.id, GEN.encode(), "ann")
    assert said == f"Not fixed: submission {kept.id} is {FINISHED}, not waiting for a ledger fix"


def test_on_a_board_with_the_hub_login_only_the_signed_in_submitter_fixes(tmp_path, monkeypatch):
    board = _board(tmp_path, monkeypatch, hub_login=True)
    form = SubmissionForm(benchmark="rwgbench", system="sys", submitter="typed")
    outcome = board.submit(form, PREDICTIONS.encode(), hub_user="ann", ledger=b"\xff not UTF-8\n")
    kept = outcome.submission
    assert kept is not None and kept.status == FAILED and "usage.jsonl:1: not UTF-8 text" in kept.error
    assert submit_message(outcome).startswith("Kept, not queued: the usage ledger was refused: usage.jsonl:1: not")
    # a typed name is not enough where the board has a login: the signed-in Hub user is the submitter
    assert fix_ledger_message(board, kept.id, GEN.encode(), "ann").startswith("Not fixed: sign in")
    assert fix_ledger_message(board, kept.id, GEN.encode(), "", hub_user="bob").startswith("Not fixed: submission")
    assert fix_ledger_message(board, kept.id, GEN.encode(), "", hub_user="ann").startswith("Fixed:")
