"""A benchmark's declared options (`sciwrite.core.commands.Option`) as argparse arguments."""

from __future__ import annotations

import argparse
import datetime
import functools
from collections.abc import Callable, Iterable
from typing import Any

from sciwrite.core.commands import Option

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


def add_options(parser: argparse.ArgumentParser, options: Iterable[Option]) -> argparse.ArgumentParser:
    """One argument per option, its keyword the destination."""
    for option in options:
        flags = [option.flag, *option.aliases]
        if option.switch:
            parser.add_argument(*flags, dest=option.name, action=argparse.BooleanOptionalAction,
                                default=bool(option.default), help=option.help)
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
        parser.add_argument(*flags, **kwargs)
    return parser


def option_values(args: argparse.Namespace, options: Iterable[Option]) -> dict[str, Any]:
    """The parsed values of `options`, by keyword."""
    return {option.name: getattr(args, option.name) for option in options}


__all__ = ["add_options", "iso_date", "option_values"]
