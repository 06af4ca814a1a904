"""Three-way NLI (entailment / neutral / contradiction) over premise-hypothesis pairs, batched, loaded once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from sciwrite.models.encoders import length_batches, load_transformer, tokens_per_batch
from sciwrite.models.registry import ModelUnavailableError, load_for_profile

LABELS = ("entailment", "neutral", "contradiction")


def label_columns(id2label: dict[int, str]) -> tuple[int, int, int]:
    """Output columns of entailment, neutral and contradiction, read from the model's own label names."""
    found: dict[str, int] = {}
    for index, name in id2label.items():
        lowered = str(name).lower()
        for label, stem in (("entailment", "entail"), ("neutral", "neutral"), ("contradiction", "contradict")):
            if stem in lowered:
                found[label] = int(index)
    missing = [label for label in LABELS if label not in found]
    if missing:
        raise ModelUnavailableError(
            f"the NLI model's labels {dict(id2label)} do not name {missing}; a three-way NLI model is needed")
    return found["entailment"], found["neutral"], found["contradiction"]


@dataclass
class NLIModel:
    """A sequence-classification NLI model with its tokenizer and label columns."""

    model_id: str
    model: Any
    tokenizer: Any
    columns: tuple[int, int, int]
    device: str
    max_length: int = 512

    def probabilities(self, premises: list[str], hypotheses: list[str], batch_size: int = 32) -> np.ndarray:
        """(n, 3) probabilities of entailment, neutral, contradiction; premises are truncated first. Pairs run in
        length-sorted batches within a token budget, so that little padding is computed."""
        import torch

        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        out = np.zeros((len(premises), 3), dtype=np.float32)
        if not premises:
            return out
        encoded = self.tokenizer(list(premises), list(hypotheses), truncation="only_first", max_length=self.max_length)
        lengths = [len(ids) for ids in encoded["input_ids"]]
        for rows in length_batches(lengths, batch_size, tokens_per_batch(self.device)):
            features = [{key: values[i] for key, values in encoded.items()} for i in rows]
            batch = self.tokenizer.pad(features, return_tensors="pt").to(self.device)
            with torch.inference_mode():
                logits = self.model(**batch).logits.float()
            probs = torch.softmax(logits, dim=-1)[:, list(self.columns)]
            out[rows] = probs.cpu().numpy()
        return out

    def soft_scores(self, premises: list[str], hypotheses: list[str], batch_size: int = 32) -> np.ndarray:
        """P(entailment) + 0.5 * P(neutral) for each pair."""
        return soft_scores(self.probabilities(premises, hypotheses, batch_size))


def soft_scores(probabilities: np.ndarray) -> np.ndarray:
    """RWGBench's soft NLI score of (n, 3) [entailment, neutral, contradiction] rows: P(e) + 0.5 P(n)."""
    return probabilities[:, 0] + 0.5 * probabilities[:, 1]


@lru_cache(maxsize=2)
def load_nli(model_id: str) -> NLIModel:
    """Load an NLI model once per process, on GPU in fp16 when present; a clear error naming it otherwise."""
    from transformers import AutoModelForSequenceClassification

    model, tokenizer, device = load_transformer(model_id, AutoModelForSequenceClassification, "NLI model")
    max_length = min(getattr(tokenizer, "model_max_length", 512) or 512, 512)
    return NLIModel(model_id, model, tokenizer, label_columns(model.config.id2label), device, max_length)


def nli_for_profile(model: str | None = None, profile: str | None = None) -> tuple[NLIModel | None, str | None]:
    """The NLI model a metric should use, or (None, why) when the profile has none (`load_for_profile`)."""
    return load_for_profile("nli", load_nli, model, profile)
