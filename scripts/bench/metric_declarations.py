"""Issue 47's figure for "one declaration per metric": for every metric key of each benchmark (its results table,
then its board's extra columns), the places in ``src/sciwrite/**/*.py`` where the key is written as a string
literal (an AST string constant equal to the key; docstrings and comments never are), counted as files and as
occurrences. A benchmark's key is looked for in shared code and in its own package, never in the other
benchmark's (SciIG's ``citation_precision`` is not RWGBench's Hub task id of the same spelling). The evaluate
modules' cards (``metrics/<name>/``) live outside ``src`` and are not counted.

    .venv/bin/python scripts/bench/metric_declarations.py [--files]
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "sciwrite"
sys.path.insert(0, str(ROOT / "src"))
from sciwrite.benchmarks import BENCHMARKS  # noqa: E402


def string_constants(path: Path) -> Counter[str]:
    """How often each string constant is written in one module (docstrings included, but no key is a docstring)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return Counter(node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                   and isinstance(node.value, str))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", action="store_true", help="list the files each key is written in")
    args = parser.parse_args()
    constants = {path: string_constants(path) for path in sorted(PACKAGE.rglob("*.py"))}
    packages = {name: PACKAGE / name for name in BENCHMARKS}
    rows = []
    for name, benchmark in BENCHMARKS.items():
        others = [folder for other, folder in packages.items() if other != name]
        for key in benchmark.board_metrics:
            where = {path: found[key] for path, found in constants.items()
                     if found[key] and not any(path.is_relative_to(folder) for folder in others)}
            rows.append((name, key, len(where), sum(where.values()), where))
    width = max(len(key) for _, key, *_ in rows)
    print(f"{'benchmark':<10} {'metric key':<{width}} {'files':>5} {'literals':>8}")
    for name, key, files, literals, where in rows:
        print(f"{name:<10} {key:<{width}} {files:>5} {literals:>8}")
        if args.files:
            for path, count in where.items():
                print(f"{'':<10} {'':<{width}}   {count:>3}  {path.relative_to(ROOT)}")
    for name in BENCHMARKS:
        mine = [row for row in rows if row[0] == name]
        print(f"{name}: {len(mine)} keys, {sum(r[2] for r in mine)} files ({sum(r[2] for r in mine) / len(mine):.1f} "
              f"per key, max {max(r[2] for r in mine)}), {sum(r[3] for r in mine)} literals")
    print(f"all: {len(rows)} keys, {sum(r[2] for r in rows)} files ({sum(r[2] for r in rows) / len(rows):.2f} per "
          f"key), {sum(r[3] for r in rows)} literals")


if __name__ == "__main__":
    main()
