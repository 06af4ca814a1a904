"""SciIG BERTScore: whole-introduction BERTScore of a generated introduction against the reference one.

Reuses the windowed BERTScore of `sciwrite.metrics.bertscore`: texts longer than the encoder's 512-token window
are encoded window by window and matched whole, never truncated; within one window the scores equal `bert_score`'s.
The SciIG paper names no BERTScore model; its Table 2 (F1 0.82-0.85) is on the scale of `bert_score`'s default
English model, so the `bertscore` role is roberta-large at layer 17 (bert_score's layer for it), no baseline
rescaling, in the paper profile, and the packaged MiniLM in lite. (RWGBench keeps SciBERT, which it names.) An
empty generation scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sciwrite.metrics.bertscore import bertscore
from sciwrite.models.registry import resolve_model
from sciwrite.models.token_encoder import TokenEncoder, load_token_encoder
from sciwrite.sciig.metrics.lexical import check_reference_pairs
from sciwrite.sciig.metrics.model_roles import BERTSCORE
from sciwrite.sciig.metrics.specs import BERTSCORE_F1


def sciig_bertscore_encoder(model: str | None = None, layer: int | None = None, profile: str | None = None) -> TokenEncoder:
    """The `bertscore` role's token encoder for the profile, loaded once per process."""
    return load_token_encoder(resolve_model(BERTSCORE, model, profile), layer)


def score_sciig_bertscore(predictions: Sequence[str], references: Sequence[str], encoder: TokenEncoder,
                          batch_size: int = 16, show_progress: bool = False) -> list[dict[str, Any]]:
    """Per paper: BERTScore precision, recall and F1 (cosine greedy matching, no idf, no rescaling)."""
    check_reference_pairs(predictions, references)
    return [{"bertscore_precision": p, "bertscore_recall": r, BERTSCORE_F1.key: f}
            for p, r, f in bertscore(list(predictions), list(references), encoder, batch_size, show_progress)]
