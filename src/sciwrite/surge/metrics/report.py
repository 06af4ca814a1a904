"""What `sciwrite evaluate surge` prints for each system: the join, the metrics in SurGE's evaluator layout
(Information collection, Survey structure, Survey content; one (group, metric, value) line each, "not computed"
with the reason where a model is missing), the reference grounding beside them, the intervals, the models and the
scoring errors.

Outputs in each ``<out>/<system>/``: ``per_paper.jsonl`` (every metric, count, judge reply and per-scorer error per
survey, and each reference's grounding verdict), ``summary.json`` and ``summary.csv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciwrite.core.predictions import rejected_lines_text
from sciwrite.core.summary import JoinSummary, Summary
from sciwrite.core.tables import cell, format_table
from sciwrite.grounding.specs import GROUNDING_METRICS
from sciwrite.metrics.judge_panel import panel_mark
from sciwrite.stats import format_intervals
from sciwrite.surge.metrics.specs import CITATION_PRECISION, FUZZY_COVERAGE, METRICS
from sciwrite.surge.metrics.suite import SCORING_ERRORS

LABELS = {spec.key: spec.label for spec in METRICS}


def format_surge_table(summary: Summary) -> str:
    """The results table as text, one (group, metric, value) line per metric, then the reasons for what was not
    computed."""
    rows: list[dict[str, Any]] = []
    previous = None
    for spec in METRICS:
        if not spec.in_table:
            continue
        value = "not computed" if spec.key in summary.not_computed else cell(summary.value(spec.key))
        rows.append({"group": spec.group if spec.group != previous else "", "metric": spec.label, "value": value})
        previous = spec.group
    lines = format_table(rows, left=2).split("\n")
    reasons: dict[str, list[str]] = {}
    for key, why in summary.not_computed.items():
        reasons.setdefault(why, []).append(LABELS.get(key, key))
    lines += [""] * bool(reasons) + [f"not computed: {', '.join(keys)}: {why}" for why, keys in reasons.items()]
    return "\n".join(lines)


def format_grounding_line(summary: Summary) -> str:
    """Citation precision and the grounding resolver's verdicts beside the table (empty when no survey lists a
    reference)."""
    parts = [f"{LABELS[CITATION_PRECISION.key]} {cell(summary.value(CITATION_PRECISION.key))}"]
    grounding = summary.grounding
    if grounding is not None:
        parts += [f"{spec.label} {cell(grounding.reported(spec.key))}" for spec in GROUNDING_METRICS]
        parts.append(f"(Coverage as the fuzzy resolver finds it: {cell(grounding.reported(FUZZY_COVERAGE.key))})")
    return f"{summary.system}: references: " + ", ".join(parts)


def report_text(summaries: Sequence[Summary], out: Path) -> str:
    """Each system's join, table, grounding, intervals, models and scoring errors."""
    lines: list[str] = []
    for summary in summaries:
        join = summary.join or JoinSummary()
        coverage = summary.scored
        lines.append(f"\n{summary.system}{panel_mark(summary)}: SurGE {summary.split}: "
                     f"{summary.n_papers if coverage.complete else coverage.fraction} surveys scored "
                     f"({join.n_missing} missing, {join.n_extra} extra, {join.n_rejected_lines} rejected lines); "
                     f"profile {summary.profile}")
        lines += rejected_lines_text(summary.predictions or "", list(join.rejected_lines or ()))
        if join.missing:
            lines.append(f"missing: {len(join.missing)} surveys have no prediction, e.g. {list(join.missing[:5])}")
        lines.append(format_surge_table(summary))
        lines.append(format_grounding_line(summary))
        if format_intervals(summary, LABELS):
            lines.append(f"{summary.system}: {format_intervals(summary, LABELS)}")
        if summary.models:
            lines.append("models: " + ", ".join(f"{role}={model}" for role, model in summary.models.items()))
        for stage, errors in summary.details.get(SCORING_ERRORS, {}).items():
            first = next(iter(errors.items()))
            lines.append(f"scoring error: {stage}: {len(errors)} survey(s) not scored, e.g. {first[0]}: {first[1]}")
        folder = out / str(summary.system)
        lines.append(f"wrote {folder / 'per_paper.jsonl'}, {folder / 'summary.json'} and {folder / 'summary.csv'}"
                     + (f"; rejected lines in {folder / 'rejected.jsonl'}" if join.n_rejected_lines else ""))
    return "\n".join(lines)


__all__ = ["format_grounding_line", "format_surge_table", "report_text"]
