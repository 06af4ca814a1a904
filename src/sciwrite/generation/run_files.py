"""The files a generation run appends to as papers finish (its output, its failures file, its traces), kept where the
user finds them, and the error a write that fails raises.

A run holds each file open from its first line to its end (`LineFile`), so a file deleted or replaced mid-run would
take every later line with it, unseen: the run would end saying "4 papers written" with no file there. So before each
line, and once more at the end, the run checks that the path still names the file it opened (`LineFile.moved`: same
device and inode). A file deleted mid-run is written again at its path with every line it held (`LineFile.reattach`;
the open descriptor still reads them), and the run goes on there. What the runner does with an output replaced by
another file is its own (`sciwrite.generation.runner`): it never appends to a file it did not write.

A write that fails (a full disk, a lost mount) is a `WriteFailedError` naming the file and the paper in hand, and saying
what to do; the lines written before it stay (each is flushed at once) and a rerun resumes after them.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import IO

#: What to do when a disk refuses a write, by errno (any other: check the disk).
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
DELETED = "deleted"
REPLACED = "replaced"


class WriteFailedError(OSError):
    """A line (or a run's side file) could not be written: the file, the paper and what to do, on one line."""

    def __init__(self, path: Path, err: OSError, paper_id: str | None = None, kept: str | None = None) -> None:
        what = (err.strerror or str(err)).lower()
        paper = f" while writing paper {paper_id!r}" if paper_id is not None else ""
        todo = ("free some disk space (or pass --out on another disk)" if err.errno in _FULL
                else "check the disk and the file's permissions")
        then = f"; {kept}" if kept else ""
        super().__init__(f"{path}: {what}{paper}; {todo}, then rerun the same command{then}")
        self.errno, self.path, self.paper_id = err.errno, path, paper_id


def write_failed(path: Path, err: OSError, paper_id: str | None = None) -> WriteFailedError:
    """`err` (a write to `path` that failed) as a `WriteFailedError` saying that what was written stays and resumes."""
    if isinstance(err, WriteFailedError):
        return err
    return WriteFailedError(path, err, paper_id,
                       kept="the lines already written are kept and the rerun resumes after them")


def replace_text(path: Path, text: str) -> None:
    """Replace `path` with `text` at once (written beside it first, then renamed over it); a write that fails leaves
    the file as it was, removes the half-written copy and is a `WriteFailedError` naming `path`."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise write_failed(path, err) from err


class LineFile:
    """A JSON Lines file a run appends to, each line flushed at once; opened at the first line (`append`) or at
    once (`open`). `moved` says whether its path still names the file opened; `reattach` writes its lines there
    again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None
        self._identity: tuple[int, int] | None = None

    def open(self) -> LineFile:
        """Open the file for appending (creating it), and remember which file the path names."""
        if self._handle is None:
            try:
                self._handle = self.path.open("a+", encoding="utf-8")
            except OSError as err:
                raise write_failed(self.path, err) from err
            stat = os.fstat(self._handle.fileno())
            self._identity = (stat.st_dev, stat.st_ino)
        return self

    def moved(self) -> str | None:
        """None while the path names the file opened (or nothing is open yet); else `DELETED` or `REPLACED`."""
        if self._identity is None:
            return None
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return DELETED
        return None if (stat.st_dev, stat.st_ino) == self._identity else REPLACED

    def held(self) -> str:
        """Every line of the file opened, read through its descriptor (also once its path is gone)."""
        if self._handle is None:
            return ""
        self._handle.flush()
        self._handle.seek(0)
        return self._handle.read()

    def reattach(self) -> int:
        """Write the lines of the file opened at its path again (appended to what the path now holds, if anything)
        and go on appending there; the number of lines written."""
        text = self.held()
        self.close()
        self.open()
        if text:
            self._write(text if text.endswith("\n") else text + "\n", None)
        return text.count("\n") + (0 if not text or text.endswith("\n") else 1)

    def append(self, line: str, paper_id: str | None = None) -> None:
        """One line, flushed at once; a write that fails is a `WriteFailedError` naming the file and `paper_id`."""
        self.open()
        self._write(line + "\n", paper_id)

    def _write(self, text: str, paper_id: str | None) -> None:
        assert self._handle is not None
        try:
            self._handle.write(text)
            self._handle.flush()
        except OSError as err:
            raise write_failed(self.path, err, paper_id) from err

    def __enter__(self) -> LineFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (a close that cannot flush is not raised again: the write that failed was)."""
        handle, self._handle, self._identity = self._handle, None, None
        if handle is not None:
            try:
                handle.close()
            except OSError:
                pass


__all__ = ["DELETED", "REPLACED", "LineFile", "WriteFailedError", "replace_text", "write_failed"]
