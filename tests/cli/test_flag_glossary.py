"""One meaning per flag, over the whole command tree (`sciwrite.cli.build_parser`, every subcommand): every flag two
or more commands share is in the contributor's guide's flag glossary and the glossary names no flag that is gone; a flag has
one destination in every command and one name (no alias, no abbreviation, no former spelling still read); every
renamed flag is gone under its former name and present under its new one; a choice list is a named constant, never a
list written at the call."""

from __future__ import annotations

import argparse
import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import build_parser
from sciwrite.cli.baseline_config import parse_args
from sciwrite.cli.leaderboard import board_settings
from sciwrite.cli.options import PROFILES

ROOT = Path(__file__).resolve().parents[2]
CONTRIBUTING = ROOT / "docs" / "contributing.md"
SRC = ROOT / "src" / "sciwrite"
GLOSSARY_HEADER = ("flag", "meaning")
#: Every rename of issue 47's "one meaning per flag" and before it: (command, former flag) -> the flag to use. Each
#: former flag is read by no command of the tree, and the new one is there.
RENAMED: dict[tuple[str, str], str] = {
    ("evaluate rwgbench", "--model"): "--model-role",
    ("evaluate rwgbench", "--seed"): "--bootstrap-seed",
    ("evaluate rwgbench", "--base-url"): "--judge-base-url",
    ("evaluate sciig", "--dataset"): "--split",
    ("compare", "--seed"): "--bootstrap-seed",
    ("compare", "--name"): "--system",
    ("meta-eval agreement", "--resamples"): "--bootstrap",
    ("meta-eval agreement", "--seed"): "--bootstrap-seed",
    ("meta-eval sensitivity", "--resamples"): "--bootstrap",
    ("meta-eval judge-check", "--base-url"): "--judge-base-url",
    ("meta-eval judges", "--a"): "--judge-a",
    ("meta-eval judges", "--b"): "--judge-b",
    ("human-eval llm-annotate", "--base-url"): "--judge-base-url",
    ("human-eval analyze", "--seed"): "--bootstrap-seed",
    ("human-eval analyze", "--votes"): "--ratings",
    ("human-eval export", "--push"): "--push-to-hub",
    ("human-eval export", "--config"): "--hub-config",
    ("push predictions", "--repo-id"): "--push-to-hub",
    ("push predictions", "--config"): "--hub-config",
    ("build sciig", "--llm-model"): "--judge",
    ("build sciig", "--llm-base-url"): "--judge-base-url",
    ("build sciig", "--llm-cache"): "--judge-cache",
    ("build sciig", "--config"): "--split",
    ("build rwgbench", "--corpus"): "--corpus-source",
    ("build rwgbench-upstream", "--repo-id"): "--upstream-repo",
    ("build rwgbench-upstream", "--papers"): "--upstream-papers",
    ("build rwgbench-upstream", "--test"): "--upstream-test",
    ("build rwgbench-upstream", "--corpus"): "--upstream-corpus",
    ("fetch arxiv", "--api-url"): "--arxiv-api-url",
    ("fetch arxiv", "--html-url"): "--arxiv-html-url",
    ("fetch arxiv", "--oai-url"): "--arxiv-oai-url",
    ("fetch arxiv", "--min-interval"): "--arxiv-min-interval",
    ("generate sciig", "--dataset"): "--split",
    ("index build", "--config"): "--corpus",
    ("retrieve", "--config"): "--split",
    ("retrieve", "--ks"): "--recall-at",
    ("leaderboard serve", "--sciig-split"): "--split",
    ("leaderboard serve", "--rwgbench-split"): "--split",
    ("leaderboard serve", "--sciig-source"): "--source",
    ("leaderboard serve", "--rwgbench-source"): "--source",
    ("quickstart", "--data-dir"): "--source",
    ("quickstart", "--sciig-dir"): "--source",
}


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


def flag_uses() -> dict[str, list[tuple[str, argparse.Action]]]:
    """flag -> every (command, action) that has it."""
    uses: dict[str, list[tuple[str, argparse.Action]]] = defaultdict(list)
    for command, parser in COMMANDS:
        for action in options(parser):
            for flag in long_flags(action):
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


# ------------------------------------------------------------------------------------------- one name each


def test_a_flag_has_one_name_and_no_hidden_spelling():
    """No alias (a second long name), no flag left out of --help, no help saying 'deprecated'."""
    bad = []
    for command, parser in COMMANDS:
        for action in options(parser):
            flags = long_flags(action)
            if len(flags) > 1 or action.help == argparse.SUPPRESS or "deprecated" in (action.help or "").lower():
                bad.append(f"`{command}` {', '.join(action.option_strings)}")
    assert not bad, "flags with a second or hidden name: " + "; ".join(bad)


def test_no_flag_is_read_by_an_abbreviation():
    assert all(not parser.allow_abbrev for _, parser in COMMANDS)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["human-eval", "export", "--tasks", "t", "--store", "s", "--out", "o", "--push",
                                   "user/repo"])


def _parser(command: str) -> argparse.ArgumentParser:
    found = dict(COMMANDS).get(f"sciwrite {command}")
    assert found is not None, f"no command `sciwrite {command}`"
    return found


def test_every_renamed_flag_is_gone_under_its_former_name():
    for (command, former), current in sorted(RENAMED.items()):
        parser = _parser(command)
        assert current in parser._option_string_actions, f"`{command}`: {current} is missing"
        assert former not in parser._option_string_actions or former == current, \
            f"`{command}` still reads {former} (renamed {current})"


def test_the_glossary_names_no_former_flag():
    listed = glossary()
    gone = {former for (_, former) in RENAMED} - set(USES)
    named = sorted(gone & set(listed))
    assert not named, f"the flag glossary lists flags that were renamed: {', '.join(named)}"
    assert "former flag" not in CONTRIBUTING.read_text(encoding="utf-8"), "a table of former spellings is left"


def test_former_command_spellings_are_gone(capsys):
    for argv in (["push", "preds.jsonl", "--push-to-hub", "u/r"], ["evaluate", "sciig-table3", "--summary", "x"]):
        with pytest.raises(SystemExit) as exit_info:
            build_parser().parse_args(argv)
        assert exit_info.value.code == 2 and "invalid choice" in capsys.readouterr().err


def _parse(*argv: str) -> argparse.Namespace:
    return parse_args(build_parser(), list(argv))


def test_the_judge_and_the_bootstrap_have_their_own_flags():
    args = _parse("evaluate", "rwgbench", "--predictions", "p.jsonl", "--judge-base-url", "http://judge",
                  "--model-role", "nli=x", "--bootstrap-seed", "7", "--bootstrap", "10")
    assert (args.judge_base_url, args.model_role, args.bootstrap_seed, args.bootstrap) == \
        ("http://judge", [("nli", "x")], 7, 10)
    args = _parse("generate", "sciig", "--model", "m", "--base-url", "http://writer", "--seed", "3")
    assert (args.base_url, args.seed) == ("http://writer", 3)


def test_the_leaderboard_takes_one_split_and_source_per_benchmark():
    args = _parse("leaderboard", "serve", "--split", "sciig=naacl_2025", "--source", "rwgbench=/data/rwg")
    settings = board_settings(args)
    assert settings.splits == {**{name: bench.data.offline_config for name, bench in BENCHMARKS.items()},
                               "sciig": "naacl_2025"}
    assert settings.sources == {**{name: None for name in BENCHMARKS}, "rwgbench": "/data/rwg"}


@pytest.mark.parametrize("argv, message", [
    (["--split", "nope=sample"], "unknown benchmark 'nope'"),
    (["--split", "sciig=nope"], "SciIG has no split 'nope'"),
    (["--source", "sciig"], "expected BENCHMARK=DIR"),
    (["--sciig-split", "naacl_2025"], "unrecognized arguments: --sciig-split"),
])
def test_a_bad_benchmark_split_or_source_is_a_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["leaderboard", "serve", *argv])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
