"""SciIG's human evaluation (§7): each generated introduction rated 1-5 stars with a comment on the ten criteria of
the Table 7 rubric, and Table 5, the mean rating of each criterion per system.

The criteria and their guiding questions are Table 7's, verbatim (Garg et al., arXiv:2508.14273, Table 7: "Human
evaluation rubric for assessing the quality of generated Introductions"); Table 5 names some of them differently
("Content Coverage", "Hallucination Resistance", ...), and prints those names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.core.paper_tables import TableData, TableRow
from sciwrite.human_eval.agreement import alpha_notes
from sciwrite.human_eval.ratings import mean_ratings
from sciwrite.human_eval.study import RATING, Dimension, HumanStudy

CONTENT, NARRATIVE = "Content Quality", "Narrative Quality"
#: Table 7, verbatim: (key, criterion, guiding questions, group).
DIMENSIONS = (
    Dimension("faithfulness", "Faithfulness", "Does the generated Introduction accurately reflect information from "
              "the Title, Abstract, and Related Papers without introducing facts not supported by them?", CONTENT),
    Dimension("consistency", "Consistency", "Is the narrative consistent with the Ground Truth Introduction in terms "
              "of logical structure, intent, and internal coherence? Are there any contradictions in meaning or "
              "claims?", CONTENT),
    Dimension("coverage", "Coverage", "Does the Introduction include all key concepts and major points found in the "
              "Title, Abstract, and Related Papers? Are critical topics missing or underrepresented?", CONTENT),
    Dimension("flow_of_ideas", "Flow of Ideas", "Does the text follow a clear and logical progression from background "
              "to motivation, method, and contributions? Are transitions smooth and well-structured?", CONTENT),
    Dimension("citation_contextual_quality", "Citation Contextual Quality", "Are citations used appropriately to "
              "support specific points (e.g., prior work, problem framing, methodology)? Are they integrated fluently "
              "into the narrative?", CONTENT),
    Dimension("hallucinated_citations", "Hallucinated Citations", "Are any citations fabricated, irrelevant, or "
              "inaccurately attributed?", CONTENT),
    Dimension("background_literature_context", "Background & Literature Context", "Is the background informative and "
              "relevant? Are related works used to effectively contextualize the research?", NARRATIVE),
    Dimension("motivation_problem_statement", "Motivation / Problem Statement", "Is the research motivation clearly "
              "presented? Is the need or gap in existing literature convincingly established?", NARRATIVE),
    Dimension("method_approach_summary", "Method / Approach Summary", "Is the proposed method succinctly and "
              "accurately described? Does it clearly build upon or differ from prior work?", NARRATIVE),
    Dimension("contributions_summary", "Contributions Summary", "Are the contributions of the paper stated clearly "
              "and aligned with the core research claims? Are they appropriately emphasized?", NARRATIVE),
)
#: Table 5's row names, per criterion.
TABLE5_NAMES = {"faithfulness": "Faithfulness", "consistency": "Consistency", "coverage": "Content Coverage",
                "flow_of_ideas": "Flow of Ideas", "citation_contextual_quality": "Citation Contextual Quality",
                "hallucinated_citations": "Hallucination Resistance",
                "background_literature_context": "Literature Context",
                "motivation_problem_statement": "Motivation Clarity", "method_approach_summary": "Methods Summary",
                "contributions_summary": "Contributions Summary"}
CHOICES = (
    "Means are over every rating a system's texts received on a criterion (the paper had one annotator per paper; "
    "several annotators' ratings of one text each count).",
    "Hallucinated Citations is rated as Table 7 asks it; Table 5 prints it as Hallucination Resistance (5 stars: "
    "none fabricated).",
)

def analyze(tasks: Sequence[Mapping[str, Any]], key: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]],
            **_: Any) -> list[dict[str, Any]]:
    """Table 5's rows: per criterion and system, the mean rating and the number of ratings."""
    means = mean_ratings(key, answers)
    systems = sorted({k["system"] for k in key})
    return [{"target": TABLE5_NAMES[d.key], "criterion": d.key, "signal": system, "protocol": "mean rating (1-5)",
             "mean": means.get((d.key, system), {}).get("mean"), "n": means.get((d.key, system), {}).get("n", 0)}
            for d in DIMENSIONS for system in systems]


def table5(data: Mapping[str, Any]) -> TableData:
    """Table 5 in the paper's layout (criteria x systems, means to two decimals) from ``table5.json``; each cell says
    how many ratings it is over."""
    systems = list(dict.fromkeys(r["signal"] for r in data["rows"]))
    rows = []
    for target in dict.fromkeys(r["target"] for r in data["rows"]):
        cells = {r["signal"]: r for r in data["rows"] if r["target"] == target}
        rows.append(TableRow((target,), {s: cells[s]["mean"] for s in systems},
                             {s: "\u2013" if cells[s]["mean"] is None else f"{cells[s]['mean']:.2f} (n={cells[s]['n']})"
                              for s in systems}))
    return TableData("Table 5: Human evaluation of different models across ten qualitative criteria.", ("Metric",),
                     tuple((s, s) for s in systems), tuple(rows),
                     notes=(*(f"- {choice}" for choice in data.get("choices") or ()), *alpha_notes(data)))


SCIIG_STUDY = HumanStudy(
    benchmark="sciig", design=RATING, dimensions=DIMENSIONS, text_label="introduction",
    attribution="SciIG (Garg et al., arXiv:2508.14273), Table 7: the ten criteria and their guiding questions, "
                "verbatim; 1-5 stars with a comment", choices=CHOICES, analyze=analyze,
    table=table5)


__all__ = ["CHOICES", "DIMENSIONS", "SCIIG_STUDY", "TABLE5_NAMES", "analyze", "table5"]
