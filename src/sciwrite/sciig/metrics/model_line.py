"""The models behind a SciIG results table, as one line printed under it (the paper names few of them, so every
table says which checkpoints produced its numbers)."""

from __future__ import annotations

from sciwrite.core.summary import Summary
from sciwrite.sciig.metrics.specs import BLEURT, CONTEXTUAL_RELEVANCE, PERPLEXITY

#: Role -> the metric it serves, in the order of the paper's Table 2 (a role serving one metric: its label).
ROLE_LABELS = (
    ("wordnet", "METEOR synonyms"),
    ("bertscore", "BERTScore / QA sim_k"),
    ("bleurt", BLEURT.label),
    ("contextual_encoder", CONTEXTUAL_RELEVANCE.label.lower()),
    ("keyphrase_encoder", "keyphrases"),
    ("summac_nli", "SummaC"),
    ("question_generation", "QA: QG"),
    ("question_answering", "QA: QA"),
    ("citation_extractor", "citation extraction"),
    ("gpt2", PERPLEXITY.label.lower()),
    ("judge", "LLM judge"),
)


def format_model_line(summary: Summary) -> str:
    """``models: BERTScore / QA sim_k = roberta-large; ...`` from the summary's models (role -> model id); roles
    not in `ROLE_LABELS` follow under their own names. Empty when there are none."""
    models = dict(summary.models)
    if not models:
        return ""
    parts = [f"{label} = {models.pop(role)}" for role, label in ROLE_LABELS if role in models]
    parts += [f"{role} = {model}" for role, model in sorted(models.items())]
    return "models: " + "; ".join(parts)
