"""The leaderboard as one object: the store, the splits it scores on, submissions, the admin's actions, the Hub
mirror and the worker. The Gradio app (`sciwrite.leaderboard.app`) and the command line both drive it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.core.costs import GENERATOR, LedgerFile, check_ledger, ledger_from_bytes, paper_ids_of
from sciwrite.core.predictions import prediction_file
from sciwrite.leaderboard.drilldown import BenchmarkPapers
from sciwrite.leaderboard.evaluator import SuiteEvaluator
from sciwrite.leaderboard.mirror import HubMirror
from sciwrite.leaderboard.names import name_key
from sciwrite.leaderboard.store import FAILED, DuplicateSubmissionError, RateLimitedError, ResultsStore, Submission
from sciwrite.leaderboard.submission import HUB_ID, MAX_BYTES, SubmissionForm, check_predictions, form_problems, mib
from sciwrite.leaderboard.worker import MAX_ERROR_CHARS, Worker

logger = logging.getLogger(__name__)

ADMIN_TOKEN_ENV = "SCIWRITE_LEADERBOARD_ADMIN_TOKEN"
#: The start of a FAILED submission's reason when its usage ledger was refused: it is kept, for `fix_ledger`.
NEEDS_FIX = "needs a fix: the usage ledger was refused"
#: What a board scores on by default: each benchmark's offline sample.
DEFAULT_SPLITS = {name: bench.data.offline_config for name, bench in BENCHMARKS.items()}


def board_splits_from_env() -> dict[str, str]:
    """What a public board (the Space) scores on: each benchmark's `board_split`, or the split its
    ``SCIWRITE_LEADERBOARD_<BENCHMARK>_SPLIT`` variable names."""
    return {name: os.environ.get(f"SCIWRITE_LEADERBOARD_{name.upper()}_SPLIT") or bench.data.board_split
            for name, bench in BENCHMARKS.items()}


@dataclass(frozen=True)
class BoardSettings:
    """The rules of one board."""

    splits: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SPLITS))  # benchmark -> split / config
    sources: Mapping[str, str | None] = field(default_factory=dict)  # benchmark -> local folder or Hub dataset id
    max_bytes: int = MAX_BYTES
    rate_limit: int = 10  # submissions per submitter (and per client: a Hub user, or an address) ...
    rate_window_s: float = 24 * 3600.0  # ... in this many seconds
    #: Submitting needs a Hub login (a Space with ``hf_oauth``): the submitter and the rate limit are the Hub user's.
    hub_login: bool = False
    #: A human study served as the board's "Human evaluation" tab: its task folder (`sciwrite human-eval tasks`,
    #: without the key) and the SQLite store of its answers; both None: no such tab.
    human_eval_tasks: str | None = None
    human_eval_store: str | None = None


@dataclass
class SubmitOutcome:
    """A submission queued (`submission`), or the problems that stopped it."""

    submission: Submission | None
    problems: list[str]

    @property
    def accepted(self) -> bool:
        return self.submission is not None


class Leaderboard:
    """One board: `store` plus `settings`, and optionally a Hub `mirror` the store copies itself to."""

    def __init__(self, store: ResultsStore, settings: BoardSettings | None = None, mirror: HubMirror | None = None):
        self.store, self.settings, self.mirror = store, settings or BoardSettings(), mirror
        self._split_ids: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {}
        self._papers: dict[str, BenchmarkPapers] = {}
        self._lock = threading.Lock()
        self._mirror_lock = threading.Lock()

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(self.settings.splits)

    def split_of(self, benchmark: str) -> str:
        return self.settings.splits[benchmark]

    def split_ids(self, benchmark: str) -> tuple[tuple[str, ...], dict[str, str]]:
        """(scored paper_ids, {excluded paper_id: why}) of the board's split of `benchmark`, loaded once."""
        with self._lock:
            if benchmark not in self._split_ids:
                self._split_ids[benchmark] = self._load_ids(benchmark)
            return self._split_ids[benchmark]

    def papers(self, benchmark: str) -> BenchmarkPapers:
        """The split's paper records (and, for RWGBench, the corpus titles) for the drill-down, loaded once."""
        with self._lock:
            if benchmark not in self._papers:
                self._papers[benchmark] = BenchmarkPapers.load(benchmark, self.split_of(benchmark),
                                                               self.settings.sources.get(benchmark))
            return self._papers[benchmark]

    def _load_ids(self, benchmark: str) -> tuple[tuple[str, ...], dict[str, str]]:
        scored = get_benchmark(benchmark).data.scored_papers(self.split_of(benchmark), self.settings.sources.get(benchmark))
        return scored.paper_ids, dict(scored.excluded)

    # -- submitting ---------------------------------------------------------------------------------------------

    def _unscorable(self, form: SubmissionForm, content: bytes, client: str, hub_id: str | None, now: float | None,
                    err: Exception) -> SubmitOutcome:
        """A submission whose split cannot be loaded: kept, FAILED, with the reason the page shows (an admin can
        requeue it once the split loads again; the split is tried afresh at each submission)."""
        text = content.decode("utf-8", "replace")
        reason = (f"the {self.split_of(form.benchmark)!r} split of {form.benchmark} could not be loaded, so the "
                  f"predictions were neither checked nor scored: {type(err).__name__}: {err}")
        outcome = self._record(form, client, hub_id, now, predictions_jsonl=text,
                               sha256=hashlib.sha256(content).hexdigest(),
                               n_predictions=sum(1 for line in text.splitlines() if line.strip()),
                               status=FAILED, error=reason[:MAX_ERROR_CHARS])
        if outcome.submission is not None:
            logger.warning("submission %s FAILED: %s", outcome.submission.id, reason)
        return outcome

    def _record(self, form: SubmissionForm, client: str, hub_id: str | None, now: float | None,
                **columns: Any) -> SubmitOutcome:
        """Store a submission with its form's fields and `columns`, under the rate limit, and mirror the store; a
        duplicate or a spent rate limit is the outcome's problem."""
        try:
            submission = self.store.add_submission(
                benchmark=form.benchmark, split=self.split_of(form.benchmark), system=form.system,
                submitter=form.submitter, model=form.model, method=form.method, retriever=form.retriever,
                weights=form.weights, url=form.url, client=client, source=hub_id or "upload", now=now,
                rate_limit=(self.settings.rate_limit, self.settings.rate_window_s), **columns)
        except (DuplicateSubmissionError, RateLimitedError) as err:
            return SubmitOutcome(None, [str(err)])
        self.sync_mirror()
        return SubmitOutcome(submission, [])

    def submit(self, form: SubmissionForm, content: bytes | None = None, hub_id: str | None = None,
               now: float | None = None, *, hub_user: str | None = None, address: str | None = None,
               ledger: bytes | None = None) -> SubmitOutcome:
        """Check and queue a submission given as file `content` or as the Hub id of a run pushed with
        `sciwrite push` (``org/name[:config]``); every problem found is returned at once. `hub_user` (the Hub login)
        is the submitter and the rate limit's key; without it (locally) the rate limit counts the typed submitter
        and the client's `address` both. A board with `BoardSettings.hub_login` refuses a submission without one.
        `ledger`: the generator's usage ledger (``usage.jsonl`` beside the predictions), for the cost columns; one
        that disagrees with the predictions (`check_ledger`) keeps the submission FAILED with its one line
        (`NEEDS_FIX`) until `fix_ledger` gives a good one."""
        form = form.cleaned()
        if hub_user:
            form = replace(form, submitter=hub_user)
        client = f"hub:{hub_user}" if hub_user else (f"address:{address}" if address else "")
        problems = form_problems(form, self.benchmarks)
        if self.settings.hub_login and not hub_user:
            problems.insert(0, "login: sign in with your Hugging Face account to submit (the button above the form)")
        hub_id = (hub_id or "").strip() or None
        if (content is None) == (hub_id is None):
            problems.append("predictions: upload a JSON Lines file or give a Hub dataset id (one of the two)")
        elif hub_id is not None and not HUB_ID.fullmatch(hub_id):
            problems.append(f"hub id: expected org/name or org/name:config, got {hub_id!r}")
        if problems:
            return SubmitOutcome(None, problems)
        if hub_id is not None:
            try:
                path = prediction_file(hub_id)
            except Exception as err:  # a missing or private repo: say so, queue nothing
                return SubmitOutcome(None, [f"hub id: could not load {hub_id!r}: {err}"])
            size = path.stat().st_size
            if size > self.settings.max_bytes:
                return SubmitOutcome(None, [f"hub id: {hub_id!r} holds {mib(size, round_up=True)} of predictions; "
                                            f"the limit is {mib(self.settings.max_bytes)}"])
            content = path.read_bytes()
        assert content is not None
        try:
            ids, excluded = self.split_ids(form.benchmark)
        except Exception as err:  # the split is on an unreachable Hub, or its folder is gone: keep it, FAILED
            return self._unscorable(form, content, client, hub_id, now, err)
        checked = check_predictions(content, form.benchmark, ids, excluded=excluded, max_bytes=self.settings.max_bytes,
                                    candidates="candidates" in get_benchmark(form.benchmark).data.prediction_fields)
        if checked.problems:
            return SubmitOutcome(None, checked.problems)
        refused: str | None = None
        ledgers: tuple[LedgerFile, ...] = ()
        if ledger is not None:
            try:
                ledgers = (ledger_from_bytes(ledger, GENERATOR),)
                check_ledger(ledgers[0], {str(r["paper_id"]) for r in checked.records})
            except ValueError as err:
                refused, ledgers = f"{NEEDS_FIX}: {err}", ()
        outcome = self._record(form, client, hub_id, now, predictions_jsonl=checked.text, sha256=checked.sha256,
                               n_predictions=len(checked.records), ledgers=ledgers,
                               **({"status": FAILED, "error": refused[:MAX_ERROR_CHARS]} if refused else {}))
        return SubmitOutcome(outcome.submission, [refused]) if refused and outcome.accepted else outcome

    def fix_ledger(self, submission_id: str, ledger: bytes, submitter: str, now: float | None = None) -> list[str]:
        """Give a submission kept for a refused ledger (`NEEDS_FIX`) a corrected one, as its `submitter` (the Hub
        user on a board with a login): checked against its predictions, kept, and the submission queued again.
        Returns the problems (one line; none when it was queued)."""
        try:
            submission = self.store.get(submission_id)
        except KeyError as err:
            return [str(err).strip("'\"")]
        if name_key(submission.submitter) != name_key(submitter):
            return [f"submission {submission_id} is another submitter's"]
        if submission.status != FAILED or not submission.error.startswith(NEEDS_FIX):
            return [f"submission {submission_id} is {submission.status}, not waiting for a ledger fix"]
        try:
            fixed = ledger_from_bytes(ledger, GENERATOR)
            check_ledger(fixed, paper_ids_of(self.store.predictions(submission_id)))
        except ValueError as err:
            self.store.needs_fix(submission_id, f"{NEEDS_FIX}: {err}"[:MAX_ERROR_CHARS], now=now)
            self.sync_mirror()
            return [str(err)]
        self.store.replace_ledgers(submission_id, [fixed], now=now)
        self.sync_mirror()
        return []

    # -- the admin's actions ------------------------------------------------------------------------------------

    def delete(self, submission_id: str, token: str) -> None:
        """Delete a submission; needs the admin token of ``$SCIWRITE_LEADERBOARD_ADMIN_TOKEN``."""
        self._check_admin(token)
        self.store.delete(submission_id)
        self.sync_mirror()

    def retry(self, submission_id: str, token: str) -> None:
        """Put a FAILED submission back in the queue; needs the admin token."""
        self._check_admin(token)
        self.store.requeue(submission_id)
        self.sync_mirror()

    @staticmethod
    def _check_admin(token: str) -> None:
        expected = os.environ.get(ADMIN_TOKEN_ENV, "")
        if not expected:
            raise PermissionError(f"admin actions are disabled: ${ADMIN_TOKEN_ENV} is not set on the server")
        if not hmac.compare_digest((token or "").encode(), expected.encode()):
            raise PermissionError("wrong admin token")

    # -- mirror and worker --------------------------------------------------------------------------------------

    def restore(self) -> dict[str, Any]:
        """Bring back from the Hub what this store lacks (a Space's disk is empty after a restart)."""
        return self.mirror.restore(self.store) if self.mirror is not None else {"restored": 0, "skipped": 0}

    def sync_mirror(self) -> dict[str, Any] | None:
        """Copy every change to the Hub (one sync at a time); failures stay queued for the next call."""
        if self.mirror is None:
            return None
        with self._mirror_lock:
            return self.mirror.sync(self.store)

    def make_worker(self, evaluator: Any = None, **options: Any) -> Worker:
        """A worker scoring on this board's sources (`SuiteEvaluator` unless another evaluator is given)."""
        evaluator = evaluator or SuiteEvaluator(sources=dict(self.settings.sources))
        profile = evaluator.resolved_profile() if isinstance(evaluator, SuiteEvaluator) else ""
        return Worker(self.store, evaluator, profile=profile, on_change=self.sync_mirror, **options)


def space_has_login() -> bool:
    """Whether this process is a Hugging Face Space with the Hub login on (``hf_oauth: true`` in its card, which
    makes the Space set ``OAUTH_CLIENT_ID``)."""
    return bool(os.environ.get("SPACE_ID") and os.environ.get("OAUTH_CLIENT_ID"))


def open_board(store: str | Path | None = None, settings: BoardSettings | None = None,
               mirror: HubMirror | None = None, restore: bool = True) -> Leaderboard:
    """A board on the store at `store` (default: `default_store_path()`), restored from the Hub mirror first."""
    board = Leaderboard(ResultsStore(store), settings, mirror)
    if restore and mirror is not None:
        started = time.perf_counter()
        report = board.restore()
        logger.info("restored %s from the Hub in %.1f s", report, time.perf_counter() - started)
    return board
