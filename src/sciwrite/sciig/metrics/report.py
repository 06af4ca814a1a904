"""What `sciwrite evaluate sciig` prints: each system's join, rejected lines, Table 2 (one (category, metric, value)
line per metric), the intervals, the unmatched citations, the models, scoring errors and where the files went.
The scoring is `sciwrite.sciig.metrics.evaluation` (SciIG's steps of the scoring core); SciIG Table 3 (several
levels' summaries side by side) is `sciwrite.sciig.metrics.tables.format_table3`.

Outputs in each ``<out>/<system>/``: ``per_paper.jsonl`` (every metric, diagnostic and per-scorer error per paper,
without the keyphrase logs), ``keyphrase_outputs/<paper_id>.json`` (phrase lists and matching log per paper),
``summary.json`` (means, join report, not-computed reasons, models, timings, scoring errors), ``summary.csv``
(category, metric, value: the Table 2 layout), ``metric_timings.json`` and, when lines were rejected,
``rejected.jsonl``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciwrite.benchmark import table_labels
from sciwrite.core.predictions import rejected_lines_text
from sciwrite.core.summary import Interval, JoinSummary, Summary
from sciwrite.core.tables import cell, format_table
from sciwrite.metrics.judge_panel import panel_mark
from sciwrite.sciig.metrics.citations import N_NEAR_MISS, N_PAPERS_CITING, N_UNMATCHED, UNMATCHED_INTERVAL
from sciwrite.sciig.metrics.model_line import format_model_line
from sciwrite.sciig.metrics.specs import UNMATCHED_CITATION_RATE
from sciwrite.sciig.metrics.suite import SCORING_ERRORS, TABLE2, TABLE2_GROUPS, table2_rows
from sciwrite.stats import format_intervals


def format_sciig_table(summary: Summary) -> str:
    """Table 2 as text, one (category, metric, value) line per metric (and its papers, n/N, when the summary does
    not cover the whole test split); a metric not computed reads 'not computed', and the reasons follow the
    table."""
    rows = table2_rows(summary)
    not_computed = summary.not_computed
    coverage = summary.scored
    cells: list[dict[str, Any]] = []
    previous = None
    for r in rows:
        value = "not computed" if r["key"] in not_computed else cell(r["value"])
        cells.append({"category": r["category"] if r["category"] != previous else "", "metric": r["metric"],
                      "value": value, **({} if coverage.complete else {"papers": coverage.fraction})})
        previous = r["category"]
    lines = format_table(cells, left=2).split("\n")
    reasons: dict[str, list[str]] = {}
    labels = {key: f"{category} {label}" for category, key, label in TABLE2}
    for key, why in not_computed.items():
        reasons.setdefault(why, []).append(labels.get(key, key))
    if reasons:
        lines.append("")
        lines.extend(f"not computed: {', '.join(metrics)}: {why}" for why, metrics in reasons.items())
    return "\n".join(lines)


def report_text(summaries: Sequence[Summary], out: Path) -> str:
    """What `sciwrite evaluate sciig` prints for each system: the join, rejected lines, Table 2, the intervals, the
    models, scoring errors and where the files went."""
    labels = table_labels(TABLE2_GROUPS)
    lines: list[str] = []
    for summary in summaries:
        join = summary.join or JoinSummary()
        coverage = summary.scored
        lines.append(f"\n{summary.system}{panel_mark(summary)}: SciIG {summary.split} (test split; holdout papers are "
                     "never scored): "
                     f"{summary.n_papers if coverage.complete else coverage.fraction} papers scored "
                     f"({join.n_missing} missing, {join.n_extra} extra, "
                     f"{join.n_holdout} holdout, {join.n_rejected_lines} rejected lines); profile "
                     f"{summary.profile}")
        lines += rejected_lines_text(summary.predictions or "", list(join.rejected_lines or ()))
        if not coverage.complete:
            lines.append(f"partial: {summary.system} covers {coverage.text} of the test split; the table's means are over "
                         "those only (--require-complete refuses such a file)")
        if join.missing:
            lines.append(f"missing: {len(join.missing)} test papers have no prediction, e.g. {list(join.missing[:5])}")
        if join.extra:
            lines.append(f"extra: {len(join.extra)} predictions name unknown papers, e.g. {list(join.extra[:5])}")
        lines.append(format_sciig_table(summary))
        if format_intervals(summary, labels):
            lines.append(f"\n{summary.system}: {format_intervals(summary, labels)} (BLEU is corpus BLEU: no "
                         "interval; sentence BLEU's is the mean per-paper sentence BLEU's)")
        if format_unmatched_line(summary):
            lines.append(format_unmatched_line(summary))
        if format_model_line(summary):
            lines.append(format_model_line(summary))
        for stage, errors in summary.details.get(SCORING_ERRORS, {}).items():
            first = next(iter(errors.items()))
            lines.append(f"scoring error: {stage}: {len(errors)} paper(s) not scored, e.g. {first[0]}: {first[1]}")
        folder = out / str(summary.system)
        lines.append(f"wrote {folder / 'per_paper.jsonl'}, {folder / 'summary.json'}, {folder / 'summary.csv'}, "
                     f"{folder / 'metric_timings.json'} and {folder / 'keyphrase_outputs'}"
                     + (f"; rejected lines in {folder / 'rejected.jsonl'}" if join.n_rejected_lines else ""))
    return "\n".join(lines)


def format_unmatched_line(summary: Summary) -> str:
    """The unmatched citations, printed apart from Table 2's citation precision (empty when not computed)."""
    rate = summary.value(UNMATCHED_CITATION_RATE.key)
    if N_UNMATCHED not in summary.metrics:
        return ""
    interval = Interval.from_json(summary.details.get(UNMATCHED_INTERVAL))
    low, high = interval.low, interval.high
    interval_text = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
    value = f"{rate:.3f}{interval_text} over the {summary.value(N_PAPERS_CITING)} papers that cite" \
        if rate is not None else "none (no paper cites anything)"
    return (f"{summary.system}: unmatched citations (apart from citation precision; the automatic counterpart of "
            f"the human rubric's Hallucinated Citations, Table 7): rate {value}; "
            f"{summary.value(N_UNMATCHED)} cite a surname no cited work has, "
            f"{summary.value(N_NEAR_MISS)} near misses (a cited work's surname, another year or form); "
            "each with its text in per_paper.jsonl")
