"""Causal language models (SciIG perplexity: GPT-2, the `gpt2` role) scoring whole texts with strided sliding
windows: summed token negative log-likelihoods, which `sciwrite.sciig.metrics.perplexity` turns into perplexity.

GPT-2 sees at most 1,024 tokens, and an introduction can be longer. As the transformers perplexity guide
describes, a text is cut into windows of `max_length` tokens that start every `stride` tokens (default: half
the window, 512 for GPT-2): each window scores only the tokens the previous windows did not score, with up to
`max_length - stride` earlier tokens as context. The first token of a text has no context and is not scored (nor
is any BOS added), and with `stride == max_length` (no overlap) neither is the first token of each window. A text
that fits one window gets exactly the full-context value. Windows of all texts are batched together by length.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sciwrite.models.encoders import length_batches, load_transformer, tokens_per_batch
from sciwrite.models.plan import load_for_profile
from sciwrite.models.registry import ModelRole


def strided_windows(n_tokens: int, max_length: int, stride: int) -> list[tuple[int, int, int]]:
    """(begin, end, n_new) of each window over `n_tokens` tokens: the window covers [begin, end) and scores its
    last `n_new` tokens, those no earlier window scored."""
    if not 0 < stride <= max_length:
        raise ValueError(f"stride ({stride}) must be between 1 and max_length ({max_length})")
    windows, scored_until = [], 0
    for begin in range(0, n_tokens, stride):
        end = min(begin + max_length, n_tokens)
        windows.append((begin, end, end - scored_until))
        scored_until = end
        if end == n_tokens:
            break
    return windows


@dataclass
class CausalLM:
    """A causal language model with its tokenizer, window and stride."""

    model_id: str
    model: Any
    tokenizer: Any
    device: str
    max_length: int

    def token_nll(self, texts: Sequence[str], stride: int | None = None,
                  batch_size: int = 8) -> list[tuple[float, int]]:
        """(summed negative log-likelihood, number of scored tokens) of each text over its strided windows."""
        import torch

        stride = stride or max(self.max_length // 2, 1)
        ids = [self.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"] if text else [] for text in texts]
        windows = [(t, ids[t][b:e], n_new) for t in range(len(texts)) for b, e, n_new in strided_windows(len(ids[t]), self.max_length, stride)]
        nll_sums, n_scored = [0.0 for _ in texts], [0 for _ in texts]
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else (self.tokenizer.eos_token_id or 0)
        for rows in length_batches([len(w) for _, w, _ in windows], batch_size, tokens_per_batch(self.device)):
            batch = [windows[i] for i in rows]
            width = max(len(w) for _, w, _ in batch)
            input_ids = torch.tensor([w + [pad] * (width - len(w)) for _, w, _ in batch], device=self.device)
            mask = torch.tensor([[1] * len(w) + [0] * (width - len(w)) for _, w, _ in batch], device=self.device)
            with torch.inference_mode():
                logits = self.model(input_ids=input_ids, attention_mask=mask).logits[:, :-1].float()
                targets = input_ids[:, 1:]
                nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                                        reduction="none").view(targets.shape)
            for row, (t, w, n_new) in zip(nll.cpu().tolist(), batch):
                scored = row[max(len(w) - n_new, 1) - 1:len(w) - 1]  # targets at positions len(w) - n_new .. len(w) - 1
                nll_sums[t] += sum(scored)
                n_scored[t] += len(scored)
        return list(zip(nll_sums, n_scored))


@lru_cache(maxsize=2)
def load_causal_lm(model_id: str) -> CausalLM:
    """Load a causal LM once per process (on GPU in fp16 when present); its window is the model's context size."""
    from transformers import AutoModelForCausalLM

    model, tokenizer, device = load_transformer(model_id, AutoModelForCausalLM, "perplexity language model")
    config = model.config
    max_length = getattr(config, "n_positions", None) or getattr(config, "max_position_embeddings", None) or 1024
    return CausalLM(model_id, model, tokenizer, device, int(max_length))


def perplexity_model_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None
                                 ) -> tuple[CausalLM | None, str | None]:
    """The language model of `role` (SciIG's ``gpt2``), or (None, why) when the profile has none (the offline
    `lite` profile)."""
    return load_for_profile(role, load_causal_lm, model, profile)
