"""Importers for the upstream SciIG release and its prediction files.

- Release: JSON (a list of papers, an object keyed by paper id, or JSON Lines), each paper with ``title``,
  ``abstract``, ``introduction`` and ``neighbors`` as an object keyed by the in-text citation identifier
  (``{"Li et al., 2022": {"title": ..., "authors": ..., "abstract": ...}}``) -> records in `SCIIG_FEATURES`.
- Predictions: JSON Lines with ``pred`` (the generated introduction), ``label`` (the reference introduction)
  and ``desc``. Rows are joined to the dataset by matching ``label`` to ``introduction`` (whitespace-normalised),
  not by position: the two files need not be in the same order, and rows that match no paper (or several) are
  reported rather than guessed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import decoded_lines, line_ref, parse_json_lines
from sciwrite.core.schema import SchemaError
from sciwrite.sources.bibliography import parse_authors, parse_year


def read_json_records(path: str | Path) -> list[tuple[str | None, dict[str, Any]]]:
    """(id from an enclosing object or None, record) for a JSON list, a JSON object keyed by id, or JSON Lines. A file
    that is not UTF-8 raises `InputError` naming it, the line and the byte offset."""
    path = Path(path)
    text = "".join(decoded_lines(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        rows = []
        for number, _, row, problem in parse_json_lines(text.splitlines()):
            if problem is not None:
                raise SchemaError(f"{line_ref(path, number)}: {problem}")
            rows.append(row)
        data = rows
    if isinstance(data, Mapping):
        items = list(data.items())
        if all(isinstance(v, Mapping) for _, v in items):
            return [(str(k), dict(v)) for k, v in items]
        data = [data]
    if not isinstance(data, list) or not all(isinstance(r, Mapping) for r in data):
        raise SchemaError(f"{path}: expected a list of JSON objects, an object of objects, or JSON Lines")
    return [(None, dict(r)) for r in data]


def _neighbor(key: str, value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, str):
        value = {"abstract": value}
    if not isinstance(value, Mapping):
        raise SchemaError(f"{where}: neighbor {key!r} must be an object with title/authors/abstract, got {type(value).__name__}")
    authors = value.get("authors") or []
    if isinstance(authors, list):
        authors = [a.get("name", "") if isinstance(a, Mapping) else a for a in authors]
    return {"key": str(key).strip(), "title": str(value.get("title") or "").strip(), "authors": parse_authors(authors),
            "abstract": str(value.get("abstract") or "").strip()}


def upstream_record(raw: Mapping[str, Any], paper_id: str | None, *, venue: str, year: int | None,
                    where: str) -> dict[str, Any]:
    """One upstream paper as a SciIG record; errors name `where` and the field."""
    for name in ("title", "abstract", "introduction", "neighbors"):
        if name not in raw:
            raise SchemaError(f"{where}: missing field {name!r} (has {sorted(raw)})")
    neighbors = raw["neighbors"]
    if isinstance(neighbors, list):  # tolerate a list of objects that carry their own key
        neighbors = {n.get("key") or n.get("id"): n for n in neighbors if isinstance(n, Mapping)}
    if not isinstance(neighbors, Mapping):
        raise SchemaError(f"{where}: field 'neighbors' must be an object keyed by citation identifier")
    title = str(raw["title"]).strip()
    pid = str(raw.get("paper_id") or raw.get("id") or paper_id or "")
    if not pid:
        pid = "sciig-" + hashlib.sha1(title.lower().encode("utf-8")).hexdigest()[:16]
    return {"paper_id": pid, "title": title, "abstract": str(raw["abstract"]).strip(),
            "introduction": str(raw["introduction"]).strip(),
            "neighbors": [_neighbor(k, v, where) for k, v in neighbors.items()],
            "venue": str(raw.get("venue") or venue), "year": parse_year(raw.get("year")) or year}


def import_upstream_release(path: str | Path, *, venue: str, year: int | None = None) -> list[dict[str, Any]]:
    """Records of an upstream SciIG release file (see the module docstring), in file order; ids are unique."""
    records = [upstream_record(raw, key, venue=venue, year=year, where=f"{path}, paper {i}")
               for i, (key, raw) in enumerate(read_json_records(path))]
    seen: set[str] = set()
    for record in records:
        if record["paper_id"] in seen:
            raise SchemaError(f"{path}: paper_id {record['paper_id']!r} occurs twice")
        seen.add(record["paper_id"])
    return records


def normalize_whitespace(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def import_upstream_predictions(path: str | Path, dataset: Iterable[Mapping[str, Any]]
                                ) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """``[{paper_id, text}]`` from an upstream prediction file joined to `dataset` (records with ``paper_id`` and
    ``introduction``) by label = introduction, and a report: rows, matched, unmatched rows (line number and
    desc), ambiguous rows, papers predicted twice (the first row kept) and papers without a prediction."""
    by_intro: dict[str, list[str]] = {}
    paper_ids = []
    for record in dataset:
        paper_ids.append(record["paper_id"])
        by_intro.setdefault(normalize_whitespace(record["introduction"]), []).append(record["paper_id"])
    predictions: list[dict[str, str]] = []
    report: dict[str, Any] = {"rows": 0, "matched": 0, "unmatched": [], "ambiguous": [], "duplicates": []}
    done: set[str] = set()
    for line_no, (_, row) in enumerate(read_json_records(path), 1):
        report["rows"] += 1
        if "pred" not in row or "label" not in row:
            raise SchemaError(f"{path}, row {line_no}: needs fields 'pred' and 'label' (has {sorted(row)})")
        ids = by_intro.get(normalize_whitespace(str(row["label"])), [])
        if not ids:
            report["unmatched"].append({"row": line_no, "desc": row.get("desc")})
        elif len(ids) > 1:
            report["ambiguous"].append({"row": line_no, "desc": row.get("desc"), "paper_ids": ids})
        elif ids[0] in done:
            report["duplicates"].append({"row": line_no, "paper_id": ids[0]})
        else:
            done.add(ids[0])
            predictions.append({"paper_id": ids[0], "text": str(row["pred"])})
    report["matched"] = len(predictions)
    report["papers_without_prediction"] = [p for p in paper_ids if p not in done]
    return predictions, report
