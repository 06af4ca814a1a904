"""One declaration per metric: a `MetricSpec` holds every fact about a metric that some table, list or check needs,
so that a benchmark lists its metrics once (``<benchmark>/metrics/specs.py``) and everything else is read off that
list: the results table's groups and labels, the scorers' stages and model roles, the scales, the sensitivity
expectations, the quick start's plot, the paper's tables and the Hub tasks.

The helpers below are the shared derivations; each benchmark's own tables (e.g. a paper table's row order) are
derived in its package from the same specs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sciwrite.core.metric_scales import MetricScale

#: What a metric may need from a prediction besides its text: its candidate list (RWGBench's CSC and TRT compare
#: the abstracts of the papers its markers resolve to, so a prediction without one has no value).
CANDIDATES = "candidates"


@dataclass(frozen=True)
class PrintedAs:
    """How one of the paper's tables prints a metric: its `label` there, the `category` it stands under (when the
    table has categories) and its `row` (the table's order; None: the order of the specs)."""

    label: str
    category: str = ""
    row: int | None = None


@dataclass(frozen=True)
class MetricSpec:
    """Every fact about one metric, declared once.

    Attributes:
        key: The metric's key in per-paper rows, summaries and JSON tables.
        label: Its stable column label in the results table (``TRT``, ``ROUGE-1``).
        group: The results table's group it stands in (``CQ``, ``Lexical``); for a board column, the board's group.
        scale: Its range and direction on the paper's scale.
        stage: The scorer that computes it (None: a scorer of its own, named after the key).
        paper_label: Its header as the paper prints it in the main results table ("" : not printed apart).
        roles: The model roles it needs (`--model-role ROLE=ID`); a metric without a model needs none.
        needs: What it needs from a prediction besides the text (`CANDIDATES`).
        expected: Perturbation -> the direction it should move (``down``, ``up``, ``any``), for the sensitivity
            analysis (`sciwrite.metrics.sensitivity`).
        reasons: Perturbation (or ``*``: every one) -> why the expected direction is what it is, where not obvious.
        hub_task: Its Hub task id (None: not a Hub task); `hub_description` says what it measures there.
        in_table: A column of the paper's results table (False: a board column or a diagnostic beside it).
        on_board: Shown as a leaderboard column after the results table (with `label`, under `group`).
        plotted: Drawn in the quick start's comparison plot.
        printed: Paper table name -> how that table prints it, for tables beyond the results table.
    """

    key: str
    label: str
    group: str
    scale: MetricScale
    stage: str | None = None
    paper_label: str = ""
    roles: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    expected: Mapping[str, str] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)
    hub_task: str | None = None
    hub_description: str = ""
    in_table: bool = True
    on_board: bool = False
    plotted: bool = False
    printed: Mapping[str, PrintedAs] = field(default_factory=dict)

    @property
    def stage_name(self) -> str:
        """The scorer that computes it: `stage`, or the key for a metric scored alone."""
        return self.stage or self.key


def table_groups(specs: Iterable[MetricSpec]) -> dict[str, tuple[tuple[str, str], ...]]:
    """The results table: group -> ((key, label), ...), groups and columns in the specs' order."""
    table = [spec for spec in specs if spec.in_table]
    return {group: tuple((s.key, s.label) for s in table if s.group == group)
            for group in dict.fromkeys(s.group for s in table)}


def board_groups(specs: Iterable[MetricSpec]) -> dict[str, tuple[tuple[str, str], ...]]:
    """The leaderboard's columns after the results table: group -> ((key, label), ...)."""
    board = [spec for spec in specs if spec.on_board]
    return {group: tuple((s.key, s.label) for s in board if s.group == group)
            for group in dict.fromkeys(s.group for s in board)}


def table_keys(specs: Iterable[MetricSpec]) -> tuple[str, ...]:
    """The results table's metric keys, in its order."""
    return tuple(spec.key for spec in specs if spec.in_table)


def scales(specs: Iterable[MetricSpec]) -> dict[str, MetricScale]:
    """Metric key -> its scale, for every spec (`sciwrite.benchmark.BenchmarkSuite.scales`)."""
    return {spec.key: spec.scale for spec in specs}


def paper_labels(specs: Iterable[MetricSpec]) -> dict[str, str]:
    """Metric key -> the header the paper prints, for the specs that have one."""
    return {spec.key: spec.paper_label for spec in specs if spec.paper_label}


def printed_rows(specs: Sequence[MetricSpec], table: str) -> tuple[tuple[MetricSpec, PrintedAs], ...]:
    """The metrics one paper table prints, with how it prints each, in the table's row order."""
    found = [(index, spec, spec.printed[table]) for index, spec in enumerate(specs) if table in spec.printed]
    found.sort(key=lambda item: (item[2].row if item[2].row is not None else item[0]))
    return tuple((spec, printed) for _, spec, printed in found)


def needing(specs: Iterable[MetricSpec], need: str) -> tuple[str, ...]:
    """The keys of the metrics that need `need` from a prediction."""
    return tuple(spec.key for spec in specs if need in spec.needs)


def role_metrics(specs: Iterable[MetricSpec]) -> dict[str, tuple[str, ...]]:
    """Model role -> the metrics it serves, roles in the order the specs first name them."""
    specs = list(specs)
    roles = dict.fromkeys(role for spec in specs for role in spec.roles)
    return {role: tuple(spec.key for spec in specs if role in spec.roles) for role in roles}


def sensitivity_expectations(specs: Iterable[MetricSpec], perturbations: Iterable[str]
                             ) -> tuple[dict[str, dict[str, str]], dict[tuple[str, str], str]]:
    """(metric -> perturbation -> expected direction, (metric, perturbation or "*") -> reason) for the specs of the
    results table; a perturbation a spec does not name is expected to move either way ("any")."""
    perturbations = tuple(perturbations)
    table = [spec for spec in specs if spec.in_table]
    unknown = sorted({p for s in table for p in s.expected} - set(perturbations))
    if unknown:
        raise ValueError(f"expected directions for unknown perturbations {unknown}")
    expected = {s.key: {p: s.expected.get(p, "any") for p in perturbations} for s in table}
    reasons = {(s.key, p): why for s in table for p, why in s.reasons.items()}
    return expected, reasons


__all__ = ["CANDIDATES", "MetricSpec", "PrintedAs", "board_groups", "needing", "paper_labels", "printed_rows",
           "role_metrics", "scales", "sensitivity_expectations", "table_groups", "table_keys"]
