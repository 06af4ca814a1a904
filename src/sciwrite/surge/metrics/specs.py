"""SurGE's metrics, each declared once (`sciwrite.core.metric_spec.MetricSpec`), in the order of SurGE's evaluator
report (``src/evaluator.py``: Information Collection, Survey Structure, Survey Content), then what the leaderboard
shows beside them: citation precision and the reference grounding (declared by the shared grounding).

Scales: Coverage, the three relevance levels, SH-Recall, ROUGE and BLEU are 0-1 (SurGE prints BLEU as sacrebleu's
0-100: we divide by 100, as every sciwrite metric is on a 0-1 scale); Structure Quality and Logic are the judge's
0-5 integers averaged, kept on SurGE's 0-5 scale. SH-Recall is a ratio of soft cardinalities, which need not stay
within [0, 1] when the generated headings repeat each other: it is checked only for being a finite number.

Each metric also declares how it should move when the expert survey's text is damaged on purpose (``expected``, with
``reasons`` for the directions that are not obvious): `sciwrite.surge.metrics.sensitivity`.
"""

from __future__ import annotations

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import MetricSpec
from sciwrite.grounding.specs import GROUNDED_RECALL, GROUNDING_METRICS
from sciwrite.metrics.sensitivity import down
from sciwrite.scoring.stages import Stage

UNIT = MetricScale(0.0, 1.0)
#: The judges' 0-5 scores (SurGE's prompts: "a score from 0 to 5"), averaged.
ZERO_TO_FIVE = MetricScale(0.0, 5.0)
#: Soft heading recall: card(G ∩ P) / card(G) with soft cardinalities; unbounded in principle.
SOFT_RATIO = MetricScale(None, None)

INFORMATION, STRUCTURE, CONTENT = "Information collection", "Survey structure", "Survey content"


def _metric(key: str, label: str, group: str, scale: MetricScale = UNIT, **facts: object) -> MetricSpec:
    """A SurGE metric: a Hub task named after its key, described "group: label"."""
    return MetricSpec(key, label, group, scale, hub_task=key, hub_description=f"SurGE {group.lower()}: {label}",
                      **facts)  # type: ignore[arg-type]


# The sensitivity analysis (`sciwrite.surge.metrics.sensitivity`) damages the expert survey's text; what each metric
# reads decides which damage it can see: the reference list (Coverage, paper relevance), the markers with their
# headings or sentences (section and sentence relevance), the headings (SH-Recall, Structure Quality) or the
# passages of 100 characters or more (ROUGE, BLEU, Logic).
#: The perturbations of the sections' text that leave the headings and the reference list as they are.
_BODY_ONLY = ("shift_markers", "shuffle_paragraphs", "drop_last_paragraph")
_CANNOT_SCORE_EMPTY = {"empty_text": "no passage of 100 characters or more: SurGE cannot score it (upstream raises), "
                                     "so there is no value to compare"}


def _unchanged(what: str, *perturbations: str) -> dict[str, str]:
    """The reason of a metric that reads only `what`, which each of `perturbations` leaves as it is."""
    return {p: f"reads only {what}, which this perturbation leaves as it is" for p in perturbations}


#: Coverage and paper relevance read the reference list: the text twice lists the same references twice.
_LISTED_TWICE = {"duplicate_text": "the same reference list twice: the same numbers name the same works"}


_LEXICAL_REASONS = {
    "drop_half_citations": "the passages lose only marker numbers and half of the reference list's lines: overlap "
                           "can move either way",
    "random_citations": "only the reference list's passage changes (its titles); the sections' passages stay",
    "shift_markers": "only marker numbers move within and between passages; the words stay",
    "duplicate_text": "SurGE averages over passages: every passage twice gives the same mean",
    **_CANNOT_SCORE_EMPTY,
}
_LEXICAL_DOWN = down("shuffle_paragraphs", "drop_last_paragraph", "abstract_as_text")

#: "coverage" is a summary's own field (the surveys scored out of the split's), so the metric's key says what it covers.
COVERAGE = _metric("reference_coverage", "Coverage", INFORMATION,
                   expected=down("drop_half_citations", "random_citations", "abstract_as_text", "empty_text"),
                   reasons={**_unchanged("the reference list (never the markers)", *_BODY_ONLY), **_LISTED_TWICE})
RELEVANCE_PAPER = _metric(
    "relevance_paper", "Relevance (paper)", INFORMATION, stage="relevance", roles=("surge_nli",),
    expected=down("random_citations", "abstract_as_text", "empty_text"),
    reasons={"drop_half_citations": "the kept references are still the expert's cited works, each counted 1 "
                                    "without NLI",
             **_unchanged("the reference list (never the markers)", *_BODY_ONLY), **_LISTED_TWICE})
RELEVANCE_SECTION = _metric(
    "relevance_section", "Relevance (section)", INFORMATION, stage="relevance", roles=("surge_nli",),
    expected=down("random_citations", "shift_markers", "shuffle_paragraphs", "abstract_as_text", "empty_text"),
    reasons={"drop_half_citations": "the kept markers keep their headings: a mean over fewer markers",
             "drop_last_paragraph": "the other markers keep their headings: a mean over fewer markers",
             "duplicate_text": "every marker twice, under the same heading: the same mean",
             "shift_markers": "the expert's markers close their section (their places are ours): shifted, they "
                              "open the next section, under another heading"})
RELEVANCE_SENTENCE = _metric(
    "relevance_sentence", "Relevance (sentence)", INFORMATION, stage="relevance", roles=("surge_nli",),
    expected=down("random_citations", "shift_markers", "abstract_as_text", "empty_text"),
    reasons={"drop_half_citations": "the kept markers keep their sentences: a mean over fewer markers",
             "shuffle_paragraphs": "a paragraph moves with its markers: each marker keeps its sentence",
             "drop_last_paragraph": "the other markers keep their sentences: a mean over fewer markers",
             "duplicate_text": "every marker twice, in the same sentence: the same mean",
             "shift_markers": "the expert's markers close their section's last sentence (their places are ours): "
                              "shifted, they stand in the next section's first sentence"})
STRUCTURE_QUALITY = _metric(
    "structure_quality", "Structure quality", STRUCTURE, ZERO_TO_FIVE, roles=("surge_judge",),
    expected=down("duplicate_text", "abstract_as_text", "empty_text"),
    reasons={**_unchanged("the heading outline", "drop_half_citations", "random_citations", *_BODY_ONLY),
             "duplicate_text": "the generated outline repeats the expert's whole tree"})
SH_RECALL = _metric(
    "sh_recall", "SH-Recall", STRUCTURE, SOFT_RATIO, roles=("heading_encoder",),
    expected=down("abstract_as_text", "empty_text"),
    reasons={**_unchanged("the headings", "drop_half_citations", "random_citations", *_BODY_ONLY),
             "duplicate_text": "a recall of the expert's headings: every one is still there (soft cardinalities "
                               "count a repeated heading about once)"})
ROUGE1 = _metric("rouge1", "ROUGE-1", CONTENT, stage="lexical", expected=_LEXICAL_DOWN, reasons=_LEXICAL_REASONS)
ROUGE2 = _metric("rouge2", "ROUGE-2", CONTENT, stage="lexical", expected=_LEXICAL_DOWN, reasons=_LEXICAL_REASONS)
ROUGE_L = _metric("rougeL", "ROUGE-L", CONTENT, stage="lexical", expected=_LEXICAL_DOWN, reasons=_LEXICAL_REASONS)
BLEU = _metric("bleu", "BLEU", CONTENT, stage="lexical", expected=_LEXICAL_DOWN, reasons=_LEXICAL_REASONS)
LOGIC = _metric(
    "logic", "Logic", CONTENT, ZERO_TO_FIVE, roles=("surge_judge",), expected=down("shuffle_paragraphs"),
    reasons={"*": "judges each sampled passage's own reasoning, which markers, reference titles, a dropped or "
                  "repeated passage and an abstract leave coherent; shuffled paragraphs mix sections in one passage",
             **_CANNOT_SCORE_EMPTY})

#: Beside SurGE's table, on the leaderboard: the share of the survey's references that are cited papers of the
#: expert survey (resolved the way Coverage resolves them).
CITATION_PRECISION = MetricSpec("citation_precision", "Cit. prec.", "Citations", UNIT, in_table=False,
                                on_board=True)

METRICS: tuple[MetricSpec, ...] = (
    COVERAGE, RELEVANCE_PAPER, RELEVANCE_SECTION, RELEVANCE_SENTENCE, STRUCTURE_QUALITY, SH_RECALL, ROUGE1, ROUGE2,
    ROUGE_L, BLEU, LOGIC, CITATION_PRECISION, *GROUNDING_METRICS)

#: What the specs cannot say of their scorers: both judges are LLM judges (left out by ``--no-judge``).
JUDGE_STAGES = (STRUCTURE_QUALITY.stage_name, LOGIC.stage_name)
SCORERS: tuple[Stage, ...] = tuple(Stage(name, (), judge=True) for name in JUDGE_STAGES)

#: Coverage as sciwrite's grounding resolver finds it (fuzzy titles, authors and year): the grounded recall.
FUZZY_COVERAGE = GROUNDED_RECALL

__all__ = ["BLEU", "CITATION_PRECISION", "CONTENT", "COVERAGE", "FUZZY_COVERAGE", "INFORMATION", "LOGIC", "METRICS",
           "RELEVANCE_PAPER", "RELEVANCE_SECTION", "RELEVANCE_SENTENCE", "ROUGE1", "ROUGE2", "ROUGE_L", "SCORERS",
           "SH_RECALL", "STRUCTURE", "STRUCTURE_QUALITY", "UNIT", "ZERO_TO_FIVE"]
