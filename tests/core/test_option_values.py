"""One reading of a benchmark's options by keyword (`sciwrite.core.commands.resolved_options`), for its evaluation
and its generation alike."""

from __future__ import annotations

import pytest

from sciwrite.core.commands import Option, resolved_options

OPTIONS = (Option("k", "hits", type=int, default=10), Option("loud", "print more", switch=True),
           Option("retriever", "which", default=None))


def test_given_values_over_the_defaults_and_a_switch_off_unless_given() -> None:
    assert resolved_options(OPTIONS, {}, "toy") == {"k": 10, "loud": False, "retriever": None}
    assert resolved_options(OPTIONS, {"k": 3, "loud": True}, "toy") == {"k": 3, "loud": True, "retriever": None}


def test_a_given_none_is_a_value_unless_none_means_the_default() -> None:
    assert resolved_options(OPTIONS, {"k": None}, "toy")["k"] is None  # an evaluation option set to None
    assert resolved_options(OPTIONS, {"k": None}, "toy", none_is_default=True)["k"] == 10  # a flag not given


def test_an_unknown_keyword_names_the_options_there_are() -> None:
    with pytest.raises(ValueError, match=r"unknown toy generation option\(s\) \['kk'\]; it takes \['k', 'loud', "
                                         r"'retriever'\]"):
        resolved_options(OPTIONS, {"kk": 1}, "toy generation")
