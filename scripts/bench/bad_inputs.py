"""How many bad inputs ``tests/cli/test_no_tracebacks.py`` runs, at a commit (HEAD by default) and in the working tree.

Each test of that file is collected (``pytest --collect-only -q``: every parametrised case is one item) from the
file as the commit holds it (``git show REV:...``, read-only) and as it is now. A bad input is one collected item that
runs the command line on something wrong (an argv, a flag's value, a full disk, a huge prediction); the two tests
that only check the case tables themselves (`TABLE_CHECKS`) are not. Printed: the items of each test function,
before and after, and the totals.

    .venv/bin/python scripts/bench/bad_inputs.py                    # HEAD against the working tree
    .venv/bin/python scripts/bench/bad_inputs.py --before ac0b5f8   # the commit before issue 48's
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEST_FILE = "tests/cli/test_no_tracebacks.py"
#: Tests of the case tables, not of a bad input.
TABLE_CHECKS = {"test_every_command_has_bad_inputs", "test_the_tree_has_the_float_flags_it_is_known_to_have"}


def collected(path: Path) -> collections.Counter[str]:
    """Test function name -> the items pytest collects of it in `path`."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             str(path)], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    items = [line for line in result.stdout.splitlines() if "::" in line]
    if result.returncode != 0 or not items:
        raise SystemExit(f"collecting {path} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return collections.Counter(line.split("::", 1)[1].split("[", 1)[0] for line in items)


def copy_at(rev: str, folder: Path) -> Path:
    """The test file as commit `rev` holds it, written under `folder`."""
    text = subprocess.run(["git", "show", f"{rev}:{TEST_FILE}"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout
    path = folder / "test_no_tracebacks_before.py"
    path.write_text(text, encoding="utf-8")
    return path


def bad_inputs(counts: collections.Counter[str]) -> int:
    return sum(n for name, n in counts.items() if name not in TABLE_CHECKS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD", metavar="REV", help="the commit to compare with (default: HEAD)")
    rev = parser.parse_args().before
    with tempfile.TemporaryDirectory() as folder:
        before = collected(copy_at(rev, Path(folder)))
    after = collected(ROOT / TEST_FILE)
    width = max(map(len, {*before, *after}))
    print(f"{'test':<{width}}  {rev[:8]:>8}  {'now':>6}")
    for name in sorted({*before, *after}):
        mark = "  (checks the tables)" if name in TABLE_CHECKS else ""
        print(f"{name:<{width}}  {before.get(name, 0):>8}  {after.get(name, 0):>6}{mark}")
    print(f"bad inputs run by {TEST_FILE}: {bad_inputs(before)} at {rev}, {bad_inputs(after)} now")


if __name__ == "__main__":
    main()
