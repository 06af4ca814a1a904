"""Each metric's range and direction, declared once per benchmark (`BenchmarkSuite.scales`, read by its Hub tasks
and its results table), and the one check every writer and reader of results runs against it.

A value is on the paper's scale (0-1 for most metrics, never 0-100); `check_value` refuses what that scale makes
impossible (NaN, infinity, a number outside the range, text that is no number) with one line naming the metric, the
file and the record, so that no impossible number reaches a results table, the leaderboard or the Hub.
`check_result` is the one check of a result, run wherever a summary and its per-paper rows are written, read,
stored, pushed or laid out: it runs `check_value` over every number of the summary, its nested blocks and its rows
(where each may lie: `SUMMARY_FIELDS`, `ROW_FIELDS`), checks counts against the split and intervals against their
values (`SUMMARY_INTERVALS`), and `check_means` recomputes each results-table value from the rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Summary, is_number

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
        number = value if isinstance(value, int) else float(value)  # an int of any size is finite
    except (ValueError, OverflowError):
        raise InputError(f"{metric} is the text {value!r}, not a number", where,
                         f"give a number on the scale {scale.label}") from None
    if isinstance(number, float) and not math.isfinite(number):
        raise InputError(f"{metric} is {number!r}, not a finite number", where,
                         "a metric that could not be computed is left out (or null), never NaN or infinity")
    if not scale.contains(number):
        raise InputError(f"{metric} is {number!r}, outside its range {scale.label}", where, _hint(scale, number))
    return number


def _at(where: Where, **changes: Any) -> Where:
    return Where(**{**where.__dict__, **changes})


# -- the one check of a result: a summary with its per-paper rows ----------------------------------------------------

#: A place in a JSON document: object keys, and list positions (ints).
JsonPath = tuple[str | int, ...]
#: A list position in a path pattern (``*`` is any key, a trailing ``**`` anything below).
ITEM = "#"


@dataclass(frozen=True)
class FieldKind:
    """What a field of a result may hold: a number in `scale`, a whole one (`whole`), a count of the split's papers
    (`papers`: never more than the split holds), or a metric's value, on the scale of the metric the
    `metric_at`-th part of its path names. `typed` False: anything (text, lists), its numbers only finite."""

    scale: MetricScale = UNDECLARED
    whole: bool = False
    papers: bool = False
    metric_at: int | None = None
    typed: bool = True


COUNT = FieldKind(MetricScale(0.0, None), whole=True)
PAPERS = FieldKind(MetricScale(0.0, None), whole=True, papers=True)
SHARE = FieldKind(MetricScale(0.0, 1.0))
AMOUNT = FieldKind(MetricScale(0.0, None))
CORRELATION = FieldKind(MetricScale(-1.0, 1.0))
FREE = FieldKind(typed=False)


def metric(at: int) -> FieldKind:
    """A metric's value, on the declared scale of the metric the `at`-th part of its path names."""
    return FieldKind(metric_at=at)


#: Where a summary holds a number, and what it may be: the first pattern that matches a field's path wins (a metric
#: no benchmark declares falls through). A number no pattern names is any finite number, and a whole one a count
#: (never negative).
SUMMARY_FIELDS: tuple[tuple[str, FieldKind], ...] = (
    ("provenance.**", FREE),  # how the scores were made (seeds, the machine): any finite number
    ("llm_requests.*.adjustments.**", FREE),  # request parameters an endpoint changed, as asked and as sent
    ("schema_version", COUNT), ("n_papers", PAPERS), ("n_resamples", COUNT), ("confidence", SHARE),
    ("intervals.*.#", metric(1)),
    ("coverage.n_scored", PAPERS), ("coverage.n_split", COUNT),
    ("join.n_matched", PAPERS), ("join.n_*", COUNT),
    ("grounding.counts.*", COUNT), ("grounding.n_papers", PAPERS), ("grounding.n_papers_listing", PAPERS),
    ("grounding.n_*", COUNT), ("grounding.threshold", SHARE), ("grounding.confidence", SHARE),
    ("grounding.intervals.*.#", metric(2)), ("grounding.*", metric(1)), ("grounding.*_rate", SHARE),
    ("memorisation.n", COUNT), ("memorisation.n_papers", PAPERS), ("memorisation.papers_at_least_half", PAPERS),
    ("memorisation.max_span_words", COUNT), ("memorisation.mean", SHARE), ("memorisation.median", SHARE),
    ("memorisation.interval.#", SHARE), ("memorisation.top.#.memorisation", SHARE),
    ("memorisation.top.#.memorised_span_words", COUNT),
    ("judge_panel.samples", COUNT), ("judge_panel.samples_asked", COUNT),
    ("judge_panel.criteria.*.judges.*.n_papers", PAPERS), ("judge_panel.criteria.*.judges.*.mean", metric(2)),
    ("judge_panel.criteria.*.judges.*.interval.#", metric(2)),
    ("judge_panel.criteria.*.krippendorff_alpha_ordinal", CORRELATION),
    ("judge_panel.criteria.*.judge_noise_share", SHARE), ("judge_panel.criteria.*.within_paper_sd", AMOUNT),
    ("cutoff.n_before", PAPERS), ("cutoff.n_after", PAPERS), ("cutoff.metrics.*.n_a", PAPERS),
    ("cutoff.metrics.*.n_b", PAPERS), ("cutoff.metrics.*.mean_a", metric(2)), ("cutoff.metrics.*.mean_b", metric(2)),
    ("cutoff.metrics.*.interval_a.#", metric(2)), ("cutoff.metrics.*.interval_b.#", metric(2)),
    ("cutoff.metrics.*.p_value", SHARE), ("cutoff.metrics.*.p_holm", SHARE),
    ("llm_usage.requests", COUNT), ("llm_usage.*_tokens", COUNT), ("llm_usage.unpriced_requests", COUNT),
    ("llm_usage.cost_usd", AMOUNT), ("llm_usage.by_model.*.requests", COUNT),
    ("llm_usage.by_model.*.cost_usd", AMOUNT), ("judge_snapshots.*", COUNT),
    ("*", metric(0)),  # a metric's mean, or another number beside them
)

#: Where a per-paper row holds a number, and what it may be (as `SUMMARY_FIELDS`).
ROW_FIELDS: tuple[tuple[str, FieldKind], ...] = (
    ("judge_panel.*.*.#", metric(2)),  # each judge's repeated scores of the paper, on the criterion's scale
    ("*", metric(0)), ("grounding_*_rate", SHARE),
)


@dataclass(frozen=True)
class IntervalRule:
    """Where a result holds an interval and the value it surrounds: `bounds` is a ``[low, high]`` list (or, with
    `high`, the low bound's own field), `value` the path of the value, its ``*`` filled in order with the keys the
    bounds' ``*`` matched."""

    bounds: str
    value: str
    high: str | None = None


#: Every interval a summary holds: each lies in order (low <= high) and holds its value (low <= value <= high).
SUMMARY_INTERVALS: tuple[IntervalRule, ...] = (
    IntervalRule("intervals.*", "*"),
    IntervalRule("grounding.intervals.*", "grounding.*"),
    IntervalRule("memorisation.interval", "memorisation.mean"),
    IntervalRule("judge_panel.criteria.*.judges.*.interval", "judge_panel.criteria.*.judges.*.mean"),
    IntervalRule("cutoff.metrics.*.interval_a", "cutoff.metrics.*.mean_a"),
    IntervalRule("cutoff.metrics.*.interval_b", "cutoff.metrics.*.mean_b"),
    IntervalRule("cutoff.metrics.*.ci_low", "cutoff.metrics.*.difference", high="cutoff.metrics.*.ci_high"),
)


#: What to do about a result that is not what `sciwrite evaluate` writes.
_REDO = "give the result as `sciwrite evaluate` wrote it, unedited, or evaluate again"


@dataclass(frozen=True)
class ResultRules:
    """What a benchmark's results may hold, read off its metric declarations: each metric's range (`scales`), the
    metrics whose summary value its per-paper rows must give (`recomputed`: the results table's), and where the
    board's extra columns are read (`extra_values`: summary -> {metric: (mean, low, high)})."""

    scales: Mapping[str, MetricScale]
    recomputed: tuple[str, ...] = ()
    extra_values: Callable[[Summary], Mapping[str, tuple[Any, Any, Any]]] | None = None


def check_result(summary: Summary, rows: Sequence[PaperRow] | None, rules: ResultRules, *,
                 summary_path: str | Path, rows_path: str | Path | None = None,
                 row_lines: Sequence[int] | None = None) -> None:
    """The one check of a result, run wherever a summary and its per-paper rows are written, read, stored, pushed or
    laid out: every field of the right type; each metric's value (the summary's, its blocks', each row's) in its
    declared range; every count whole, never negative, and a count of papers never more than the split holds;
    every interval in order and holding its value; every number finite, nested ones included; each results-table
    value what its rows give (`check_means`). `rows` None: a summary that comes without rows (a model's
    self-reported Hub scores). The first problem raises `InputError` naming the file, the record (the summary's
    system, or the row's paper and line) and the field."""
    where = Where(path=summary_path, record=summary.system)
    split = summary.scored.total
    documents = ([summary.raw] if summary.raw is not None else []) + [summary.to_json()]
    papers = [_check_fields(document, SUMMARY_FIELDS, rules.scales, where) for document in documents]
    for key, values in (rules.extra_values(summary) if rules.extra_values is not None else {}).items():
        for value in values:
            check_value(key, value, rules.scales.get(key), _at(where, field=key))
    if rows is not None:
        _check_rows(summary, rows, rules, where, rows_path if rows_path is not None else summary_path, row_lines)
    for document, counted in zip(documents, papers, strict=True):
        _check_split(counted, split, where)
        for rule in SUMMARY_INTERVALS:
            _check_intervals(document, rule, rules.scales, where)


def _check_rows(summary: Summary, rows: Sequence[PaperRow], rules: ResultRules, where: Where, rows_path: str | Path,
                row_lines: Sequence[int] | None) -> None:
    """No more rows than the split has papers, each row's fields (`_check_fields`), and each results-table value
    of the summary (at `where`) what the rows give (`check_means`)."""
    split = summary.scored.total
    if split is not None and len(rows) > split:
        raise InputError(f"holds {len(rows)} per-paper rows, more than the split's {split} papers",
                         Where(path=rows_path, record=summary.system), _REDO)
    for index, row in enumerate(rows):
        line = row_lines[index] if row_lines else index + 1
        _check_fields(row.to_json(), ROW_FIELDS, rules.scales,
                      Where(path=rows_path, line=line, record=str(row.paper_id)))
    check_means(summary, rows, rules.scales, rules.recomputed, where, rows_path)


def _check_fields(document: Mapping[str, Any], fields: Sequence[tuple[str, FieldKind]],
                  scales: Mapping[str, MetricScale], where: Where) -> list[tuple[JsonPath, int]]:
    """Every field of one JSON document (a summary or a row) as `fields` says (`_visit`); returns its counts of
    papers, for `_check_split`."""
    papers: list[tuple[JsonPath, int]] = []
    _visit(document, (), _compiled(tuple(fields)), scales, where, papers, free=False)
    return papers


def _check_split(papers: Sequence[tuple[JsonPath, int]], split: int | None, where: Where) -> None:
    """No count of papers more than the split holds (None: its size is unknown)."""
    for path, count in papers:
        if split is not None and count > split:
            raise InputError(f"{_name(path)} is {count}, more than the split's {split} papers",
                             _at(where, field=_name(path)), _REDO)


def _visit(node: Any, path: JsonPath, rules: Sequence[tuple[tuple[str, ...], FieldKind]],
           scales: Mapping[str, MetricScale], where: Where, papers: list[tuple[JsonPath, int]], *,
           free: bool) -> None:
    """`node` checked against the first rule matching `path`, or, where none names it, each number below it
    finite and each whole one (outside a `FREE` field) a count."""
    kind = _kind(path, rules, scales) if path else None
    if kind is not None and kind.typed:
        _check_number(node, path, kind, _at(where, field=_name(path)), papers)
        return
    free = free or kind is FREE
    if isinstance(node, Mapping):
        for key, item in node.items():
            _visit(item, (*path, str(key)), rules, scales, where, papers, free=free)
    elif isinstance(node, list | tuple):
        for index, item in enumerate(node):
            _visit(item, (*path, index), rules, scales, where, papers, free=free)
    elif is_number(node):
        count = not free and isinstance(node, int)
        _check_number(node, path, COUNT if count else FieldKind(), _at(where, field=_name(path)), papers)


def _check_number(value: Any, path: JsonPath, kind: FieldKind, where: Where,
                  papers: list[tuple[JsonPath, int]]) -> None:
    """`value` a number of `kind` (None: not computed); a count of papers is kept for the split's check."""
    number = check_value(_name(path), value, kind.scale, where)
    if number is None:
        return
    if kind.whole and not isinstance(value, int):
        raise InputError(f"{_name(path)} is {value!r}, not a whole number", where, "a count is a whole number")
    if kind.papers:
        papers.append((path, value))


def _kind(path: JsonPath, rules: Sequence[tuple[tuple[str, ...], FieldKind]],
          scales: Mapping[str, MetricScale]) -> FieldKind | None:
    """The kind of the first rule matching `path` (a metric's: its declared scale; a metric no benchmark declares
    falls through to the next rule); None when no rule matches."""
    for pattern, kind in rules:
        if not _matches(pattern, path):
            continue
        if kind.metric_at is None:
            return kind
        scale = scales.get(str(path[kind.metric_at]))
        if scale is not None:
            return FieldKind(scale)
    return None


def _pattern(text: str) -> tuple[str, ...]:
    return tuple(text.split("."))


@lru_cache(maxsize=8)
def _compiled(fields: tuple[tuple[str, FieldKind], ...]) -> tuple[tuple[tuple[str, ...], FieldKind], ...]:
    """`fields` with each pattern split into its parts (once per table, not once per row)."""
    return tuple((_pattern(text), kind) for text, kind in fields)


def _matches(pattern: Sequence[str], path: JsonPath) -> bool:
    """Whether `path` matches `pattern` (``*`` any key, ``#`` any list position, a trailing ``**`` anything
    below); a part is matched as a shell pattern (``n_*``)."""
    if pattern[-1] == "**":
        return len(path) >= len(pattern) and _matches(pattern[:-1], path[:len(pattern) - 1])
    if len(pattern) != len(path):
        return False
    return all(wanted == ITEM if isinstance(part, int)
               else part == wanted if not any(c in wanted for c in "*?[") else fnmatchcase(part, wanted)
               for part, wanted in zip(path, pattern))


def _name(path: JsonPath) -> str:
    """``memorisation.top[0].memorisation``: a path as messages name a field."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" if i else part
                   for i, part in enumerate(path))


def _found(node: Any, pattern: Sequence[str], path: JsonPath = (),
           captured: tuple[str, ...] = ()) -> Iterator[tuple[JsonPath, Any, tuple[str, ...]]]:
    """Each (path, value, the keys its ``*`` matched) of `node` that `pattern` names."""
    if not pattern:
        yield path, node, captured
        return
    head, rest = pattern[0], pattern[1:]
    if isinstance(node, Mapping):
        for key, item in node.items():
            if head == "*" or head == key:
                yield from _found(item, rest, (*path, str(key)), (*captured, str(key)) if head == "*" else captured)
    elif isinstance(node, list | tuple) and head == ITEM:
        for index, item in enumerate(node):
            yield from _found(item, rest, (*path, index), captured)


def _at_path(node: Any, pattern: Sequence[str], captured: Sequence[str]) -> tuple[JsonPath, Any]:
    """The path `pattern` names once its ``*`` are filled with `captured`, and what `node` holds there (None)."""
    keys, fill = [], iter(captured)
    for part in pattern:
        keys.append(next(fill) if part == "*" else part)
    value = node
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return tuple(keys), value


def _check_intervals(document: Mapping[str, Any], rule: IntervalRule, scales: Mapping[str, MetricScale],
                     where: Where) -> None:
    """Each interval `rule` names: a ``[low, high]`` pair of numbers (or nulls: not computed), low <= high, and
    holding its value (not checked for a metric whose summary value is not a mean of the rows it resamples)."""
    for path, bounds, captured in _found(document, _pattern(rule.bounds)):
        at = _at(where, field=_name(path))
        if rule.high is not None:
            bounds = [bounds, _at_path(document, _pattern(rule.high), captured)[1]]
        if bounds is None:
            continue
        if not isinstance(bounds, list | tuple) or len(bounds) != 2 or not all(
                bound is None or is_number(bound) for bound in bounds):
            raise InputError(f"{_name(path)} is {bounds!r}, not an interval [low, high]", at, _REDO)
        low, high = bounds
        if low is None or high is None:
            continue
        if low > high:
            raise InputError(f"{_name(path)} is [{low:g}, {high:g}]: its low bound is above its high bound", at, _REDO)
        value_path, value = _at_path(document, _pattern(rule.value), captured)
        if not is_number(value) or any(getattr(scales.get(key), "aggregate", None) for key in captured):
            continue
        slack = max(ABS_TOLERANCE, REL_TOLERANCE * abs(value))
        if not low - slack <= value <= high + slack:
            raise InputError(f"{_name(path)} is [{low:g}, {high:g}], which does not hold its value "
                             f"{_name(value_path)} {value:g}", at, _REDO)


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


__all__ = ["ABS_TOLERANCE", "AMOUNT", "CORRELATION", "COUNT", "FREE", "PAPERS", "RANGE_TOLERANCE", "REL_TOLERANCE",
           "ROW_FIELDS", "SHARE", "SUMMARY_FIELDS", "SUMMARY_INTERVALS", "UNDECLARED", "Aggregate", "FieldKind",
           "IntervalRule", "MetricScale", "ResultRules", "check_means", "check_result", "check_value", "metric"]
