"""A study's answers on disk: one SQLite file (WAL, ``synchronous=FULL``) holding the annotators (their sign-in
tokens hashed) and every answer, written the moment it is given.

An answer is keyed by (task, annotator, dimension): giving it again is idempotent, changing it replaces it (the
time of each is kept), so a crash, a restart or a reloaded page loses nothing and duplicates nothing. Answers are
checked as the exported file is (`sciwrite.human_eval.answers.answer_problem`) before they are written.

Tokens: ``secrets.token_urlsafe(24)`` (192 random bits), stored as their SHA-256. A slow password hash (bcrypt,
scrypt) protects guessable passwords; a random token of this length cannot be guessed, so a plain digest suffices.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.sqlite_file import SqliteFile
from sciwrite.human_eval.answers import LLM_ANNOTATOR_PREFIX, answer_problem, is_model_annotator
from sciwrite.human_eval.study import PAIRWISE, RATING

_SCHEMA = """
CREATE TABLE IF NOT EXISTS annotators (
    name TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    added_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    task_id TEXT NOT NULL,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    dimension TEXT NOT NULL,
    choice TEXT,
    rating INTEGER,
    comment TEXT,
    answered_at REAL NOT NULL,
    changed_at REAL NOT NULL,
    PRIMARY KEY (task_id, annotator, dimension)
);
CREATE TABLE IF NOT EXISTS study (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def token_digest(token: str) -> str:
    """The SHA-256 of a sign-in token, as the store keeps it."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _study_name(benchmark: str | None, design: str) -> str:
    return f"the {benchmark + ' ' if benchmark else ''}{design} study"


class AnswerStore(SqliteFile):
    """The annotators and answers of one study, in one SQLite file, each answer written the moment it is given.

    An answer is keyed by (task, annotator, dimension): giving it again changes nothing, changing it replaces it,
    so a crash or a reloaded page loses nothing and duplicates nothing. The file records its study (benchmark and
    design) when first opened; opening it for another study is refused, naming both. `study_store` opens one for
    a task folder.

    Args:
        path: The SQLite file (created when missing).
        design: ``pairwise`` or ``rating``.
        task_ids: The study's task ids; an answer to another task is refused.
        dimensions: The study's dimension keys.
        benchmark: The benchmark's name, recorded with the design.
    """

    def __init__(self, path: str | Path, design: str, task_ids: Sequence[str], dimensions: Sequence[str],
                 benchmark: str | None = None):
        super().__init__(path, synchronous="FULL")  # an answer is small and rare: durable even past a power cut
        self.design, self.task_ids, self.dimensions = design, set(task_ids), list(dimensions)
        self.benchmark = benchmark
        with self._connect() as conn:
            conn.executescript(_SCHEMA)
        self._claim()

    def _claim(self) -> None:
        """Record this store's study, or refuse when the file holds another study's answers."""
        with self._write() as conn:
            recorded = {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM study")}
            if not recorded:
                recorded = self._study_of_answers(conn)
            mine = {"design": self.design, **({"benchmark": self.benchmark} if self.benchmark else {})}
            if any(key in recorded and recorded[key] != value for key, value in mine.items()):
                theirs = _study_name(recorded.get("benchmark"), recorded["design"])
                raise InputError(f"the store holds answers of {theirs}, not of "
                                 f"{_study_name(self.benchmark, self.design)} of the task folder",
                                 Where(path=self.path), hint="point --store at this study's store (or a new file), "
                                 "or --tasks at the task folder of the store's study")
            conn.executemany("INSERT OR IGNORE INTO study VALUES (?, ?)", mine.items())

    @staticmethod
    def _study_of_answers(conn: Any) -> dict[str, str]:
        """The design a store that recorded no study answered in ({} when it holds no answer)."""
        row = conn.execute("SELECT SUM(choice IS NOT NULL) AS choices, SUM(rating IS NOT NULL) AS ratings "
                           "FROM answers").fetchone()
        if row["ratings"]:
            return {"design": RATING}
        return {"design": PAIRWISE} if row["choices"] else {}

    # -- annotators -------------------------------------------------------------------------------------------------

    def add_annotator(self, name: str) -> str:
        """A new annotator's sign-in token (shown once; only its digest is kept); `ValueError` if the name is taken."""
        name = name.strip()
        if not name:
            raise ValueError("an annotator needs a name")
        if is_model_annotator(name):  # the agreement report would count this person as a model
            raise ValueError(f"annotator names starting with {LLM_ANNOTATOR_PREFIX!r} are models' "
                             "(sciwrite human-eval llm-annotate); choose another name")
        token = secrets.token_urlsafe(24)
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM annotators WHERE name=?", (name,)).fetchone():
                raise ValueError(f"annotator {name!r} exists already")
            conn.execute("INSERT INTO annotators VALUES (?, ?, ?)", (name, token_digest(token), time.time()))
        return token

    def annotator(self, token: str) -> str | None:
        """The annotator whose token this is, or None."""
        with self._connect() as conn:
            row = conn.execute("SELECT name FROM annotators WHERE token_sha256=?",
                               (token_digest((token or "").strip()),)).fetchone()
        return row["name"] if row else None

    def annotators(self) -> list[str]:
        """The annotators' names, in the order they were added."""
        with self._connect() as conn:
            return [r["name"] for r in conn.execute("SELECT name FROM annotators ORDER BY added_at, name")]

    # -- answers ----------------------------------------------------------------------------------------------------

    def record(self, annotator: str, task_id: str, dimension: str, *, choice: str | None = None,
               rating: int | None = None, comment: str | None = None, now: float | None = None) -> None:
        """Write one answer at once: the same again changes nothing, a new one replaces it.

        Args:
            annotator: An annotator added with `add_annotator`.
            task_id: The task answered.
            dimension: The dimension's key.
            choice: ``A``, ``B`` or ``tie`` (pairwise studies).
            rating: 1 to 5 (rating studies).
            comment: An optional comment (rating studies).
            now: The time to record (default: now).

        Raises:
            ValueError: An unknown annotator, task or dimension, or an answer the design does not take.
        """
        answer = {"task_id": task_id, "annotator": annotator, "dimension": dimension,
                  **({"choice": choice} if self.design == PAIRWISE else {"rating": rating, "comment": comment})}
        problem = answer_problem(answer, self.design, self.task_ids, self.dimensions)
        if problem:
            raise ValueError(problem)
        now = time.time() if now is None else now
        with self._write() as conn:
            if not conn.execute("SELECT 1 FROM annotators WHERE name=?", (annotator,)).fetchone():
                raise ValueError(f"unknown annotator {annotator!r}")
            old = conn.execute("SELECT choice, rating, comment FROM answers WHERE task_id=? AND annotator=? AND "
                               "dimension=?", (task_id, annotator, dimension)).fetchone()
            if old is None:
                conn.execute("INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (task_id, annotator, dimension, choice, rating, comment, now, now))
            elif (old["choice"], old["rating"], old["comment"]) != (choice, rating, comment):
                conn.execute("UPDATE answers SET choice=?, rating=?, comment=?, changed_at=? WHERE task_id=? AND "
                             "annotator=? AND dimension=?", (choice, rating, comment, now, task_id, annotator,
                                                             dimension))

    def answers(self, annotator: str | None = None) -> list[dict[str, Any]]:
        """Every answer (of `annotator`), as the exported file holds them, in the order they were first given."""
        where, args = ("WHERE annotator=?", (annotator,)) if annotator else ("", ())
        with self._connect() as conn:
            rows = conn.execute(f"SELECT * FROM answers {where} ORDER BY answered_at, rowid", args).fetchall()
        return [{"task_id": r["task_id"], "annotator": r["annotator"], "dimension": r["dimension"],
                 **({"choice": r["choice"]} if self.design == PAIRWISE else
                    {"rating": r["rating"], "comment": r["comment"] or ""}),
                 "answered_at": r["answered_at"], "changed_at": r["changed_at"]} for r in rows]

    def done_tasks(self, annotator: str) -> set[str]:
        """The tasks `annotator` answered on every dimension."""
        counts: dict[str, int] = {}
        for answer in self.answers(annotator):
            counts[answer["task_id"]] = counts.get(answer["task_id"], 0) + 1
        return {task for task, n in counts.items() if n >= len(self.dimensions)}

    def export(self, out: str | Path) -> int:
        """Write every answer to `out` as JSON Lines, what `sciwrite human-eval analyze --ratings` reads; the count.

        Each answer is checked against the study first: an answer to a task the folder does not hold (a store of
        another draw) is refused, naming it, and nothing is written.
        """
        answers = self.answers()
        problems = [f"{a['annotator']!r} on task {a['task_id']!r} ({a['dimension']}): {problem}" for a in answers
                    if (problem := answer_problem(a, self.design, self.task_ids, self.dimensions))]
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InputError(f"{len(problems)} of its {len(answers)} answers do not fit the task folder's study: "
                             f"{problems[0]}{more}", Where(path=self.path),
                             hint="export with --tasks naming the folder these answers were given on")
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(a, ensure_ascii=False) + "\n" for a in answers), encoding="utf-8")
        return len(answers)


def study_store(path: str | Path, study: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]]) -> AnswerStore:
    """The answer store of a task folder's study (its ``study.json`` record and tasks)."""
    return AnswerStore(path, study["design"], [t["task_id"] for t in tasks], [d["key"] for d in study["dimensions"]],
                       benchmark=study.get("benchmark"))


__all__ = ["AnswerStore", "study_store", "token_digest"]
