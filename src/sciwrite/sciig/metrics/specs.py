"""SciIG's metrics, each declared once (`sciwrite.core.metric_spec.MetricSpec`): Table 2's columns in its order
(category, label), then the unmatched-citation rate the leaderboard shows beside it. The results table and its
labels, the scorers' stages and model roles (by name: the roles themselves are declared in
`sciwrite.sciig.metrics.model_roles`), the scales, the sensitivity expectations, the paper's Tables 2-4 and
the Hub tasks are all read off `METRICS`; no other module writes a metric key.

Scales (Table 2): 0-1 for most, the SummaC entailment scores -1 to 1, perplexity from 1 up and lower-is-better.
BLEU is corpus BLEU of the papers' summed statistics (``bleu_stats``), sacrebleu's 0-100 divided by 100; every other
metric is the mean of its per-paper values. Each metric is a Hub task, its id the key (ROUGE's spelled out) and its
description "category: label".

The paper tables: Table 3 prints the metrics under its own categories and labels, in its own row order (`row`);
Table 2 prints Table 3's rows, three under other labels, and Table 4 Table 2's, one under another label (sic).
"""

from __future__ import annotations

from typing import Any

from sciwrite.core.metric_scales import MetricScale
from sciwrite.core.metric_spec import MetricSpec, PrintedAs
from sciwrite.metrics.sensitivity import EVERY_PERTURBATION, down
from sciwrite.sciig.metrics.corpus_bleu import rows_corpus_bleu
from sciwrite.sciig.metrics.model_roles import QA_ROLES
from sciwrite.scoring.stages import Stage

#: A share or a score in [0, 1].
UNIT = MetricScale(0.0, 1.0)
#: A mean cosine similarity, or an entailment score (entailment minus contradiction): in [-1, 1].
SIGNED_UNIT = MetricScale(-1.0, 1.0)

#: The paper tables that print the metrics under their own labels.
TABLE2, TABLE3, TABLE4 = "sciig-table2", "sciig-table3", "sciig-table4"
_ALL_DOWN = down(*EVERY_PERTURBATION)
_ONLY_EMPTY = down("empty_text")


def _metric(key: str, label: str, group: str, scale: MetricScale, table3: tuple[str, str, int], *,
            hub_task: str | None = None, table2: str | None = None, table4: str | None = None,
            **facts: Any) -> MetricSpec:
    """A SciIG metric: a Hub task (id: the key unless named, description "group: label"), printed by Table 3 as
    (category, label, row) and by Tables 2 and 4 under the same category and row, with `table2` / `table4` as the
    label where those tables print another (Table 4 takes Table 2's)."""
    category, printed, row = table3
    tables = {TABLE3: PrintedAs(printed, category, row)}
    if table2:
        tables[TABLE2] = PrintedAs(table2, category, row)
    if table4 or table2:
        tables[TABLE4] = PrintedAs(table4 or table2 or printed, category, row)
    return MetricSpec(key, label, group, scale, hub_task=hub_task or key, hub_description=f"{group}: {label}",
                      printed=tables, **facts)


ROUGE1 = _metric("rouge1", "ROUGE-1", "Lexical", UNIT, ("Lexical Overlap", "ROUGE-1", 0), hub_task="rouge_1",
                 stage="rouge",
                 expected=down("drop_half_citations", "random_citations", "drop_last_paragraph", "abstract_as_text",
                               "duplicate_text", "empty_text"),
                 reasons={"shift_markers": "unigram overlap cannot see word order",
                          "shuffle_paragraphs": "unigram overlap cannot see order"})
ROUGE2 = _metric("rouge2", "ROUGE-2", "Lexical", UNIT, ("Lexical Overlap", "ROUGE-2", 1), hub_task="rouge_2",
                 stage="rouge", expected=_ALL_DOWN)
ROUGE_L = _metric("rougeL", "ROUGE-L", "Lexical", UNIT, ("Lexical Overlap", "ROUGE-L", 2), hub_task="rouge_l",
                  stage="rouge", expected=_ALL_DOWN)
BLEU = _metric("bleu", "BLEU", "Lexical", MetricScale(0.0, 1.0, aggregate=rows_corpus_bleu),
               ("Lexical Overlap", "BLEU", 3), expected=_ALL_DOWN,
               reasons={"duplicate_text": "clipped n-gram counts halve BLEU's precision"})
METEOR = _metric("meteor", "METEOR", "Lexical", UNIT, ("Lexical Overlap", "METEOR", 4), expected=_ALL_DOWN)
BERTSCORE_F1 = _metric("bertscore_f1", "BERTScore F1", "Semantic",
                       SIGNED_UNIT,  # greedy cosine matching, no baseline rescaling
                       ("Semantic Similarity", "BERTScore", 5), stage="bertscore", roles=("bertscore",),
                       expected=_ALL_DOWN)
BLEURT = _metric("bleurt", "BLEURT", "Semantic",
                 MetricScale(None, None),  # a regression on human ratings: mostly 0-1, but not bounded
                 ("Semantic Similarity", "BLEURT", 6), roles=("bleurt",), expected=_ALL_DOWN)
CONTEXTUAL_RELEVANCE = _metric(
    "contextual_relevance", "Contextual relevance", "Semantic", SIGNED_UNIT,  # a mean cosine
    ("Semantic Similarity", "Contextual Relevance", 7), roles=("contextual_encoder",), expected=_ONLY_EMPTY,
    reasons={"abstract_as_text": "the abstract is as relevant to the paper as its introduction"})
KEYPHRASE_COVERAGE_REF = _metric(
    "keyphrase_coverage_ref", "Coverage (reference)", "Keyphrase", UNIT,
    ("Content Coverage", "Reference-based Coverage", 8), stage="keyphrases", roles=("keyphrase_encoder",),
    expected=down("drop_last_paragraph", "abstract_as_text", "empty_text"))
KEYPHRASE_COVERAGE_FREE = _metric(
    "keyphrase_coverage_free", "Coverage (reference-free)", "Keyphrase", UNIT,
    ("Content Coverage", "Reference-free Coverage", 9), stage="keyphrases", roles=("keyphrase_encoder",),
    expected=down("drop_last_paragraph", "empty_text"),
    reasons={"abstract_as_text": "the abstract covers the paper's keyphrases as well"})
KEYPHRASE_FAITHFULNESS = _metric(
    "keyphrase_faithfulness", "Faithfulness", "Keyphrase", UNIT, ("Faithfulness", "Keyphrase-based Faithfulness", 13),
    stage="keyphrases", roles=("keyphrase_encoder",), expected=_ONLY_EMPTY)
KEYPHRASE_CONSISTENCY = _metric(
    "keyphrase_consistency", "Consistency", "Keyphrase", UNIT, ("Consistency", "Keyphrase-based Consistency", 17),
    stage="keyphrases", roles=("keyphrase_encoder",), expected=_ONLY_EMPTY)
SUMMAC_FAITHFULNESS = _metric(
    "summac_faithfulness", "SummaC faithfulness", "Entailment", SIGNED_UNIT,
    ("Faithfulness", "Entailment-based Faithfulness", 12), table4="Entailment-based Faitfulness",  # sic, Table 4
    stage="summac", roles=("summac_nli",), expected=_ONLY_EMPTY)
SUMMAC_CONSISTENCY = _metric(
    "summac_consistency", "SummaC consistency", "Entailment", SIGNED_UNIT,
    ("Consistency", "Entailement-based Consistency", 16),  # sic, as printed in Table 3
    table2="Entailment-based Consistency",
    stage="summac", roles=("summac_nli",), expected=_ONLY_EMPTY)
QA_FAITHFULNESS = _metric(
    "qa_faithfulness", "Faithfulness", "QA", UNIT, ("Faithfulness", "QA-based Faithfulness", 11), stage="qa",
    roles=QA_ROLES.names, expected=_ONLY_EMPTY)
QA_CONSISTENCY = _metric(
    "qa_consistency", "Consistency", "QA", UNIT, ("Consistency", "QA-based Consistency", 15), stage="qa",
    roles=QA_ROLES.names, expected=_ONLY_EMPTY)
CITATION_PRECISION = _metric(
    "citation_precision", "Precision", "Citation", UNIT, ("Citation Correctness", "Citation Precision", 20),
    table2="Precision", stage="citations", roles=("citation_extractor",),
    expected=down("random_citations"),
    reasons={"abstract_as_text": "no citations: precision is 0 or undefined by convention",
             "empty_text": "no citations: precision is 0 or undefined by convention",
             "drop_half_citations": "the kept citations are still the paper's: precision must not drop"})
CITATION_RECALL = _metric(
    "citation_recall", "Recall", "Citation", UNIT, ("Citation Correctness", "Citation Recall", 19),
    table2="Recall", stage="citations", roles=("citation_extractor",),
    expected=down("drop_half_citations", "random_citations", "drop_last_paragraph", "abstract_as_text",
                  "empty_text"))
PERPLEXITY = _metric(
    "perplexity", "Perplexity", "Fluency", MetricScale(1.0, None, higher_is_better=False),
    ("Narrative Quality", "Perplexity ↓", 22), roles=("gpt2",),
    reasons={"*": "fluency under a small LM: repetition and odd text can both lower or raise it"})
JUDGE_COVERAGE = _metric(
    "judge_coverage", "Coverage", "LLM judge", UNIT, ("Content Coverage", "LLM-as-a-Judge", 10), stage="judge",
    roles=("sciig_judge",), expected=down("drop_last_paragraph", "empty_text"))
JUDGE_CONSISTENCY = _metric(
    "judge_consistency", "Consistency", "LLM judge", UNIT, ("Consistency", "LLM-as-a-Judge", 18), stage="judge",
    roles=("sciig_judge",), expected=_ONLY_EMPTY)
JUDGE_FAITHFULNESS = _metric(
    "judge_faithfulness", "Faithfulness", "LLM judge", UNIT, ("Faithfulness", "LLM-as-a-Judge", 14), stage="judge",
    roles=("sciig_judge",), expected=_ONLY_EMPTY)
JUDGE_CITATION_QUALITY = _metric(
    "judge_citation_quality", "Citation quality", "LLM judge", UNIT,
    ("Citation Correctness", "LLM-as-a-Judge (Citation Quality)", 21), stage="judge", roles=("sciig_judge",),
    expected=down("drop_half_citations", "random_citations", "shift_markers", "abstract_as_text", "empty_text"))
JUDGE_NARRATIVE_QUALITY = _metric(
    "judge_narrative_quality", "Narrative quality", "LLM judge", UNIT, ("Narrative Quality", "LLM-as-a-Judge", 23),
    stage="judge", roles=("sciig_judge",),
    expected=down("shift_markers", "shuffle_paragraphs", "drop_last_paragraph", "duplicate_text", "empty_text"))

#: Beside Table 2, on the leaderboard: the share of cited works matched to no reference (lower is better).
UNMATCHED_CITATION_RATE = MetricSpec("unmatched_citation_rate", "Unmatched cit.", "Grounding",
                                     MetricScale(0.0, 1.0, higher_is_better=False), in_table=False, on_board=True)

METRICS: tuple[MetricSpec, ...] = (
    ROUGE1, ROUGE2, ROUGE_L, BLEU, METEOR, BERTSCORE_F1, BLEURT, CONTEXTUAL_RELEVANCE, KEYPHRASE_COVERAGE_REF,
    KEYPHRASE_COVERAGE_FREE, KEYPHRASE_FAITHFULNESS, KEYPHRASE_CONSISTENCY, SUMMAC_FAITHFULNESS, SUMMAC_CONSISTENCY,
    QA_FAITHFULNESS, QA_CONSISTENCY, CITATION_PRECISION, CITATION_RECALL, PERPLEXITY, JUDGE_COVERAGE,
    JUDGE_CONSISTENCY, JUDGE_FAITHFULNESS, JUDGE_CITATION_QUALITY, JUDGE_NARRATIVE_QUALITY, UNMATCHED_CITATION_RATE)

#: What the specs cannot say of their scorers: the evaluate module that scores a stage alone (metrics/<module>/)
#: and which one is an LLM judge.
SCORERS: tuple[Stage, ...] = (
    Stage("rouge", (), module="sciig_rouge"),
    Stage(BLEU.stage_name, (), module="sciig_bleu"),
    Stage(METEOR.stage_name, (), module="sciig_meteor"),
    Stage("bertscore", (), module="sciig_bertscore"),
    Stage(BLEURT.stage_name, (), module="sciig_bleurt"),
    Stage("keyphrases", (), module="sciig_keyphrases"),
    Stage("summac", (), module="sciig_summac"),
    Stage("qa", (), module="sciig_qa"),
    Stage("citations", (), module="citation_correctness"),
    Stage("judge", (), module="sciig_llm_judge", judge=True),
)

__all__ = ["BERTSCORE_F1", "BLEU", "BLEURT", "CITATION_PRECISION", "CITATION_RECALL", "CONTEXTUAL_RELEVANCE",
           "JUDGE_CITATION_QUALITY", "JUDGE_CONSISTENCY", "JUDGE_COVERAGE", "JUDGE_FAITHFULNESS",
           "JUDGE_NARRATIVE_QUALITY", "KEYPHRASE_CONSISTENCY", "KEYPHRASE_COVERAGE_FREE", "KEYPHRASE_COVERAGE_REF",
           "KEYPHRASE_FAITHFULNESS", "METEOR", "METRICS", "PERPLEXITY", "QA_CONSISTENCY", "QA_FAITHFULNESS", "ROUGE1",
           "ROUGE2", "ROUGE_L", "SCORERS", "SIGNED_UNIT", "SUMMAC_CONSISTENCY", "SUMMAC_FAITHFULNESS", "TABLE2",
           "TABLE3", "TABLE4", "UNIT", "UNMATCHED_CITATION_RATE"]
