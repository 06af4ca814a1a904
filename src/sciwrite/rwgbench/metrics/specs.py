"""RWGBench's metrics, each declared once (`sciwrite.core.metric_spec.MetricSpec`): Table 2's twelve columns in its
order (§4: Citation Quality CQ, Citation Organization CO, Citation Framing CF, Text Quality TQ), then the reference
grounding the leaderboard shows beside it (declared by the shared grounding, `sciwrite.grounding.specs`, and
listed here). The results table and its labels, the scorers' stages and model roles
(by name: the roles themselves are declared in `sciwrite.rwgbench.metrics.model_roles`), the scales, the sensitivity expectations, the quick start's plot, Table 3 and the Hub tasks are all read off
`METRICS`; no other module writes a metric key.

Scales: Table 2 prints every metric on 0-1 and every one is higher-is-better, the mean of its per-paper values
(§4's equations).
"""

from __future__ import annotations

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import CANDIDATES, MetricSpec, PrintedAs
from sciwrite.grounding.specs import (
    GROUNDED_PRECISION,
    GROUNDED_RECALL,
    GROUNDING_AMBIGUOUS_RATE,
    GROUNDING_FOUND_RATE,
    GROUNDING_HALLUCINATION_RATE,
    GROUNDING_METRICS,
    UNIT_LOWER,
)
from sciwrite.metrics.sensitivity import down
from sciwrite.scoring.stages import Stage

#: A share or a score in [0, 1].
UNIT = MetricScale(0.0, 1.0)
#: A mean cosine similarity (TRT, Eq. 4): in [-1, 1].
COSINE = MetricScale(-1.0, 1.0)

#: The paper table that prints a subset of the metrics under its own labels: Table 3, the Spearman correlations.
TABLE3 = "rwgbench-table3"
#: The text-quality perturbations: what reorders, cuts, repeats or replaces the words.
_TEXT_DAMAGE = down("shuffle_paragraphs", "drop_last_paragraph", "abstract_as_text", "duplicate_text", "empty_text")
_MARKERS_STRIPPED = "markers are stripped before {}: the words compared are unchanged"

PRECISION = MetricSpec(
    "precision", "P", "CQ", UNIT, stage="citation_precision_recall", paper_label="Prec.", plotted=True,
    expected=down("random_citations", "abstract_as_text", "empty_text"),
    reasons={"drop_half_citations": "the kept markers still cite gold papers: precision must not drop",
             "drop_last_paragraph": "the kept markers still cite gold papers"},
    hub_task="citation_precision", hub_description="Citation precision: cited papers that are gold citations")
RECALL = MetricSpec(
    "recall", "R", "CQ", UNIT, stage="citation_precision_recall", paper_label="Rec.", plotted=True,
    expected=down("drop_half_citations", "random_citations", "drop_last_paragraph", "abstract_as_text", "empty_text"),
    hub_task="citation_recall", hub_description="Citation recall: gold citations cited",
    printed={TABLE3: PrintedAs("Rec.")})
SOFT_CITATION_RECALL = MetricSpec(
    "soft_citation_recall", "SoftR", "CQ", UNIT, paper_label="Soft Rec.", roles=("nli",),
    expected=down("drop_half_citations", "random_citations", "drop_last_paragraph", "abstract_as_text", "empty_text"),
    reasons={"shift_markers": "the same gold papers are cited"},
    hub_task="soft_citation_recall", hub_description="NLI soft recall of the gold citations",
    printed={TABLE3: PrintedAs("Soft")})
CLAIM_SUPPORT_CONSISTENCY = MetricSpec(
    "claim_support_consistency", "CSC", "CQ", UNIT, paper_label="CSC", roles=("nli",), needs=(CANDIDATES,),
    expected=down("random_citations", "shift_markers", "abstract_as_text", "empty_text"),
    reasons={"drop_half_citations": "the kept citations support their claims as before"},
    hub_task="claim_support_consistency",
    hub_description="CSC: citing sentences entailed by the cited paper's abstract", printed={TABLE3: PrintedAs("CSC")})
TOPICAL_RELEVANCE = MetricSpec(
    "topical_relevance", "TRT", "CQ", COSINE, paper_label="TRT", roles=("scibert",), needs=(CANDIDATES,),
    plotted=True, expected=down("random_citations", "abstract_as_text", "empty_text"),
    reasons={"drop_half_citations": "the kept cited papers are as relevant as the dropped",
             "shift_markers": "the same papers are cited, only in other sentences"},
    hub_task="topical_relevance", hub_description="TRT: cited papers' relevance to the target paper",
    printed={TABLE3: PrintedAs("TRT")})
CITATION_DENSITY = MetricSpec(
    "citation_density", "CD", "CO",
    MetricScale(0.0, None),  # distinct cited papers per sentence: above 1 when a sentence cites many
    paper_label="CD", plotted=True,
    reasons={"*": "how many citations per sentence is good has no single direction"},
    hub_task="citation_density", hub_description="CD: distinct cited papers per sentence")
CITATION_DISTRIBUTION_BALANCE = MetricSpec(
    "citation_distribution_balance", "CDB", "CO", UNIT, paper_label="CDB", plotted=True,
    reasons={"*": "how evenly citations spread has no single good direction"},
    hub_task="citation_distribution_balance", hub_description="CDB: how evenly citations spread over the section")
POSITIONING_STRUCTURE_SIMILARITY = MetricSpec(
    "positioning_structure_similarity", "PSS", "CF", UNIT, paper_label="PSS", roles=("scibert",), plotted=True,
    expected=_TEXT_DAMAGE,
    reasons={"drop_half_citations": "markers are stripped before blocks are embedded",
             "shift_markers": "markers are stripped before blocks are embedded"},
    hub_task="positioning_structure_similarity",
    hub_description="PSS: positioning structure against the human section", printed={TABLE3: PrintedAs("PSS")})
CITATION_FRAME_ALIGNMENT = MetricSpec(
    "citation_frame_alignment", "CFA", "CF", UNIT, paper_label="CFA", roles=("citation_frame",), plotted=True,
    expected=down("shift_markers", "abstract_as_text", "empty_text"),
    reasons={"drop_half_citations": "fewer contexts of the same kinds: the frame mix need not change",
             "random_citations": "the text, so every citing context, is unchanged",
             "duplicate_text": "every context twice: the frame mix is unchanged"},
    hub_task="citation_frame_alignment",
    hub_description="CFA: MultiCite citation frames against the human section", printed={TABLE3: PrintedAs("CFA")})
ROUGE_L = MetricSpec(
    "rougeL", "ROUGE-L", "TQ", UNIT, stage="text_quality", paper_label="R-L", plotted=True, expected=_TEXT_DAMAGE,
    reasons={"drop_half_citations": _MARKERS_STRIPPED.format("ROUGE-L"),
             "shift_markers": _MARKERS_STRIPPED.format("ROUGE-L"),
             "random_citations": "the text is unchanged, only the candidate list"},
    hub_task="rouge_l", hub_description="ROUGE-L F1 against the human section")
BERTSCORE_F1 = MetricSpec(
    "bertscore_f1", "BERTScore", "TQ",
    COSINE,  # greedy cosine matching, no baseline rescaling
    stage="text_quality", paper_label="BS", roles=("scibert",), plotted=True, expected=_TEXT_DAMAGE,
    reasons={"drop_half_citations": _MARKERS_STRIPPED.format("BERTScore"),
             "shift_markers": _MARKERS_STRIPPED.format("BERTScore"),
             "random_citations": "the text is unchanged, only the candidate list",
             "duplicate_text": "greedy matching finds every token twice; a good metric should still penalise "
                               "repetition"},
    hub_task="bertscore_f1", hub_description="BERTScore F1 against the human section")
LLM_JUDGE = MetricSpec(
    "llm_judge", "LLM", "TQ",
    UNIT,  # the 1-5 judgement mapped onto [0, 1]
    paper_label="LLM", roles=("judge",), expected=_TEXT_DAMAGE,
    reasons={"drop_half_citations": "the rubric (§4.4) leaves citation coverage out of the score",
             "shift_markers": "the rubric (§4.4) leaves citation correctness out of the score",
             "random_citations": "the judge reads the text, which is unchanged"},
    hub_task="llm_judge", hub_description="LLM judge score (the paper's judge prompt), as Table 2 prints it",
    printed={TABLE3: PrintedAs("LLM")})

# After Table 2's columns, the reference grounding, reported beside Table 2 and never in it
# (`sciwrite.rwgbench.metrics.grounding`): shares of the listed references, computed and declared by the shared
# grounding (`sciwrite.grounding.specs`).
METRICS: tuple[MetricSpec, ...] = (
    PRECISION, RECALL, SOFT_CITATION_RECALL, CLAIM_SUPPORT_CONSISTENCY, TOPICAL_RELEVANCE, CITATION_DENSITY,
    CITATION_DISTRIBUTION_BALANCE, POSITIONING_STRUCTURE_SIMILARITY, CITATION_FRAME_ALIGNMENT, ROUGE_L, BERTSCORE_F1,
    LLM_JUDGE, *GROUNDING_METRICS)

#: What the specs cannot say of their scorers: the evaluate module that scores a stage alone (metrics/<module>/),
#: when not the stage's name, and which one is an LLM judge.
SCORERS: tuple[Stage, ...] = (
    Stage("text_quality", (), module="rwg_text_quality"),
    Stage(LLM_JUDGE.stage_name, (), module="rwg_llm_judge", judge=True),
)

__all__ = ["BERTSCORE_F1", "CITATION_DENSITY", "CITATION_DISTRIBUTION_BALANCE", "CITATION_FRAME_ALIGNMENT",
           "CLAIM_SUPPORT_CONSISTENCY", "COSINE", "GROUNDED_PRECISION", "GROUNDED_RECALL",
           "GROUNDING_AMBIGUOUS_RATE", "GROUNDING_FOUND_RATE", "GROUNDING_HALLUCINATION_RATE", "LLM_JUDGE", "METRICS",
           "POSITIONING_STRUCTURE_SIMILARITY", "PRECISION", "RECALL", "ROUGE_L", "SCORERS", "SOFT_CITATION_RECALL",
           "TABLE3", "TOPICAL_RELEVANCE", "UNIT", "UNIT_LOWER"]
