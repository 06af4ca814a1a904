"""The evaluation worker: success, failure with its reason, heartbeats, a worker killed mid-run, the real suite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sciwrite.leaderboard.evaluator import SuiteEvaluator
from sciwrite.leaderboard.store import FAILED, FINISHED, PENDING, RUNNING, ResultsStore
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
        return {"precision": 0.5, "profile": "lite"}, [{"paper_id": "p1", "precision": 0.5}]

    worker = Worker(store, evaluate, name="w", on_change=lambda: changes.append(1))
    assert worker.run(once=True) == 2
    assert seen == [(first.id, "text 1"), (second.id, "text 2")]
    assert store.get(first.id).status == FINISHED and store.get(first.id).profile == "lite"
    assert store.paper_rows(second.id) == [{"paper_id": "p1", "precision": 0.5}]
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


def test_the_heartbeat_advances_during_a_long_evaluation(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1)
    beats = []

    def evaluate(submission, predictions):
        for _ in range(3):
            time.sleep(0.25)
            beats.append(store.get(submission.id).heartbeat_at)
        return {}, []

    Worker(store, evaluate, name="w", heartbeat_s=0.1, stale_after_s=5).run_once()
    assert beats[0] < beats[-1]
    assert store.get(sub.id).status == FINISHED


def test_a_killed_worker_leaves_nothing_half_written_and_the_submission_is_retried(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    sub = _add(store, 1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    doomed = subprocess.Popen([sys.executable, "-m", "tests.leaderboard.slow_worker", str(store.path)], cwd=ROOT,
                              env=env)
    try:
        deadline = time.time() + 60
        while store.get(sub.id).status != RUNNING:
            assert time.time() < deadline and doomed.poll() is None, "the worker never claimed the submission"
            time.sleep(0.05)
        time.sleep(0.5)  # a few heartbeats
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(10)
    finally:
        if doomed.poll() is None:
            doomed.kill()
    held = store.get(sub.id)
    assert held.status == RUNNING and held.worker == "doomed" and held.attempts == 1
    assert store.summary(sub.id) is None and store.paper_rows(sub.id) == []

    restarted = Worker(store, lambda s, p: ({"precision": 1.0}, [{"paper_id": "p1", "precision": 1.0}]), name="new",
                       heartbeat_s=0.1, stale_after_s=1.0)
    assert restarted.run_once() is None  # the heartbeat is still fresh: not stale yet
    time.sleep(1.1)
    ended = restarted.run_once()
    assert ended.id == sub.id and ended.status == FINISHED and ended.attempts == 2 and ended.worker == "new"
    assert store.summary(sub.id) == {"precision": 1.0}


def test_the_worker_thread_stops(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    worker = Worker(store, lambda s, p: ({}, []), name="w")
    thread = worker.start(poll_s=0.05)
    _add(store, 1)
    deadline = time.time() + 10
    while store.submissions()[0].status == PENDING and time.time() < deadline:
        time.sleep(0.05)
    worker.stop(timeout=5)
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
    rwg_summary = store.summary(rwg.id)
    assert rwg_summary["system"] == "<b>system 1</b>" and rwg_summary["n_papers"] == len(papers)
    assert "predictions" not in rwg_summary and rwg_summary["intervals"]["precision"][0] is not None
    assert "llm_judge" in rwg_summary["not_computed"]
    assert [r["paper_id"] for r in store.paper_rows(rwg.id)] == [p["paper_id"] for p in papers]
    sciig_summary = store.summary(sciig.id)
    assert sciig_summary["rougeL"] == pytest.approx(1.0)  # the reference itself
    assert len(store.paper_rows(sciig.id)) == len(intros)
