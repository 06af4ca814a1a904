"""A benchmark's declared options (`sciwrite.core.commands.Option`) as argparse arguments."""

from __future__ import annotations

import argparse
import datetime
import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core.commands import Option
from sciwrite.models.registry import PROFILES

_BUILTIN_TYPES = (int, float, str)
logger = logging.getLogger("sciwrite.cli")


class DeprecatedAlias(argparse.Action):
    """A flag that also answers to former names: its first option string is the current one; a former one is read
    the same way for one release, with a warning naming the current one."""

    @property
    def current(self) -> str:
        """The flag to use now."""
        return self.option_strings[0]

    @property
    def deprecated(self) -> tuple[str, ...]:
        """The former names, still read."""
        return tuple(self.option_strings[1:])

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if option_string is not None and option_string != self.option_strings[0]:
            logger.warning("%s is deprecated: use %s (it takes the same values)", option_string, self.option_strings[0])
        setattr(namespace, self.dest, values)


class DeprecatedKeyed(DeprecatedAlias):
    """The former per-key flags of a repeatable ``--flag KEY=VALUE`` (``--sciig-split X`` for ``--split
    sciig=X``): every option string is a former name, read as the pair ``(key, X)`` appended to `dest` (the list the
    current flag appends to) for one release, with a warning naming the current form."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, key: str, current: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.key = key
        self._current = current

    @property
    def current(self) -> str:
        return self._current

    @property
    def deprecated(self) -> tuple[str, ...]:
        return tuple(self.option_strings)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        logger.warning("%s is deprecated: use %s %s=%s", option_string or self.option_strings[0], self._current,
                       self.key, values)
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), (self.key, values)])


def former_names(flags: Sequence[str]) -> str:
    """What a help text adds for a flag's deprecated spellings: ``; --dataset: its former name`` (empty for none)."""
    if not flags:
        return ""
    return f"; {', '.join(flags)}: its former name{'s' if len(flags) > 1 else ''}"


def _argparse_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """`parse` with its ValueError turned into argparse's usage error (its message kept)."""
    if parse in _BUILTIN_TYPES:
        return parse  # argparse words their errors itself ("invalid int value")

    @functools.wraps(parse)
    def checked(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return checked


def iso_date(text: str) -> datetime.date:
    """An argparse type: a date written YYYY-MM-DD."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {text!r}") from None


def confidence_level(text: str) -> float:
    """An interval level strictly between 0 and 1 (argparse type: the error names the flag)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1 (e.g. 0.95), got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a level strictly between 0 and 1 (e.g. 0.95 for 95%), got {text}")
    return value


def key_value(what: str, example: str) -> Callable[[str], tuple[str, str]]:
    """An argparse type: ``KEY=VALUE`` as a pair; `what` names the form (``ROLE=MODEL``), `example` shows one."""

    def parse(text: str) -> tuple[str, str]:
        key, sep, value = text.partition("=")
        if not sep or not key or not value:
            raise argparse.ArgumentTypeError(f"expected {what} (e.g. {example}), got {text!r}")
        return key, value

    parse.__name__ = what
    return parse


_folder_pair = key_value("BENCHMARK=DIR", "sciig=data/sciig")


def known_benchmark(name: str, text: str) -> None:
    """An argparse usage error for a ``BENCHMARK=...`` value that names no registered benchmark."""
    if name not in BENCHMARKS:
        raise argparse.ArgumentTypeError(f"unknown benchmark {name!r} in {text!r}; choose one of "
                                         f"{', '.join(BENCHMARKS)}")


def benchmark_folder(text: str) -> tuple[str, str]:
    """``--source BENCHMARK=DIR``: a registered benchmark and its dataset folder (or Hub repo id)."""
    name, folder = _folder_pair(text)
    known_benchmark(name, text)
    return name, folder


def add_options(parser: argparse.ArgumentParser, options: Iterable[Option]) -> argparse.ArgumentParser:
    """One argument per option, its keyword the destination; its former names (`Option.deprecated`) through
    `DeprecatedAlias`."""
    for option in options:
        if option.switch:
            parser.add_argument(option.flag, dest=option.name, action=argparse.BooleanOptionalAction,
                                default=bool(option.default), help=option.help)
            continue
        kwargs: dict[str, Any] = {"dest": option.name, "default": option.default,
                                  "help": option.help + former_names(option.deprecated)}
        if option.deprecated:
            kwargs["action"] = DeprecatedAlias
        if option.type is not None:
            kwargs["type"] = _argparse_type(option.type)
        if option.choices is not None:
            kwargs["choices"] = list(option.choices)
        if option.many:
            kwargs["nargs"] = "+"
        if option.metavar:
            kwargs["metavar"] = option.metavar
        if option.required:
            kwargs["required"] = True
        parser.add_argument(option.flag, *option.deprecated, **kwargs)
    return parser


def option_values(args: argparse.Namespace, options: Iterable[Option]) -> dict[str, Any]:
    """The parsed values of `options`, by keyword."""
    return {option.name: getattr(args, option.name) for option in options}


__all__ = ["PROFILES", "DeprecatedAlias", "DeprecatedKeyed", "add_options", "benchmark_folder", "confidence_level", "former_names", "known_benchmark",
           "iso_date", "key_value", "option_values"]
