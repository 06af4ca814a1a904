"""Numeric citation markers `[k]` in normalised related-work text: writing, merging and renumbering them."""

from __future__ import annotations

import re
from collections.abc import Mapping

# A citation number: at most nine digits. A longer run of digits in brackets is no marker (and Python refuses to
# read a number of more than 4,300 digits as an int).
_NUMBER = r"\d{1,9}"
#: What one marker bracket holds: numbers separated by commas/semicolons, or ranges: 3 / 1, 2 / 1-3 / 2; 5.
MARKER_NUMBERS = rf"{_NUMBER}(?:\s*[-–,;]\s*{_NUMBER})*"
# One bracket holding them: [3], [1, 2], [1-3], [2; 5].
MARKER_GROUP = re.compile(rf"\[({MARKER_NUMBERS})\]")
# Markers standing next to each other on one line, separated only by spaces, commas or semicolons.
_ADJACENT = re.compile(rf"\[({_NUMBER}(?:, {_NUMBER})*)\](?:[ \t,;]*\[({_NUMBER}(?:, {_NUMBER})*)\])+")
_PARENTHESISED = re.compile(rf"\([ \t]*((?:\[{_NUMBER}(?:, {_NUMBER})*\][ \t,;]*)+)\)")
_SEPARATOR = re.compile(r"\s*[,;]\s*")
#: The widest range a group expands ([1-100] is 100 citations); a wider or descending one keeps its endpoints.
MAX_RANGE = 100


def group_spans(inner: str) -> list[tuple[int, int]]:
    """'1, 3-5' -> [(1, 1), (3, 5)]: each number or expanded range of a marker group (what `MARKER_GROUP`
    captures) as (first, last), in order; a descending range or one wider than `MAX_RANGE` gives its endpoints as
    two numbers; a part that is neither is left out. String methods rather than a regex per part: a text may hold a
    million markers."""
    if inner.isdigit():  # "[3]", nearly every marker
        return [(int(inner), int(inner))]
    spans: list[tuple[int, int]] = []
    for part in _SEPARATOR.split(inner) if ("," in inner or ";" in inner) else (inner,):
        first, dash, last = part.replace("\u2013", "-").partition("-")
        try:
            lo, hi = int(first), int(last if dash else first)  # int() allows the spaces around a dash
        except ValueError:
            continue
        if not dash:
            spans.append((lo, lo))
        elif 0 < hi - lo <= MAX_RANGE:
            spans.append((lo, hi))
        else:
            spans += [(lo, lo), (hi, hi)]
    return spans


def expand_group(inner: str) -> list[int]:
    """'1, 3-5' -> [1, 3, 4, 5] (`group_spans`, each span's numbers)."""
    numbers: list[int] = []
    for lo, hi in group_spans(inner):
        numbers.extend(range(lo, hi + 1))
    return numbers


def marker_numbers(text: str) -> list[int]:
    """Every marker number in `text`, in order of occurrence (with repeats)."""
    numbers: list[int] = []
    for inner in MARKER_GROUP.findall(text):  # findall, no match objects: markers by the million stay fast
        if inner.isdigit():
            numbers.append(int(inner))
        else:
            for lo, hi in group_spans(inner):
                numbers.extend(range(lo, hi + 1))
    return numbers


def neutralize_markers(text: str) -> str:
    """'[0, 1]' -> '(0, 1)': source text that only looks like a marker (an interval, an enumeration, an
    unresolved numeric citation) must not be read as one, so its brackets become parentheses."""
    return MARKER_GROUP.sub(lambda m: f"({m.group(1)})", text)


def merge_adjacent_markers(text: str) -> str:
    """'([1]; [2])' and '[1] [2]' -> '[1, 2]': one bracket per citation group, as numeric styles write it."""

    def _merge(match: re.Match[str]) -> str:
        numbers = [n for m in MARKER_GROUP.finditer(match.group(0)) for n in expand_group(m.group(1))]
        return "[" + ", ".join(str(n) for n in dict.fromkeys(numbers)) + "]"

    text = _PARENTHESISED.sub(lambda m: _merge(m), text)
    return _ADJACENT.sub(_merge, text)


def renumber_markers(text: str, mapping: Mapping[int, int | None]) -> str:
    """Rewrite every marker number through `mapping`; numbers mapped to None (or absent) are removed.

    A bracket left empty disappears together with one space before it, so "as shown [4]." becomes
    "as shown." when citation 4 could not be aligned to the corpus.
    """

    def _rewrite(match: re.Match[str]) -> str:
        new = [mapping.get(n) for n in expand_group(match.group(1))]
        kept = [str(n) for n in dict.fromkeys(x for x in new if x is not None)]
        return "[" + ", ".join(kept) + "]" if kept else "\0"

    out = MARKER_GROUP.sub(_rewrite, text)
    return re.sub(r"[ \t]?\0", "", out)


def order_of_first_appearance(text: str) -> list[int]:
    """Distinct marker numbers in the order they first occur."""
    return list(dict.fromkeys(marker_numbers(text)))


def renumber_by_first_appearance(text: str, keys: list[str | None]) -> tuple[str, list[str]]:
    """Renumber markers so that [1] is the first cited key, [2] the next new one, ...

    `keys[k-1]` is the identifier marker [k] stands for; markers pointing to the same identifier merge,
    and markers whose key is None (a work not in the corpus) or out of range are removed.
    Returns the new text and the identifiers in order of first appearance.
    """
    ordered: list[str] = []
    index_of: dict[str, int] = {}
    mapping: dict[int, int | None] = {}
    for n in order_of_first_appearance(text):
        key = keys[n - 1] if 1 <= n <= len(keys) else None
        if key is None:
            mapping[n] = None
            continue
        if key not in index_of:
            ordered.append(key)
            index_of[key] = len(ordered)
        mapping[n] = index_of[key]
    return merge_adjacent_markers(renumber_markers(text, mapping)), ordered
