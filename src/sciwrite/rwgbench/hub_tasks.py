"""RWGBench's headline metrics as Hub tasks (`sciwrite.core.eval_results.HubTask`): Table 2's twelve columns, each
with its range and direction as `sciwrite.rwgbench.scales.SCALES` declares it (the paper's scale, every one
higher-is-better). The paper names no single overall score, so none is published."""

from __future__ import annotations

from sciwrite.core.eval_results import HubTask
from sciwrite.rwgbench.scales import SCALES

_DESCRIPTIONS: tuple[tuple[str, str, str], ...] = (
    ("precision", "citation_precision", "Citation precision: cited papers that are gold citations"),
    ("recall", "citation_recall", "Citation recall: gold citations cited"),
    ("soft_citation_recall", "soft_citation_recall", "NLI soft recall of the gold citations"),
    ("claim_support_consistency", "claim_support_consistency",
     "CSC: citing sentences entailed by the cited paper's abstract"),
    ("topical_relevance", "topical_relevance", "TRT: cited papers' relevance to the target paper"),
    ("citation_density", "citation_density", "CD: distinct cited papers per sentence"),
    ("citation_distribution_balance", "citation_distribution_balance",
     "CDB: how evenly citations spread over the section"),
    ("positioning_structure_similarity", "positioning_structure_similarity",
     "PSS: positioning structure against the human section"),
    ("citation_frame_alignment", "citation_frame_alignment",
     "CFA: MultiCite citation frames against the human section"),
    ("rougeL", "rouge_l", "ROUGE-L F1 against the human section"),
    ("bertscore_f1", "bertscore_f1", "BERTScore F1 against the human section"),
    ("llm_judge", "llm_judge", "LLM judge score (the paper's judge prompt), as Table 2 prints it"),
)
HUB_TASKS: tuple[HubTask, ...] = tuple(HubTask(key, task, description, SCALES[key])
                                       for key, task, description in _DESCRIPTIONS)
#: The configs the Hub tasks are defined on (``eval.yaml``): the 100-paper test split and the offline sample.
HUB_CONFIGS: tuple[tuple[str, str], ...] = (("test", "test"), ("sample", "test"))

__all__ = ["HUB_CONFIGS", "HUB_TASKS"]
