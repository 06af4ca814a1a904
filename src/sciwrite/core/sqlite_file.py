"""One SQLite file opened the way sciwrite's servers need it (the leaderboard's results store, the human-evaluation
answers): WAL, so readers never wait for the writer; one connection per operation, so threads and processes can
share the file; every write one ``BEGIN IMMEDIATE`` transaction, taking the lock at its start (no upgrade
deadlocks), waiting up to `BUSY_TIMEOUT_S` for another writer."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sciwrite.core.errors import InputError, Where

#: Seconds a write waits for another writer's lock before it fails.
BUSY_TIMEOUT_S = 30.0


class SqliteFile:
    """The SQLite file at `path` (its folder created when missing); `synchronous` ``NORMAL`` survives any process
    crash, ``FULL`` a power cut too."""

    def __init__(self, path: str | Path, what: str = "--store", synchronous: str = "NORMAL"):
        self.path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"{what} {self.path} is a folder; name the SQLite file in it (e.g. "
                             f"{self.path / 'store.sqlite'})")
        if self.path.parent.exists() and not self.path.parent.is_dir():
            raise ValueError(f"{what} {self.path}: {self.path.parent} is a file, not a folder")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.synchronous = synchronous
        try:
            with self._connect() as conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA schema_version").fetchone()  # reads the header: a file that is no database fails
        except sqlite3.DatabaseError as err:
            if getattr(err, "sqlite_errorname", "") not in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
                raise  # locked, unopenable, a disk error: the store may be good; the CLI reports it as it is
            raise InputError(f"not a readable SQLite database ({err})", Where(path=self.path),
                             hint=f"point {what} at a sciwrite store, or at a new path to start one") from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            conn.row_factory = sqlite3.Row
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction holding the database lock from its start."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")


__all__ = ["BUSY_TIMEOUT_S", "SqliteFile"]
