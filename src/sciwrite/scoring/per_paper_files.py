"""The per_paper.jsonl files `sciwrite evaluate` writes, read as systems to compare
(`sciwrite.scoring.compare.SystemScores`): each row a `PaperRow` by its paper_id (a row without a usable one, or a
paper on two lines, is refused naming the file and line), the provenance of the summary beside it, and the
benchmark it was scored on (its rows' ``benchmark`` field, its provenance, or the benchmark whose metrics it holds).

This is a JSON edge: the lines are read here, once, into `PaperRow`s; the comparison reads typed rows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import iter_json_lines
from sciwrite.core.paper_row import PAPER_ID, PaperRow
from sciwrite.core.results import load_summary
from sciwrite.scoring.compare import SystemScores, numeric_keys


def paper_id_of(value: Any, where: Where) -> str:
    """A row's paper_id as text: a non-empty string or an integer; anything else is refused at `where`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    raise InputError(f"paper_id must be a non-empty string, got {value!r}", replace(where, field="paper_id"),
                     hint="give every row its paper's id (rows without one cannot be paired)")


def _indexed(keyed: Iterable[tuple[int, Any, PaperRow]], path: Path | None
             ) -> tuple[dict[str, PaperRow], dict[str, int]]:
    """({paper_id: row}, {paper_id: line}) of (line, paper_id as given, row) triples; an unusable paper_id and a
    paper on two lines are errors naming the line (and `path`)."""
    rows: dict[str, PaperRow] = {}
    first_line: dict[str, int] = {}
    for number, given, row in keyed:
        where = Where(path=path, line=number)
        paper_id = paper_id_of(given, where)
        if paper_id in rows:
            raise InputError(f"paper {paper_id!r} again (first at line {first_line[paper_id]}): which row counts?",
                             where, hint="keep one row per paper")
        rows[paper_id], first_line[paper_id] = row, number
    return rows, first_line


def rows_by_paper(numbered: Iterable[tuple[int, Any]], path: Path | None = None
                  ) -> tuple[dict[str, PaperRow], dict[str, int]]:
    """({paper_id: row}, {paper_id: line}) of (line, JSON row) pairs, each row read into a `PaperRow`; a row that
    is not an object with a usable paper_id, and a paper on two lines, are errors naming the line (and `path`).

    The key is the paper_id as text (`paper_id_of`: an integer id counts, as its digits)."""
    def keyed() -> Iterable[tuple[int, Any, PaperRow]]:
        for number, record in numbered:
            if not isinstance(record, dict) or PAPER_ID not in record:
                raise InputError("expected an object with a paper_id", Where(path=path, line=number))
            yield number, record[PAPER_ID], PaperRow.from_json(record)
    return _indexed(keyed(), path)


def typed_rows_by_paper(rows: Iterable[PaperRow]) -> tuple[dict[str, PaperRow], dict[str, int]]:
    """`rows_by_paper` of rows already typed (the leaderboard store's), each at its place (from 1) in `rows`."""
    return _indexed(((number, row.paper_id, row) for number, row in enumerate(rows, start=1)), None)


def _per_paper_path(path: Path) -> Path:
    """The per_paper.jsonl a path names: the file itself, or the one in the folder."""
    file = path / "per_paper.jsonl" if path.is_dir() else path
    if not file.is_file():
        raise FileNotFoundError(f"{file}: no such per_paper.jsonl (give the file or the evaluation folder)")
    return file


def _json_rows(path: Path) -> Iterable[tuple[int, Any]]:
    for number, _, row, problem in iter_json_lines(path):
        if problem is not None:
            raise InputError(problem, Where(path=path, line=number))
        yield number, row


def read_per_paper(path: str | Path) -> tuple[str, dict[str, PaperRow]]:
    """(system name, {paper_id: `PaperRow`}) of a per_paper.jsonl file or a folder holding one.

    The name is the rows' ``system`` field, else the folder's name (the file's stem for a file given by name). A
    line that is not a JSON object, a row without a usable paper_id and a paper_id on two lines are errors naming
    the file and line.
    """
    _, name, rows, _ = _read_rows(Path(path))
    return name, rows


def _read_rows(path: Path) -> tuple[Path, str, dict[str, PaperRow], dict[str, int]]:
    """(the per_paper.jsonl read, the system's name, its rows by paper_id, each paper's line)."""
    file = _per_paper_path(path)
    rows, lines = rows_by_paper(_json_rows(file), file)
    if not rows:
        raise InputError("no rows", Where(path=file))
    names = {row.system for row in rows.values()} - {None}
    fallback = path.name if path.is_dir() else path.stem
    name = names.pop() if len(names) == 1 else (file.parent.name if file.name == "per_paper.jsonl" else fallback)
    return file, str(name), rows, lines


def read_provenance(path: str | Path) -> dict[str, Any] | None:
    """The provenance block of the summary.json beside a per_paper.jsonl file (None for a schema-0 summary or none),
    read and checked by `sciwrite.core.results.read_summary` (an error names the file and the field)."""
    path = Path(path)
    summary = (path if path.is_dir() else path.parent) / "summary.json"
    if not summary.is_file():
        return None
    data = load_summary(summary)
    return data.provenance.to_json() if data.schema_version >= 1 and data.provenance is not None else None


def read_system(path: str | Path, known: Mapping[str, Benchmark]) -> SystemScores:
    """A system from its evaluation folder or per_paper.jsonl file (`read_per_paper`), with the provenance of the
    summary beside it, the benchmark it was scored on (`benchmark_of`, among `known`) and its split (the
    provenance's dataset config)."""
    path = Path(path)
    file, name, rows, lines = _read_rows(path)
    block = read_provenance(path)
    config = (block or {}).get("dataset")
    split = config.get("config") if isinstance(config, Mapping) else None
    return SystemScores(name=name, rows=rows, benchmark=benchmark_of(path, rows, block, known),
                        split=None if split is None else str(split), provenance=block,
                        path=file, lines=lines)


def detect_benchmark(keys: set[str], known: Mapping[str, Benchmark]) -> str:
    """The benchmark of `known` whose table metrics the keys hold the most of."""
    best = max(known, key=lambda name: len(keys & set(known[name].suite.metrics)))
    if not keys & set(known[best].suite.metrics):
        raise ValueError("the per_paper files hold no metric of a known benchmark; pass --benchmark and --metrics")
    return best


def benchmark_of(path: str | Path, rows: Mapping[str, PaperRow], provenance: Mapping[str, Any] | None,
                 known: Mapping[str, Benchmark]) -> str:
    """The benchmark a system was scored on: its rows' ``benchmark`` field, else its summary's provenance, else the
    benchmark of `known` whose table metrics its rows hold the most of."""
    named = {row.benchmark for row in rows.values()} - {None}
    if len(named) > 1:
        raise ValueError(f"{path}: rows of several benchmarks ({', '.join(sorted(map(str, named)))})")
    if named:
        return str(named.pop())
    if provenance and provenance.get("benchmark"):
        return str(provenance["benchmark"])
    return detect_benchmark(numeric_keys(rows), known)


__all__ = ["benchmark_of", "detect_benchmark", "paper_id_of", "read_per_paper", "read_provenance", "read_system",
           "rows_by_paper", "typed_rows_by_paper"]
