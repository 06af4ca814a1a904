"""One meaning per flag, over the whole command tree (`sciwrite.cli.build_parser`, every subcommand): every flag two
or more commands share is in the contributor's guide's flag glossary and the glossary names no flag that is gone; a flag has
one destination in every command; a choice list is a named constant, never a list written at the call; a former
spelling is a `DeprecatedAlias`, listed in the glossary's table of them, that still parses to the current flag's
destination with a warning naming the current flag."""

from __future__ import annotations

import argparse
import ast
import logging
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import build_parser
from sciwrite.cli.generate_common import parse_args
from sciwrite.cli.leaderboard import board_settings
from sciwrite.cli.options import PROFILES, DeprecatedAlias, DeprecatedKeyed
from sciwrite.core.commands import Option

ROOT = Path(__file__).resolve().parents[2]
CONTRIBUTING = ROOT / "docs" / "contributing.md"
SRC = ROOT / "src" / "sciwrite"
GLOSSARY_HEADER = ("flag", "meaning")
DEPRECATED_HEADER = ("former flag", "command", "use")


def commands(parser: argparse.ArgumentParser | None = None,
             words: tuple[str, ...] = ("sciwrite",)) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every parser of the tree, named by its words (``sciwrite evaluate sciig``), the root first."""
    parser = parser or build_parser()
    yield " ".join(words), parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*words, name))


COMMANDS = list(commands())


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """A parser's options (``--help`` aside)."""
    return [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]


def long_flags(action: argparse.Action) -> list[str]:
    """An action's long flags, without the ``--no-X`` argparse adds to a `BooleanOptionalAction`."""
    flags = [f for f in action.option_strings if f.startswith("--")]
    if isinstance(action, argparse.BooleanOptionalAction):
        flags = [f for f in flags if not (f.startswith("--no-") and "--" + f[len("--no-"):] in flags)]
    return flags


def current_flags(action: argparse.Action) -> list[str]:
    """The flags of `action` to use now: a `DeprecatedAlias`'s former names left out."""
    former = action.deprecated if isinstance(action, DeprecatedAlias) else ()
    return [f for f in long_flags(action) if f not in former]


def flag_uses() -> dict[str, list[tuple[str, argparse.Action]]]:
    """flag -> every (command, action) that has it, current spellings only."""
    uses: dict[str, list[tuple[str, argparse.Action]]] = defaultdict(list)
    for command, parser in COMMANDS:
        for action in options(parser):
            for flag in current_flags(action):
                uses[flag].append((command, action))
    return uses


USES = flag_uses()


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def glossary_table(header: tuple[str, ...]) -> list[list[str]]:
    """The rows of the table headed `header` in docs/contributing.md's ``## Flag glossary`` section."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    assert "\n## Flag glossary\n" in text, "docs/contributing.md has no '## Flag glossary' section"
    section = text.split("\n## Flag glossary\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and tuple(_cells(line)) == header:
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(_cells(row))
            return rows
    raise AssertionError(f"the contributor's guide's flag glossary has no table headed | {' | '.join(header)} |")


def _flag(cell: str, where: str) -> str:
    found = re.match(r"`(--[a-z0-9][a-z0-9-]*)", cell)
    assert found, f"{where}: {cell!r} names no flag (write it as `--flag`)"
    return found.group(1)


def glossary() -> dict[str, str]:
    """flag -> meaning, as the glossary table says."""
    rows = glossary_table(GLOSSARY_HEADER)
    flags = [_flag(row[0], "contributor's guide flag glossary") for row in rows]
    assert len(flags) == len(set(flags)), f"the flag glossary lists a flag twice: {sorted(flags)}"
    return {flag: row[1] for flag, row in zip(flags, rows)}


def _names(uses: list[tuple[str, argparse.Action]]) -> str:
    return ", ".join(f"`{command}`" for command, _ in uses)


# ------------------------------------------------------------------------------------------------- the glossary


def test_every_flag_two_commands_share_is_in_the_glossary():
    listed = glossary()
    missing = [f"{flag} (used by {_names(uses)})" for flag, uses in sorted(USES.items())
               if len({command for command, _ in uses}) >= 2 and flag not in listed]
    assert not missing, ("flags used by two or more commands but missing from the contributor's guide's flag glossary: "
                         + "; ".join(missing))


def test_the_glossary_lists_only_flags_a_command_has():
    gone = sorted(set(glossary()) - set(USES))
    assert not gone, f"the contributor's guide's flag glossary lists flags no command has: {', '.join(gone)}"
    empty = [flag for flag, meaning in glossary().items() if not meaning]
    assert not empty, f"flags without a meaning in the glossary: {', '.join(empty)}"


def test_one_flag_one_destination():
    clashes = []
    for flag, uses in sorted(USES.items()):
        dests = {action.dest for _, action in uses}
        if len(dests) > 1:
            clashes.append(f"{flag}: " + ", ".join(f"`{command}` -> {action.dest}" for command, action in uses))
    assert not clashes, "a flag with several destinations (one meaning, one dest): " + "; ".join(clashes)


def test_the_benchmark_is_a_subcommand_or_one_benchmark_option():
    """Where the options differ per benchmark it is a positional subcommand; elsewhere ``--benchmark``."""
    subcommands = {command for command, _ in COMMANDS}
    for group in ("evaluate", "generate"):
        assert {f"sciwrite {group} {name}" for name in BENCHMARKS} <= subcommands, group
    for command, action in USES["--benchmark"]:
        assert action.choices is not None and set(action.choices) <= set(BENCHMARKS), \
            f"`{command}` --benchmark: its choices {action.choices} are not benchmarks of the registry"


# ----------------------------------------------------------------------------------------------- choice lists


def _option_modules() -> list[Path]:
    """The CLI's modules and every module that declares an `Option(...)`."""
    declared = {path for path in SRC.rglob("*.py") if re.search(r"\bOption\(", path.read_text(encoding="utf-8"))}
    return sorted(set((SRC / "cli").glob("*.py")) | declared)


def test_choice_lists_are_named_constants():
    written = []
    for path in _option_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg == "choices" and isinstance(keyword.value, (ast.List, ast.Tuple, ast.Set)):
                        written.append(f"{path.relative_to(ROOT)}:{keyword.value.lineno}: choices="
                                       f"{ast.unparse(keyword.value)}")
    assert not written, ("choices written by hand (use a named constant: PROFILES, ENGINES, BAD_RECORDS, a "
                         "benchmark's splits): " + "; ".join(written))


def test_every_profile_option_offers_the_registry_profiles():
    assert USES["--profile"]
    wrong = [f"`{command}` --profile: {action.choices}" for command, action in USES["--profile"]
             if action.choices is None or list(action.choices) != list(PROFILES)]
    assert not wrong, f"--profile choices other than PROFILES {PROFILES}: " + "; ".join(wrong)


# --------------------------------------------------------------------------------------------- former spellings


def test_a_flag_with_several_names_is_a_deprecated_alias():
    """A second long name, or a help text saying 'deprecated', is a former spelling: it goes through
    `DeprecatedAlias`, so that it warns and is removed after one release."""
    bad = []
    for command, parser in COMMANDS:
        for action in options(parser):
            if isinstance(action, DeprecatedAlias):
                continue
            flags = long_flags(action)
            if len(flags) > 1 or "deprecated" in (action.help or "").lower():
                bad.append(f"`{command}` {', '.join(flags)}")
    assert not bad, "former spellings that are not a DeprecatedAlias: " + "; ".join(bad)


def deprecated_spellings() -> dict[tuple[str, str], str]:
    """(command, former flag) -> current flag, over the whole tree."""
    found = {}
    for command, parser in COMMANDS:
        for action in options(parser):
            if isinstance(action, DeprecatedAlias):
                for former in action.deprecated:
                    found[(command.removeprefix("sciwrite "), former)] = action.current
    return found


def test_every_former_spelling_is_in_the_glossary():
    listed = {}
    for row in glossary_table(DEPRECATED_HEADER):
        former, current = _flag(row[0], "deprecated spellings"), _flag(row[2], "deprecated spellings")
        named = re.findall(r"`([^`]+)`", row[1])
        assert named, f"deprecated spelling {former}: no command named in {row[1]!r}"
        for command in named:
            listed[(command.removeprefix("sciwrite "), former)] = current
    found = deprecated_spellings()
    missing = [f"`{c}` {f} -> {found[(c, f)]}" for c, f in sorted(set(found) - set(listed))]
    gone = [f"`{c}` {f}" for c, f in sorted(set(listed) - set(found))]
    wrong = [f"`{c}` {f}: the glossary says {listed[(c, f)]}, the command {found[(c, f)]}"
             for c, f in sorted(set(found) & set(listed)) if found[(c, f)] != listed[(c, f)]]
    assert not missing, "former spellings missing from the glossary's table: " + "; ".join(missing)
    assert not gone, "the glossary's table lists former spellings no command reads: " + "; ".join(gone)
    assert not wrong, "; ".join(wrong)


def test_every_former_spelling_reaches_the_current_flag_with_a_warning(caplog):
    checked = 0
    for command, parser in COMMANDS:
        for action in options(parser):
            if not isinstance(action, DeprecatedAlias):
                continue
            current = parser._option_string_actions.get(action.current)
            assert current is not None and current.dest == action.dest, \
                f"`{command}` {action.deprecated}: the current flag {action.current} is not read into {action.dest}"
            for former in action.deprecated:
                assert parser._option_string_actions[former] is action, f"`{command}` {former}"
                namespace = argparse.Namespace()
                caplog.clear()
                with caplog.at_level(logging.WARNING, logger="sciwrite.cli"):
                    action(parser, namespace, "VALUE", former)
                expected = [(action.key, "VALUE")] if isinstance(action, DeprecatedKeyed) else "VALUE"
                assert getattr(namespace, action.dest) == expected, f"`{command}` {former}"
                assert any(former in r.getMessage() and "deprecated" in r.getMessage()
                           and action.current in r.getMessage() for r in caplog.records), \
                    f"`{command}` {former}: no warning naming {action.current}"
                checked += 1
    assert checked >= 20  # every former spelling of the tree went through here


def _parse(caplog, *argv: str) -> argparse.Namespace:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sciwrite.cli"):
        return parse_args(build_parser(), list(argv))


def test_former_spellings_parse_as_before(caplog):
    args = _parse(caplog, "generate", "sciig", "--model", "m", "--dataset", "sample")
    assert args.split == "sample" and "--dataset is deprecated: use --split" in caplog.text
    args = _parse(caplog, "meta-eval", "judges", "--a", "x.jsonl", "--b", "y.jsonl")
    assert (args.judge_a, args.judge_b) == ("x.jsonl", "y.jsonl") and "use --judge-a" in caplog.text
    args = _parse(caplog, "build", "rwgbench-upstream", "--papers", "c:train", "--corpus", "k:train", "--out", "o")
    assert (args.upstream_papers, args.upstream_corpus, args.upstream_test) == ("c:train", "k:train", ":test")
    assert "--corpus is deprecated: use --upstream-corpus" in caplog.text
    args = _parse(caplog, "evaluate", "rwgbench", "--predictions", "p.jsonl", "--judge-base-url", "http://x")
    assert args.base_url == "http://x" and "use --base-url" in caplog.text


def test_the_leaderboard_takes_one_split_and_source_per_benchmark(caplog):
    args = _parse(caplog, "leaderboard", "serve", "--split", "sciig=naacl_2025", "--source", "rwgbench=/data/rwg")
    settings = board_settings(args)
    assert settings.splits == {**{name: bench.data.offline_config for name, bench in BENCHMARKS.items()},
                               "sciig": "naacl_2025"}
    assert settings.sources == {**{name: None for name in BENCHMARKS}, "rwgbench": "/data/rwg"}
    assert not caplog.records
    args = _parse(caplog, "leaderboard", "worker", "--sciig-split", "naacl_2025", "--rwgbench-source", "/data/rwg")
    assert board_settings(args).splits["sciig"] == "naacl_2025"
    assert board_settings(args).sources["rwgbench"] == "/data/rwg"
    assert "--sciig-split is deprecated: use --split sciig=naacl_2025" in caplog.text


@pytest.mark.parametrize("argv, message", [
    (["--split", "nope=sample"], "unknown benchmark 'nope'"),
    (["--split", "sciig=nope"], "SciIG has no split 'nope'"),
    (["--source", "sciig"], "expected BENCHMARK=DIR"),
    (["--sciig-split", "nope"], "invalid choice: 'nope'"),
])
def test_a_bad_benchmark_split_or_source_is_a_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["leaderboard", "serve", *argv])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_a_switch_declares_no_former_name():
    with pytest.raises(ValueError, match="a switch has no former names"):
        Option("oracle", "h", switch=True, deprecated=("--gold",))
    with pytest.raises(ValueError, match="a long flag"):
        Option("split", "h", deprecated=("dataset",))
