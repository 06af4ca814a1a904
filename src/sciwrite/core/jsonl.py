"""JSON Lines, read one way everywhere: blank lines skipped, a byte-order mark tolerated, every problem named by
file and line. Callers choose how strict to be: `iter_json_lines` reports bad lines and goes on (prediction files
keep their good lines), `read_json_lines` stops at the first one (a file the program wrote itself)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where

#: (line number, the line's text, the parsed value or None, why the line is not JSON or None)
JsonLine = tuple[int, str, Any, str | None]


def line_ref(path: str | Path, number: int) -> str:
    """``FILE:LINE``, the one way every message names a line of a file (1-based, as editors and compilers do)."""
    return f"{path}:{number}"


def parse_json_lines(lines: Iterator[str] | list[str]) -> Iterator[JsonLine]:
    """Each non-blank line of `lines`, parsed; a line that is not JSON comes with the reason instead."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            # the line is named by the caller; the column says where in it (err.msg alone may end in " at")
            yield number, line, None, f"not valid JSON ({err.msg.removesuffix(' at')} at column {err.colno})"
        except ValueError as err:  # an integer of more than 4,300 digits, which Python refuses to read
            yield number, line, None, f"not valid JSON ({err})"
        except RecursionError:  # arrays or objects nested thousands deep
            yield number, line, None, "not valid JSON (nested too deeply)"
        else:
            yield number, line, value, None


def iter_json_lines(path: str | Path) -> Iterator[JsonLine]:
    """Each non-blank line of the file at `path`, parsed (see `parse_json_lines`); read lazily. A line that is not
    UTF-8 raises `InputError` (a `ValueError`) naming the file, the line and the byte offset (a latin-1 or binary file)."""
    return parse_json_lines(decoded_lines(path))


def decoded_lines(path: str | Path) -> Iterator[str]:
    """The lines of a UTF-8 file (a leading byte-order mark dropped), each decoded on its own so that a byte that
    is not UTF-8 is reported as ``FILE:LINE`` with its offset in the file."""
    offset = 0
    with Path(path).open("rb") as f:
        for number, raw in enumerate(f, start=1):
            data = raw[3:] if number == 1 and raw.startswith(b"\xef\xbb\xbf") else raw
            try:
                yield data.decode("utf-8")
            except UnicodeDecodeError as err:
                at = offset + (len(raw) - len(data)) + err.start
                raise InputError(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {at})",
                                 Where(path=path, line=number), hint="save the file as UTF-8") from None
            offset += len(raw)


def strict_json_lines(path: str | Path, objects: bool = True) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line, read lazily; the first line that is not JSON (or, with
    `objects`, not a JSON object) raises `ValueError` naming ``FILE:LINE``."""
    for number, _, value, problem in iter_json_lines(path):
        if problem is not None:
            raise ValueError(f"{line_ref(path, number)}: {problem}")
        if objects and not isinstance(value, dict):
            raise ValueError(f"{line_ref(path, number)}: not a JSON object")
        yield number, value


def read_json_lines(path: str | Path, objects: bool = True) -> list[Any]:
    """Every value of a JSON Lines file (`strict_json_lines`: the first bad line raises `ValueError`)."""
    return [value for _, value in strict_json_lines(path, objects)]


def append_whole_line(path: str | Path, line: str) -> None:
    """Append `line` and a newline to `path` as one write(2) on an O_APPEND descriptor, so that processes sharing
    the file (Ray actors given one cache or one usage ledger) append whole lines that never interleave."""
    data = (line + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:  # a short write happens only when the disk is full or a signal interrupts
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def ends_mid_line(path: str | Path) -> bool:
    """Whether the file at `path` ends without a newline (a last line cut short by a crash), reading one byte."""
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return False
    with path.open("rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) != b"\n"
