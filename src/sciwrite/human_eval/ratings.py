"""Rating studies (SciIG §7): the mean rating of each dimension per system, over every rating given, with the
number of ratings behind it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any


def mean_ratings(key: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]
                 ) -> dict[tuple[str, str], dict[str, Any]]:
    """The mean rating per (dimension, system), over every rating of the system's texts on that dimension.

    Returns:
        (dimension, system) -> ``mean``, ``n`` (ratings) and ``comments`` (ratings with a comment).
    """
    system_of = {k["task_id"]: k["system"] for k in key}
    ratings: dict[tuple[str, str], list[int]] = defaultdict(list)
    comments: dict[tuple[str, str], int] = defaultdict(int)
    for answer in answers:
        cell = (answer["dimension"], system_of[answer["task_id"]])
        ratings[cell].append(int(answer["rating"]))
        comments[cell] += bool((answer.get("comment") or "").strip())
    return {cell: {"mean": sum(values) / len(values), "n": len(values), "comments": comments[cell]}
            for cell, values in ratings.items()}


__all__ = ["mean_ratings"]
