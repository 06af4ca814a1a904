"""One SQLite file that keeps every answer the bibliographic services gave (Crossref, DBLP, Semantic Scholar,
OpenAlex, arXiv), so that a rerun sends no request it sent before and answers the same.

- one table, ``responses(service, key, answer, fetched_at)``: `service` names the client (``crossref``...), `key`
  the request without credentials (its URL), `answer` the JSON answer, ``null`` for "not found", which is an answer
  too and cached like any other;
- each answer is committed as it comes (autocommit, WAL journal), so a run that crashes or stops keeps what it
  was told and a rerun resumes there;
- one connection shared by threads behind a lock (``check_same_thread=False``); other processes may read and write
  the same file (WAL, with a busy timeout).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sciwrite.core.paths import cache_root

SCHEMA = """CREATE TABLE IF NOT EXISTS responses (
    service TEXT NOT NULL,
    key TEXT NOT NULL,
    answer TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (service, key)
)"""
#: Seconds a write waits for another process that holds the file's write lock.
BUSY_TIMEOUT = 30.0


def default_cache_path() -> Path:
    """``online/responses.sqlite`` under sciwrite's cache folder (``$SCIWRITE_CACHE_DIR``, else
    ``~/.cache/sciwrite``)."""
    return cache_root() / "online" / "responses.sqlite"


class SqliteResponseCache:
    """The services' answers in one SQLite file (see the module docstring); `path` defaults to
    `default_cache_path`. Also a context manager that closes the file."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(SCHEMA)
        except sqlite3.DatabaseError as err:
            raise ValueError(f"{self.path}: not a response cache sciwrite can open ({err}); remove it or name "
                             "another file") from None

    def get(self, service: str, key: str) -> tuple[bool, Any]:
        """(True, answer) when `service` answered `key` before (the answer may be None: "not found"), else
        (False, None). An answer stored unreadable counts as never given."""
        with self._lock:
            row = self._db.execute("SELECT answer FROM responses WHERE service = ? AND key = ?",
                                   (service, key)).fetchone()
        if row is None:
            return False, None
        try:
            return True, json.loads(row[0])
        except ValueError:
            return False, None

    def put(self, service: str, key: str, answer: Any) -> None:
        """Keep `service`'s `answer` (any JSON value; None for "not found") to `key`, committed at once."""
        text = json.dumps(answer, ensure_ascii=False)
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses (service, key, answer, fetched_at) VALUES (?, ?, ?, ?)",
                             (service, key, text, stamp))

    def fetched(self, service: str, key: str, fetch: Callable[[], Any]) -> tuple[Any, bool]:
        """(answer, from_cache): the cached answer to `key`, else ``fetch()``'s, kept. A fetch that raises keeps
        nothing, so a rerun asks again."""
        hit, answer = self.get(service, key)
        if hit:
            return answer, True
        answer = fetch()
        self.put(service, key, answer)
        return answer, False

    def count(self, service: str | None = None) -> int:
        """How many answers are kept (of `service`, or of all)."""
        query, args = ("SELECT COUNT(*) FROM responses", ()) if service is None else (
            "SELECT COUNT(*) FROM responses WHERE service = ?", (service,))
        with self._lock:
            return int(self._db.execute(query, args).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SqliteResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteResponseCache({str(self.path)!r})"


__all__ = ["SqliteResponseCache", "default_cache_path"]
