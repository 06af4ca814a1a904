"""The command line's flags counted, for issue 47's "one meaning per flag": walks `sciwrite.cli.build_parser()`
(every subcommand, recursively) and prints the number of commands (the parsers that run something: they set a
``func``), visible options (every option shown in ``--help``, summed over the commands; ``-h`` left out), distinct
flag names (long spellings in ``--help``), deprecated spellings still parsed (former flag names, hidden former
per-benchmark flags, former command spellings) and the flags with two or more meanings, each listed.

    .venv/bin/python scripts/bench/flag_census.py [--list]

**Two meanings**, the criterion: every use of a flag name (a current spelling, and a former one still parsed) gets
a meaning, and a name whose uses have more than one is counted once. A use's meaning is

1. its destination (``dest``, the variable the value lands in), or, for a former spelling, ``former name of
   --X`` (a name that is current in one command and stands for another flag in the next means two things);
2. whether it is a switch or takes a value (``--split BENCHMARK=SPLIT``, a split per benchmark, and ``--summary
   LEVEL=SUMMARY``, labelled summaries, take the same values as ``--split SPLIT`` and ``--summary SUMMARY``);
3. the subject its help text names, for the flags whose destination and kind agree across meanings (`SUBJECTS`: the
   first keyword found in the help, e.g. ``--seed``'s "bootstrap" against sampling and draws, ``--base-url``'s "judge"
   against the generator, ``--model``'s "role" against the writer). The table is written from the issue's list,
   and it is applied to the help texts of both trees, before and after, so a help that still names the other
   subject counts.

**One thing, two names** (the converse, from the issue's list, `SAME_THING`): groups of names of one thing, counted
when two or more of a group are still current flags somewhere in the tree.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
from sciwrite.cli import build_parser  # noqa: E402

try:  # former command spellings (`sciwrite evaluate sciig-table3`), in the trees that still have them
    from sciwrite.cli.deprecated import DEPRECATED_COMMANDS  # noqa: E402
except ImportError:
    DEPRECATED_COMMANDS = {}

#: flag -> (subject, a regular expression its help matches); the first match names the use's subject, none: "".
SUBJECTS: dict[str, tuple[tuple[str, str], ...]] = {
    "--seed": (("sampling", r"sampl|shuffl|draw|perturb"), ("bootstrap", r"bootstrap")),
    "--base-url": (("judge", r"judge|extractor"),),
    "--config": (("baseline", r"baseline"), ("hub", r"hub"), ("corpus", r"corpus"), ("split", r"split|papers'")),
    "--corpus": (("source", r"folder|repo"),),
    "--model": (("role", r"role"),),
}
#: Names of one thing: the bootstrap's resamples, the judge's model, endpoint and cache, the arXiv API and its pace,
#: the Hub repo pushed to.
SAME_THING: tuple[tuple[str, ...], ...] = (
    ("--bootstrap", "--resamples"), ("--judge", "--llm-model"), ("--judge-base-url", "--llm-base-url"),
    ("--judge-cache", "--llm-cache"), ("--arxiv-api-url", "--api-url"), ("--arxiv-min-interval", "--min-interval"),
    ("--push-to-hub", "--push", "--repo-id"),
)


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ("sciwrite",)) -> Iterator[
        tuple[str, argparse.ArgumentParser]]:
    """(words, parser) of every parser in the tree, the root first."""
    yield " ".join(words), parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*words, name))


def runs_something(parser: argparse.ArgumentParser) -> bool:
    return parser.get_default("func") is not None


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]


def former_spellings(action: argparse.Action) -> tuple[str, ...]:
    """The deprecated names an action parses (its ``deprecated`` attribute, in the trees that have one)."""
    return tuple(getattr(action, "deprecated", ()) or ())


def long_flags(action: argparse.Action) -> list[str]:
    flags = [f for f in action.option_strings if f.startswith("--")]
    if isinstance(action, argparse.BooleanOptionalAction):
        flags = [f for f in flags if not (f.startswith("--no-") and "--" + f[5:] in flags)]
    return flags


def value_kind(action: argparse.Action) -> str:
    return "switch" if action.nargs == 0 else "value"


def subject(flag: str, action: argparse.Action) -> str:
    for name, pattern in SUBJECTS.get(flag, ()):
        if re.search(pattern, action.help or "", re.IGNORECASE):
            return name
    return ""


def census() -> dict[str, object]:
    tree = list(commands(build_parser()))
    runnable = [(name, p) for name, p in tree if runs_something(p)]
    visible = [(name, a) for name, p in runnable for a in options(p) if a.help != argparse.SUPPRESS]
    names = {f for _, a in visible for f in long_flags(a) if f not in former_spellings(a)}
    meanings: dict[str, set[str]] = defaultdict(set)
    where: dict[tuple[str, str], set[str]] = defaultdict(set)
    deprecated: set[tuple[str, str]] = set()
    for name, parser in runnable:
        for action in options(parser):
            former = former_spellings(action)
            current = getattr(action, "current", None) or (long_flags(action) or [""])[0]
            for flag in long_flags(action):
                if flag in former or action.help == argparse.SUPPRESS:
                    deprecated.add((name, flag))
                    meaning = f"former name of {current}"
                else:
                    meaning = f"{action.dest} ({value_kind(action)}{', ' + subject(flag, action) if subject(flag, action) else ''})"
                meanings[flag].add(meaning)
                where[(flag, meaning)].add(name.removeprefix("sciwrite "))
    commands_former = len(DEPRECATED_COMMANDS)
    several = {flag: sorted(found) for flag, found in meanings.items() if len(found) > 1}
    twice = [group for group in SAME_THING if len(set(group) & names) > 1]
    return {"commands": len(runnable), "visible options": len(visible), "distinct flag names": len(names),
            "deprecated spellings parsed": len({flag for _, flag in deprecated}) + commands_former,
            "flags with two or more meanings": len(several),
            "things with two or more names": len(twice), "_several": several, "_where": where, "_twice": twice,
            "_names": names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="also list each flag with several meanings and where")
    args = parser.parse_args()
    found = census()
    for key, value in found.items():
        if not key.startswith("_"):
            print(f"{key}: {value}")
    for flag, meanings in found["_several"].items():  # type: ignore[union-attr]
        print(f"  {flag}: {len(meanings)} meanings")
        if args.list:
            for meaning in meanings:
                users = sorted(found["_where"][(flag, meaning)])  # type: ignore[index]
                print(f"    {meaning}: {', '.join(users)}")
    for group in found["_twice"]:  # type: ignore[union-attr]
        print(f"  one thing, several names: {', '.join(f for f in group if f in found['_names'])}")


if __name__ == "__main__":
    main()
