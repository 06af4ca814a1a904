"""A transformer's token embeddings over whole long texts, window by window: what BERTScore matches
(`sciwrite.metrics.bertscore`) and what the QA metrics' answer comparison uses (`sciwrite.models.qa`).

A text is cut into consecutive windows of at most `window - 2` tokens, each encoded with its own [CLS]/[SEP] (as
bert_score encodes a text); the embeddings of all windows are returned L2-normalised, with a mask of the content
tokens. Loaded once per process; on CPU a BERT model runs in ONNX Runtime when installed.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from sciwrite.models.encoders import length_batches, load_transformer, tokens_per_batch
from sciwrite.models.fingerprint import module_fingerprint
from sciwrite.models.onnx_runtime import onnx_encoder_for, onnx_supported, use_onnx


@dataclass
class TokenEncoder:
    """A transformer whose `layer`-th hidden states embed tokens, window by window."""

    model_id: str
    model: Any
    tokenizer: Any
    layer: int
    device: str
    window: int = 512
    onnx: Any = None  # an `OnnxEncoder` of the same layer, which then runs the windows instead of PyTorch

    def windows(self, text: str) -> list[list[int]]:
        """Token ids of `text` cut into consecutive windows of at most `window` tokens, each with [CLS] ... [SEP]."""
        ids = self.tokenizer(text.strip(), add_special_tokens=False, verbose=False)["input_ids"] if text.strip() else []
        step = self.window - 2
        first = self.tokenizer.cls_token_id if self.tokenizer.cls_token_id is not None else self.tokenizer.bos_token_id
        last = self.tokenizer.sep_token_id if self.tokenizer.sep_token_id is not None else self.tokenizer.eos_token_id
        return [[first, *ids[i:i + step], last] for i in range(0, len(ids), step)]

    def token_embeddings(self, text: str, batch_size: int = 16) -> tuple[np.ndarray, np.ndarray]:
        """L2-normalised embeddings of every position of every window of `text`, and which are content tokens.

        Returns (vectors (n, d), content (n,) bool): content is False for each window's [CLS] and [SEP].
        """
        return self.token_embeddings_many([text], batch_size)[0]

    def token_embeddings_many(self, texts: list[str], batch_size: int = 16,
                              show_progress: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
        """`token_embeddings` of each text, with the windows of all texts batched together by length."""
        import torch

        windows = [(t, w) for t, text in enumerate(texts) for w in self.windows(text)]
        hidden_of: dict[int, np.ndarray] = {}
        pad = self.tokenizer.pad_token_id or 0
        batches = length_batches([len(w) for _, w in windows], batch_size, tokens_per_batch(self.device))
        bar = tqdm(total=len(windows), desc="BERTScore windows", unit="window", disable=not show_progress)
        for rows in batches:
            batch = [windows[i][1] for i in rows]
            width = max(len(w) for w in batch)
            input_ids = torch.tensor([w + [pad] * (width - len(w)) for w in batch], device=self.device)
            mask = torch.tensor([[1] * len(w) + [0] * (width - len(w)) for w in batch], device=self.device)
            if self.onnx is not None:  # token types: zeros, as the model's default when none are passed
                states = self.onnx.hidden({"input_ids": input_ids, "attention_mask": mask,
                                           "token_type_ids": torch.zeros_like(input_ids)})
            else:
                with torch.inference_mode():
                    hidden = self.model(input_ids=input_ids, attention_mask=mask, output_hidden_states=True)
                states = hidden.hidden_states[self.layer].float().cpu().numpy()
            for i, row, w in zip(rows, states, batch):
                hidden_of[i] = row[:len(w)]
            bar.update(len(rows))
        bar.close()
        pieces: list[list[np.ndarray]] = [[] for _ in texts]
        for i, (t, _) in enumerate(windows):  # windows were listed text by text, in order
            pieces[t].append(hidden_of[i])
        return [self._assemble(p) for p in pieces]

    def _assemble(self, pieces: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        if not pieces:
            return np.zeros((0, self.model.config.hidden_size), dtype=np.float32), np.zeros(0, dtype=bool)
        vectors = np.concatenate(pieces)
        content = np.concatenate([np.r_[False, np.ones(len(p) - 2, dtype=bool), False] for p in pieces])
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True), content


def load_token_encoder(model_id: str, layer: int | None = None) -> TokenEncoder:
    """Load once per process; the layer is bert_score's choice for known models, else the last layer. On CPU a
    BERT model (`onnx_supported`) runs in ONNX Runtime when installed (`use_onnx`). ``f(id)`` and ``f(id, None)``
    share one cache entry (an `lru_cache` keys them apart, and loaded the model twice)."""
    return _load_token_encoder(model_id, layer)


@lru_cache(maxsize=2)
def _load_token_encoder(model_id: str, layer: int | None) -> TokenEncoder:
    from transformers import AutoModel

    model, tokenizer, device = load_transformer(model_id, AutoModel, "BERTScore model")
    if layer is None:
        from bert_score.utils import model2layers

        layer = model2layers.get(model_id, model.config.num_hidden_layers)
    window = min(getattr(tokenizer, "model_max_length", 512) or 512, model.config.max_position_embeddings, 512)
    onnx = None
    if use_onnx(device) and onnx_supported(model) and "token_type_ids" in inspect.signature(model.forward).parameters:
        onnx = onnx_encoder_for(model, module_fingerprint(model), layer)
    return TokenEncoder(model_id, model, tokenizer, layer, device, window, onnx)


__all__ = ["TokenEncoder", "load_token_encoder"]
