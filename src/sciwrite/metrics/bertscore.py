"""BERTScore over whole long texts: token embeddings computed window by window, then BERTScore's greedy match.

`bert_score` truncates every text at the model's window (512 tokens), which drops most of a related-work
section. Here a text is cut into consecutive windows of at most `window - 2` tokens, each encoded with its
own [CLS]/[SEP] (as bert_score encodes a text), and the token embeddings of all windows are matched
greedily as bert_score matches them: cosine, no idf weighting, [CLS]/[SEP] embeddings available as match
targets but left out of the averages (bert_score's zero idf weight for them). For a text
that fits one window the result equals bert_score's; `tests/rwgbench/test_text_quality.py` checks that against the
library. Tokens near a window boundary see less context than in one long pass, which no 512-token model
can give.
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


def greedy_match(candidate: tuple[np.ndarray, np.ndarray], reference: tuple[np.ndarray, np.ndarray]) -> tuple[float, float, float]:
    """BERTScore precision, recall and F1 of two `token_embeddings` results (0s if either has no token)."""
    (cand, cand_content), (ref, ref_content) = candidate, reference
    if not cand_content.any() or not ref_content.any():
        return 0.0, 0.0, 0.0
    sim = cand @ ref.T
    precision = float(sim[cand_content].max(axis=1).mean())
    recall = float(sim[:, ref_content].max(axis=0).mean())
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


@lru_cache(maxsize=2)
def load_token_encoder(model_id: str, layer: int | None = None) -> TokenEncoder:
    """Load once per process; the layer is bert_score's choice for known models, else the last layer. On CPU a
    BERT model (`onnx_supported`) runs in ONNX Runtime when installed (`use_onnx`)."""
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


def bertscore(candidates: list[str], references: list[str], encoder: TokenEncoder,
              batch_size: int = 16, show_progress: bool = False) -> list[tuple[float, float, float]]:
    """(precision, recall, F1) for each candidate-reference pair; each distinct text is encoded once, and the
    windows of all texts are batched together (`show_progress`: a bar over the windows)."""
    if len(candidates) != len(references):
        raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
    unique = list(dict.fromkeys([*candidates, *references]))
    embedded = dict(zip(unique, encoder.token_embeddings_many(unique, batch_size, show_progress=show_progress)))
    return [greedy_match(embedded[c], embedded[r]) for c, r in zip(candidates, references)]
