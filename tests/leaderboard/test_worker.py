"""The evaluation worker: success, failure with its reason, heartbeats, a worker killed mid-run, the real suite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sciwrite.core.paper_row import PaperRow, typed_rows
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.evaluator import SuiteEvaluator
from sciwrite.leaderboard.store import FAILED, FINISHED, RUNNING, ResultsStore
from sciwrite.leaderboard.worker import Worker

ROOT = Path(__file__).resolve().parents[2]


def _add(store: ResultsStore, n: int, benchmark: str = "rwgbench", predictions: str | None = None, split="sample"):
    text = predictions or json.dumps({"paper_id": "p1", "text": f"text {n}", "candidates": []})
    return store.add_submission(benchmark=benchmark, split=split, system=f"<b>system {n}</b>", submitter="ann",
                                predictions_jsonl=text, sha256=f"sha{n}", n_predictions=1)


def test_scores_in_order_and_reports_changes(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    first, second = _add(store, 1), _add(store, 2)
    seen, changes = [], []

    def evaluate(submission, predictions):
        seen.append((submission.id, json.loads(predictions)["text"]))
        assert store.get(submission.id).status == RUNNING
        rows = typed_rows([{"paper_id": "p1", "precision": 0.5}])
        return Summary.from_json({"precision": 0.5, "profile": "lite"}), rows

    worker = Worker(store, evaluate, name="w", on_change=lambda: changes.append(1))
    assert worker.run(once=True) == 2
    assert seen == [(first.id, "text 1"), (second.id, "text 2")]
    assert store.get(first.id).status == FINISHED and store.get(first.id).profile == "lite"
    assert store.paper_rows(second.id) == [PaperRow(paper_id="p1", values={"precision": 0.5})]
    assert len(changes) == 4  # claimed and finished, twice
    assert worker.run_once() is None


def test_a_failing_evaluation_is_failed_with_its_reason(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1)

    def evaluate(submission, predictions):
        raise ValueError("no prediction matches a paper of the 'sample' split")

    ended = Worker(store, evaluate, name="w").run_once()
    assert ended.status == FAILED
    assert ended.error == "ValueError: no prediction matches a paper of the 'sample' split"
    assert store.summary(sub.id) is None


class Clock:
    """A clock for a worker: `now` answers `at` (the test moves it); `ticking` makes each reading one second later
    than the last (every write then carries its own time). Readings are taken from the worker's threads too."""

    def __init__(self, at: float = 1_000.0, ticking: bool = False):
        self.at, self.ticking, self._lock = at, ticking, threading.Lock()

    def now(self) -> float:
        with self._lock:
            if self.ticking:
                self.at += 1.0
            return self.at


def _beaten(store: ResultsStore, submission_id: str, times: int) -> list[float]:
    """The heartbeat times of `submission_id` seen until it has been beaten `times` times after its claim (waits on
    the order of events, not on a duration: the suite's timeout ends a worker that never beats)."""
    seen = [store.get(submission_id).heartbeat_at]
    while len(seen) <= times:
        latest = store.get(submission_id).heartbeat_at
        if latest != seen[-1]:
            seen.append(latest)
        time.sleep(0.01)
    return seen


def test_the_heartbeat_advances_during_a_long_evaluation(tmp_path):
    """The heartbeat thread writes the worker's clock while the evaluation runs: the evaluation waits until it has
    seen two beats after the claim (no bound on how long they take)."""
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1)
    clock = Clock(ticking=True)
    beats = []

    def evaluate(submission, predictions):
        beats.extend(_beaten(store, submission.id, 2))
        return Summary(), []

    ended = Worker(store, evaluate, name="w", heartbeat_s=0.01, stale_after_s=5, clock=clock.now).run_once()
    assert beats == sorted(set(beats)) and len(beats) == 3  # the claim's time, then two later beats
    assert beats[0] == ended.started_at and beats[-1] < ended.finished_at <= clock.at  # all read from the clock
    assert ended.id == sub.id and ended.status == FINISHED


def test_a_killed_worker_leaves_nothing_half_written_and_the_submission_is_retried(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    doomed = subprocess.Popen([sys.executable, "-m", "tests.leaderboard.slow_worker", str(store.path)], cwd=ROOT,
                              env=env)
    try:
        # killed once it has claimed the submission and beaten at least once since
        while (held := store.get(sub.id)).status != RUNNING or held.heartbeat_at <= held.started_at:
            assert doomed.poll() is None, "the worker ended before it beat"
            time.sleep(0.05)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
    finally:
        if doomed.poll() is None:
            doomed.kill()
    held = store.get(sub.id)
    assert held.status == RUNNING and held.worker == "doomed" and held.attempts == 1
    assert store.summary(sub.id) is None and store.paper_rows(sub.id) == []

    # staleness is read on the restarted worker's clock: no waiting for it to pass
    stale_after = 30.0
    clock = Clock(at=held.heartbeat_at + stale_after / 2)
    scored = (Summary.from_json({"precision": 1.0}), typed_rows([{"paper_id": "p1", "precision": 1.0}]))
    restarted = Worker(store, lambda s, p: scored, name="new",
                       heartbeat_s=1.0, stale_after_s=stale_after, clock=clock.now)
    assert restarted.run_once() is None  # the heartbeat is still fresh: not stale yet
    assert store.get(sub.id).worker == "doomed"
    clock.at = held.heartbeat_at + 2 * stale_after
    ended = restarted.run_once()
    assert ended.id == sub.id and ended.status == FINISHED and ended.attempts == 2 and ended.worker == "new"
    assert ended.started_at == ended.finished_at == clock.at
    assert store.summary(sub.id).to_json() == {"precision": 1.0}


def test_the_worker_thread_stops(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    finished = threading.Event()

    def changed() -> None:
        if store.submissions()[0].status == FINISHED:
            finished.set()

    worker = Worker(store, lambda s, p: (Summary(), []), name="w", on_change=changed)
    thread = worker.start(poll_s=0.05)
    _add(store, 1)
    finished.wait()  # set by the worker after it wrote FINISHED (the suite's timeout ends a worker that never does)
    worker.stop()
    assert not thread.is_alive() and store.submissions()[0].status == FINISHED


def test_heartbeat_must_be_shorter_than_staleness(tmp_path):
    with pytest.raises(ValueError, match="heartbeat_s"):
        Worker(ResultsStore(tmp_path / "lb.sqlite"), lambda s, p: ({}, []), heartbeat_s=5, stale_after_s=5)


def test_the_real_suites_score_a_submission(mini_sample_folder, sciig_mini_folder, tmp_path, patch_encoder):
    """The worker's default evaluator runs each benchmark's lite suite (no judge) on the mini samples."""
    from sciwrite.rwgbench.data.loading import load_rwgbench
    from sciwrite.sciig.data.loading import load_sciig

    store = ResultsStore(tmp_path / "lb.sqlite")
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    rwg_lines = [json.dumps({"paper_id": paper["paper_id"], "text": "Earlier work [1] and [2] differ.",
                             "candidates": paper["citations"][:3]}) for paper in papers]
    rwg = _add(store, 1, predictions="\n".join(rwg_lines))
    intros = load_sciig("sample", source=sciig_mini_folder).to_list()
    sciig = _add(store, 2, benchmark="sciig",
                 predictions="\n".join(json.dumps({"paper_id": p["paper_id"], "text": p["introduction"]})
                                       for p in intros))
    evaluator = SuiteEvaluator(sources={"rwgbench": mini_sample_folder, "sciig": sciig_mini_folder}, profile="lite",
                               bootstrap=200)
    worker = Worker(store, evaluator, name="w", profile=evaluator.resolved_profile())
    assert worker.run(once=True) == 2
    for sub in (rwg, sciig):
        done = store.get(sub.id)
        assert done.status == FINISHED, done.error
        assert done.profile == "lite"
    rwg_summary = store.summary(rwg.id).to_json()
    assert rwg_summary["system"] == "<b>system 1</b>" and rwg_summary["n_papers"] == len(papers)
    assert "predictions" not in rwg_summary and rwg_summary["intervals"]["precision"][0] is not None
    assert "llm_judge" in rwg_summary["not_computed"]
    rwg_rows = store.paper_rows(rwg.id)
    assert [r.paper_id for r in rwg_rows] == [p["paper_id"] for p in papers]
    # kept as per_paper.jsonl holds them (`per_paper_record`): the benchmark first, no system (the board names it)
    assert all(r.benchmark == "rwgbench" and r.system is None for r in rwg_rows)
    assert all(list(r.to_json())[:2] == ["benchmark", "paper_id"] and "system" not in r.to_json() for r in rwg_rows)
    sciig_summary = store.summary(sciig.id).to_json()
    assert sciig_summary["rougeL"] == pytest.approx(1.0)  # the reference itself
    assert len(store.paper_rows(sciig.id)) == len(intros)
