"""RWGBench's human study (§5.6): blinded A/B choices between two systems' related-work sections of one paper, per
dimension, each pair shown in both presentation orders; and its Table 5, human consistency and metric-human
alignment, every cell a count ("8/11; 72.7%").

The dimensions are the ones §5.6 and Table 5 name: writing quality, scholarly positioning, overall usefulness and
support quality. The paper prints no question for them; the questions below are sciwrite's wording (the card says
so). The protocols are `sciwrite.human_eval.pairwise`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import read_json_lines
from sciwrite.core.paper_row import PAPER_ID, PaperRow
from sciwrite.core.paper_tables import TableData, TableRow
from sciwrite.human_eval.agreement import alpha_notes
from sciwrite.human_eval.pairwise import (
    HIGH_CONSENSUS,
    agreement,
    comparisons,
    consistency,
    count_cell,
    pairs_of,
)
from sciwrite.human_eval.study import PAIRWISE, Dimension, HumanStudy
from sciwrite.metrics.correlation import load_summaries
from sciwrite.rwgbench.metrics.specs import (
    CITATION_DENSITY,
    CLAIM_SUPPORT_CONSISTENCY,
    LLM_JUDGE,
    POSITIONING_STRUCTURE_SIMILARITY,
    SOFT_CITATION_RECALL,
)
from sciwrite.rwgbench.metrics.suite import SUITE_METRICS

DIMENSIONS = (
    Dimension("writing_quality", "Writing quality",
              "Which section is better written: clear, fluent, well organized academic prose?"),
    Dimension("scholarly_positioning", "Scholarly positioning",
              "Which section better positions the target paper in prior work: how it relates to, differs from and "
              "goes beyond the cited research?"),
    Dimension("overall_usefulness", "Overall usefulness",
              "Which section would be more useful to the authors as this paper's related-work section?"),
    Dimension("support_quality", "Support quality",
              "In which section do the citations better support the statements they are attached to?"),
)
#: Short names `--align` accepts for the paper's aligned metrics.
METRIC_ALIASES = {"pss": POSITIONING_STRUCTURE_SIMILARITY.key, "soft_recall": SOFT_CITATION_RECALL.key,
                  "csc": CLAIM_SUPPORT_CONSISTENCY.key, "llm": LLM_JUDGE.key, "judge": LLM_JUDGE.key}
#: Table 5's name of each signal.
SIGNAL_NAMES = {LLM_JUDGE.key: "LLM-as-Judge", POSITIONING_STRUCTURE_SIMILARITY.key: "PSS",
                SOFT_CITATION_RECALL.key: "Soft Recall", CLAIM_SUPPORT_CONSISTENCY.key: "CSC"}
#: Metrics without a better direction (closeness to the human rate): they cannot be aligned with a preference.
UNDIRECTED = frozenset({CITATION_DENSITY.key})
CHOICES = (
    "Dimensions: the four Table 5 names; the paper prints no question for them, so the questions are sciwrite's.",
    "Votes of a pair: every annotator's answers to both presentation orders, pooled; ties are non-decisive.",
    "Unique majority: one system has more non-tie votes than the other; a winning share is over non-tie votes.",
    "Presentation-order sensitivity: the pairs whose two orders, each alone, give the same unique majority.",
    f"High-consensus: a winning share of at least {HIGH_CONSENSUS:.0%} of the non-tie votes.",
    "Clear-margin: the metric's |difference| among the ceil(n/3) largest of the non-tied differences of the "
    "dimension's decisive pairs (ties at the cut included).",
    "A metric tie (equal per-paper values) or a missing value leaves the pair out of the count; the ties are "
    "counted in table5.json.",
    "Non-direct: neither system is a Direct run (its summary's run.method, or --direct).",
)

def metric_key(name: str) -> str:
    """A metric key of the suite from a key or a short name; a `ValueError` lists them."""
    key = METRIC_ALIASES.get(name, name)
    if key not in SUITE_METRICS:
        raise ValueError(f"unknown metric {name!r}; choose a Table 2 metric {list(SUITE_METRICS)} or one of "
                         f"{sorted(METRIC_ALIASES)}")
    if key in UNDIRECTED:
        raise ValueError(f"{key} has no better direction (it is judged by its closeness to the human rate): it "
                         "cannot be aligned with a preference")
    return key


def evaluation_values(evals: Sequence[str | Path]) -> tuple[dict[tuple[str, str], PaperRow], set[str]]:
    """((system, paper_id) -> per-paper row, the systems whose run is Direct) of `sciwrite evaluate rwgbench`
    folders (``summary.json`` and ``per_paper.jsonl`` each; the per-paper lines read here into `PaperRow`s)."""
    summaries = load_summaries(evals)
    rows: dict[tuple[str, str], PaperRow] = {}
    direct = set()
    for (system, summary), folder in zip(summaries.items(), map(Path, evals)):
        folder = folder if folder.is_dir() else folder.parent
        if summary.run is not None and summary.run.method == "direct":
            direct.add(system)
        per_paper = folder / "per_paper.jsonl"
        if not per_paper.exists():
            raise ValueError(f"{folder}: no per_paper.jsonl (the alignment compares per-paper values)")
        for record in read_json_lines(per_paper):
            rows[(system, str(record[PAPER_ID]))] = PaperRow.from_json(record)
    return rows, direct


def analyze(tasks: Sequence[Mapping[str, Any]], key: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]],
            *, evals: Sequence[str | Path] = (), align: Mapping[str, str] | None = None,
            direct: Collection[str] = ()) -> list[dict[str, Any]]:
    """Table 5's rows: human consistency per answered dimension (and the range over them, as the paper prints it),
    then per aligned dimension=metric every protocol's agreement."""
    align = {RWGBENCH_STUDY.dimension(d).key: metric_key(m) for d, m in (align or {}).items()}
    if align and not evals:
        raise ValueError("--align needs --evals: the `sciwrite evaluate rwgbench` folders of the systems compared")
    systems = {s for k in key for s in (k["system_a"], k["system_b"])}
    values, direct_runs = evaluation_values(evals) if align else ({}, set())
    if align:
        scored = {s for s, _ in values}
        unknown = sorted(systems - scored)
        if unknown:
            raise ValueError(f"the key names systems no --evals folder holds: {unknown} (the folders hold "
                             f"{sorted(scored)})")
    direct_runs |= set(direct)
    rows: list[dict[str, Any]] = []
    per_dimension = {}
    for dimension in DIMENSIONS:
        pairs = pairs_of(key, answers, dimension.key)
        stats = consistency(pairs)
        if not stats.n_votes:
            continue  # a dimension nobody answered (a study may ask some of them only)
        per_dimension[dimension.key] = stats
        rows.append({"target": "Human consistency", "signal": dimension.name, "protocol": "unique majority",
                     "agree": stats.unique_majorities, "n": stats.n_pairs, "share": stats.mean_winning_share,
                     "kept_across_orders": stats.kept_across_orders,
                     "n_pairs_in_both_orders": stats.n_pairs_in_both_orders})
    counted = list(per_dimension.values())
    if counted:
        majorities = [s.unique_majorities for s in counted]
        shares = [s.mean_winning_share for s in counted if s.mean_winning_share is not None]
        rows.insert(0, {"target": "Human consistency", "signal": "Section preferences",
                        "protocol": "presentation-order sensitivity", "agree": min(majorities),
                        "agree_max": max(majorities), "n": counted[0].n_pairs,
                        "share": min(shares) if shares else None, "share_max": max(shares) if shares else None})
    for dimension_key, metric in align.items():
        dimension = RWGBENCH_STUDY.dimension(dimension_key)
        pairs = pairs_of(key, answers, dimension_key)
        metric_values = {cell: row.value(metric) for cell, row in values.items()}
        for protocol in agreement(comparisons(pairs, metric_values, direct_runs)):
            rows.append({"target": dimension.name, "signal": SIGNAL_NAMES.get(metric, metric), "metric": metric,
                         "protocol": protocol["label"], "protocol_key": protocol["protocol"],
                         "agree": protocol["agree"], "n": protocol["n"], "share": protocol["share"],
                         "metric_ties": protocol["metric_ties"], "missing": protocol["missing"]})
    return rows


def agreement_cell(row: Mapping[str, Any]) -> str:
    """A row's Agreement cell, the paper's way: "8/11; 72.7%", or a range for the consistency summary."""
    if "agree_max" in row:
        count = (f"{row['agree']}" if row["agree"] == row["agree_max"] else f"{row['agree']} to {row['agree_max']}")
        share = ("\u2013" if row["share"] is None else f"{100 * row['share']:.1f}%" if row["share"] == row["share_max"]
                 else f"{100 * row['share']:.1f} to {100 * row['share_max']:.1f}%")
        return f"{count}/{row['n']}; {share}"
    if row["protocol"] == "unique majority":
        share = "\u2013" if row["share"] is None else f"{100 * row['share']:.1f}% mean winning share"
        return (f"{row['agree']}/{row['n']}; {share}; kept across orders "
                f"{row['kept_across_orders']}/{row['n_pairs_in_both_orders']}")
    return count_cell(row["agree"], row["n"])


def table5(data: Mapping[str, Any]) -> TableData:
    """Table 5 in the paper's layout (Validation target | Signal | Protocol | Agreement) from ``table5.json``."""
    rows = [TableRow((r["target"], r["signal"], r["protocol"]), {"agree": r["agree"], "n": r["n"],
                                                                 "share": r["share"]}, {"agreement": agreement_cell(r)})
            for r in data["rows"]]
    return TableData("Table 5. Human consistency and metric-human alignment in the validation study. Counts are shown "
                     "for transparency.", ("Validation target", "Signal", "Protocol"),
                     (("agreement", "Agreement"),), tuple(rows),
                     notes=(*(f"- {choice}" for choice in data.get("choices") or ()), *alpha_notes(data)),
                     merged_labels=1)


RWGBENCH_STUDY = HumanStudy(
    benchmark="rwgbench", design=PAIRWISE, dimensions=DIMENSIONS, text_label="related-work section",
    attribution="RWGBench (Xie et al., arXiv:2606.24894), §5.6 and Table 5: the dimensions' names; the questions are "
                "sciwrite's wording (the paper prints none)",
    choices=CHOICES, analyze=analyze,
    table=table5)


__all__ = ["CHOICES", "DIMENSIONS", "METRIC_ALIASES", "RWGBENCH_STUDY", "SIGNAL_NAMES", "agreement_cell", "analyze",
           "evaluation_values", "metric_key", "table5"]
