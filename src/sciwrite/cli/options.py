"""A benchmark's declared options (`sciwrite.core.commands.Option`) as argparse arguments, and the argparse types
the command line's flags read their values with (each error is a usage error naming the flag). The checks of the
values themselves (a finite number in a range, a whole number, a declared option's type) are
`sciwrite.core.values`'s, which the Inspect tasks' arguments go through too."""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Callable, Iterable
from typing import Any

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core import values
from sciwrite.core.commands import Option
from sciwrite.llm.capabilities import parse_model_option
from sciwrite.models.registry import PROFILES


def value_type(check: Callable[[Any], Any]) -> Callable[[str], Any]:
    """An argparse type from a value check (`sciwrite.core.values`, or a declared option's parse): its ValueError
    becomes argparse's usage error, its message kept (argparse names the flag)."""

    def checked(text: str) -> Any:
        try:
            return check(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    checked.__name__ = getattr(check, "__name__", type(check).__name__)
    return checked


def option_type(option: Option) -> Callable[[str], Any] | None:
    """The argparse type of a declared option: the value checks `-T` arguments get too
    (`sciwrite.core.values.option_checks`), less its choices, which argparse checks (and lists in the help)."""
    checks = [check for check in values.option_checks(option)
              if not isinstance(check, values.OneOf | values.Switch)]
    if not checks:
        return None
    return value_type(checks[0].parse if isinstance(checks[0], values.Parsed) else checks[0])


def iso_date(text: str) -> datetime.date:
    """An argparse type: a date written YYYY-MM-DD."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {text!r}") from None


#: ``--confidence LEVEL``: an interval level strictly between 0 and 1 (`sciwrite.core.values.CONFIDENCE`).
confidence_level = value_type(values.CONFIDENCE)


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


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (`sciwrite.core.values.Integer`)."""
    return value_type(values.Integer(low, high))


def finite_number(low: float | None = None, high: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite number (nan and inf refused) from `low` to `high` (`sciwrite.core.values.Number`)."""
    return value_type(values.Number(low, high))


#: ``--temperature``: a finite number >= 0 (`sciwrite.core.values.TEMPERATURE`, as Inspect's ``-T temperature``).
temperature = value_type(values.TEMPERATURE)
#: ``--timeout``: seconds a request may take, a finite number > 0.
timeout_seconds = value_type(values.Number(0.0, low_open=True, unit="of seconds", example="300"))
#: What every other ``type=float`` flag reads (`finite_floats`): a finite number, nan and inf refused.
finite_float = finite_number()


def finite_floats(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Every ``type=float`` flag in `parser`'s tree (its subcommands' too) made to read `finite_float`, so that no
    command takes nan or inf (a flag with a range of its own says so with its own type, e.g. `temperature`)."""
    for action in parser._actions:
        if action.type is float:
            action.type = finite_float
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(sub): sub for sub in action.choices.values()}.values():
                finite_floats(sub)
    return parser


def model_option(text: str) -> tuple[str, Any]:
    """``--model-option KEY=VALUE`` and ``--judge-option KEY=VALUE`` (VALUE read as YAML)."""
    try:
        return parse_model_option(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


#: ``--max-cost USD``: a finite number >= 0; nan, inf and negative budgets are refused
#: (`sciwrite.core.values.BUDGET_USD`).
budget_usd = value_type(values.BUDGET_USD)


def add_options(parser: argparse.ArgumentParser, options: Iterable[Option]) -> argparse.ArgumentParser:
    """One argument per option, its keyword the destination."""
    for option in options:
        if option.switch:
            parser.add_argument(option.flag, dest=option.name, action=argparse.BooleanOptionalAction,
                                default=option.default_value, help=option.help)
            continue
        kwargs: dict[str, Any] = {"dest": option.name, "default": option.default, "help": option.help}
        if (parse := option_type(option)) is not None:
            kwargs["type"] = parse
        if option.choices is not None:
            kwargs["choices"] = list(option.choices)
        if option.many:
            kwargs["nargs"] = "+"
        if option.metavar:
            kwargs["metavar"] = option.metavar
        if option.required:
            kwargs["required"] = True
        parser.add_argument(option.flag, **kwargs)
    return parser


def option_values(args: argparse.Namespace, options: Iterable[Option]) -> dict[str, Any]:
    """The parsed values of `options`, by keyword."""
    return {option.name: getattr(args, option.name) for option in options}


__all__ = ["PROFILES", "add_options", "benchmark_folder", "budget_usd", "confidence_level", "finite_float",
           "finite_floats", "finite_number", "iso_date", "key_value", "known_benchmark", "model_option", "option_type",
           "option_values", "temperature", "timeout_seconds", "value_type", "whole_number"]
