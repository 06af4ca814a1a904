"""The command-line reference as Markdown, walked from the argparse tree itself (`sciwrite.cli.build_parser`), so
the documentation site's CLI page lists every command and every flag the installed code has, and never one it
lacks: each command with its help, its usage line and a table of its options (flags, what they take, default,
help)."""

from __future__ import annotations

import argparse
import html
from collections.abc import Iterator

#: Help text argparse leaves out of the reference (options that are not shown in ``--help`` either).
SUPPRESSED = argparse.SUPPRESS


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """(words, parser, help) of every command under `parser`, depth first in the order they were added; a command
    with subcommands is listed before them."""
    for action in parser._actions:  # argparse keeps subcommands only here
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            yield (*words, name), sub, helps.get(name, "")
            yield from commands(sub, (*words, name))


def table_cell(text: object) -> str:
    """`text` safe in a Markdown table cell: one line, HTML escaped (``<url>`` is text), pipes escaped."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def option_rows(parser: argparse.ArgumentParser) -> list[str]:
    """One table row per option or argument of `parser` (its help flag and subcommand choosers left out)."""
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction) or action.help == SUPPRESSED:
            continue
        flags = ", ".join(f"`{flag}`" for flag in action.option_strings) or f"`{action.dest}` (positional)"
        takes = action.metavar or (", ".join(map(str, action.choices)) if action.choices else "")
        if action.nargs == 0:
            takes = "(switch)"
        default = "" if action.default in (None, False, argparse.SUPPRESS) or action.nargs == 0 else action.default
        rows.append(f"| {flags} | {table_cell(takes)} | {table_cell(default)} | {table_cell(action.help or '')} |")
    return rows


def cli_markdown(parser: argparse.ArgumentParser, program: str = "sciwrite") -> str:
    """The whole reference: a section per command (``## sciwrite evaluate rwgbench``), in the tree's order."""
    parts = [f"# Command-line reference\n\nEvery `{program}` command and flag, generated from the command tree of "
             "the installed code (`sciwrite.cli.reference`). `--help` on any command prints the same.\n"]
    for words, sub, help_text in commands(parser):
        title = " ".join((program, *words))
        usage = " ".join(sub.format_usage().split())
        parts.append(f"## {title}\n\n{help_text}\n\n```text\n{usage}\n```\n")
        rows = option_rows(sub)
        if rows:
            parts.append("| option | takes | default | what it does |\n|---|---|---|---|\n" + "\n".join(rows) + "\n")
    return "\n".join(parts)


__all__ = ["cli_markdown", "commands", "option_rows", "table_cell"]
