#!/usr/bin/env python
"""Compare two quick-start output folders (``sciwrite quickstart --out A`` and ``--out B``, e.g. before and after a
change): every table and per-paper file must be byte for byte the same, and the JSON files equal once the fields
that hold wall times or the run's own paths are set aside, and once an older summary is read in the current layout
(`sciwrite.core.provenance.migrate_summary`: a schema change renames keys, never values). Prints one line per file
and exits 1 on a difference. Also compares two `sciwrite evaluate` output folders.

    python scripts/bench/compare_quickstart.py outputs/before outputs/after
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sciwrite.core.provenance import migrate_summary

# Fields that differ between two runs of the same code: wall times, and the paths the run wrote to.
# The provenance block (schema 1) names the commit, the hardware and the time of a run: it differs by design.
VOLATILE = {"seconds", "wall_seconds", "metric_timings", "predictions", "out_path", "failures_path", "meta_path",
            "ledger", "provenance", "schema_version"}
BYTE_EXACT = (".csv", ".jsonl")


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def same(a: Path, b: Path) -> bool:
    """Whether two output files agree: byte for byte for tables and per-paper rows, else as JSON less `VOLATILE`."""
    if a.suffix == ".json":
        read = lambda p: json.loads(p.read_text())  # noqa: E731
        if a.name == "summary.json":
            read = lambda p: migrate_summary(json.loads(p.read_text()))  # noqa: E731
        return _strip(read(a)) == _strip(read(b))
    if a.suffix == ".jsonl" and a.parent.name in ("rwgbench", "sciig") and "generations" in a.parts:
        rows = lambda p: sorted((_strip(json.loads(line)) for line in p.read_text().splitlines()), key=json.dumps)  # noqa: E731
        return rows(a) == rows(b)
    return a.read_bytes() == b.read_bytes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    names = sorted({p.relative_to(args.before) for p in args.before.rglob("*") if p.is_file()}
                   | {p.relative_to(args.after) for p in args.after.rglob("*") if p.is_file()})
    failures = 0
    for name in names:
        a, b = args.before / name, args.after / name
        if name.suffix == ".png" or name.stem in VOLATILE:
            continue  # images embed renderer metadata (their numbers are in the tables); timing files are times
        if not (a.is_file() and b.is_file()):
            print(f"MISSING  {name} ({'after' if a.is_file() else 'before'} lacks it)")
            failures += 1
            continue
        ok = same(a, b)
        failures += not ok
        print(f"{'same' if ok else 'DIFFERS':8} {name}{' (bytes)' if name.suffix in BYTE_EXACT and 'generations' not in name.parts else ''}")
    print(f"\n{len(names)} files, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
