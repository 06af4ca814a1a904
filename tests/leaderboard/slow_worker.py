"""A worker process for the killed-worker test: its evaluation sleeps until the test kills it."""

import sys
import time

from sciwrite.leaderboard.store import ResultsStore
from sciwrite.leaderboard.worker import Worker


def never_finishes(submission, predictions):
    time.sleep(600)
    raise AssertionError("the test should have killed this worker")


if __name__ == "__main__":
    Worker(ResultsStore(sys.argv[1]), never_finishes, name="doomed", heartbeat_s=0.2, stale_after_s=5).run_once()
