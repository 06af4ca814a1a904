"""One writer of a scored system's files, for every benchmark: what `sciwrite evaluate` leaves in
``<out>/<system>/``.

- ``per_paper.jsonl``: one row per scored paper, ``system`` first;
- ``summary.json``: the summary, as built (schema version, means, intervals, join, provenance);
- any further JSON files the benchmark names (SciIG: ``metric_timings.json``);
- ``summary.csv``: the benchmark's results-table rows (a metric not computed is an empty cell);
- per-paper side files (SciIG: ``keyphrase_outputs/<paper_id>.json``): fields too large for the rows, moved out;
- ``rejected.jsonl`` when lines were rejected (``--bad-records skip``), and no stale one otherwise.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.core.predictions import write_rejected


@dataclass(frozen=True)
class SideFiles:
    """Row fields written to ``<folder>/<paper_id>.json`` (with the paper_id) instead of ``per_paper.jsonl``."""

    folder: str
    fields: tuple[str, ...]


def safe_file_name(paper_id: str) -> str:
    """A paper_id as a file name: anything but letters, digits, '.', '-' and '_' becomes '_'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", paper_id).strip(".") or "_"


def _write_per_paper(out_dir: Path, system: str, rows: Sequence[Mapping[str, Any]], side: SideFiles | None) -> Path:
    per_paper = out_dir / "per_paper.jsonl"
    moved = side.fields if side else ()
    with per_paper.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps({"system": system, **{k: v for k, v in row.items() if k not in moved}},
                               ensure_ascii=False) + "\n")
            if side and any(k in row for k in moved):
                folder = out_dir / side.folder
                folder.mkdir(exist_ok=True)
                log = {"paper_id": row["paper_id"], **{k: row[k] for k in moved if k in row}}
                (folder / f"{safe_file_name(row['paper_id'])}.json").write_text(
                    json.dumps(log, indent=2, ensure_ascii=False), encoding="utf-8")
    return per_paper


def _write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else [])
        writer.writeheader()
        writer.writerows(rows)  # None is written as an empty cell
    return path


def write_results(out_dir: Path, system: str, rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                  table_rows: Sequence[Mapping[str, Any]], *, rejected: Sequence[Mapping[str, Any]] = (),
                  extra_json: Mapping[str, Any] | None = None, side_files: SideFiles | None = None) -> list[Path]:
    """Write a system's files (see the module docstring) into `out_dir`; their paths, in that order.

    `table_rows` are the rows of ``summary.csv``; `extra_json` maps further file names to what they hold."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [_write_per_paper(out_dir, system, rows, side_files)]
    summary_json = out_dir / "summary.json"
    summary_json.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    written.append(summary_json)
    for name, value in (extra_json or {}).items():
        path = out_dir / name
        path.write_text(json.dumps(value, indent=2), encoding="utf-8")
        written.append(path)
    written.append(_write_csv(out_dir / "summary.csv", table_rows))
    rejected_path = write_rejected(out_dir, rejected)
    return [*written, *([rejected_path] if rejected_path else [])]


__all__ = ["SideFiles", "safe_file_name", "write_results"]
