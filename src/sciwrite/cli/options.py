"""A benchmark's declared options (`sciwrite.core.commands.Option`) as argparse arguments, and the argparse types
the command line's flags read their values with (each error is a usage error naming the flag)."""

from __future__ import annotations

import argparse
import datetime
import functools
from collections.abc import Callable, Iterable
from typing import Any

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core.commands import Option
from sciwrite.llm.capabilities import parse_model_option
from sciwrite.llm.ledger import check_max_cost
from sciwrite.models.registry import PROFILES

_BUILTIN_TYPES = (int, float, str)


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


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (argparse names the flag in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"expected a whole number {span}, got {value}")
        return value

    return parse


def model_option(text: str) -> tuple[str, Any]:
    """``--model-option KEY=VALUE`` and ``--judge-option KEY=VALUE`` (VALUE read as YAML)."""
    try:
        return parse_model_option(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def budget_usd(text: str) -> float:
    """``--max-cost USD``: a finite number >= 0 (nan, inf and negative budgets are refused)."""
    try:
        value = check_max_cost(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a finite number of USD >= 0, e.g. 5 or 0.50, got {text!r}") from None
    assert value is not None
    return value


def add_options(parser: argparse.ArgumentParser, options: Iterable[Option]) -> argparse.ArgumentParser:
    """One argument per option, its keyword the destination."""
    for option in options:
        if option.switch:
            parser.add_argument(option.flag, dest=option.name, action=argparse.BooleanOptionalAction,
                                default=option.default_value, help=option.help)
            continue
        kwargs: dict[str, Any] = {"dest": option.name, "default": option.default, "help": option.help}
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
        parser.add_argument(option.flag, **kwargs)
    return parser


def option_values(args: argparse.Namespace, options: Iterable[Option]) -> dict[str, Any]:
    """The parsed values of `options`, by keyword."""
    return {option.name: getattr(args, option.name) for option in options}


__all__ = ["PROFILES", "add_options", "benchmark_folder", "budget_usd", "confidence_level", "iso_date", "key_value",
           "known_benchmark", "model_option", "option_values", "whole_number"]
