"""Perplexity of whole texts under a causal language model (SciIG: GPT-2), with strided sliding windows.

GPT-2 sees at most 1,024 tokens, and an introduction can be longer. As the transformers perplexity guide
describes, a text is cut into windows of `max_length` tokens that start every `stride` tokens (default: half
the window, 512 for GPT-2): each window scores only the tokens the previous windows did not score, with up to
`max_length - stride` earlier tokens as context. Perplexity = exp(mean negative log-likelihood over all scored
tokens); the first token of a text has no context and is not scored (nor is any BOS added), and with
`stride == max_length` (no overlap) neither is the first token of each window. A text that fits one window gets
exactly the full-context value. Windows of all texts are batched together by length. The model, its windows and
its loaders (`CausalLM`, `load_causal_lm`, `perplexity_model_for_profile`) are in `sciwrite.models.causal_lm`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

from sciwrite.models.causal_lm import CausalLM
from sciwrite.sciig.metrics.inputs import check_texts
from sciwrite.sciig.metrics.specs import PERPLEXITY


def score_perplexity(predictions: Sequence[str], lm: CausalLM, stride: int | None = None,
                     batch_size: int = 8) -> list[dict[str, Any]]:
    """Per paper: perplexity of the generated introduction (None when it has under two tokens) and the number of
    tokens scored. Texts are scored whole, however long."""
    check_texts("predictions", predictions, allow_empty=True, max_words=sys.maxsize)
    nll = lm.token_nll(list(predictions), stride, batch_size)
    return [{PERPLEXITY.key: math.exp(total / count) if count else None, "n_tokens": count} for total, count in nll]


def summarize_perplexity(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean perplexity over the papers that have one, and how many had none (empty or one-token texts)."""
    values = [r[PERPLEXITY.key] for r in rows if r[PERPLEXITY.key] is not None]
    return {PERPLEXITY.key: sum(values) / len(values) if values else None, "unscored": len(rows) - len(values)}
