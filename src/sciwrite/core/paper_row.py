"""The typed per-paper row: one paper's scores for one system, as every benchmark's ``per_paper.jsonl`` holds them.

A row is JSON only at the edges: a suite's scorers hand their fields over as JSON (`PaperRow.from_json`, once per
paper, at the end of the suite's scoring step), the result files write and read it (`sciwrite.core.results`,
`sciwrite.scoring.per_paper_files`) and the leaderboard keeps it in its database. Everywhere else it is a
`PaperRow`: the summaries, intervals, memorisation, judge panels, cutoff splits, comparisons, drill-downs and checks
read typed fields, so a renamed field is found by the type checker, never by a reader that silently gets None.

What is typed is what every benchmark's row has: the paper, the system and benchmark that scored it, the numbers
(each metric's value for this paper, and the counts and rates beside them) as one typed mapping, the stages that
failed on it, each judge's repeated scores, and the grounding of its reference list. A benchmark's own fields (its
flags, lists and texts: RWGBench's ``empty_citation_output``, SciIG's ``cited_keys``) are `PaperRow.details`, read
by the benchmark that writes them, under keys it declares. `PaperRow.to_json` gives back the row key for key and in
the order read, so a file read and written again is byte-identical.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sciwrite.core.summary import MetricValue, is_number, written_back

#: The row's keys of the fields typed apart from its numbers and details.
PAPER_ID, SYSTEM, BENCHMARK, ERRORS, JUDGE_PANEL = "paper_id", "system", "benchmark", "errors", "judge_panel"
GROUNDING_SOURCE, GROUNDING_REFERENCES, GROUNDING_ERROR = "grounding_source", "grounding_references", "grounding_error"
_TYPED = frozenset({PAPER_ID, SYSTEM, BENCHMARK, ERRORS, JUDGE_PANEL, GROUNDING_SOURCE, GROUNDING_REFERENCES,
                    GROUNDING_ERROR})

#: A judge panel's scores of one paper: judge -> criterion -> each repeat's score (None: no usable answer).
PanelScores = Mapping[str, Mapping[str, tuple[MetricValue, ...]]]


@dataclass(frozen=True)
class PaperGrounding:
    """The grounding of a paper's generated reference list (`sciwrite.grounding.scoring`): where the list came from,
    each reference's verdict record, and why the list could not be read (None when it could). Its counts and
    rates (``grounding_n_found``, ``grounding_found_rate``) are numbers of the row, in `PaperRow.values`."""

    source: str | None = None
    references: tuple[Mapping[str, Any], ...] = ()
    error: str | None = None

    @property
    def listed(self) -> bool:
        """Whether the paper's reference list was read and grounded (a source, no error)."""
        return bool(self.source) and not self.error


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _panel(value: Any) -> dict[str, dict[str, tuple[MetricValue, ...]]]:
    if not isinstance(value, Mapping):
        return {}
    return {str(judge): {str(criterion): tuple(v if is_number(v) else None for v in scores)
                         for criterion, scores in by_criterion.items() if isinstance(scores, Sequence)}
            for judge, by_criterion in value.items() if isinstance(by_criterion, Mapping)}


@dataclass(frozen=True)
class PaperRow:
    """One paper's scores for one system.

    Attributes:
        paper_id: The paper scored (None only for a row that never named one: a toy benchmark's).
        system: The system that wrote the prediction (written by the result files; None before).
        benchmark: The benchmark that scored it (as above).
        values: Every number of the row by key, in the row's order: each metric's value for this paper (None: not
            computed, or not applicable, for it), and the counts and rates beside them.
        errors: Stage -> why it failed on this paper (its metrics are None).
        judge_panel: Each judge's repeated scores of the paper (empty without a panel or repeats).
        grounding: The grounding of the paper's reference list (None when the benchmark grounds none).
        details: The benchmark's own fields (flags, lists, texts) by key; the benchmark that writes one reads it,
            by a key it declares.
    """

    paper_id: str | None = None
    system: str | None = None
    benchmark: str | None = None
    values: Mapping[str, MetricValue] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)
    judge_panel: PanelScores = field(default_factory=dict)
    grounding: PaperGrounding | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    #: the JSON read: its key order, and what `to_json` writes back unchanged
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PaperRow:
        """A row from its JSON fields (a line of ``per_paper.jsonl``, or a suite's scorers' fields of one paper)."""
        rest = {key: value for key, value in data.items() if key not in _TYPED}
        grounded = any(key in data for key in (GROUNDING_SOURCE, GROUNDING_REFERENCES, GROUNDING_ERROR))
        references = data.get(GROUNDING_REFERENCES)
        return cls(
            paper_id=_text(data.get(PAPER_ID)), system=_text(data.get(SYSTEM)), benchmark=_text(data.get(BENCHMARK)),
            values={key: value for key, value in rest.items() if is_number(value) or value is None},
            errors={str(k): str(v) for k, v in data[ERRORS].items()} if isinstance(data.get(ERRORS), Mapping) else {},
            judge_panel=_panel(data.get(JUDGE_PANEL)),
            grounding=PaperGrounding(
                _text(data.get(GROUNDING_SOURCE)),
                tuple(r for r in references if isinstance(r, Mapping)) if isinstance(references, Sequence) else (),
                _text(data.get(GROUNDING_ERROR))) if grounded else None,
            details={key: value for key, value in rest.items() if not (is_number(value) or value is None)},
            raw=data)

    def to_json(self) -> dict[str, Any]:
        """The row as ``per_paper.jsonl`` holds it: the keys read, in their order, with the typed values over them;
        then what it did not have that holds something (every number, None included)."""
        named = {PAPER_ID: self.paper_id, SYSTEM: self.system, BENCHMARK: self.benchmark}
        # a name that is not text (an integer paper_id in a hand-made file) is kept as read, never nulled
        typed: dict[str, Any] = {**{k: v for k, v in named.items() if v is not None}, **dict(self.values),
                                 **dict(self.details)}
        if self.errors or ERRORS in self.raw:
            typed[ERRORS] = dict(self.errors)
        if self.judge_panel or JUDGE_PANEL in self.raw:
            typed[JUDGE_PANEL] = {judge: {c: list(v) for c, v in scores.items()}
                                  for judge, scores in self.judge_panel.items()}
        if self.grounding is not None:
            typed.update({GROUNDING_SOURCE: self.grounding.source,
                          GROUNDING_REFERENCES: [dict(r) for r in self.grounding.references],
                          GROUNDING_ERROR: self.grounding.error})
        return written_back(self.raw, typed, always=self.values)

    def value(self, key: str) -> MetricValue:
        """The number under `key` (a metric's value for this paper, a count, a rate); None when it has none."""
        return self.values.get(key)

    def reported(self, key: str) -> Any:
        """What the row holds under `key`, whatever its type: a number, or a value no reader can use (text where a
        number belongs), for the scale checks to refuse by name."""
        return self.values[key] if key in self.values else self.details.get(key)

    def values_of(self, keys: Iterable[str]) -> dict[str, MetricValue]:
        """`keys` -> this paper's value (None where it has none)."""
        return {key: self.values.get(key) for key in keys}

    def with_values(self, values: Mapping[str, MetricValue]) -> PaperRow:
        """The same row with `values` added (or replacing the numbers of the same keys), after the others."""
        return replace(self, values={**self.values, **values})

    def with_fields(self, fields: Mapping[str, Any]) -> PaperRow:
        """The row with a scorer's further JSON fields of the paper (a stage run after the others: RWGBench's
        grounding after a Ray run), each after the row's own or in place of the one of the same key."""
        return PaperRow.from_json({**self.to_json(), **fields})

    def with_(self, **changes: Any) -> PaperRow:
        """A copy with `changes` (field name -> value)."""
        return replace(self, **changes)


def typed_rows(records: Iterable[Mapping[str, Any]]) -> list[PaperRow]:
    """A suite's per-paper fields, one mapping per paper, as typed rows."""
    return [PaperRow.from_json(record) for record in records]


__all__ = ["BENCHMARK", "ERRORS", "GROUNDING_ERROR", "GROUNDING_REFERENCES", "GROUNDING_SOURCE", "JUDGE_PANEL",
           "PAPER_ID", "PaperGrounding", "PaperRow", "PanelScores", "SYSTEM", "typed_rows"]
