#!/usr/bin/env python
"""Issue 47's figures of the code's vocabulary, on a source tree (the working tree by default, or a commit):

1. the files that index a summary or a per-paper row by a string key (``summary["precision"]``,
   ``summary.get("coverage")``, ``row["paper_id"]``) outside the JSON edges (`sciwrite.core.results`,
   `sciwrite.core.summary`, `sciwrite.leaderboard.store`), read from the source by AST: a subscript or ``.get`` call
   with a string constant on a name (or attribute) called ``summary``/``summaries[...]``/``s`` (summaries), or
   ``row``/``r``/``rows[...]`` (rows). The names are a heuristic: a name ``row`` is also a corpus record, a table's
   row or a database row; a typed `PaperRow` cannot be indexed at all (mypy refuses it), so a file listed under
   rows indexes something else called a row;
2. the functions longer than 80 lines (``def`` to its last line).

The places each metric key is written (`metric_declarations.py`) and the flag census (`flag_census.py`) have their
own scripts.

    python scripts/bench/vocabulary.py              # the working tree
    python scripts/bench/vocabulary.py --rev HEAD~3 # a commit (read with git show)
"""

from __future__ import annotations

import argparse
import ast
import subprocess
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EDGES = ("src/sciwrite/core/results.py", "src/sciwrite/core/summary.py", "src/sciwrite/core/paper_row.py",
         "src/sciwrite/leaderboard/store.py")
SUMMARY_NAMES = {"summary", "summaries", "s", "summary_json"}
ROW_NAMES = {"row", "r", "rows", "paper_row"}
LONG = 80


def sources(rev: str | None) -> dict[str, str]:
    """Path -> text of every Python file under src/sciwrite, in the working tree or at `rev`."""
    if rev is None:
        return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in (ROOT / "src/sciwrite").rglob("*.py")}
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "src/sciwrite"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    return {name: subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True,
                                 text=True).stdout for name in names if name.endswith(".py")}


def _base_name(node: ast.AST) -> str | None:
    """The name a subscript or call is made on: ``summary`` of ``summary[...]``, ``summaries`` of
    ``summaries[i]["x"]``, ``summary`` of ``result.summary``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def string_indexing(tree: ast.AST) -> Counter[str]:
    """How often a summary and a row are indexed by a string constant in `tree` ("summary", "row")."""
    found: Counter[str] = Counter()
    for node in ast.walk(tree):
        target = key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            target, key = node.value, node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            target, key = node.func.value, node.args[0].value
        if target is None or key is None:
            continue
        name = _base_name(target)
        if name in SUMMARY_NAMES:
            found["summary"] += 1
        elif name in ROW_NAMES:
            found["row"] += 1
    return found


def long_functions(tree: ast.AST) -> list[tuple[int, str, int]]:
    """(length, name, line) of every function longer than `LONG` lines."""
    return sorted(((node.end_lineno or node.lineno) - node.lineno + 1, node.name, node.lineno)
                  for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                  and (node.end_lineno or node.lineno) - node.lineno + 1 > LONG)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", help="a git revision to read instead of the working tree")
    parser.add_argument("--rows", action="store_true", help="list the files that index a row, as the summaries are")
    args = parser.parse_args()
    files = sources(args.rev)
    by_file: dict[str, Counter[str]] = {}
    long: list[tuple[int, str, str]] = []
    for path, text in sorted(files.items()):
        tree = ast.parse(text)
        long += [(length, f"{path}:{line}", name) for length, name, line in long_functions(tree)]
        if path not in EDGES:
            counts = string_indexing(tree)
            if counts:
                by_file[path] = counts
    summary_files = [p for p, c in by_file.items() if c["summary"]]
    row_files = [p for p, c in by_file.items() if c["row"]]
    print(f"source: {args.rev or 'working tree'} ({len(files)} modules)")
    print(f"files indexing a summary by a string key outside the JSON edges: {len(summary_files)} "
          f"({sum(c['summary'] for c in by_file.values())} places)")
    for path in summary_files:
        print(f"  {by_file[path]['summary']:3d}  {path}")
    print(f"files indexing a per-paper row by a string key: {len(row_files)} "
          f"({sum(c['row'] for c in by_file.values())} places)")
    if args.rows:
        for path in row_files:
            print(f"  {by_file[path]['row']:3d}  {path}")
    print(f"functions over {LONG} lines: {len(long)}")
    for length, where, name in sorted(long, reverse=True):
        print(f"  {length:4d}  {name}  ({where})")


if __name__ == "__main__":
    main()
