"""One writer of a scored system's files, for every benchmark: what `sciwrite evaluate` leaves in
``<out>/<system>/``.

- ``per_paper.jsonl``: one row per scored paper, ``system`` and ``benchmark`` first;
- ``summary.json``: the summary, as built (schema version, means, intervals, join, provenance);
- any further JSON files the benchmark names (SciIG: ``metric_timings.json``);
- ``summary.csv``: the benchmark's results-table rows (a metric not computed is an empty cell);
- per-paper side files (SciIG: ``keyphrase_outputs/<paper_id>.json``): fields too large for the rows, moved out;
- ``rejected.jsonl`` when lines were rejected (``--bad-records skip``), and no stale one otherwise.

The folder is written whole or not at all (a temporary folder, then a rename), and `check_output_folder` says,
before any scoring, when the output path cannot hold it.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.predictions import write_rejected
from sciwrite.core.provenance import migrate_summary
from sciwrite.core.summary import Summary


@dataclass(frozen=True)
class SideFiles:
    """Row fields written to ``<folder>/<paper_id>.json`` (with the paper_id) instead of ``per_paper.jsonl``."""

    folder: str
    fields: tuple[str, ...]


def safe_file_name(paper_id: str) -> str:
    """A paper_id as a file name: anything but letters, digits, '.', '-' and '_' becomes '_'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", paper_id).strip(".") or "_"


def per_paper_record(row: PaperRow, system: str | None, side: SideFiles | None,
                     benchmark: str | None) -> dict[str, Any]:
    """One row as ``per_paper.jsonl`` holds it: ``system`` (when given) and ``benchmark`` first, without the fields
    moved to side files."""
    moved = side.fields if side else ()
    named = {**({"system": system} if system is not None else {}), **({"benchmark": benchmark} if benchmark else {})}
    return {**named, **{k: v for k, v in row.to_json().items() if k not in moved}}


def _write_per_paper(out_dir: Path, system: str, rows: Sequence[PaperRow], side: SideFiles | None,
                     benchmark: str | None) -> Path:
    per_paper = out_dir / "per_paper.jsonl"
    moved = side.fields if side else ()
    with per_paper.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(per_paper_record(row, system, side, benchmark), ensure_ascii=False) + "\n")
            record = row.to_json()
            if side and any(k in record for k in moved):
                folder = out_dir / side.folder
                folder.mkdir(exist_ok=True)
                log = {"paper_id": row.paper_id, **{k: record[k] for k in moved if k in record}}
                (folder / f"{safe_file_name(row.paper_id or '')}.json").write_text(
                    json.dumps(log, indent=2, ensure_ascii=False), encoding="utf-8")
    return per_paper


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else [])
        writer.writeheader()
        writer.writerows(rows)  # None is written as an empty cell
    return path


def check_output_folder(folder: str | Path) -> Path:
    """`folder` as a results folder: a `ValueError` naming it when it, or a folder above it, is a file, or when it
    cannot be created; checked before any scoring, so that a finished run is never lost to its output path."""
    folder = Path(folder)
    for parent in [folder, *folder.parents]:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"--out {folder}: {parent} is a file, not a folder; name another output folder")
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--out {folder}: cannot create it ({err.strerror or err})") from None
    return folder


def write_results(out_dir: Path, system: str, rows: Sequence[PaperRow], summary: Mapping[str, Any],
                  table_rows: Sequence[Mapping[str, Any]], *, rejected: Sequence[Mapping[str, Any]] = (),
                  extra_json: Mapping[str, Any] | None = None, side_files: SideFiles | None = None,
                  benchmark: str | None = None) -> list[Path]:
    """Write a system's files (see the module docstring) into `out_dir`; their paths, in that order. Each
    per-paper row names its `system` and, when given, its `benchmark` (so no tool mixes two benchmarks' rows).

    `table_rows` are the rows of ``summary.csv``; `extra_json` maps further file names to what they hold. The files
    are written into a temporary folder beside `out_dir`, which then takes its place (files of an earlier run that
    this one does not write are kept), so a failure never leaves a half-written results folder."""
    out_dir = Path(out_dir)
    check_output_folder(out_dir.parent)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        names = _write_all(staging, system, rows, summary, table_rows, rejected, extra_json, side_files, benchmark)
        _swap_in(staging, out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out_dir / name for name in names]


def _swap_in(staging: Path, out_dir: Path) -> None:
    """Put `staging` where `out_dir` is, keeping the files of `out_dir` that `staging` does not replace. The earlier
    folder is set aside whole and comes back untouched if the new one cannot take its place; its other files move
    into the new folder only once that is in place, so none of them is ever inside a folder that gets removed."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out: {out_dir} is a file, not a folder; name another output folder")
    if not out_dir.is_dir():
        staging.rename(out_dir)
        return
    old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
    out_dir.rename(old)
    try:
        staging.rename(out_dir)
    except BaseException:
        old.rename(out_dir)
        raise
    for entry in old.iterdir():
        if not (out_dir / entry.name).exists() and entry.name != "rejected.jsonl":  # a stale one would mislead
            shutil.move(str(entry), out_dir / entry.name)
    shutil.rmtree(old, ignore_errors=True)


def _write_all(out_dir: Path, system: str, rows: Sequence[PaperRow], summary: Mapping[str, Any],
               table_rows: Sequence[Mapping[str, Any]], rejected: Sequence[Mapping[str, Any]],
               extra_json: Mapping[str, Any] | None, side_files: SideFiles | None,
               benchmark: str | None = None) -> list[str]:
    """Every file of a system into the (new, empty) folder `out_dir`; their names, in order."""
    written = [_write_per_paper(out_dir, system, rows, side_files, benchmark)]
    summary_json = out_dir / "summary.json"
    summary_json.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    written.append(summary_json)
    for name, value in (extra_json or {}).items():
        path = out_dir / name
        path.write_text(json.dumps(value, indent=2), encoding="utf-8")
        written.append(path)
    written.append(_write_csv(out_dir / "summary.csv", table_rows))
    rejected_path = write_rejected(out_dir, rejected)
    return [path.name for path in [*written, *([rejected_path] if rejected_path else [])]]


#: The JSON types a summary's fields must have where they are present (the metric means and counts are free), and
#: those of its provenance block's fields: what the readers (tables, compare, the leaderboard, push) index into.
_OBJECT, _TEXT, _COUNT = (dict,), (str,), (int,)
SUMMARY_FIELDS: dict[str, tuple[type, ...]] = {
    "schema_version": _COUNT, "system": _TEXT, "benchmark": _TEXT, "split": _TEXT, "n_papers": _COUNT,
    "provenance": (dict, type(None)), "intervals": _OBJECT, "not_computed": _OBJECT, "join": _OBJECT,
    "models": _OBJECT, "cutoff": (dict, type(None)), "memorisation": (dict, type(None)), "judge_snapshots": _OBJECT}
PROVENANCE_FIELDS: dict[str, tuple[type, ...]] = {
    "benchmark": _TEXT, "dataset": (dict, type(None)), "profile": (str, type(None)), "models": _OBJECT,
    "model_plan": _OBJECT, "judge": (dict, type(None)), "seeds": _OBJECT, "hardware": _OBJECT}
_JSON_NAMES = {dict: "a JSON object", str: "a string", int: "an integer", type(None): "null", list: "a list",
               float: "a number", bool: "true or false"}
_SUMMARY_HINT = "rewrite it with `sciwrite evaluate`, or point at the folder `sciwrite evaluate` wrote for one system"


def _json_name(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _check_fields(path: Path, block: Mapping[str, Any], fields: Mapping[str, tuple[type, ...]], prefix: str) -> None:
    """Raise `InputError` naming the first field of `block` whose JSON type is not one `fields` allows."""
    for name, types in fields.items():
        if name not in block:
            continue
        value = block[name]
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            wanted = " or ".join(_JSON_NAMES[t] for t in types)
            raise InputError(f"is {_json_name(value)}, not {wanted}, so not a summary.json",
                             Where(path=path, field=f"{prefix}{name}"), hint=_SUMMARY_HINT)


def _load_summary_json(path: Path) -> Any:
    """The JSON value of a summary file; an `InputError` naming the file when it is missing, not UTF-8 or not JSON."""
    if not path.exists():
        raise InputError("does not exist", Where(path=path), hint=_SUMMARY_HINT)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot be read ({err.strerror or err})", Where(path=path)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start}), so not a readable "
                         "summary.json", Where(path=path), hint="save the file as UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}), so not a readable "
                         "summary.json (a truncated or hand-edited file?)", Where(path=path, line=err.lineno),
                         hint=_SUMMARY_HINT) from None
    except (ValueError, RecursionError) as err:  # an integer of over 4,300 digits; nesting thousands deep
        raise InputError(f"not valid JSON ({type(err).__name__}), so not a readable summary.json",
                         Where(path=path), hint=_SUMMARY_HINT) from None


def read_summary(path: str | Path) -> dict[str, Any]:
    """A ``summary.json`` (or the folder holding one), in the current layout whatever schema wrote it
    (`sciwrite.core.provenance.migrate_summary`). Its shape is checked (`SUMMARY_FIELDS`, `PROVENANCE_FIELDS`),
    so that every reader can trust it; an `InputError` names the file, and the field, when it is not a summary."""
    path = Path(path)
    path = path / "summary.json" if path.is_dir() else path
    summary = _load_summary_json(path)
    if not isinstance(summary, dict):
        raise InputError(f"is {_json_name(summary)}, not a JSON object, so not a summary.json", Where(path=path),
                         hint=_SUMMARY_HINT)
    summary = migrate_summary(summary)
    _check_fields(path, summary, SUMMARY_FIELDS, "")
    if isinstance(summary.get("provenance"), dict):
        _check_fields(path, summary["provenance"], PROVENANCE_FIELDS, "provenance.")
    return summary


def load_summary(path: str | Path) -> Summary:
    """A ``summary.json`` (or the folder holding one) as a typed `Summary`, whatever schema wrote it; checked as
    `read_summary` checks it."""
    return Summary.from_json(read_summary(path))


__all__ = ["PROVENANCE_FIELDS", "SUMMARY_FIELDS", "SideFiles", "check_output_folder", "load_summary",
           "per_paper_record", "read_summary", "safe_file_name", "write_results"]
