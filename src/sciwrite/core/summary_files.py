"""Finding the predictions file a ``summary.json`` names, wherever the summary is read from.

`sciwrite evaluate` records the absolute path; summaries written before it did record the path as given on the
command line, relative to where `evaluate` ran. Such a path is looked for from the summary's folder, then from the
current folder and each folder above the summary (an ``--out`` folder given relative to where `evaluate` ran puts that
place above the summary), so that importing or pushing a run works from any folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, overload

from sciwrite.core.errors import InputError, Where


def candidate_paths(recorded: str, summary_path: str | Path | None) -> list[Path]:
    """Where a recorded predictions path may be, in the order tried (one place for an absolute path)."""
    path = Path(recorded).expanduser()
    if path.is_absolute():
        return [path]
    if summary_path is None:
        return [Path.cwd() / path]
    folder = Path(summary_path).resolve()
    folder = folder.parent if folder.suffix == ".json" else folder
    # the summary's own folder first: a file beside the summary is its run's, whatever the current folder holds
    return list(dict.fromkeys([folder / path, Path.cwd() / path, *(base / path for base in folder.parents)]))


@overload
def predictions_file(recorded: str | None, summary_path: str | Path | None, *,
                     required: Literal[True] = True) -> Path: ...


@overload
def predictions_file(recorded: str | None, summary_path: str | Path | None, *, required: bool) -> Path | None: ...


def predictions_file(recorded: str | None, summary_path: str | Path | None, *,
                     required: bool = True) -> Path | None:
    """The predictions file a summary's ``predictions`` (`recorded`) names (see the module docstring); None when it
    names none or, unless `required`, when no candidate is a file. With `required`, a missing file raises
    `InputError` naming the summary, the recorded path and where it was looked for."""
    if not recorded:
        if required:
            raise InputError("no predictions field: the summary does not say which predictions it scored",
                             Where(path=summary_path, field="predictions"),
                             "import a folder written by `sciwrite evaluate`")
        return None
    tried = candidate_paths(recorded, summary_path)
    for path in tried:
        if path.is_file():
            return path
    if not required:
        return None
    places = ", ".join(str(p) for p in tried[:3]) + (f" and {len(tried) - 3} more" if len(tried) > 3 else "")
    raise InputError(f"the predictions file {recorded!r} it names is missing (looked for {places})",
                     Where(path=summary_path, field="predictions"),
                     "put the predictions file back where `sciwrite evaluate` read it, or evaluate again")


__all__ = ["candidate_paths", "predictions_file"]
