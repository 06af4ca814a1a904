"""SurGE's prediction layout: a folder (a method's ``output/``) with one subfolder per survey id, each holding the
generated survey, read as SurGE's evaluator reads it.

Upstream: SurGE, Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE src/evaluator.py (``SurGEvaluator.eval_all``):
every subfolder is a survey, its name read as the survey id (``int(survey_id)``); when the subfolder holds one
entry that entry is read, else the first name ending in ``.md`` (the Autosurvey baseline writes a ``.md`` and a
``.json``; ID and Naive write one file without an extension). Top-level files (upstream's own ``log.json``) are
not surveys.

Where upstream fails (a traceback, or a survey silently unread) this reader raises `InputError` naming the folder or
file and what to change: no survey subfolders, a subfolder name that is no id, a subfolder with no file or several
files and no ``.md``, bytes that are not UTF-8 (with their offset). It also settles what upstream leaves to the file
system's listing order: hidden entries (a name starting with '.', e.g. ``.DS_Store``, ``.ipynb_checkpoints``) are
skipped, a subfolder's files are taken in sorted order (the first ``.md`` of several, with a warning), and surveys
come back in the order of their ids.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from sciwrite.core.errors import InputError, Where

logger = logging.getLogger(__name__)

_NUMBER = re.compile(r"[0-9]+")
_LAYOUT = "SurGE's layout: one subfolder per survey id, holding the generated survey"


@dataclass(frozen=True)
class SurveyText:
    """One generated survey: its SurGE survey id (as text, without leading zeros), its text and the file read."""

    survey_id: str
    text: str
    source: Path


@dataclass(frozen=True)
class PredictionFolder:
    """What `scan_prediction_folder` found: the surveys in order of id, and the top-level entries skipped (files
    such as upstream's ``log.json``, hidden entries)."""

    path: Path
    surveys: tuple[SurveyText, ...]
    skipped: tuple[Path, ...] = ()


def _hidden(name: str) -> bool:
    return name.startswith(".")


def survey_id(name: str) -> str:
    """A survey folder's name as its survey id: SurGE's numbers without leading zeros (its evaluator reads
    ``int(name)``), any other name (the offline sample's ACL Anthology ids) as it is."""
    return str(int(name)) if _NUMBER.fullmatch(name) else name


def _order(name: str) -> tuple[int, int, str]:
    return (0, int(name), "") if _NUMBER.fullmatch(name) else (1, 0, name)


def is_prediction_folder(path: str | os.PathLike[str]) -> bool:
    """Whether `path` looks like SurGE's layout: a folder with at least one visible subfolder, none of which holds
    parquet files (a prediction dataset folder's configs do). Reads no survey and never raises."""
    try:
        subfolders = [Path(entry.path) for entry in os.scandir(path) if entry.is_dir() and not _hidden(entry.name)]
        return bool(subfolders) and not any(next(folder.glob("*.parquet"), None) for folder in subfolders)
    except OSError:
        return False


def survey_file(folder: Path) -> Path:
    """The file SurGE's evaluator reads in one survey's `folder`: its only file, else its first ``.md`` (sorted).

    Raises:
        InputError: The folder holds no file, or several files and none ending in ``.md``.
    """
    try:
        files = sorted(entry.name for entry in os.scandir(folder) if entry.is_file() and not _hidden(entry.name))
    except OSError as err:
        raise InputError((err.strerror or str(err)).lower(), Where(path=folder)) from err
    if len(files) == 1:
        return folder / files[0]
    if not files:
        raise InputError("holds no file to read", Where(path=folder),
                         hint="put the generated survey in it (one file, or a .md beside other files)")
    markdown = [name for name in files if name.endswith(".md")]  # case as upstream: endswith('.md')
    if not markdown:
        listed = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        raise InputError(f"holds {len(files)} files and none ends in .md ({listed})", Where(path=folder),
                         hint="SurGE reads a survey folder's only file, else its .md: keep one file or name it .md")
    if len(markdown) > 1:
        logger.warning("%s: %d .md files; reading %s (the first in sorted order)", folder, len(markdown), markdown[0])
    return folder / markdown[0]


def read_survey_text(path: Path) -> str:
    """`path`'s text, decoded as UTF-8 as SurGE opens it (a byte-order mark is kept, as upstream keeps it).

    Raises:
        InputError: The file cannot be read, or holds bytes that are not UTF-8 (their value and offset named).
    """
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError((err.strerror or str(err)).lower(), Where(path=path)) from err
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})", Where(path=path),
                         hint="save the survey as UTF-8") from err


def scan_prediction_folder(path: str | os.PathLike[str]) -> PredictionFolder:
    """Read every survey of a folder in SurGE's layout, and list the top-level entries that are no survey.

    Raises:
        InputError: `path` is no folder, holds no survey subfolder, a subfolder is not named by an id (or two name
            the same id), or a survey's file cannot be chosen or read (`survey_file`, `read_survey_text`).
    """
    root = Path(path)
    if not root.is_dir():
        problem = "is a file, not a folder" if root.exists() else "no such folder"
        raise InputError(problem, Where(path=root), hint=f"name a method's output folder ({_LAYOUT})")
    try:
        entries = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError as err:
        raise InputError((err.strerror or str(err)).lower(), Where(path=root)) from err
    folders: dict[str, Path] = {}
    skipped: list[Path] = []
    for entry in entries:
        if _hidden(entry.name) or not entry.is_dir():
            skipped.append(root / entry.name)
            continue
        name = survey_id(entry.name)
        if name in folders:
            raise InputError(f"names survey {name}, as {folders[name].name!r} does", Where(path=root / entry.name),
                             hint="keep one folder per survey id")
        folders[name] = root / entry.name
    if not folders:
        raise InputError("holds no survey subfolder", Where(path=root), hint=f"expected {_LAYOUT}")
    surveys = []
    for name in sorted(folders, key=_order):
        source = survey_file(folders[name])
        surveys.append(SurveyText(name, read_survey_text(source), source))
    return PredictionFolder(root, tuple(surveys), tuple(skipped))


def read_prediction_folder(path: str | os.PathLike[str]) -> list[SurveyText]:
    """The surveys of a folder in SurGE's layout, in order of id (`scan_prediction_folder`); the top-level entries
    skipped are logged.

    Raises:
        InputError: As `scan_prediction_folder`.
    """
    folder = scan_prediction_folder(path)
    for entry in folder.skipped:
        logger.info("%s: skipped (not a survey folder)", entry)
    return list(folder.surveys)


__all__ = ["is_prediction_folder", "PredictionFolder", "read_prediction_folder", "read_survey_text",
           "scan_prediction_folder", "survey_file", "SurveyText"]
