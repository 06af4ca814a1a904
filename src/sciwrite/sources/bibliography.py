"""Bibliographic fields as they come in the wild: author lists and years written many ways."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

_AUTHOR_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*;\s*")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
MIN_YEAR, MAX_YEAR = 1000, 2999


def parse_authors(value: Any) -> list[str]:
    """Authors as a list of names: a list is kept (names stripped), a string is split on ', ', ' and ', '; '."""
    if value is None:
        return []
    if isinstance(value, str):
        parts = _AUTHOR_SEPARATOR.split(value.strip())
    elif isinstance(value, Iterable):
        parts = [str(v) for v in value if v is not None]
    else:
        parts = [str(value)]
    return [p.strip() for p in parts if p and p.strip()]


def parse_year(value: Any) -> int | None:
    """A year from an int, a float, or a string such as '2019' or '2019-05-12T00:00:00Z'; None if there is none.

    Integers outside 1000..2999 (0 and -1 are common "unknown" sentinels) count as missing.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or int(value) != value:
            return None
        year = int(value)
    else:
        match = _YEAR.search(str(value))
        if not match:
            return None
        year = int(match.group(1))
    return year if MIN_YEAR <= year <= MAX_YEAR else None
