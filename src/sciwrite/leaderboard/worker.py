"""The evaluation queue's worker: one submission at a time, with a heartbeat, never half-written.

`Worker.run_once` claims the oldest PENDING submission (or a RUNNING one whose worker died: its heartbeat is
stale), scores it while a background thread beats every `heartbeat_s` seconds, and writes the results and the
FINISHED status in one transaction (`ResultsStore.finish`), once they pass the one check of a result (`checked`:
nothing impossible is stored). An evaluation error, or a result the check refuses, marks the submission FAILED with
the reason, shown on the page. A worker killed mid-run leaves the submission RUNNING with a heartbeat that goes
stale; the next worker retries it (up to `MAX_ATTEMPTS` times). The worker runs as a thread of the
app (`start`) or alone (`sciwrite leaderboard worker`). Every time it writes (claim, heartbeat, result) and the
staleness it judges are read from one clock, `time.time` unless given (a test moves its own).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.metric_scales import check_result
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.store import MAX_ATTEMPTS, STALE_AFTER_S, NotClaimedError, ResultsStore, Submission
from sciwrite.scoring.checks import result_rules

logger = logging.getLogger(__name__)

#: (submission, predictions JSON Lines) -> (summary, per-paper rows)
Evaluate = Callable[[Submission, str], tuple[Summary, list[PaperRow]]]
#: Longest FAILED reason kept (the full traceback goes to the log).
MAX_ERROR_CHARS = 2000


def checked(submission: Submission, summary: Summary, rows: list[PaperRow]) -> tuple[Summary, list[PaperRow]]:
    """An evaluation's (summary, rows), once the one check of a result passes (`check_result`): nothing impossible
    is stored; an `InputError` (the FAILED reason) names the metric, and the paper for a row."""
    where = f"submission {submission.id}"  # its hex id: never a name a user chose
    check_result(summary, rows, result_rules(get_benchmark(submission.benchmark)), summary_path=where,
                 rows_path=f"{where} per-paper rows")
    return summary, rows


class Worker:
    """Takes submissions from `store` and scores them with `evaluate`; `on_change` (e.g. the Hub mirror's
    sync) is called after every status change; `clock` gives the time (seconds since the epoch) of every write and
    of the staleness check."""

    def __init__(self, store: ResultsStore, evaluate: Evaluate, *, name: str | None = None, heartbeat_s: float = 10.0,
                 stale_after_s: float = STALE_AFTER_S, max_attempts: int = MAX_ATTEMPTS, profile: str = "",
                 on_change: Callable[[], Any] | None = None, clock: Callable[[], float] = time.time):
        if heartbeat_s >= stale_after_s:
            raise ValueError(f"heartbeat_s ({heartbeat_s}) must be shorter than stale_after_s ({stale_after_s})")
        self.store, self.evaluate = store, evaluate
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.heartbeat_s, self.stale_after_s, self.max_attempts = heartbeat_s, stale_after_s, max_attempts
        self.profile, self.on_change, self.clock = profile, on_change, clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> Submission | None:
        """Score one submission; returns it as it ended (None when the queue was empty)."""
        claimed = self.store.claim_next(self.name, stale_after=self.stale_after_s, max_attempts=self.max_attempts,
                                        now=self.clock())
        if claimed is None:
            return None
        self._changed()
        beating = threading.Event()
        beater = threading.Thread(target=self._beat, args=(claimed.id, beating), daemon=True,
                                  name=f"heartbeat-{claimed.id[:8]}")
        beater.start()
        try:
            summary, rows = checked(claimed, *self.evaluate(claimed, self.store.predictions(claimed.id)))
        except Exception as err:  # any failure of the suite is the submission's FAILED reason
            logger.error("submission %s failed:\n%s", claimed.id, traceback.format_exc())
            self._end(beating, beater)
            reason = f"{type(err).__name__}: {err}"
            self._settle(lambda: self.store.fail(claimed.id, self.name, reason[:MAX_ERROR_CHARS], now=self.clock()))
        else:
            self._end(beating, beater)
            self._settle(lambda: self.store.finish(claimed.id, self.name, summary, rows,
                                                   profile=summary.profile or self.profile, now=self.clock()))
        return self.store.get(claimed.id)

    def run(self, poll_s: float = 2.0, once: bool = False) -> int:
        """Work until `stop` (or, with `once`, until the queue is empty); returns how many were scored."""
        done = 0
        while not self._stop.is_set():
            if self.run_once() is not None:
                done += 1
            elif once:
                break
            else:
                self._stop.wait(poll_s)
        return done

    def start(self, poll_s: float = 2.0) -> threading.Thread:
        """Run in a daemon thread (the app's worker)."""
        self._thread = threading.Thread(target=self.run, kwargs={"poll_s": poll_s}, daemon=True,
                                        name=f"leaderboard-worker-{self.name}")
        self._thread.start()
        return self._thread

    def stop(self, timeout: float | None = None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _beat(self, submission_id: str, stop: threading.Event) -> None:
        while not stop.wait(self.heartbeat_s):
            try:
                if not self.store.heartbeat(submission_id, self.name, now=self.clock()):
                    logger.warning("worker %s lost submission %s to another worker", self.name, submission_id)
                    return
            except Exception:  # a busy database must not kill the heartbeat thread
                logger.exception("heartbeat of submission %s failed", submission_id)

    @staticmethod
    def _end(beating: threading.Event, beater: threading.Thread) -> None:
        beating.set()
        beater.join()

    def _settle(self, write: Callable[[], None]) -> None:
        try:
            write()
        except NotClaimedError as err:  # another worker took it over after our heartbeat went stale: its result counts
            logger.warning("%s", err)
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # the mirror retries on its next call; the local store already holds the change
                logger.exception("after a status change, on_change failed")
