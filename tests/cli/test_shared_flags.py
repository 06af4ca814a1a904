"""Shared flags are defined once (`sciwrite.cli.flags`): no other module of the command line declares one of them
again with ``add_argument("--flag", ...)``, and a flag that two commands of the tree share (with the same
destination) is either one of them or a benchmark's declared `Option` (whose name is its flag's destination)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from sciwrite.cli import flags
from tests.cli.test_flag_glossary import USES

CLI = Path(flags.__file__).parent
SHARED = {value.name for value in vars(flags).values() if isinstance(value, flags.Flag)}


def declared_flags() -> dict[str, set[str]]:
    """flag -> the CLI modules (not `flags`) that declare it with ``add_argument("--flag", ...)``."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(CLI.glob("*.py")):
        if path.name == "flags.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("--"):
                        found[arg.value].add(path.name)
    return found


def test_no_cli_module_declares_a_shared_flag_again():
    again = sorted(f"{flag} in {', '.join(sorted(modules))}" for flag, modules in declared_flags().items()
                   if flag in SHARED)
    assert not again, "shared flags declared again (use sciwrite.cli.flags): " + "; ".join(again)


def test_a_flag_several_cli_modules_declare_is_shared():
    twice = sorted(f"{flag} in {', '.join(sorted(modules))}" for flag, modules in declared_flags().items()
                   if len(modules) > 1)
    assert not twice, "flags declared in several CLI modules (define them once in sciwrite.cli.flags): " + "; ".join(twice)


def test_every_shared_flag_is_used():
    unused = sorted(SHARED - set(USES))
    assert not unused, f"flags defined in sciwrite.cli.flags that no command has: {', '.join(unused)}"
