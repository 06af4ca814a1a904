"""A disk that fills up, for tests: one path opened through `Path.open` gets a real file whose writes fail once a
number of them went through, with the error a full disk raises (``OSError(28)``, no file name: the OS names none)."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest


class FillingFile(io.FileIO):
    """A real file on a disk with room for `writes` more writes; the next raises ENOSPC."""

    def __init__(self, path: Path, mode: str, writes: int) -> None:
        super().__init__(str(path), mode)
        self.writes = writes

    def write(self, data: Any) -> int:
        if self.writes <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.writes -= 1
        return super().write(data)


def fill_disk(monkeypatch: pytest.MonkeyPatch, path: Path, writes: int = 0) -> None:
    """Opening `path` for writing (by `Path.open`) gives a file with room for `writes` writes (each a flushed
    line); every other path opens as usual."""
    real_open = Path.open

    def open_(self: Path, mode: str = "r", buffering: int = -1, encoding: str | None = None,
              errors: str | None = None, newline: str | None = None) -> Any:
        if Path(self).resolve() != path.resolve() or not any(c in mode for c in "wax+"):
            return real_open(self, mode, buffering, encoding, errors, newline)
        raw = FillingFile(self, mode.replace("b", "").replace("t", ""), writes)
        buffered = io.BufferedRandom(raw) if "+" in mode else io.BufferedWriter(raw)
        if "b" in mode:
            return buffered
        text = io.TextIOWrapper(buffered, encoding=encoding or "utf-8", errors=errors, newline=newline)
        text.mode = mode  # as `open` sets it
        return text

    monkeypatch.setattr(Path, "open", open_)
