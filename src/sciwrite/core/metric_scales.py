"""Each metric's range and direction, declared once per benchmark (`BenchmarkSuite.scales`, read by its Hub tasks
and its results table), and the one check every writer and reader of results runs against it.

A value is on the paper's scale (0-1 for most metrics, never 0-100); `check_value` refuses what that scale makes
impossible (NaN, infinity, a number outside the range, text that is no number) with one line naming the metric, the
file and the record, so that no impossible number reaches a results table, the leaderboard or the Hub.
`check_summary` runs it over a summary's headline values and intervals, `check_rows` over per-paper rows, and
`check_means` recomputes each summary mean from the rows it was computed from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Summary

#: How far a summary's mean may be from the mean recomputed from its rows (float rounding, never a real change).
REL_TOLERANCE = 1e-9
ABS_TOLERANCE = 1e-9
#: How far past a bound a value may lie: float32 rounding. Cosine metrics (BERTScore, topical and contextual
#: relevance) are dot products of float32 unit vectors, and identical texts give up to 1.0000002.
RANGE_TOLERANCE = 1e-5

#: rows -> the summary value they give (None: no row has a value), for a metric that is not a plain mean.
Aggregate = Callable[[Sequence[PaperRow]], float | None]


def _bound(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class MetricScale:
    """A metric's range on the paper's scale (`lower`/`upper`, None: unbounded on that side), its direction, and,
    when its summary value is not the mean of its per-paper values, how the rows give it (`aggregate`)."""

    lower: float | None = 0.0
    upper: float | None = 1.0
    higher_is_better: bool = True
    aggregate: Aggregate | None = None

    @property
    def label(self) -> str:
        """The range as the cards print it: ``0-1``, ``-1 to 1``, ``>= 0``, ``any real number``."""
        if self.lower is not None and self.upper is not None:
            if self.lower >= 0:
                return f"{_bound(self.lower)}-{_bound(self.upper)}"
            return f"{_bound(self.lower)} to {_bound(self.upper)}"
        if self.lower is not None:
            return f">= {_bound(self.lower)}"
        if self.upper is not None:
            return f"<= {_bound(self.upper)}"
        return "any real number"

    def contains(self, value: float) -> bool:
        """Whether a finite `value` lies in the range (bounds included, give or take float rounding,
        `RANGE_TOLERANCE`: a perfect corpus BLEU is 1.0000000000000004, a float32 cosine of a text with itself
        1.0000002)."""
        return ((self.lower is None or value >= self.lower - RANGE_TOLERANCE)
                and (self.upper is None or value <= self.upper + RANGE_TOLERANCE))

    def summary_value(self, metric: str, rows: Sequence[PaperRow]) -> float | None:
        """The summary value `rows` give: `aggregate`, or the mean over the rows that have a value."""
        if self.aggregate is not None:
            return self.aggregate(rows)
        values = [value for row in rows if (value := row.value(metric)) is not None]
        return sum(values) / len(values) if values else None


#: What is known of a metric no benchmark declares a scale for: any finite number.
UNDECLARED = MetricScale(None, None)


def _hint(scale: MetricScale, value: float) -> str:
    if scale.upper == 1 and 1 < value <= 100:
        return f"it is on the 0-1 scale, not 0-100 (write {value / 100:g}, not {value:g})"
    return "correct the value, or recompute it with `sciwrite evaluate`"


def check_value(metric: str, value: Any, scale: MetricScale | None, where: Where, *,
                text_numbers: bool = False) -> float | None:
    """`value` as a float when it is a finite number in the metric's range; None stays None (not computed).
    `text_numbers`: a number written as text counts as that number (YAML 1.1 reads ``1e308`` as text); JSON, which
    sciwrite writes, never holds one. Anything else raises `InputError` naming the metric and `where`."""
    if value is None:
        return None
    scale = scale or UNDECLARED
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InputError(f"{metric} is {value!r}, not a number", where, "give a number on the scale "
                                                                      f"{scale.label}")
    try:
        if isinstance(value, str) and not text_numbers:
            raise ValueError(value)
        number = float(value)
    except (ValueError, OverflowError):
        raise InputError(f"{metric} is the text {value!r}, not a number", where,
                         f"give a number on the scale {scale.label}") from None
    if not math.isfinite(number):
        raise InputError(f"{metric} is {number!r}, not a finite number", where,
                         "a metric that could not be computed is left out (or null), never NaN or infinity")
    if not scale.contains(number):
        raise InputError(f"{metric} is {number!r}, outside its range {scale.label}", where, _hint(scale, number))
    return number


def _at(where: Where, **changes: Any) -> Where:
    return Where(**{**where.__dict__, **changes})


def check_summary(summary: Summary, scales: Mapping[str, MetricScale], metrics: Iterable[str],
                  where: Where) -> None:
    """Every value of `metrics` in a summary, and each one's interval bounds, in its range (`check_value`)."""
    for metric in metrics:
        scale = scales.get(metric)
        check_value(metric, summary.reported(metric), scale, _at(where, field=metric))
        interval = summary.intervals.of(metric) if summary.intervals is not None else None
        for bound in (interval.low, interval.high) if interval is not None else ():
            check_value(f"{metric}'s interval bound", bound, scale, _at(where, field=f"intervals.{metric}"))


def check_rows(rows: Sequence[PaperRow], scales: Mapping[str, MetricScale], metrics: Iterable[str],
               path: str | Path, lines: Sequence[int] | None = None) -> None:
    """Every per-paper value of `metrics` in its range; an error names the file, the line and the paper."""
    wanted = tuple(metrics)
    for index, row in enumerate(rows):
        where = Where(path=path, line=lines[index] if lines else index + 1, record=str(row.paper_id))
        for metric in wanted:
            check_value(metric, row.reported(metric), scales.get(metric), _at(where, field=metric))


def check_means(summary: Summary, rows: Sequence[PaperRow], scales: Mapping[str, MetricScale],
                metrics: Iterable[str], where: Where, rows_path: str | Path) -> None:
    """Each summary value of `metrics` is what its per-paper rows give (`MetricScale.summary_value`, within float
    tolerance); a summary value no row supports, or a different one, raises `InputError` naming both."""
    for metric in metrics:
        stated = summary.reported(metric)
        if stated is None:
            continue
        recomputed = (scales.get(metric) or UNDECLARED).summary_value(metric, rows)
        if recomputed is None:
            raise InputError(f"{metric} is {stated!r} in the summary, but no per-paper row of {rows_path} has a "
                             f"{metric} value", _at(where, field=metric),
                             "import the folder `sciwrite evaluate` wrote, unedited, or evaluate again")
        if not math.isclose(float(stated), recomputed, rel_tol=REL_TOLERANCE, abs_tol=ABS_TOLERANCE):
            raise InputError(f"{metric} is {float(stated):g} in the summary, but its per-paper rows ({rows_path}) "
                             f"give {recomputed:g}", _at(where, field=metric),
                             "import the folder `sciwrite evaluate` wrote, unedited, or evaluate again")


__all__ = ["ABS_TOLERANCE", "RANGE_TOLERANCE", "REL_TOLERANCE", "UNDECLARED", "Aggregate", "MetricScale", "check_means", "check_rows",
           "check_summary", "check_value"]
