"""A leaderboard served for real: the Gradio app on 127.0.0.1 with its worker thread, for the API and browser tests.

`served_board` launches a board on a fresh store (a free port, no analytics, no share link) and returns a
`ServedBoard` with its URL, the `Leaderboard` and the worker; teardown stops the worker and closes the app.
`launch_board` is the factory behind it, for tests that need another evaluator or other settings.
Helpers build valid prediction files for the mini samples of `tests/conftest.py`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from sciwrite.leaderboard.store import FAILED, FINISHED, ResultsStore, Submission

FINAL = (FINISHED, FAILED)
#: The model-free RWGBench metrics: a submission is scored in milliseconds.
CHEAP_METRICS = {"rwgbench": ["precision", "recall", "citation_density"]}


@dataclass
class ServedBoard:
    """A running app: `url` (with a trailing slash), the board, its worker and the Gradio Blocks."""

    url: str
    board: Any
    worker: Any
    app: Any

    @property
    def store(self) -> ResultsStore:
        return self.board.store

    def wait_final(self, submission_id: str) -> Submission:
        """The submission once FINISHED or FAILED: waits for that event, however long a loaded machine takes (the
        suite's per-test timeout ends a worker that never gets there)."""
        while (submission := self.store.get(submission_id)).status not in FINAL:
            time.sleep(0.1)
        return submission


def rwgbench_lines(folder, variant: int = 0, listed: Sequence[str] = ()) -> list[str]:
    """A valid RWGBench predictions file for `folder` (one JSON line per paper); `variant` changes the text and
    the candidate lists so that each variant is a distinct submission with distinct scores. With `listed`, each
    line also lists references (as a Direct run keeps them): the first gold paper's title, then `listed`."""
    from sciwrite.rwgbench.data.loading import load_rwgbench

    titles = dict(zip(*(load_rwgbench("sample_corpus", source=folder)[c] for c in ("doc_id", "title")))) if listed else {}
    lines = []
    for paper in load_rwgbench("sample", source=folder).to_list():
        gold = list(paper["citations"])
        k = 1 + variant % max(len(gold), 1)
        text = f"Variant {variant}: earlier work [1] and [2] differ" + ("; see also [3]." if variant % 2 else ".")
        record = {"paper_id": paper["paper_id"], "text": text, "candidates": gold[:k] + gold[k:][:1]}
        if listed:
            record["references"] = [{"n": n, "title": t} for n, t in enumerate([titles[gold[0]], *listed], 1)]
        lines.append(json.dumps(record))
    return lines


def sciig_lines(folder) -> list[str]:
    """A valid SciIG predictions file (each test paper's own introduction)."""
    from sciwrite.sciig.data.loading import load_sciig

    return [json.dumps({"paper_id": p["paper_id"], "text": p["introduction"]})
            for p in load_sciig("sample", source=folder).to_list()]


@pytest.fixture
def launch_board(tmp_path, monkeypatch, mini_sample_folder, sciig_mini_folder) -> Iterator[Callable[..., ServedBoard]]:
    """launch_board(evaluator=None, **settings) -> ServedBoard; `evaluator` defaults to the real lite suites
    (bootstrap 200; ask for `patch_encoder` in the test when it scores with dense encoders). Everything launched
    is stopped at teardown."""
    from sciwrite.leaderboard.app import launch
    from sciwrite.leaderboard.evaluator import SuiteEvaluator
    from sciwrite.leaderboard.service import BoardSettings, Leaderboard

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-uploads"))  # not the shared /tmp/gradio
    sources = {"rwgbench": str(mini_sample_folder), "sciig": str(sciig_mini_folder)}
    launched: list[ServedBoard] = []

    def start(evaluator: Any = None, **settings: Any) -> ServedBoard:
        board = Leaderboard(ResultsStore(tmp_path / f"board-{len(launched)}.sqlite"),
                            replace(BoardSettings(sources=sources), **settings))
        evaluator = evaluator or SuiteEvaluator(sources=sources, profile="lite", bootstrap=200)
        served = launch(board, host="127.0.0.1", port=None, evaluator=evaluator, poll_s=0.2, heartbeat_s=0.5,
                        stale_after_s=30, prevent_thread_lock=True, quiet=True, show_error=True)
        launched.append(ServedBoard(served.url, board, served.worker, served.app))
        return launched[-1]

    yield start
    for served in launched:
        served.app.close()
        served.worker.stop(timeout=60)


@pytest.fixture
def served_board(launch_board, patch_encoder) -> ServedBoard:
    """A board on the real lite suites (the session MiniLM for dense encoders)."""
    return launch_board()


@pytest.fixture
def cheap_evaluator(mini_sample_folder, sciig_mini_folder):
    """The real suite restricted to `CHEAP_METRICS` (no model is loaded for RWGBench)."""
    from sciwrite.leaderboard.evaluator import SuiteEvaluator

    return SuiteEvaluator(sources={"rwgbench": str(mini_sample_folder), "sciig": str(sciig_mini_folder)},
                          profile="lite", metrics=CHEAP_METRICS, bootstrap=200)
