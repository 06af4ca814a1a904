"""Paired comparison of systems on the papers they both scored: the one comparison that ``sciwrite compare`` and
the leaderboard's Compare tab run.

The first system is the baseline. For every other system and metric: the mean difference (system - baseline), its
paired-bootstrap interval, a paired permutation test p-value and the Holm-adjusted p-value across the metrics
compared (`sciwrite.stats.paired_results`).

What is refused, naming the problem: systems of different benchmarks or splits (always); systems whose summaries'
provenance differ (dataset content, profile, models, judge, prompts) unless the caller allows mixed provenance;
systems with no paper in common; a score that is not a finite number or null (reading the files, a paper on two
lines and a row without a paper_id: `sciwrite.scoring.per_paper_files`). The dataset content is compared when both summaries fingerprint its rows; an older summary's
fingerprint is not, and a note says so (`sciwrite.core.provenance.content_unchecked`). A paper without a value
(null) for a metric is left out of that metric, and a note names it.

Everything here is in memory and typed (`Comparison`, `MetricDifference`, `ProvenanceCheck`); the callers print
it, write it as JSON or CSV (`Comparison.rows`) or show it on a page. The benchmark is asked through its
`Benchmark` object, never by name.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.core.errors import InputError, Where
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.provenance import content_unchecked, provenance_differences, snapshot_changes
from sciwrite.core.summary import MetricValue
from sciwrite.stats import paired_results

#: Papers named in a note before "and N more".
NAMED_PAPERS = 5


@dataclass(frozen=True)
class SystemScores:
    """One system's per-paper scores, ready to pair.

    Attributes:
        name: The system's name in messages.
        rows: paper_id -> the paper's `PaperRow`, in the system's paper order.
        benchmark: The benchmark the system was scored on.
        split: The split (dataset config) it was scored on; None when not known.
        provenance: Its summary's provenance block; None for a summary without one.
        path: The file the rows came from (for error messages); None for rows held elsewhere.
        lines: paper_id -> its line in `path`.
    """

    name: str
    rows: Mapping[str, PaperRow]
    benchmark: str
    split: str | None = None
    provenance: Mapping[str, Any] | None = None
    path: Path | None = None
    lines: Mapping[str, int] = field(default_factory=dict)

    def where(self, paper_id: str, field: str) -> Where:
        """Where a paper's `field` is, for an error message."""
        return Where(path=self.path, line=self.lines.get(paper_id), record=paper_id, field=field)


@dataclass(frozen=True)
class MetricDifference:
    """One system against the baseline on one metric, over the papers both scored with a value.

    Attributes:
        system: The system's name.
        baseline: The baseline's name.
        metric: The metric's key.
        n_papers: Shared papers with a value on both sides.
        baseline_mean: The baseline's mean over those papers (None without any).
        system_mean: The system's mean over those papers.
        difference: The mean of system - baseline.
        ci_low: The paired percentile-bootstrap interval's lower end (None with fewer than 2 papers).
        ci_high: Its upper end.
        p_value: The paired permutation test's two-sided p-value.
        p_holm: The p-value Holm-adjusted across the metrics compared.
    """

    system: str
    baseline: str
    metric: str
    n_papers: int
    baseline_mean: float | None
    system_mean: float | None
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_holm: float | None


@dataclass(frozen=True)
class ProvenanceCheck:
    """How one system's provenance compares with the baseline's, once it passed (`check_provenance`).

    Attributes:
        system: The system's name.
        baseline: The baseline's name.
        without_provenance: The name of the side whose summary has no provenance (nothing was checked); else None.
        differences: What differs and was allowed (mixed provenance), one line each.
        snapshot_change: The judge snapshots that changed (the same judge model), or None.
        content_unchecked: Why the dataset content was not compared, or None.
    """

    system: str
    baseline: str
    without_provenance: str | None = None
    differences: tuple[str, ...] = ()
    snapshot_change: str | None = None
    content_unchecked: str | None = None

    def notes(self) -> list[str]:
        """The check as ``warning:`` / ``note:`` lines, as ``sciwrite compare`` prints them."""
        if self.without_provenance is not None:
            return [f"note: {self.without_provenance} has no provenance (a summary written before schema 1): "
                    "comparability unchecked"]
        pair = f"{self.system} vs {self.baseline}"
        lines = [f"warning: {pair}: {line}" for line in self.differences]
        lines += [f"warning: {pair}: {self.snapshot_change}"] if self.snapshot_change else []
        lines += [f"note: {pair}: {self.content_unchecked}"] if self.content_unchecked else []
        return lines

    def scored_differently(self) -> list[str]:
        """What differs, the changed judge snapshots included (what the leaderboard shows beside its table)."""
        return [*self.differences, *([self.snapshot_change] if self.snapshot_change else [])]


@dataclass(frozen=True)
class Comparison:
    """Systems against a baseline, metric by metric.

    Attributes:
        benchmark: The benchmark's name.
        baseline: The baseline's name (as shown).
        systems: The other systems' names (as shown), in order.
        metrics: The metrics compared, in order (Holm's adjustment runs across them).
        differences: One per (system, metric), systems in order, metrics in order within each.
        provenance: One check per other system.
        left_out: Notes on the benchmark's metrics not compared (a system has no value for them).
        missing: Notes on the shared papers left out of a metric (no value on one side).
        n_resamples: Bootstrap resamples and permutations.
        confidence: The intervals' level.
    """

    benchmark: str
    baseline: str
    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    differences: tuple[MetricDifference, ...]
    provenance: tuple[ProvenanceCheck, ...] = ()
    left_out: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    n_resamples: int = 1000
    confidence: float = 0.95

    def rows(self) -> list[dict[str, Any]]:
        """The differences as plain rows (one dict each, the `MetricDifference` fields), for a table or a file."""
        return [asdict(difference) for difference in self.differences]

    def by_metric(self, system: str | None = None) -> dict[str, MetricDifference]:
        """metric -> `system`'s difference from the baseline (default: the first other system)."""
        system = self.systems[0] if system is None else system
        return {d.metric: d for d in self.differences if d.system == system}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def numeric_keys(rows: Mapping[str, PaperRow]) -> set[str]:
    """The keys of the numbers (not a bool, not None) that at least one row holds: the metrics a system scored."""
    return {key for row in rows.values() for key, value in row.values.items() if value is not None}


def check_same_benchmark(systems: Sequence[SystemScores], asked: str | None = None) -> str:
    """The one benchmark every system was scored on (and `asked`, when given), and one split among the systems
    whose split is known; an error naming the odd ones."""
    expected = asked or systems[0].benchmark
    odd = [f"{s.name} ({s.benchmark})" for s in systems if s.benchmark != expected]
    if odd:
        raise ValueError(f"compare needs systems of one benchmark: {', '.join(odd)} not {expected}; a difference "
                         "between two benchmarks' scores means nothing (both must be scored on the same benchmark "
                         "and split)")
    splits = [s.split for s in systems if s.split is not None]
    odd = [f"{s.name} ({s.split})" for s in systems if s.split is not None and s.split != splits[0]]
    if odd:
        raise ValueError(f"compare needs systems of one split: {', '.join(odd)} not {splits[0]}; both must be "
                         "scored on the same benchmark and split")
    return expected


def check_provenance(systems: Sequence[SystemScores], allow_mixed: bool, override_hint: str) -> list[ProvenanceCheck]:
    """Refuse a system scored under another benchmark always, and under another dataset, profile, models, judge or
    prompts unless `allow_mixed` (the error ends with `override_hint`: how the caller's user allows it); what
    passed, per other system, with what differs."""
    base, checks = systems[0], []
    for system in systems[1:]:
        if base.provenance is None or system.provenance is None:
            missing = base.name if base.provenance is None else system.name
            checks.append(ProvenanceCheck(system.name, base.name, without_provenance=missing))
            continue
        differences = provenance_differences(base.provenance, system.provenance)
        other_benchmark = base.provenance.get("benchmark") != system.provenance.get("benchmark")
        if differences and (not allow_mixed or other_benchmark):
            hint = "" if other_benchmark else override_hint
            raise ValueError(f"{system.name} was not scored like {base.name}: " + "; ".join(differences) + hint)
        checks.append(ProvenanceCheck(system.name, base.name, differences=tuple(differences),
                                      snapshot_change=snapshot_changes(base.provenance, system.provenance),
                                      content_unchecked=content_unchecked(base.provenance, system.provenance)))
    return checks


def check_shared_papers(systems: Sequence[SystemScores]) -> None:
    """Each system must share papers with the baseline: a comparison over no paper is no comparison."""
    base = systems[0]
    for system in systems[1:]:
        if not set(base.rows) & set(system.rows):
            raise ValueError(f"{system.name} and {base.name} share no paper ({len(system.rows)} and {len(base.rows)} "
                             "papers, none in common): were they scored on the same split?")


def check_values(system: SystemScores, metrics: Iterable[str]) -> None:
    """Every value of `metrics` in the system's rows is a finite number or null (a paper without that score);
    anything else ("high", NaN, true) is an error naming the file, line, paper and metric: it would silently drop
    the paper."""
    for paper_id, row in system.rows.items():
        for metric in metrics:
            value = row.reported(metric)
            if value is None or (_is_number(value) and math.isfinite(value)):
                continue
            raise InputError(f"{value!r} is not a score", system.where(paper_id, metric),
                             hint="write a finite number, or null for a paper without this score")


@dataclass(frozen=True)
class MetricChoice:
    """The metrics to compare, in order, and notes on the table metrics left out."""

    metrics: list[str]
    left_out: list[str]


def choose_metrics(systems: Sequence[SystemScores], benchmark: Benchmark, asked: Sequence[str] | None = None,
                   every_table_metric: bool = False) -> MetricChoice:
    """The metrics to compare.

    `asked` (each scored by every system, else an error listing the metrics they share and the closest name); or,
    with `every_table_metric`, all the benchmark's table metrics (those no system scored compare no paper); or the
    table metrics every system scores, with a note per system on those it lacks. Every compared or table metric's
    values are checked (`check_values`).
    """
    suite = list(benchmark.suite.metrics)
    scored = [numeric_keys(system.rows) for system in systems]
    left_out: list[str] = []
    if asked:
        for metric in asked:
            _check_asked(metric, systems, scored)
        metrics = list(dict.fromkeys(asked))
    elif every_table_metric:
        metrics = suite
    else:
        metrics = [m for m in suite if all(m in keys for keys in scored)]
        for system, keys in zip(systems, scored):
            lacking = [m for m in suite if m not in keys and any(m in other for other in scored)]
            if lacking:
                left_out.append(f"note: not compared: {', '.join(lacking)} ({system.name} has no value for it in "
                                f"{system.path})")
    for system in systems:
        check_values(system, dict.fromkeys([*metrics, *suite]))
    if not metrics:
        raise InputError(f"the per_paper files share no {benchmark.name} metric",
                         hint="name the metrics to compare with --metrics")
    return MetricChoice(metrics, left_out)


def _check_asked(metric: str, systems: Sequence[SystemScores], scored: Sequence[set[str]]) -> None:
    """A --metrics name every system scores; else an error naming the files without it, the metrics they share
    and the closest name (difflib)."""
    lacking = [system for system, keys in zip(systems, scored) if metric not in keys]
    if not lacking:
        return
    shared = sorted(set.intersection(*map(set, scored)))
    close = difflib.get_close_matches(metric, sorted(set().union(*scored)), n=1)
    guess = f"did you mean {close[0]!r}? " if close else ""
    where = "none of the files" if len(lacking) == len(systems) else ", ".join(str(s.path) for s in lacking)
    raise InputError(f"--metrics {metric!r} is scored in {where}",
                     hint=f"{guess}the metrics every file scores: {', '.join(shared) or 'none'}")


def missing_notes(systems: Sequence[SystemScores], names: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """One line per (system, metric) whose shared papers lack a value (null or absent) on either side: those papers
    are left out of that metric only, and said so (how many, and which)."""
    (base, *others), notes = systems, []
    for system, name in zip(others, names[1:]):
        shared = [pid for pid in base.rows if pid in system.rows]
        for metric in metrics:
            left = [pid for pid in shared
                    if base.rows[pid].value(metric) is None or system.rows[pid].value(metric) is None]
            if left:
                shown = ", ".join(left[:NAMED_PAPERS]) + (f" and {len(left) - NAMED_PAPERS} more"
                                                          if len(left) > NAMED_PAPERS else "")
                notes.append(f"note: {name} vs {names[0]}: {metric}: {len(left)} of {len(shared)} shared papers "
                             f"have no value on one side and are left out of it ({shown})")
    return notes


def distinct_names(names: Sequence[str]) -> list[str]:
    """The names as given, or each suffixed ``#<position>`` when two are the same (each row must say which)."""
    return list(names) if len(set(names)) == len(names) else [f"{name}#{i}" for i, name in enumerate(names)]


def _numbers(rows: Mapping[str, PaperRow]) -> dict[str, Mapping[str, MetricValue]]:
    """paper_id -> the paper's numbers, as `sciwrite.stats.paired_results` pairs them."""
    return {paper_id: row.values for paper_id, row in rows.items()}


def paired_differences(systems: Sequence[tuple[str, Mapping[str, PaperRow]]], metrics: Sequence[str],
                       n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0) -> list[MetricDifference]:
    """One `MetricDifference` per (system, metric) for every (name, rows) after the first (the baseline)."""
    (base_name, base_rows), out = systems[0], []
    base = _numbers(base_rows)
    for name, rows in systems[1:]:
        results = paired_results(base, _numbers(rows), metrics, n_resamples, confidence, seed)
        out += [MetricDifference(system=name, baseline=base_name, metric=metric, n_papers=result.n_papers,
                                 baseline_mean=result.mean_a, system_mean=result.mean_b,
                                 difference=result.difference, ci_low=result.ci_low, ci_high=result.ci_high,
                                 p_value=result.p_value, p_holm=result.p_holm)
                for metric, result in results.items()]
    return out


def compare_systems(systems: Sequence[SystemScores], benchmark: Benchmark, *, metrics: Sequence[str] | None = None,
                    every_table_metric: bool = False, labels: Sequence[str] | None = None, n_resamples: int = 1000,
                    confidence: float = 0.95, seed: int = 0, allow_mixed_provenance: bool = False,
                    override_hint: str = "") -> Comparison:
    """Every system after the first against the first, on the papers both scored, after every check.

    Args:
        systems: The systems, the baseline first.
        benchmark: The benchmark all of them must have been scored on.
        metrics: The metrics to compare (each scored by every system); None: `choose_metrics`' default.
        every_table_metric: Without `metrics`, compare all the benchmark's table metrics, scored or not.
        labels: The systems' names in the table (default: their names), made distinct (`distinct_names`).
        n_resamples: Bootstrap resamples and permutations.
        confidence: The intervals' level.
        seed: The seed the metrics' generators derive from.
        allow_mixed_provenance: Compare systems scored under another dataset, profile, models, judge or prompts.
        override_hint: The end of the provenance refusal: how the caller's user allows mixed provenance.

    Returns:
        The `Comparison`.

    Raises:
        ValueError: A check failed (`InputError` for bad rows or metric names); the message names the problem.
    """
    if len(systems) < 2:
        raise InputError("compare needs two or more systems: the baseline, then the others")
    check_same_benchmark(systems, benchmark.name)
    checks = check_provenance(systems, allow_mixed_provenance, override_hint)
    check_shared_papers(systems)
    chosen = choose_metrics(systems, benchmark, metrics, every_table_metric)
    names = distinct_names(labels or [system.name for system in systems])
    differences = paired_differences([(name, system.rows) for name, system in zip(names, systems)], chosen.metrics,
                                     n_resamples, confidence, seed)
    return Comparison(benchmark=benchmark.name, baseline=names[0], systems=tuple(names[1:]),
                      metrics=tuple(chosen.metrics), differences=tuple(differences), provenance=tuple(checks),
                      left_out=tuple(chosen.left_out), missing=tuple(missing_notes(systems, names, chosen.metrics)),
                      n_resamples=n_resamples, confidence=confidence)


__all__ = ["NAMED_PAPERS", "Comparison", "MetricChoice", "MetricDifference", "ProvenanceCheck", "SystemScores",
           "check_provenance", "check_same_benchmark", "check_shared_papers", "check_values", "choose_metrics",
           "compare_systems", "distinct_names", "missing_notes", "numeric_keys", "paired_differences"]
