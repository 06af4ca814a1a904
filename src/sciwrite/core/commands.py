"""A benchmark's own command-line options and build commands, as data.

A benchmark declares the options only its `sciwrite generate` takes (`Option`) and the datasets `sciwrite build`
makes for it (`BuildCommand`); `sciwrite.cli` turns them into argparse. So the command line names no benchmark,
argparse stays in the CLI, and a third benchmark's options are one list in its own package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Option:
    """One ``--flag``: its keyword (``workflow_k`` is ``--workflow-k``), help and how its value is read.

    `type` parses one value and raises ValueError with a message when it cannot; `many` takes one or more values;
    `switch` is an on/off option with its ``--no-`` form (default False)."""

    name: str
    help: str
    type: Callable[[str], Any] | None = None
    default: Any = None
    choices: tuple[Any, ...] | None = None
    many: bool = False
    switch: bool = False
    metavar: str | None = None
    required: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def default_value(self) -> Any:
        """The value when none is given: `default` (a switch's as a bool: off unless its default says on)."""
        return bool(self.default) if self.switch else self.default


def resolved_options(options: Iterable[Option], given: Mapping[str, Any], what: str, *,
                     none_is_default: bool = False) -> dict[str, Any]:
    """Every option of `options` by keyword: `given` over its default (`Option.default_value`); a keyword that is
    none of them is an error naming the `what` options there are. With `none_is_default`, a given None is the
    default too (an option left unset, as a keyword or on the command line)."""
    declared = {option.name: option for option in options}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"unknown {what} option(s) {unknown}; it takes {sorted(declared)}")
    return {name: option.default_value if name not in given or (none_is_default and given[name] is None)
            else given[name] for name, option in declared.items()}


@dataclass(frozen=True)
class BuildResult:
    """What a build prints: a sentence saying what was written where, and its statistics (a two-column table)."""

    message: str
    statistics: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildCommand:
    """``sciwrite build <name>``: `run` receives the parsed `options` by keyword and returns what to print."""

    name: str
    help: str
    options: tuple[Option, ...]
    run: Callable[[Mapping[str, Any]], BuildResult]


__all__ = ["BuildCommand", "BuildResult", "Option", "resolved_options"]
