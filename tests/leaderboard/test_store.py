"""The results store: concurrent writers, the queue's claims, atomic results, stale workers, deletions."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import threading

import pytest

from sciwrite.core.paper_row import PaperRow, typed_rows
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.store import (
    FAILED,
    FINISHED,
    PENDING,
    RUNNING,
    DuplicateSubmissionError,
    NotClaimedError,
    RateLimitedError,
    ResultsStore,
)


def _add(store: ResultsStore, n: int, submitter: str = "ann", now: float | None = None, **extra):
    return store.add_submission(benchmark="rwgbench", split="sample", system=f"system {n}", submitter=submitter,
                                predictions_jsonl=json.dumps({"paper_id": "p1", "text": str(n)}), sha256=f"sha{n}",
                                n_predictions=1, now=now, **extra)


def _writer(path: str, offset: int, n: int) -> None:
    store = ResultsStore(path)
    for i in range(n):
        _add(store, offset + i, submitter=f"writer{offset}")


def test_wal_mode_and_schema(tmp_path):
    store = ResultsStore(tmp_path / "board" / "lb.sqlite")
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"submissions", "predictions", "results", "paper_scores", "deletions"} <= tables


def test_concurrent_writers_in_processes_and_threads_lose_nothing(tmp_path):
    path = str(tmp_path / "lb.sqlite")
    ResultsStore(path)
    ctx = multiprocessing.get_context("spawn")
    processes = [ctx.Process(target=_writer, args=(path, 1000 * k, 15)) for k in range(4)]
    threads = [threading.Thread(target=_writer, args=(path, 1000 * k + 500, 15)) for k in range(4)]
    for worker in [*processes, *threads]:
        worker.start()
    for worker in [*processes, *threads]:
        worker.join(120)
    assert all(p.exitcode == 0 for p in processes)
    store = ResultsStore(path)
    submissions = store.submissions()
    assert len(submissions) == 120 and len({s.id for s in submissions}) == 120
    assert all(store.predictions(s.id) for s in submissions)


def test_duplicate_predictions_and_rate_limit(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    first = _add(store, 1)
    with pytest.raises(DuplicateSubmissionError, match=first.id):
        _add(store, 1)
    # same predictions on another split are another submission
    store.add_submission(benchmark="rwgbench", split="test", system="s", submitter="ann", predictions_jsonl="{}",
                         sha256="sha1", n_predictions=1)
    _add(store, 2, submitter="bob", now=1000.0, rate_limit=(2, 60))
    _add(store, 3, submitter="bob", now=1010.0, rate_limit=(2, 60))
    with pytest.raises(RateLimitedError, match="'bob' has made 2 submissions"):
        _add(store, 4, submitter="bob", now=1020.0, rate_limit=(2, 60))
    _add(store, 4, submitter="bob", now=1065.0, rate_limit=(2, 60))  # the first one left the window
    assert len(store.submissions()) == 5


def test_claims_are_fifo_and_each_submission_is_claimed_once(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    ids = [_add(store, i, now=100.0 + i).id for i in range(20)]
    claimed: list[str] = []
    lock = threading.Lock()

    def claim(name: str) -> None:
        while (s := store.claim_next(name)) is not None:
            with lock:
                claimed.append(s.id)

    threads = [threading.Thread(target=claim, args=(f"w{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(ids) and len(claimed) == 20
    assert {s.status for s in store.submissions()} == {RUNNING}


def test_finish_is_one_transaction(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1)
    store.claim_next("w")
    with pytest.raises(TypeError):  # a row that is not JSON: nothing of the result may be written
        store.finish(sub.id, "w", Summary.from_json({"precision": 0.5}),
                     typed_rows([{"paper_id": "p1"}, {"paper_id": "p2", "bad": object()}]))
    with pytest.raises(ValueError, match="no paper_id"):  # the rows are kept by paper: one must name its paper
        store.finish(sub.id, "w", Summary.from_json({"precision": 0.5}), typed_rows([{"precision": 0.5}]))
    assert store.get(sub.id).status == RUNNING
    assert store.summary(sub.id) is None and store.paper_rows(sub.id) == []
    store.finish(sub.id, "w", Summary.from_json({"precision": 0.5}), typed_rows([{"paper_id": "p1", "precision": 0.5}]),
                 profile="lite")
    done = store.get(sub.id)
    assert done.status == FINISHED and done.profile == "lite" and done.finished_at is not None
    assert store.summary(sub.id).to_json() == {"precision": 0.5}
    assert store.paper_rows(sub.id) == [PaperRow(paper_id="p1", values={"precision": 0.5})]
    assert [s.id for s, _ in store.finished("rwgbench")] == [sub.id]


def test_a_stale_running_submission_is_reclaimed_and_the_old_worker_cannot_write(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1, now=0.0)
    assert store.claim_next("a", now=10.0).id == sub.id
    assert store.claim_next("b", stale_after=60, now=50.0) is None  # a's heartbeat is still fresh
    assert store.heartbeat(sub.id, "a", now=60.0)
    again = store.claim_next("b", stale_after=60, now=130.0)
    assert again.id == sub.id and again.worker == "b" and again.attempts == 2
    assert not store.heartbeat(sub.id, "a")
    with pytest.raises(NotClaimedError, match="RUNNING for worker 'b'"):
        store.finish(sub.id, "a", Summary.from_json({"x": 1}), [])
    store.finish(sub.id, "b", Summary.from_json({"x": 2}), [])
    assert store.summary(sub.id).to_json() == {"x": 2}


def test_a_submission_whose_worker_keeps_dying_fails_with_the_reason(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1, now=0.0)
    for k in range(3):
        assert store.claim_next(f"w{k}", stale_after=10, max_attempts=3, now=100.0 * (k + 1)).id == sub.id
    assert store.claim_next("w3", stale_after=10, max_attempts=3, now=1000.0) is None
    failed = store.get(sub.id)
    assert failed.status == FAILED and "3 times" in failed.error


def test_fail_requeue_delete(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1)
    store.claim_next("w")
    store.fail(sub.id, "w", "ValueError: bad predictions")
    assert store.get(sub.id).status == FAILED and store.get(sub.id).error == "ValueError: bad predictions"
    store.requeue(sub.id)
    assert store.get(sub.id).status == PENDING and store.get(sub.id).attempts == 0
    store.delete(sub.id)
    with pytest.raises(KeyError, match=sub.id):
        store.get(sub.id)
    with pytest.raises(KeyError):
        store.predictions(sub.id)
    assert store.deleted_ids() == {sub.id} and store.unmirrored_deletions() == [(sub.id, "rwgbench")]
    with pytest.raises(KeyError):
        store.delete(sub.id)


def test_an_already_scored_run_is_added_with_its_results_at_once(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1, status=FINISHED, summary=Summary.from_json({"recall": 0.25}),
               rows=typed_rows([{"paper_id": "p1", "recall": 0.25}]),
               model="extractive", profile="lite")
    assert sub.status == FINISHED and sub.model == "extractive"
    assert store.finished("rwgbench", "sample")[0][1].to_json() == {"recall": 0.25}
    assert store.claim_next("w") is None


def test_the_rows_come_back_typed_and_as_they_were_stored(tmp_path):
    """A row's JSON is what the store keeps: read back, it is the same typed row and writes the same JSON, key for
    key and in the same order (a benchmark's own fields, a None value and the grounding included)."""
    store = ResultsStore(tmp_path / "lb.sqlite")
    record = {"benchmark": "rwgbench", "paper_id": "p1", "recall": 0.25, "llm_judge": None, "no_candidates": True,
              "grounding_source": "references", "grounding_references": [{"n": 1, "verdict": "found"}],
              "grounding_error": None, "grounding_found_rate": 1.0, "judge_error": "timeout"}
    [row] = typed_rows([record])
    sub = _add(store, 1, status=FINISHED, summary=Summary.from_json({"recall": 0.25}), rows=[row])
    [back] = store.paper_rows(sub.id)
    assert back == row and back.value("recall") == 0.25 and back.value("llm_judge") is None
    assert back.grounding is not None and back.grounding.references == ({"n": 1, "verdict": "found"},)
    assert back.details["judge_error"] == "timeout" and back.benchmark == "rwgbench"
    assert json.dumps(back.to_json()) == json.dumps(record)
