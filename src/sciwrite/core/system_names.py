"""A system's name is a name, never a path: the one check wherever a name a user chose becomes a file or a folder
(``sciwrite evaluate``'s ``<out>/<system>/``, the quick start's generation files).

``--system ../../escaped`` would otherwise write outside ``--out``; so would a name with a path separator, ``.`` or
``..``, a name with a NUL byte (which no file system takes), or a name that is a link out of the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from sciwrite.core.errors import InputError, Where

#: The characters that make a name a path, on any platform sciwrite writes on.
SEPARATORS = frozenset({"/", "\\", os.sep, *((os.altsep,) if os.altsep else ())})


def check_system_name(name: str, where: Where | None = None) -> str:
    """`name` when it is a plain name: not empty, no path separator, not ``.`` or ``..``, no NUL byte; otherwise an
    `InputError` naming it (`where`: the flag or file it came from)."""
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"a system name is {name!r}: empty", where, "give each system a name")
    problem = ("holds a path separator" if any(sep in name for sep in SEPARATORS)
               else "is a path (the current or the parent folder)" if name in (".", "..")
               else "holds a NUL byte" if "\0" in name else None)
    if problem is not None:
        raise InputError(f"system name {name!r} {problem}: a system name is a name, never a path", where,
                         "name the system without '/', '\\' or '..' (e.g. my-system)")
    return name


def system_path(out: str | Path, name: str, where: Where | None = None) -> Path:
    """``<out>/<name>``, for a plain name (`check_system_name`) that stays inside `out` once resolved (a link named
    `name` in `out` that points elsewhere is refused)."""
    path = Path(out) / check_system_name(name, where)
    if path.resolve().parent != Path(out).resolve():
        raise InputError(f"system name {name!r} resolves to {path.resolve()}, outside {out}", where,
                         "remove the link, or name the system otherwise")
    return path


__all__ = ["SEPARATORS", "check_system_name", "system_path"]
