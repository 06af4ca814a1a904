"""RWGBench's headline metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`): Table 2's twelve columns, on the
paper's 0-1 scale, every one higher-is-better. The paper names no single overall score, so none is published."""

from __future__ import annotations

from sciwrite.core.eval_results import HubTask

HUB_TASKS: tuple[HubTask, ...] = (
    HubTask("precision", "citation_precision", "Citation precision: cited papers that are gold citations"),
    HubTask("recall", "citation_recall", "Citation recall: gold citations cited"),
    HubTask("soft_citation_recall", "soft_citation_recall", "NLI soft recall of the gold citations"),
    HubTask("claim_support_consistency", "claim_support_consistency",
            "CSC: citing sentences entailed by the cited paper's abstract"),
    HubTask("topical_relevance", "topical_relevance", "TRT: cited papers' relevance to the target paper"),
    HubTask("citation_density", "citation_density", "CD: distinct cited papers per sentence"),
    HubTask("citation_distribution_balance", "citation_distribution_balance",
            "CDB: how evenly citations spread over the section"),
    HubTask("positioning_structure_similarity", "positioning_structure_similarity",
            "PSS: positioning structure against the human section"),
    HubTask("citation_frame_alignment", "citation_frame_alignment",
            "CFA: MultiCite citation frames against the human section"),
    HubTask("rougeL", "rouge_l", "ROUGE-L F1 against the human section"),
    HubTask("bertscore_f1", "bertscore_f1", "BERTScore F1 against the human section"),
    HubTask("llm_judge", "llm_judge", "LLM judge score (the paper's judge prompt), as Table 2 prints it"),
)
#: The configs the Hub tasks are defined on (``eval.yaml``): the 100-paper test split and the offline sample.
HUB_CONFIGS: tuple[tuple[str, str], ...] = (("test", "test"), ("sample", "test"))

__all__ = ["HUB_CONFIGS", "HUB_TASKS"]
