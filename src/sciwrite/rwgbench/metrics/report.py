"""What `sciwrite evaluate rwgbench` prints: each system's join and diagnostics, Table 2 as the paper lays it out,
the intervals, the metrics not computed and the Grounding table beside it. The scoring is
`sciwrite.rwgbench.metrics.evaluation` (RWGBench's steps of the scoring core).

Outputs in each ``<out>/<system>/``: ``per_paper.jsonl`` (every metric and diagnostic per paper), ``summary.json``
(means, not-computed reasons, models, how predictions joined the split) and ``summary.csv`` (the Table 2 row).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciwrite.benchmark import table_labels
from sciwrite.core.coverage import with_coverage
from sciwrite.core.paper_tables import TableData, TableRow, render_body
from sciwrite.core.predictions import rejected_lines_text
from sciwrite.core.summary import Interval, JoinSummary, RunDescription, Summary
from sciwrite.core.tables import MISSING_CELL, format_table
from sciwrite.grounding.online import lookups_note
from sciwrite.grounding.scoring import INVALID, OUTSIDE_RATE
from sciwrite.grounding.specs import GROUNDING_VERDICT_RATES
from sciwrite.metrics.judge_panel import panel_mark
from sciwrite.metrics.summary import EMPTY_CITATION_RATE, UNRESOLVED_MARKERS
from sciwrite.rwgbench.metrics.grounding import CANDIDATES, GROUNDING_COLUMNS
from sciwrite.rwgbench.metrics.suite import PAPER_LABELS, TABLE2_GROUPS
from sciwrite.stats import format_intervals

#: Table 2's blocks, in the paper's order, and its method names in its row order.
PAPER_BLOCKS = ("BM25 (Sparse Retrieval)", "Dense (Semantic Retrieval)", "Oracle (Ground-Truth Citations)", "Baselines",
                "Other")
PAPER_METHODS = {"rag": "RAG", "alce": "ALCE", "tag": "TAG", "workflow": "Workflow", "direct": "Direct", "gt": "GT"}
#: Table 2's metric keys, in its column order.
TABLE2_METRICS = tuple(key for columns in TABLE2_GROUPS.values() for key, _ in columns)


def table2_cell(value: Any) -> str:
    """One Table 2 cell as the paper prints it: three decimals, an en dash for no value."""
    return MISSING_CELL if value is None else f"{float(value):.3f}"


def format_table2(summaries: Sequence[Summary]) -> str:
    """Table 2 as the paper prints it: the groups CQ / CO / CF / TQ over the columns Prec. Rec. Soft Rec. CSC TRT |
    CD CDB | PSS CFA | R-L BS LLM, values to three decimals and "\u2013" where a metric has no value (not computed,
    or not applicable: CSC and TRT of a Direct system). See `table2`."""
    return render_body(table2(summaries))


def table2(summaries: Sequence[Summary]) -> TableData:
    """Table 2 from `evaluate rwgbench` summaries. When every system's predictions say their run (``model`` and
    ``method``, as `sciwrite generate` writes them), the rows are laid out as the paper's: Retriever / Model /
    Method columns, under the paper's block titles (BM25, Dense, Oracle, then the Baselines: Direct and the Human
    GT row), in the paper's method order. Otherwise one row per system."""
    metrics = tuple((key, PAPER_LABELS[key]) for columns in TABLE2_GROUPS.values() for key, _ in columns)
    groups = {group: tuple(key for key, _ in columns) for group, columns in TABLE2_GROUPS.items()}
    runs = [s.run or RunDescription() for s in summaries]
    by_run = bool(summaries) and all(run.model and run.method for run in runs)
    order = (sorted(range(len(summaries)), key=lambda i: (block_rank(runs[i]), method_rank(runs[i]), i))
             if by_run else range(len(summaries)))
    rows: list[TableRow] = []
    blocks, previous = {}, None
    for i in order:
        values = {key: summaries[i].reported(key) for key, _ in metrics}
        if by_run:
            block = PAPER_BLOCKS[block_rank(runs[i])]
            if block != previous:
                blocks[len(rows)], previous = block, block
            method = PAPER_METHODS.get(str(runs[i].method).lower(), runs[i].method)
            labels: tuple[str, ...] = ("", str(runs[i].model),
                                       with_coverage(str(method), summaries[i].scored) + panel_mark(summaries[i]))
        else:
            labels = (with_coverage(str(summaries[i].system or "system"), summaries[i].scored)
                      + panel_mark(summaries[i]),)
        rows.append(TableRow(labels, values, {key: table2_cell(v) for key, v in values.items()}))
    return TableData("Table 2. Experimental results across all models, baselines, and retrievers.",
                     ("Retriever", "Model", "Method") if by_run else ("System",), metrics, tuple(rows),
                     groups=groups, blocks=blocks,
                     notes=("Averaged over the scored papers (a row over part of the split says n/N papers); "
                            "\u2013: no value (not computed, or not applicable: CSC and TRT of a Direct system).",))


def block_rank(run: RunDescription) -> int:
    """The paper's block of a run: 0 BM25, 1 Dense, 2 Oracle, 3 the Baselines (Direct, Human GT), 4 anything
    else."""
    if str(run.method or "").lower() in ("direct", "gt"):
        return 3
    if run.oracle or run.retriever == "oracle":
        return 2
    return {"bm25": 0, "dense": 1}.get(str(run.retriever), 4)


def method_rank(run: RunDescription) -> int:
    methods = list(PAPER_METHODS)
    method = str(run.method or "").lower()
    return methods.index(method) if method in methods else len(methods)


def report_text(summaries: Sequence[Summary], out: Path) -> str:
    """What `sciwrite evaluate rwgbench` prints: each system's join and diagnostics, Table 2, the intervals, the
    metrics not computed and where the files went."""
    lines = [""]
    for summary in summaries:
        join = summary.join or JoinSummary()
        rejected = f", {join.n_rejected_lines} rejected lines" if join.n_rejected_lines else ""
        coverage = summary.scored
        papers = summary.n_papers if coverage.complete else coverage.fraction
        lines.append(f"{summary.system}: {papers} papers of RWGBench {summary.split} scored "
                     f"({join.n_missing} missing, {join.n_extra} extra, {join.n_duplicates} duplicate ids"
                     f"{rejected}); empty-citation outputs {summary.value(EMPTY_CITATION_RATE) or 0.0:.1%}, "
                     f"unresolved markers {summary.value(UNRESOLVED_MARKERS)}")
        if not coverage.complete:
            lines.append(f"partial: {summary.system} covers {coverage.text} of the split; its means are over those only "
                         "(--require-complete refuses such a file)")
        lines += rejected_lines_text(summary.predictions or "", list(join.rejected_lines or ()))
    lines += [f"profile {summaries[0].profile}", "", format_table2(summaries)]
    labels = table_labels(TABLE2_GROUPS)
    lines += [f"{s.system}: {format_intervals(s, labels)}" for s in summaries if format_intervals(s, labels)]
    lines += [f"not computed: {metric}: {why}" for metric, why in summaries[0].not_computed.items()]
    grounding = format_grounding_table(summaries)
    if grounding:
        lines += ["", grounding]
    return "\n".join(lines)


#: The checker's verdict rates among the table's columns: shown only when some system has them.
CHECK_RATE_KEYS = frozenset(spec.key for spec in GROUNDING_VERDICT_RATES.values())


def format_grounding_table(summaries: Sequence[Summary]) -> str:
    """The Grounding table printed beside Table 2 (it never changes Table 2): per system, where its references
    come from and how many, the found / ambiguous / not-found (hallucinated) / outside-the-corpus rates and the
    grounded precision and recall, each with its interval; '' when no system has references."""
    grounded = [(s, s.grounding) for s in summaries if s.grounding is not None and s.grounding.has_results]
    rows = []
    for summary, grounding in grounded:
        sources = list(grounding.sources)
        origin = ("candidates (exact)" if sources == [CANDIDATES] else "listed" if sources == ["references"]
                  else "+".join(sources) or "none")
        row = {"System": str(summary.system or "system"), "References": f"{grounding.n_references} {origin}"}
        for key, label in GROUNDING_COLUMNS:
            if grounding.metrics.get(key) is None and (key == OUTSIDE_RATE or key in CHECK_RATE_KEYS):
                continue
            row[label] = interval_cell(grounding.metrics.get(key), grounding.intervals.get(key))
        rows.append(row)
    if not rows:
        return ""
    columns = ["System", "References", *(label for key, label in GROUNDING_COLUMNS if any(label in r for r in rows))]
    first = grounded[0][1]
    notes = ["Grounding (beside Table 2; it never changes Table 2, where Direct keeps its 0.000 and \u2013): each "
             "system's references resolved against the corpus's titles "
             f"({first.lookup}; threshold {first.threshold}).",
             "Found / Ambig. / Not found (hallucinated): shares of each paper's readable references, averaged over "
             "the papers that list any; G-Prec. / G-Rec.: found doc_ids against the gold citations, every unfound "
             "reference counted as a wrong citation.",
             "candidates (exact): a RAG-style method's references are the candidates its markers resolve to, corpus "
             "papers by construction, so its Found is 1 and G-Prec. / G-Rec. are Table 2's P / R.",
             "Fabricated / Meta. mismatch / Title mismatch / Anachr.: the reference checker's verdicts, field by field "
             "against the corpus as the closed world the systems cite from (a title no corpus paper has is "
             "fabricated there), each paper's year its cutoff (sciwrite.grounding.checker; docs: Reference "
             "checking)."]
    entries = sum(grounding.counts.get(INVALID, 0) for _, grounding in grounded)
    lists = sum(grounding.n_invalid_lists or 0 for _, grounding in grounded)
    if entries or lists:
        notes.append(f"could not be read: {entries} reference(s) and {lists} reference list(s) (invalid: each named, "
                     "with its paper and reference, in per_paper.jsonl and the summary's grounding.problems); left "
                     "out of the rates.")
    lookups = [grounding.online for _, grounding in grounded if grounding.online]
    if lookups:
        notes.append(lookups_note(lookups, "each summary's grounding.online.failures"))
    return "\n".join([notes[0], "", format_table(rows, columns, left=2), *notes[1:]])


def interval_cell(value: Any, interval: Interval | None) -> str:
    """A mean to three decimals with its interval, ``0.712 [0.650, 0.770]``; an en dash for no value."""
    if value is None:
        return MISSING_CELL
    if interval is not None and interval.low is not None and interval.high is not None:
        return f"{value:.3f} [{interval.low:.3f}, {interval.high:.3f}]"
    return f"{value:.3f}"
