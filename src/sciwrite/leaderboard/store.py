"""The leaderboard's results store: one SQLite file in WAL mode holding every submission, its predictions, its
summary and its per-paper scores.

Why SQLite: it is embedded (a Space needs no server), durable across crashes (every change is one transaction,
and WAL lets the page read while the worker writes), and safe for several writers (each write takes the database
lock with ``BEGIN IMMEDIATE`` and waits up to `sciwrite.core.sqlite_file.BUSY_TIMEOUT_S` for it). A submission moves PENDING -> RUNNING ->
FINISHED | FAILED. A worker claims the oldest PENDING one (or a RUNNING one whose heartbeat is stale: its worker
died), beats while it scores, and writes the summary, the per-paper rows and the FINISHED status in one
transaction, so a killed worker leaves nothing half-written. Each connection lives for one operation, so the
store can be shared by threads and processes alike.

A system name belongs to its first submitter: each row keeps its name's `name_key` (case, width and invisible
characters set aside), and a submission whose name's key is held by another submitter is refused
(`NameTakenError`). The submitter is the Space's signed-in Hub user, or locally the name the submitter typed (the
``submitter`` column: there is no other identity off a Space), compared by its key too. A store written before the
keys existed gets them when it is opened; where two submitters already share one, both rows stay, and the name is
the first one's from then on.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from sciwrite.core.costs import LedgerFile, RunCost, paper_ids_of, run_cost, unknown_cost
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.paths import data_root
from sciwrite.core.sqlite_file import SqliteFile
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.names import name_key

PENDING, RUNNING, FINISHED, FAILED = "PENDING", "RUNNING", "FINISHED", "FAILED"
STATUSES = (PENDING, RUNNING, FINISHED, FAILED)
#: A RUNNING submission whose heartbeat is older than this is taken to belong to a dead worker.
STALE_AFTER_S = 120.0
#: A submission whose worker died this many times is failed rather than retried forever.
MAX_ATTEMPTS = 3
STORE_ENV = "SCIWRITE_LEADERBOARD_STORE"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS submissions (
    id TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    split TEXT NOT NULL,
    system TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    method TEXT NOT NULL DEFAULT '',
    retriever TEXT NOT NULL DEFAULT '',
    weights TEXT NOT NULL DEFAULT '',
    url TEXT NOT NULL DEFAULT '',
    submitter TEXT NOT NULL,
    client TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT 'upload',
    sha256 TEXT NOT NULL,
    n_predictions INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN {STATUSES!r}),
    error TEXT NOT NULL DEFAULT '',
    profile TEXT NOT NULL DEFAULT '',
    worker TEXT NOT NULL DEFAULT '',
    attempts INTEGER NOT NULL DEFAULT 0,
    submitted_at REAL NOT NULL,
    started_at REAL,
    heartbeat_at REAL,
    finished_at REAL,
    updated_at REAL NOT NULL,
    mirrored_at REAL,
    UNIQUE (benchmark, split, sha256)
);
CREATE TABLE IF NOT EXISTS deletions (
    submission_id TEXT PRIMARY KEY,
    benchmark TEXT NOT NULL,
    deleted_at REAL NOT NULL,
    mirrored_at REAL
);
CREATE INDEX IF NOT EXISTS submissions_status ON submissions (status, submitted_at);
CREATE INDEX IF NOT EXISTS submissions_submitter ON submissions (submitter, submitted_at);
CREATE TABLE IF NOT EXISTS predictions (
    submission_id TEXT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    jsonl TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    submission_id TEXT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    summary TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ledgers (
    submission_id TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    name TEXT NOT NULL,
    jsonl TEXT NOT NULL,
    PRIMARY KEY (submission_id, role)
);
CREATE TABLE IF NOT EXISTS costs (
    submission_id TEXT PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
    cost TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS paper_scores (
    submission_id TEXT NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    paper_id TEXT NOT NULL,
    row TEXT NOT NULL,
    PRIMARY KEY (submission_id, paper_id)
);
"""


#: Columns added after the first release, with their definitions: a store written before gets them on open.
#: ``name_key`` is the system name's `name_key`, the form in which names are compared (not a `Submission` field:
#: it is derived from ``system``, and the Hub mirror's files do not carry it).
_ADDED_COLUMNS = {"client": "TEXT NOT NULL DEFAULT ''", "name_key": "TEXT NOT NULL DEFAULT ''"}


class DuplicateSubmissionError(ValueError):
    """The submission repeats one already on the board, `existing`: the same predictions (by sha256) for this
    benchmark and split, or (`NameTakenError`) another submitter's system name."""

    def __init__(self, existing: Submission, message: str | None = None):
        super().__init__(message or f"these predictions were already submitted as {existing.system!r} (submission "
                                    f"{existing.id}, {existing.status})")
        self.existing = existing


class NameTakenError(DuplicateSubmissionError):
    """The system name, compared by `name_key`, belongs to another submitter: `existing` is its first row. The
    message names that row, never its submitter."""

    def __init__(self, existing: Submission, system: str):
        same = ("" if existing.system == system
                else f" ({system!r} reads as {existing.system!r} once case, width and invisible characters are set aside)")
        super().__init__(existing, f"system name {system!r} is taken: submission {existing.id} ({existing.benchmark}, "
                                   f"{existing.system!r}) was submitted under it first, by another submitter{same}. A "
                                   "name belongs to its first submitter; choose another name")


class RateLimitedError(ValueError):
    """The submitter has used up the submissions the board allows in its time window."""


class NotClaimedError(RuntimeError):
    """A worker tried to finish or fail a submission it no longer holds (another worker reclaimed it)."""


@dataclass(frozen=True)
class Submission:
    """One row of the submissions table."""

    id: str
    benchmark: str
    split: str
    system: str
    submitter: str
    sha256: str
    status: str
    submitted_at: float
    updated_at: float
    model: str = ""
    method: str = ""
    retriever: str = ""
    weights: str = ""
    url: str = ""
    client: str = ""  # who submitted, for the rate limit: "hub:<user>" on a Space, else the client's address
    source: str = "upload"
    n_predictions: int = 0
    error: str = ""
    profile: str = ""
    worker: str = ""
    attempts: int = 0
    started_at: float | None = None
    heartbeat_at: float | None = None
    finished_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_COLUMNS = tuple(f.name for f in fields(Submission))
_TEXT_COLUMNS = {f.name for f in fields(Submission) if f.type == "str"}


def default_store_path() -> Path:
    """``$SCIWRITE_LEADERBOARD_STORE`` or ``<data root>/leaderboard/leaderboard.sqlite``."""
    named = os.environ.get(STORE_ENV)
    return Path(named) if named else data_root() / "leaderboard" / "leaderboard.sqlite"


class ResultsStore(SqliteFile):
    """The SQLite results store at `path` (created with its folder when missing)."""

    def __init__(self, path: str | Path | None = None):
        super().__init__(path if path is not None else default_store_path())
        with self._connect() as conn:
            conn.executescript(_SCHEMA)
            present = {row["name"] for row in conn.execute("PRAGMA table_info(submissions)")}
            for column, definition in _ADDED_COLUMNS.items():
                if column not in present:
                    try:
                        conn.execute(f"ALTER TABLE submissions ADD COLUMN {column} {definition}")
                    except sqlite3.OperationalError as err:  # another process opening the store added it first
                        if "duplicate column" not in str(err):
                            raise
            conn.execute("CREATE INDEX IF NOT EXISTS submissions_client ON submissions (client, submitted_at)")
            conn.execute("CREATE INDEX IF NOT EXISTS submissions_name ON submissions (name_key, submitted_at)")
        self._key_names()

    def _key_names(self) -> None:
        """Give every row without a name key its key (a store written before the keys, or a row restored by an
        older release); rows that already share a key across submitters all stay."""
        with self._connect() as conn:
            unkeyed = conn.execute("SELECT id, system FROM submissions WHERE name_key=''").fetchall()
        keys = [(key, row["id"]) for row in unkeyed if (key := name_key(row["system"]))]
        if keys:  # the write lock only when there is something to write
            with self._write() as conn:
                conn.executemany("UPDATE submissions SET name_key=? WHERE id=? AND name_key=''", keys)

    # -- submissions --------------------------------------------------------------------------------------------

    def add_submission(self, *, benchmark: str, split: str, system: str, submitter: str, predictions_jsonl: str,
                       sha256: str, n_predictions: int, status: str = PENDING, now: float | None = None,
                       submission_id: str | None = None, summary: Summary | None = None,
                       rows: Sequence[PaperRow] = (), rate_limit: tuple[int, float] | None = None,
                       ledgers: Sequence[LedgerFile] = (), cost: RunCost | None = None, **form: Any) -> Submission:
        """Record a submission and its predictions (and, for an already-scored run, its `summary` and per-paper
        `rows`) in one transaction; `DuplicateSubmissionError` when the same predictions are already there for this
        benchmark and split, `NameTakenError` when the system name (by `name_key`) belongs to another submitter (a
        row the Hub mirror holds, restored with its `mirrored_at`, was accepted before and comes back as it was).
        `form` holds the other text columns (model, method, retriever, weights, url, source,
        profile, error, client) and, for a restore, the timestamps and counters. `rate_limit` (n, seconds) refuses,
        in the same transaction, a submitter name or a `client` (``form["client"]``: the Hub user or the client
        address) that already made n submissions in the last `seconds` (`RateLimitedError`): a new name typed
        from the same address counts against that address. `ledgers` (the generator's and the judge's usage ledgers, checked by
        the caller) are kept with it, and its `RunCost` is worked out from them when it is scored; `cost` (a restore
        from the Hub mirror) is the one it was shown with, kept in place of working it out again."""
        unknown = set(form) - set(_COLUMNS) - {"mirrored_at"}
        if unknown:
            raise TypeError(f"unknown submission field(s) {sorted(unknown)}")
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}; choose one of {STATUSES}")
        now = time.time() if now is None else now
        new_id = submission_id or uuid.uuid4().hex
        row = {"id": new_id, "benchmark": benchmark, "split": split, "system": system, "name_key": name_key(system),
               "submitter": submitter, "sha256": sha256, "n_predictions": n_predictions, "status": status,
               "submitted_at": now, "updated_at": now, **({"finished_at": now} if status == FINISHED else {}),
               **{k: ("" if v is None and k in _TEXT_COLUMNS else v) for k, v in form.items()}}
        with self._write() as conn:
            existing = conn.execute("SELECT * FROM submissions WHERE benchmark=? AND split=? AND sha256=?",
                                    (benchmark, split, sha256)).fetchone()
            if existing is not None:
                raise DuplicateSubmissionError(_submission(existing))
            if "mirrored_at" not in form:
                self._check_name(conn, system, submitter)
            if rate_limit is not None:
                self._check_rate(conn, submitter, form.get("client") or "", now, *rate_limit)
            conn.execute(f"INSERT INTO submissions ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                         tuple(row.values()))
            conn.execute("INSERT INTO predictions (submission_id, jsonl) VALUES (?, ?)", (new_id, predictions_jsonl))
            conn.execute("DELETE FROM deletions WHERE submission_id=?", (new_id,))
            self._write_ledgers(conn, new_id, ledgers)
            if summary is not None:
                self._write_results(conn, new_id, summary, rows)
            if cost is not None:
                conn.execute("INSERT OR REPLACE INTO costs (submission_id, cost) VALUES (?, ?)",
                             (new_id, json.dumps(cost.to_json())))
        return self.get(new_id)

    @staticmethod
    def _check_name(conn: sqlite3.Connection, system: str, submitter: str) -> None:
        """`NameTakenError` when the first row holding `system`'s key is another submitter's."""
        owner = _name_owner(conn, system)
        if owner is not None and name_key(owner.submitter) != name_key(submitter):
            raise NameTakenError(owner, system)

    def name_owner(self, system: str) -> Submission | None:
        """The first submission under `system`'s name (by `name_key`), whose submitter owns it; None when free."""
        with self._connect() as conn:
            return _name_owner(conn, system)

    @staticmethod
    def _check_rate(conn: sqlite3.Connection, submitter: str, client: str, now: float, allowed: int,
                    window: float) -> None:
        """`RateLimitedError` when the submitter name, or the client, has `allowed` submissions in `window` s."""
        keys = [("submitter", submitter, f"submitter {submitter!r}")]
        if client:
            keys.append(("client", client, "this account" if client.startswith("hub:") else "this address"))
        for column, value, who in keys:
            recent = conn.execute(f"SELECT COUNT(*) FROM submissions WHERE {column}=? AND submitted_at>?",
                                  (value, now - window)).fetchone()[0]
            if recent >= allowed:
                raise RateLimitedError(f"{who} has made {recent} submissions in the last {window / 3600:g} h; the "
                                       f"limit is {allowed}. Please try again later.")

    def get(self, submission_id: str) -> Submission:
        """The submission with this id; `KeyError` naming it when there is none."""
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM submissions WHERE id=?", (submission_id,)).fetchone()
        if row is None:
            raise KeyError(f"no submission {submission_id!r}")
        return _submission(row)

    def find_by_sha256(self, benchmark: str, split: str, sha256: str) -> Submission | None:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM submissions WHERE benchmark=? AND split=? AND sha256=?",
                               (benchmark, split, sha256)).fetchone()
        return None if row is None else _submission(row)

    def submissions(self, benchmark: str | None = None, status: str | None = None) -> list[Submission]:
        """Every submission (optionally of one benchmark / status), newest first."""
        where, args = _where(benchmark=benchmark, status=status)
        with self._connect() as conn:
            rows = conn.execute(f"SELECT * FROM submissions {where} ORDER BY submitted_at DESC, id", args).fetchall()
        return [_submission(r) for r in rows]

    def predictions(self, submission_id: str) -> str:
        """The submission's predictions as the JSON Lines text that was accepted."""
        with self._connect() as conn:
            row = conn.execute("SELECT jsonl FROM predictions WHERE submission_id=?", (submission_id,)).fetchone()
        if row is None:
            raise KeyError(f"no predictions for submission {submission_id!r}")
        return row[0]

    def delete(self, submission_id: str, now: float | None = None) -> None:
        """Remove a submission with its predictions and results (the admin's action); a tombstone tells the
        Hub mirror to remove its files too."""
        now = time.time() if now is None else now
        with self._write() as conn:
            row = conn.execute("SELECT benchmark FROM submissions WHERE id=?", (submission_id,)).fetchone()
            if row is None:
                raise KeyError(f"no submission {submission_id!r}")
            conn.execute("DELETE FROM submissions WHERE id=?", (submission_id,))
            conn.execute("INSERT OR REPLACE INTO deletions (submission_id, benchmark, deleted_at) VALUES (?, ?, ?)",
                         (submission_id, row["benchmark"], now))

    # -- the Hub mirror's bookkeeping ---------------------------------------------------------------------------

    def unmirrored(self) -> list[Submission]:
        """Submissions changed since the mirror last copied them (or never copied), oldest change first."""
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM submissions WHERE mirrored_at IS NULL OR mirrored_at<updated_at "
                                "ORDER BY updated_at, id").fetchall()
        return [_submission(r) for r in rows]

    def mark_mirrored(self, submission_id: str, updated_at: float) -> None:
        """Record that the mirror holds the submission as it was at `updated_at` (a later change stays due)."""
        with self._write() as conn:
            conn.execute("UPDATE submissions SET mirrored_at=? WHERE id=?", (updated_at, submission_id))

    def unmirrored_deletions(self) -> list[tuple[str, str]]:
        """(submission id, benchmark) of deletions the mirror has not applied yet."""
        with self._connect() as conn:
            return [(r[0], r[1]) for r in conn.execute(
                "SELECT submission_id, benchmark FROM deletions WHERE mirrored_at IS NULL ORDER BY deleted_at")]

    def mark_deletion_mirrored(self, submission_id: str, now: float | None = None) -> None:
        with self._write() as conn:
            conn.execute("UPDATE deletions SET mirrored_at=? WHERE submission_id=?",
                         (time.time() if now is None else now, submission_id))

    def deleted_ids(self) -> set[str]:
        """Ids an admin deleted (a restore from the Hub must not bring them back)."""
        with self._connect() as conn:
            return {r[0] for r in conn.execute("SELECT submission_id FROM deletions")}

    # -- the queue ----------------------------------------------------------------------------------------------

    def claim_next(self, worker: str, *, stale_after: float = STALE_AFTER_S, max_attempts: int = MAX_ATTEMPTS,
                   now: float | None = None) -> Submission | None:
        """Mark the oldest PENDING submission, or a RUNNING one whose heartbeat is older than `stale_after`
        seconds, RUNNING for `worker` and return it; None when there is nothing to do. A stale one that has
        already been tried `max_attempts` times is failed instead, with the reason."""
        now = time.time() if now is None else now
        with self._write() as conn:
            for row in conn.execute("SELECT * FROM submissions WHERE status=? AND COALESCE(heartbeat_at, 0)<? "
                                    "ORDER BY submitted_at",
                                    (RUNNING, now - stale_after)).fetchall():
                if row["attempts"] >= max_attempts:
                    conn.execute("UPDATE submissions SET status=?, error=?, finished_at=?, updated_at=? WHERE id=?",
                                 (FAILED, f"the evaluation stopped without a result {row['attempts']} times (its "
                                          "worker died each time); not retried again", now, now, row["id"]))
            row = conn.execute("SELECT * FROM submissions WHERE status=? OR (status=? AND COALESCE(heartbeat_at, 0)<?) "
                               "ORDER BY status='RUNNING' DESC, submitted_at, id LIMIT 1",
                               (PENDING, RUNNING, now - stale_after)).fetchone()
            if row is None:
                return None
            conn.execute("UPDATE submissions SET status=?, worker=?, started_at=?, heartbeat_at=?, updated_at=?, "
                         "attempts=attempts+1, error='' WHERE id=?", (RUNNING, worker, now, now, now, row["id"]))
        return self.get(row["id"])

    def heartbeat(self, submission_id: str, worker: str, now: float | None = None) -> bool:
        """Say `worker` is still scoring this submission; False when it no longer holds it."""
        now = time.time() if now is None else now
        with self._write() as conn:
            return conn.execute("UPDATE submissions SET heartbeat_at=? WHERE id=? AND status=? AND worker=?",
                                (now, submission_id, RUNNING, worker)).rowcount == 1

    def finish(self, submission_id: str, worker: str, summary: Summary,
               rows: Sequence[PaperRow], profile: str = "", now: float | None = None) -> None:
        """Write the summary, the per-paper rows and FINISHED in one transaction; `NotClaimedError` when `worker`
        no longer holds the submission (nothing is written then)."""
        now = time.time() if now is None else now
        with self._write() as conn:
            self._check_claim(conn, submission_id, worker)
            self._write_results(conn, submission_id, summary, rows)
            conn.execute("UPDATE submissions SET status=?, profile=?, finished_at=?, updated_at=?, error='' "
                         "WHERE id=?", (FINISHED, profile, now, now, submission_id))

    def fail(self, submission_id: str, worker: str, error: str, now: float | None = None) -> None:
        """Mark the submission FAILED with `error` (shown on the page)."""
        now = time.time() if now is None else now
        with self._write() as conn:
            self._check_claim(conn, submission_id, worker)
            conn.execute("UPDATE submissions SET status=?, error=?, finished_at=?, updated_at=? WHERE id=?",
                         (FAILED, error, now, now, submission_id))

    def requeue(self, submission_id: str, now: float | None = None) -> None:
        """Put a FAILED (or stuck) submission back in the queue (the admin's retry)."""
        now = time.time() if now is None else now
        with self._write() as conn:
            changed = conn.execute("UPDATE submissions SET status=?, error='', worker='', attempts=0, started_at=NULL, "
                                   "heartbeat_at=NULL, finished_at=NULL, updated_at=? WHERE id=?",
                                   (PENDING, now, submission_id)).rowcount
            if changed == 0:
                raise KeyError(f"no submission {submission_id!r}")
            conn.execute("DELETE FROM results WHERE submission_id=?", (submission_id,))
            conn.execute("DELETE FROM paper_scores WHERE submission_id=?", (submission_id,))
            conn.execute("DELETE FROM costs WHERE submission_id=?", (submission_id,))

    def replace_ledgers(self, submission_id: str, ledgers: Sequence[LedgerFile], now: float | None = None) -> None:
        """Keep `ledgers` (checked by the caller) in place of the submission's (its fix after a refused ledger) and
        put it back in the queue, to be scored and costed with them."""
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM submissions WHERE id=?", (submission_id,)).fetchone() is None:
                raise KeyError(f"no submission {submission_id!r}")
            conn.execute("DELETE FROM ledgers WHERE submission_id=?", (submission_id,))
            self._write_ledgers(conn, submission_id, ledgers)
        self.requeue(submission_id, now=now)

    def needs_fix(self, submission_id: str, error: str, now: float | None = None) -> None:
        """Mark a submission FAILED with `error` (a refused ledger's line): kept, not scored, until it is fixed."""
        now = time.time() if now is None else now
        with self._write() as conn:
            conn.execute("UPDATE submissions SET status=?, error=?, worker='', finished_at=?, updated_at=? WHERE id=?",
                         (FAILED, error, now, now, submission_id))

    @staticmethod
    def _write_ledgers(conn: sqlite3.Connection, submission_id: str, ledgers: Sequence[LedgerFile]) -> None:
        conn.executemany("INSERT OR REPLACE INTO ledgers (submission_id, role, name, jsonl) VALUES (?, ?, ?, ?)",
                         [(submission_id, ledger.role, ledger.name, ledger.text) for ledger in ledgers])

    @staticmethod
    def _check_claim(conn: sqlite3.Connection, submission_id: str, worker: str) -> None:
        row = conn.execute("SELECT status, worker FROM submissions WHERE id=?", (submission_id,)).fetchone()
        if row is None or row["status"] != RUNNING or row["worker"] != worker:
            held = "it is gone" if row is None else f"it is {row['status']} for worker {row['worker']!r}"
            raise NotClaimedError(f"worker {worker!r} does not hold submission {submission_id!r}: {held}")

    @staticmethod
    def _write_results(conn: sqlite3.Connection, submission_id: str, summary: Summary,
                       rows: Sequence[PaperRow]) -> None:
        """The summary and the per-paper rows as JSON, in place of any the submission had (the store's edge); a
        `ValueError` when a row names no paper (the rows are kept by paper)."""
        if any(row.paper_id is None for row in rows):
            raise ValueError("a per-paper row names no paper (no paper_id): the board keeps the rows by paper")
        conn.execute("INSERT OR REPLACE INTO results (submission_id, summary) VALUES (?, ?)",
                     (submission_id, json.dumps(summary.to_json(), ensure_ascii=False)))
        conn.execute("DELETE FROM paper_scores WHERE submission_id=?", (submission_id,))
        conn.executemany("INSERT INTO paper_scores (submission_id, paper_id, row) VALUES (?, ?, ?)",
                         [(submission_id, str(row.paper_id), json.dumps(row.to_json(), ensure_ascii=False))
                          for row in rows])
        conn.execute("INSERT OR REPLACE INTO costs (submission_id, cost) VALUES (?, ?)",
                     (submission_id, json.dumps(_run_cost(conn, submission_id, summary).to_json())))

    # -- results ------------------------------------------------------------------------------------------------

    def summary(self, submission_id: str) -> Summary | None:
        """The summary of a scored submission (None before it is scored), whatever schema wrote it."""
        with self._connect() as conn:
            row = conn.execute("SELECT summary FROM results WHERE submission_id=?", (submission_id,)).fetchone()
        return None if row is None else Summary.from_json(json.loads(row[0]))

    def finished(self, benchmark: str, split: str | None = None) -> list[tuple[Submission, Summary]]:
        """(submission, summary) of every FINISHED submission of `benchmark` (and `split`), oldest first."""
        where, args = _where(benchmark=benchmark, split=split, status=FINISHED, prefix="s.")
        with self._connect() as conn:
            rows = conn.execute(f"SELECT s.*, r.summary AS summary_json FROM submissions s JOIN results r "
                                f"ON r.submission_id=s.id {where} ORDER BY s.submitted_at, s.id", args).fetchall()
        return [(_submission(r), Summary.from_json(json.loads(r["summary_json"]))) for r in rows]

    def ledgers(self, submission_id: str) -> list[LedgerFile]:
        """The usage ledgers kept with a submission (generator first)."""
        with self._connect() as conn:
            return _ledgers(conn, submission_id)

    def cost(self, submission_id: str) -> RunCost | None:
        """The `RunCost` of a scored submission (None before it is scored)."""
        with self._connect() as conn:
            row = conn.execute("SELECT cost FROM costs WHERE submission_id=?", (submission_id,)).fetchone()
        return None if row is None else RunCost.from_json(json.loads(row[0]))

    def costs(self, benchmark: str, split: str | None = None) -> dict[str, RunCost]:
        """Submission id -> `RunCost` of every scored submission of `benchmark` (and `split`)."""
        where, args = _where(benchmark=benchmark, split=split, prefix="s.")
        with self._connect() as conn:
            rows = conn.execute(f"SELECT s.id, c.cost FROM submissions s JOIN costs c ON c.submission_id=s.id {where}",
                                args).fetchall()
        return {r["id"]: RunCost.from_json(json.loads(r["cost"])) for r in rows}

    def paper_rows(self, submission_id: str) -> list[PaperRow]:
        """The per-paper rows of a scored submission, in paper order, typed (their JSON is read here, once)."""
        with self._connect() as conn:
            rows = conn.execute("SELECT row FROM paper_scores WHERE submission_id=? ORDER BY rowid",
                                (submission_id,)).fetchall()
        return [PaperRow.from_json(json.loads(r[0])) for r in rows]


def _submission(row: sqlite3.Row) -> Submission:
    return Submission(**{k: row[k] for k in _COLUMNS})


def _ledgers(conn: sqlite3.Connection, submission_id: str) -> list[LedgerFile]:
    rows = conn.execute("SELECT role, name, jsonl FROM ledgers WHERE submission_id=? ORDER BY role",
                        (submission_id,)).fetchall()
    return [LedgerFile(r["role"], r["name"], r["jsonl"]) for r in rows]


def _run_cost(conn: sqlite3.Connection, submission_id: str, summary: Summary) -> RunCost:
    """The submission's `RunCost` from its kept ledgers and predictions, worked out once, as it is scored; a kept
    ledger that no longer passes its check leaves every cost unknown, with the check's line as the reason."""
    row = conn.execute("SELECT jsonl FROM predictions WHERE submission_id=?", (submission_id,)).fetchone()
    paper_ids = paper_ids_of(row[0] if row else "")
    try:
        return run_cost(_ledgers(conn, submission_id), summary, paper_ids)
    except ValueError as err:
        return unknown_cost(summary.n_papers or len(paper_ids), str(err))


def _name_owner(conn: sqlite3.Connection, system: str) -> Submission | None:
    """The oldest row whose name key is `system`'s (None for a name with nothing visible in it)."""
    key = name_key(system)
    row = conn.execute("SELECT * FROM submissions WHERE name_key=? ORDER BY submitted_at, id LIMIT 1",
                       (key,)).fetchone() if key else None
    return None if row is None else _submission(row)


def _where(prefix: str = "", **equal: Any) -> tuple[str, tuple[Any, ...]]:
    pairs = [(k, v) for k, v in equal.items() if v is not None]
    if not pairs:
        return "", ()
    return "WHERE " + " AND ".join(f"{prefix}{k}=?" for k, _ in pairs), tuple(v for _, v in pairs)
