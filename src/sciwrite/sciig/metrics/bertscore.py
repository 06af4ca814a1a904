"""SciIG BERTScore: whole-introduction BERTScore of a generated introduction against the reference one.

Reuses the windowed BERTScore of `sciwrite.metrics.bertscore`: texts longer than the encoder's 512-token window
are encoded window by window and matched whole, never truncated; within one window the scores equal `bert_score`'s.
The SciIG paper does not name its BERTScore model here, so the `scibert` role is used (SciBERT, layer 8, in the
paper profile; the packaged MiniLM in lite), as for RWGBench's text quality. An empty generation scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sciwrite.metrics.bertscore import bertscore
from sciwrite.models.registry import resolve_model
from sciwrite.models.token_encoder import TokenEncoder, load_token_encoder
from sciwrite.sciig.metrics.lexical import check_reference_pairs


def sciig_bertscore_encoder(model: str | None = None, layer: int | None = None, profile: str | None = None) -> TokenEncoder:
    """The `scibert` role's token encoder for the profile, loaded once per process."""
    return load_token_encoder(resolve_model("scibert", model, profile), layer)


def score_sciig_bertscore(predictions: Sequence[str], references: Sequence[str], encoder: TokenEncoder,
                          batch_size: int = 16, show_progress: bool = False) -> list[dict[str, Any]]:
    """Per paper: BERTScore precision, recall and F1 (cosine greedy matching, no idf, no rescaling)."""
    check_reference_pairs(predictions, references)
    return [{"bertscore_precision": p, "bertscore_recall": r, "bertscore_f1": f}
            for p, r, f in bertscore(list(predictions), list(references), encoder, batch_size, show_progress)]
