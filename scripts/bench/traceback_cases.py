"""How many commands, and (command, bad input) cases, the no-traceback test runs (issue 37): every leaf command of
the CLI's argparse tree and the bad inputs `tests/cli/test_no_tracebacks.py` gives each.

    .venv/bin/python scripts/bench/traceback_cases.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.cli
from sciwrite.cli import build_parser  # noqa: E402
from tests.cli.test_no_tracebacks import CASES, leaf_commands  # noqa: E402


def main() -> None:
    leaves = leaf_commands(build_parser())
    covered = [words for words in leaves if words in CASES]
    print(f"commands: {len(leaves)} leaf commands, {len(covered)} with bad inputs")
    print(f"cases: {sum(len(CASES[words]) for words in covered)} (command, bad input) pairs")
    for words in covered:
        print(f"  {' '.join(words):32} {len(CASES[words])}")


if __name__ == "__main__":
    main()
