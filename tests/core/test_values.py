"""The value checks every front end shares (`sciwrite.core.values`): nan and inf are no numbers, a bool is no
number, 5.0 is no whole number, and a declared option's value is checked by its type, then its choices. The
command line's option types are these checks (a ``float`` option refuses ``nan`` there too)."""

from __future__ import annotations

import argparse
import math

import pytest

from sciwrite.cli.options import add_options, budget_usd, confidence_level, whole_number
from sciwrite.core import values
from sciwrite.core.commands import Option


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", float("nan"), math.inf, -1, "-0.5", True, None, "x", [1]])
def test_a_number_that_is_not_finite_and_in_range_is_refused(value):
    with pytest.raises(ValueError, match=r"^expected a finite number >= 0, got "):
        values.TEMPERATURE(value)


@pytest.mark.parametrize(("value", "typed"), [("0.7", 0.7), (0, 0.0), (1.5, 1.5), (" 2 ", 2.0)])
def test_a_finite_number_in_range_is_kept(value, typed):
    assert values.TEMPERATURE(value) == typed


@pytest.mark.parametrize(("check", "value", "message"), [
    (values.BOOTSTRAP, -3, "expected a whole number 0 or more, got -3"),
    (values.BOOTSTRAP, "-3", "expected a whole number 0 or more, got -3"),
    (values.BOOTSTRAP, 5.0, "expected a whole number, got 5.0"),
    (values.BOOTSTRAP, True, "expected a whole number, got True"),
    (values.Integer(1, 2000), 2001, "expected a whole number from 1 to 2000, got 2001"),
    (values.CONFIDENCE, 1, "expected a finite number strictly between 0 and 1, e.g. 0.95, got 1"),
    (values.BUDGET_USD, "nan", "expected a finite number of USD >= 0, e.g. 5 or 0.50, got 'nan'"),
    (values.OneOf(("bm25", "dense")), "grep", "expected one of bm25, dense, got 'grep'"),
    (values.Switch(), "maybe", "expected true or false, got 'maybe'"),
])
def test_each_check_says_what_is_allowed_and_what_was_given(check, value, message):
    with pytest.raises(ValueError) as refused:
        check(value)
    assert str(refused.value) == message


@pytest.mark.parametrize(("parse", "check", "text"), [
    (whole_number(0), values.BOOTSTRAP, "-3"),
    (confidence_level, values.CONFIDENCE, "1.5"),
    (budget_usd, values.BUDGET_USD, "inf"),
])
def test_the_cli_types_are_the_shared_checks(parse, check, text):
    with pytest.raises(argparse.ArgumentTypeError) as cli:
        parse(text)
    with pytest.raises(ValueError) as shared:
        check(text)
    assert str(cli.value) == str(shared.value)


def test_a_declared_option_is_checked_by_its_type_then_its_choices():
    sized = Option("size", "a size", type=int, choices=(1, 2), many=True)
    assert values.option_value(sized, ["1", 2]) == [1, 2]
    assert values.option_value(sized, None) is None
    with pytest.raises(ValueError, match="expected one of 1, 2, got 3"):
        values.option_value(sized, [1, 3])
    with pytest.raises(ValueError, match="expected a whole number, got 'x'"):
        values.option_value(sized, ["x"])


def test_a_float_option_refuses_nan_on_the_command_line():
    parser = add_options(argparse.ArgumentParser(exit_on_error=False), [Option("fraction", "a share", type=float)])
    assert parser.parse_args(["--fraction", "0.25"]).fraction == 0.25
    with pytest.raises(argparse.ArgumentError, match="expected a finite number, got 'nan'"):
        parser.parse_args(["--fraction", "nan"])
