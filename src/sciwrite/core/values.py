"""The checks of a value a user gives, one set for every front end: the command line's flag types
(`sciwrite.cli.options`: ``--temperature``, ``--bootstrap``, ``--confidence``, ``--max-cost``) and the Inspect tasks'
arguments (`sciwrite.harness.inspect_tasks`: ``-T temperature=...``) call the same check, so a value one refuses the
other refuses too, in the same words.

A check takes the value as the front end has it (the command line's text, or the typed value Inspect's ``-T``
parses as YAML) and returns it typed; a bad value is a `ValueError` saying what is allowed and what was given
(``expected a finite number >= 0, got nan``). The front end names the flag or the argument. Nothing here knows argparse.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from sciwrite.core.commands import Option


def _is_number(value: object) -> TypeGuard[int | float]:
    """An int or a float, not a bool (YAML's ``true`` is no number)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(bound: float) -> str:
    """A bound as a message writes it: ``0``, ``2000``, ``0.5``."""
    return str(int(bound)) if float(bound).is_integer() else repr(float(bound))


def _span(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    """``from 1 to 5``, ``strictly between 0 and 1``, ``>= 0``, ``<= 1``, or "" without bounds."""
    if low is not None and high is not None:
        return (f"strictly between {_shown(low)} and {_shown(high)}" if low_open and high_open
                else f"from {_shown(low)} to {_shown(high)}" if not (low_open or high_open)
                else f"{'>' if low_open else '>='} {_shown(low)} and {'<' if high_open else '<='} {_shown(high)}")
    if low is not None:
        return f"{'>' if low_open else '>='} {_shown(low)}"
    if high is not None:
        return f"{'<' if high_open else '<='} {_shown(high)}"
    return ""


@dataclass(frozen=True)
class Number:
    """A finite number (nan and inf are refused) from `low` to `high`, an end `low_open` / `high_open` left out;
    `unit` and `example` go into the message (``a finite number of USD >= 0, e.g. 5 or 0.50``)."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    unit: str = ""
    example: str = ""

    def describe(self) -> str:
        span = _span(self.low, self.high, self.low_open, self.high_open)
        return " ".join(part for part in ("a finite number", self.unit, span) if part) + \
            (f", e.g. {self.example}" if self.example else "")

    def within(self, number: float) -> bool:
        above = self.low is None or (number > self.low if self.low_open else number >= self.low)
        below = self.high is None or (number < self.high if self.high_open else number <= self.high)
        return above and below

    def __call__(self, value: object) -> float:
        number = float(value) if _is_number(value) else _parsed(float, value)
        if number is None or not math.isfinite(number) or not self.within(number):
            raise ValueError(f"expected {self.describe()}, got {value!r}")
        return number


@dataclass(frozen=True)
class Integer:
    """A whole number from `low` to `high` (either None: no bound); a float, even 5.0, is refused as the command
    line refuses ``5.0``."""

    low: int | None = None
    high: int | None = None

    def describe(self) -> str:
        if self.low is not None and self.high is None:
            return f"a whole number {self.low} or more"
        span = _span(self.low, self.high, False, False)
        return f"a whole number {span}" if span else "a whole number"

    def __call__(self, value: object) -> int:
        number = value if isinstance(value, int) and not isinstance(value, bool) else _parsed(int, value)
        if number is None:
            raise ValueError(f"expected a whole number, got {value!r}")
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            raise ValueError(f"expected {self.describe()}, got {number}")
        return number


@dataclass(frozen=True)
class OneOf:
    """One of `choices`, as given (the command line's ``choices``)."""

    choices: tuple[Any, ...]

    def describe(self) -> str:
        return f"one of {', '.join(map(str, self.choices))}"

    def __call__(self, value: object) -> Any:
        if value not in self.choices:
            raise ValueError(f"expected {self.describe()}, got {value!r}")
        return value


@dataclass(frozen=True)
class Switch:
    """On or off: a bool (the command line's ``--flag`` / ``--no-flag``); a text such as ``"maybe"`` is refused."""

    def describe(self) -> str:
        return "true or false"

    def __call__(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise ValueError(f"expected {self.describe()}, got {value!r}")
        return value


@dataclass(frozen=True)
class Parsed:
    """What `parse` (a declared option's ``type``, which reads the command line's text) makes of the value's
    text; its ValueError is the message."""

    parse: Callable[[str], Any]

    def __call__(self, value: object) -> Any:
        return self.parse(value if isinstance(value, str) else str(value))


def _parsed(parse: Callable[[str], Any], value: object) -> Any:
    """`parse` of a text value, or None when the value is no text or `parse` refuses it."""
    if not isinstance(value, str):
        return None
    try:
        return parse(value.strip())
    except ValueError:
        return None


Check = Number | Integer | OneOf | Switch | Parsed


def option_checks(option: Option) -> tuple[Check, ...]:
    """The checks of a declared option's value, in the order the command line applies them (its type, then its
    choices): a switch's, an int's or a float's, the option's own parse, its choices."""
    if option.switch:
        return (Switch(),)
    checks: list[Check] = []
    if option.type is int:
        checks.append(Integer())
    elif option.type is float:
        checks.append(Number())
    elif option.type is not None and option.type is not str:
        checks.append(Parsed(option.type))
    if option.choices:
        checks.append(OneOf(tuple(option.choices)))
    return tuple(checks)


def option_value(option: Option, value: Any) -> Any:
    """`value` of `option` checked (each item of a `many` option); None stays None (the option's default)."""
    if value is None:
        return None
    items: Sequence[Any] = value if option.many and isinstance(value, (list, tuple)) else [value]
    checked = []
    for item in items:
        for check in option_checks(option):
            item = check(item)
        checked.append(item)
    return checked if option.many and isinstance(value, (list, tuple)) else checked[0]


#: The sampling temperature (``--temperature``, ``-T temperature``).
TEMPERATURE = Number(low=0.0)
#: The completion limit in tokens (``--max-tokens``, ``-T max_tokens``).
MAX_TOKENS = Integer(1)
#: A seed (``--seed``, ``--bootstrap-seed``, ``-T seed``, ``-T bootstrap_seed``): any whole number.
SEED = Integer()
#: Bootstrap resamples of an interval; 0: no interval (``--bootstrap``, ``-T bootstrap``).
BOOTSTRAP = Integer(0)
#: An interval's level (``--confidence``).
CONFIDENCE = Number(0.0, 1.0, low_open=True, high_open=True, example="0.95")
#: A budget in US dollars (``--max-cost``).
BUDGET_USD = Number(low=0.0, unit="of USD", example="5 or 0.50")


__all__ = ["BOOTSTRAP", "BUDGET_USD", "CONFIDENCE", "Check", "Integer", "MAX_TOKENS", "Number", "OneOf", "Parsed",
           "SEED", "Switch", "TEMPERATURE", "option_checks", "option_value"]
