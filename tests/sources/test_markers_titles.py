"""Citation markers [k] (expanding, merging, renumbering) and the title key citations are aligned by."""

from __future__ import annotations

import hashlib

import pytest

from sciwrite.sources.markers import (
    expand_group,
    marker_numbers,
    merge_adjacent_markers,
    order_of_first_appearance,
    renumber_by_first_appearance,
    renumber_markers,
)
from sciwrite.sources.titles import normalize_title, title_doc_id

# ---------------------------------------------------------------- expand_group / marker_numbers


@pytest.mark.parametrize(
    ("inner", "expected"),
    [
        ("3", [3]),
        ("1, 2", [1, 2]),
        ("1-3", [1, 2, 3]),
        ("1 – 3", [1, 2, 3]),  # en dash with spaces
        ("2; 5", [2, 5]),
        ("1, 3-5", [1, 3, 4, 5]),
        ("5-3", [5, 3]),  # descending: endpoints only
        ("1-500", [1, 500]),  # a huge range is not expanded
    ],
)
def test_expand_group(inner, expected):
    assert expand_group(inner) == expected


def test_expand_group_largest_expanded_range():
    # a range spanning up to 100 steps is expanded, one more and only the endpoints stay
    assert expand_group("1-101") == list(range(1, 102))
    assert expand_group("1-102") == [1, 102]


def test_marker_numbers_in_order_with_repeats():
    text = "See [1-3] and [2; 5], not [x] or [a1], then [4]."
    assert marker_numbers(text) == [1, 2, 3, 2, 5, 4]
    assert order_of_first_appearance(text) == [1, 2, 3, 5, 4]
    assert marker_numbers("no markers (2019) here") == []


# ---------------------------------------------------------------- merge_adjacent_markers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("as in [1] [2].", "as in [1, 2]."),
        ("as in [1]; [2], [3].", "as in [1, 2, 3]."),
        ("as in [1][2].", "as in [1, 2]."),
        ("as in ([1]; [2]) and", "as in [1, 2] and"),
        ("as in ([3]) and", "as in [3] and"),
        ("as in [1, 2] [2] [4].", "as in [1, 2, 4]."),  # repeats inside one group dropped
        ("[1] and [2]", "[1] and [2]"),  # a word between: two groups
        ("[2] [1]", "[2, 1]"),  # order kept, not sorted
    ],
)
def test_merge_adjacent_markers(text, expected):
    assert merge_adjacent_markers(text) == expected


def test_merge_adjacent_markers_keeps_paragraph_breaks():
    assert merge_adjacent_markers("as in [1]\n\n[2] showed") == "as in [1]\n\n[2] showed"


# ---------------------------------------------------------------- renumber_markers


def test_renumber_markers_rewrites_through_mapping():
    assert renumber_markers("A [1], B [2] and C [1, 2].", {1: 2, 2: 1}) == "A [2], B [1] and C [2, 1]."


def test_renumber_markers_removes_unaligned_markers_and_the_space_before():
    assert renumber_markers("as shown [4].", {4: None}) == "as shown."
    assert renumber_markers("as shown [4].", {}) == "as shown."  # absent counts as None
    assert renumber_markers("X [1, 4] and Y\t[4] end", {1: 3, 4: None}) == "X [3] and Y end"
    assert renumber_markers("shown [4] [4].", {4: None}) == "shown."
    # ranges are expanded before mapping; a group whose numbers map to one keeps it once
    assert renumber_markers("see [1-3].", {1: 1, 2: None, 3: 1}) == "see [1]."


# ---------------------------------------------------------------- renumber_by_first_appearance


def test_renumber_by_first_appearance_orders_by_first_use():
    text, keys = renumber_by_first_appearance("Z [3] then X [1] and Y [2].", ["x", "y", "z"])
    assert text == "Z [1] then X [2] and Y [3]."
    assert keys == ["z", "x", "y"]


def test_renumber_by_first_appearance_merges_same_document():
    # markers 1 and 3 stand for the same document "A": both become [1], and [1] [1] merges to one.
    text, keys = renumber_by_first_appearance("B [2] then [1] and [3]; both [1] [3].", ["A", "B", "A"])
    assert keys == ["B", "A"]
    assert text == "B [1] then [2] and [2]; both [2]."


def test_renumber_by_first_appearance_drops_out_of_range_markers():
    text, keys = renumber_by_first_appearance("Known [1], unknown [9] and [0].", ["a"])
    assert text == "Known [1], unknown and."
    assert keys == ["a"]


def test_renumber_by_first_appearance_drops_markers_whose_key_is_none():
    text, keys = renumber_by_first_appearance("A [1] then B [2] and [1, 3].", [None, "b", "c"])
    assert text == "A then B [1] and [2]."
    assert keys == ["b", "c"]


def test_renumber_by_first_appearance_merges_adjacent_after_renumbering():
    text, keys = renumber_by_first_appearance("([2]; [1]) and [1] [2]", ["a", "b"])
    assert text == "[1, 2] and [2, 1]"
    assert keys == ["b", "a"]


# ---------------------------------------------------------------- titles


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("BERT: Pre-training of Deep Bidirectional Transformers", "bert pre training of deep bidirectional transformers"),
        ("Müller", "muller"),
        ("Café Société", "cafe societe"),
        (r"\textbf{BERT} and \emph{ELMo}", "bert and elmo"),
        ("{GPT}-2 Rocks!!", "gpt 2 rocks"),
        ("Pre-\ntraining", "pretraining"),  # hyphenation at a line break
        ("Pre- training", "pretraining"),
        ("  Lots   of\tspace ", "lots of space"),
        ("", ""),
        (None, ""),
        ("!!!", ""),
    ],
)
def test_normalize_title(title, expected):
    assert normalize_title(title) == expected


def test_normalize_title_latex_accents_match_unicode():
    assert normalize_title('M{\\"u}ller') == normalize_title("Müller")
    assert normalize_title("Caf{\\'e}") == normalize_title("Café")


def test_title_doc_id_is_sha1_of_normalised_title():
    expected = "t-" + hashlib.sha1(b"attention is all you need").hexdigest()[:16]
    assert title_doc_id("Attention Is All You Need") == expected == "t-37f63852cdfb0690"
    assert title_doc_id("Attention Is All You Need", prefix="aclbib") == "aclbib-37f63852cdfb0690"


def test_title_doc_id_equal_for_equivalent_titles_and_distinct_otherwise():
    a = title_doc_id("BERT: Pre-training of Deep Bidirectional Transformers")
    b = title_doc_id("bert -- pre training of deep  bidirectional transformers.")
    c = title_doc_id(r"\textbf{BERT}: Pre-Training of Deep Bidirectional Transformers")
    assert a == b == c
    assert title_doc_id("BERT: Pre-training of Deep Bidirectional Transformers") == a  # stable across calls
    assert title_doc_id("RoBERTa: A Robustly Optimized BERT Pretraining Approach") != a
