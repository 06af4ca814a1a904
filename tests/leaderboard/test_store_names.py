"""A system name belongs to its first submitter: another submitter's exact copy, or a copy that differs only in
case, width or invisible characters, is refused with the first row named; the owner resubmits freely; a store
written before the names were keyed keeps every row and protects each name from then on."""

from __future__ import annotations

import json
import sqlite3

import pytest

from sciwrite.leaderboard.names import name_key
from sciwrite.leaderboard.service import BoardSettings, Leaderboard
from sciwrite.leaderboard.store import FINISHED, DuplicateSubmissionError, NameTakenError, ResultsStore
from sciwrite.leaderboard.submission import SubmissionForm, form_problems

_counter = iter(range(10**6))


def _add(store: ResultsStore, system: str, submitter: str, now: float | None = None, **extra):
    """A submission of fresh predictions (a new sha256 each time) under `system` by `submitter`."""
    n = next(_counter)
    return store.add_submission(benchmark="rwgbench", split="sample", system=system, submitter=submitter,
                                predictions_jsonl=json.dumps({"paper_id": "p1", "text": str(n)}), sha256=f"sha{n}",
                                n_predictions=1, now=now, **extra)


LOOK_ALIKES = {
    "exact copy": "alice-rag",
    "case": "Alice-RAG",
    "zero-width space": "alice\u200b-rag",
    "zero-width joiner": "ali\u200dce-rag",
    "direction override": "\u202ealice-rag",
    "full-width letters": "\uff41\uff4c\uff49\uff43\uff45-rag",
    "soft hyphen and no-break space": "\u00a0alice-\u00adrag ",
    "variation selector": "alice\ufe0f-rag",
}


@pytest.mark.parametrize("name", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_another_submitter_cannot_take_a_name_or_a_look_alike_of_it(tmp_path, name):
    store = ResultsStore(tmp_path / "lb.sqlite")
    first = _add(store, "alice-rag", "alice", now=100.0)
    with pytest.raises(NameTakenError) as refused:
        _add(store, name, "mallory", now=200.0)
    message = str(refused.value)
    assert first.id in message and "'alice-rag'" in message and "choose another name" in message
    assert "alice'" not in message.replace("'alice-rag'", "")  # the row is named, not who submitted it
    assert refused.value.existing == first and isinstance(refused.value, DuplicateSubmissionError)
    assert [s.id for s in store.submissions()] == [first.id]
    assert store.name_owner(name) == first


def test_the_owner_resubmits_under_the_name_and_other_names_stay_free(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    first = _add(store, "alice-rag", "alice", now=100.0)
    again = _add(store, "alice-rag", "alice", now=200.0)
    on_sciig = store.add_submission(benchmark="sciig", split="sample", system="Alice-RAG", submitter="alice",
                                    predictions_jsonl="{}", sha256="sciig-1", n_predictions=1, now=300.0)
    bobs = _add(store, "alice-rag-2", "bob", now=400.0)  # a different name, however close
    assert {s.id for s in store.submissions()} == {first.id, again.id, on_sciig.id, bobs.id}
    assert store.name_owner("ALICE-RAG") == first and store.name_owner("nobody's name") is None
    with pytest.raises(NameTakenError):  # the name is the board's, across benchmarks
        store.add_submission(benchmark="sciig", split="sample", system="alice-rag", submitter="bob",
                             predictions_jsonl="{}", sha256="sciig-2", n_predictions=1)


def test_a_deleted_name_is_free_again_and_a_restored_row_keeps_its_place(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    first = _add(store, "alice-rag", "alice", now=100.0)
    store.delete(first.id)
    assert _add(store, "Alice-RAG", "bob", now=200.0).submitter == "bob"
    # a row the Hub mirror holds was accepted when it was submitted: a restore brings it back as it was
    restored = _add(store, "alice-rag", "alice", now=50.0, submission_id="from-the-hub", mirrored_at=60.0)
    assert store.get(restored.id).submitter == "alice"
    assert store.name_owner("alice-rag").id == "from-the-hub"  # the older row owns the name again


def test_the_board_refuses_a_taken_name_with_a_message_and_the_space_uses_the_signed_in_user(tmp_path, monkeypatch):
    board = Leaderboard(ResultsStore(tmp_path / "lb.sqlite"), BoardSettings(splits={"rwgbench": "sample"}))
    monkeypatch.setattr(board, "split_ids", lambda benchmark: (("p1",), {}))
    content = [json.dumps({"paper_id": "p1", "text": f"text {k} [1]", "candidates": ["d1"]}).encode()
               for k in range(3)]
    form = SubmissionForm(benchmark="rwgbench", system="alice-rag", submitter="typed-name")
    assert board.submit(form, content[0], hub_user="alice").submission.submitter == "alice"
    look_alike = SubmissionForm(benchmark="rwgbench", system="ALICE\u200b-rag", submitter="alice")  # typed, ignored
    refused = board.submit(look_alike, content[1], hub_user="mallory")
    assert not refused.accepted and refused.problems[0].startswith("system name 'ALICE\\u200b-rag' is taken")
    assert board.submit(look_alike, content[1], hub_user="alice").accepted


def test_a_name_with_nothing_visible_is_no_name():
    problems = form_problems(SubmissionForm(benchmark="rwgbench", system="\u200b\u200d", submitter="ann"), ["rwgbench"])
    assert problems == ["system: required (it holds only invisible characters)"]


def _store_before_the_keys(path, rows: list[tuple[str, str, str, float]]) -> None:
    """A store as releases before the name keys wrote it (no ``name_key`` column, no index on it), holding FINISHED
    `rows` of (id, system, submitter, submitted_at)."""
    ResultsStore(path)
    with sqlite3.connect(path) as conn:
        conn.execute("DROP INDEX submissions_name")
        conn.execute("ALTER TABLE submissions DROP COLUMN name_key")
        for submission_id, system, submitter, when in rows:
            conn.execute("INSERT INTO submissions (id, benchmark, split, system, submitter, sha256, status, "
                         "submitted_at, updated_at) VALUES (?, 'rwgbench', 'sample', ?, ?, ?, ?, ?, ?)",
                         (submission_id, system, submitter, f"sha-{submission_id}", FINISHED, when, when))
            conn.execute("INSERT INTO predictions (submission_id, jsonl) VALUES (?, '{}')", (submission_id,))
            conn.execute("INSERT INTO results (submission_id, summary) VALUES (?, '{}')", (submission_id,))


def test_a_store_from_before_the_keys_keeps_every_row_and_protects_names_from_then_on(tmp_path):
    path = tmp_path / "old.sqlite"
    # mallory took a look-alike of alice's name before names were keyed
    _store_before_the_keys(path, [("alices", "alice-rag", "alice", 100.0),
                                  ("mallorys", "Alice\u200b-RAG", "mallory", 200.0), ("bobs", "bob-rag", "bob", 300.0)])

    store = ResultsStore(path)  # opening it keys every row
    with sqlite3.connect(path) as conn:
        keys = dict(conn.execute("SELECT system, name_key FROM submissions"))
    assert keys == {"alice-rag": "alice-rag", "Alice\u200b-RAG": "alice-rag", "bob-rag": "bob-rag"}
    assert {s.id for s, _ in store.finished("rwgbench")} == {"alices", "mallorys", "bobs"}  # every row stays
    assert store.name_owner("alice-rag").id == "alices"
    with pytest.raises(NameTakenError, match="alices"):  # the second submitter adds no more under the name
        _add(store, "Alice\u200b-RAG", "mallory", now=400.0)
    assert _add(store, "alice-rag", "alice", now=500.0).submitter == "alice"
    with pytest.raises(NameTakenError):
        _add(store, "BOB-rag", "alice", now=600.0)
    ResultsStore(path)  # opening it again changes nothing
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM submissions WHERE name_key=''").fetchone()[0] == 0


def test_the_key_folds_what_a_reader_cannot_see_and_keeps_what_they_can():
    assert {name_key(name) for name in LOOK_ALIKES.values()} == {"alice-rag"}
    assert name_key("alice  rag") == name_key("alice\trag") == "alice rag"
    assert name_key("\u0430lice-rag") != "alice-rag"  # a Cyrillic letter is another letter
    assert name_key("alice-rag-2") != "alice-rag" and name_key("") == name_key("\u200b\ufeff") == ""
