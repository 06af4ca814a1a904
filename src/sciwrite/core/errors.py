"""Errors a user can act on: one line naming the file, the record and the field, and what to do.

Every command's known failures are an `InputError` (or another `ValueError`); the CLI's one top-level handler
(`sciwrite.cli.main`) prints them as ``sciwrite: error: ...`` with exit 2 and shows the traceback only under
``--debug`` or ``SCIWRITE_DEBUG=1``. `explain` turns the foreign errors a command can meet (a YAML parser's, SQLite's,
the Hub's while offline, a codec's) into the same one line.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import yaml

#: Set to 1 to see the traceback behind a one-line error (the same as ``sciwrite --debug``).
DEBUG_ENV = "SCIWRITE_DEBUG"


@dataclass(frozen=True)
class Where:
    """Where a problem is: a file, a line in it, a record (paper id or entry key), a field."""

    path: str | Path | None = None
    line: int | None = None
    record: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        parts = []
        if self.path is not None:
            parts.append(f"{self.path}:{self.line}" if self.line is not None else str(self.path))
        if self.record is not None:
            parts.append(f"record {self.record!r}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ", ".join(parts)


class InputError(ValueError):
    """Bad input the user can fix: what is wrong, where (`Where`), and what to do (`hint`)."""

    def __init__(self, problem: str, where: Where | None = None, hint: str | None = None) -> None:
        self.problem, self.where, self.hint = problem, where or Where(), hint
        located = str(self.where)
        message = f"{located}: {problem}" if located else problem
        super().__init__(f"{message}; {hint}" if hint else message)


def debugging() -> bool:
    """Whether the user asked for tracebacks (``SCIWRITE_DEBUG`` set to anything but "" or 0)."""
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


#: Words of the errors `datasets` and `huggingface_hub` raise when the Hub is disabled or cannot be reached.
_OFFLINE_MARKERS = ("HF_HUB_OFFLINE", "offline mode", "OfflineModeIsEnabled", "Couldn't reach", "LocalEntryNotFound",
                    "couldn't connect to 'https://huggingface.co'", "Connection error",
                    "outgoing traffic has been disabled")


def hub_offline() -> bool:
    """Whether the Hugging Face Hub is switched off (``HF_HUB_OFFLINE`` set to anything but "" or 0)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() not in ("", "0", "false", "no", "off")


def is_offline_error(err: BaseException) -> bool:
    """Whether `err` (or an error it was raised from) says the Hub is disabled or unreachable."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = f"{type(current).__name__}: {current}".lower()
        if any(marker.lower() in text for marker in _OFFLINE_MARKERS):
            return True
        current = current.__cause__ or current.__context__
    return False


def hub_unreachable(what: str, repo: str, hint: str) -> InputError:
    """The error for `what` (e.g. "RWGBench config 'test'") that lives in the Hub repo `repo` while the Hub is off or
    unreachable; `hint` says which option works offline."""
    why = "disabled (HF_HUB_OFFLINE is set)" if hub_offline() else "unreachable"
    return InputError(f"{what} comes from the Hugging Face Hub ({repo}), which is {why}", hint=hint)


#: What to do about a file system error, by errno.
_OS_HINTS = {errno.ENOENT: "check the path", errno.EISDIR: "that is a folder: name a file",
             errno.ENOTDIR: "a file is where a folder is needed: name another path",
             errno.EEXIST: "a file is where a folder is needed: name another path",
             errno.EACCES: "check its permissions", errno.ENOSPC: "free some disk space"}


def _os_error(err: OSError) -> str:
    """``PATH: what the system said; what to do`` for an `OSError` that names its file."""
    problem = (err.strerror or str(err)).lower()
    hint = _OS_HINTS.get(err.errno) if isinstance(err.errno, int) else None
    return str(InputError(problem, Where(path=err.filename), hint=hint))


#: Errors of the Hub client that mean it is switched off or cannot be reached (by type name: `datasets` and
#: `huggingface_hub` wrap and re-raise them, so the name is what stays stable).
_HUB_ERROR_TYPES = frozenset({"OfflineModeIsEnabled", "LocalEntryNotFoundError"})

#: Failures no input causes: they are bugs, reported as internal errors (exit 1), never as a user's mistake.
_BUG_TYPES = (NotImplementedError, RecursionError)


def _is_hub_error(err: BaseException) -> bool:
    """Whether `err`, or the error it was raised from (``raise ... from``), is the Hub client's being offline or
    unreachable: by its type, or by naming huggingface.co or HF_HUB_OFFLINE."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = str(current)
        if type(current).__name__ in _HUB_ERROR_TYPES or "huggingface.co" in text or "HF_HUB_OFFLINE" in text:
            return True
        current = current.__cause__
    return False


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def yaml_problem(err: yaml.YAMLError) -> str:
    """What a YAML parser found wrong, and where an unclosed bracket or quote began when it says so: the one
    wording of a YAML error in every message."""
    problem = getattr(err, "problem", None) or _first_line(str(err)) or type(err).__name__
    context, opened = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context and opened is not None:
        problem += f", {context} at line {opened.line + 1}, column {opened.column + 1}"
    return problem


def yaml_position(err: yaml.YAMLError) -> tuple[int, int] | None:
    """The 1-based (line, column) a YAML error points at, or None."""
    mark = getattr(err, "problem_mark", None)
    return None if mark is None else (mark.line + 1, mark.column + 1)


def _yaml_message(err: yaml.YAMLError) -> str:
    mark, position = getattr(err, "problem_mark", None), yaml_position(err)
    named = mark is not None and not str(mark.name).startswith("<")  # "<unicode string>": parsed from a str
    where = (f"{mark.name}:{position[0]}:{position[1]}: " if mark is not None and named and position
             else f"line {position[0]}, column {position[1]}: " if position else "")
    return f"{where}not valid YAML ({yaml_problem(err)})"


def _sqlite_message(err: sqlite3.DatabaseError) -> str:
    """A file that is no database (or a damaged one) says so; a locked or unopenable one says that instead, so
    that nobody abandons a good store for a busy one."""
    name = getattr(err, "sqlite_errorname", "")
    if name in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
        return f"the store is not a readable SQLite database ({err}); point --store at a sciwrite store or a new path"
    return f"the SQLite store failed ({name or type(err).__name__}: {err}); retry, or check the file and its folder"


def explain(err: BaseException) -> str | None:
    """The one-line message for an error a command may meet, or None for an unexpected one (a bug: the handler
    then says so, exit 1). sciwrite's own errors keep their message: it already says what to do."""
    if isinstance(err, _BUG_TYPES):
        return None
    if isinstance(err, InputError) or type(err).__module__.startswith("sciwrite."):
        return str(err) or type(err).__name__
    if isinstance(err, yaml.YAMLError):
        return _yaml_message(err)
    if isinstance(err, sqlite3.DatabaseError):
        return _sqlite_message(err)
    if isinstance(err, UnicodeDecodeError):
        return (f"not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {err.start}); save the file as UTF-8"
                if isinstance(err.object, bytes | bytearray) else str(err))
    if _is_hub_error(err):
        why = "disabled (HF_HUB_OFFLINE)" if hub_offline() else "unreachable"
        return (f"this needs the Hugging Face Hub, which is {why} ({type(err).__name__}: {_first_line(str(err))}); "
                "offline, use a benchmark's sample (`--split sample`, or `--source BENCHMARK=DIR`, a folder "
                "`sciwrite build sample` wrote) or a local folder; each command's --help names its offline default")
    if isinstance(err, OSError) and err.filename is not None:
        return _os_error(err)
    if isinstance(err, ValueError | RuntimeError | OSError):
        return str(err) or type(err).__name__
    return None


__all__ = ["DEBUG_ENV", "debugging", "explain", "hub_offline", "hub_unreachable", "InputError", "is_offline_error",
           "Where", "yaml_position", "yaml_problem"]
