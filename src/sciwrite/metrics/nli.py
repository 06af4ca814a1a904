"""Three-way NLI (entailment / neutral / contradiction) over premise-hypothesis pairs, batched, loaded once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from sciwrite.encoders import load_transformer
from sciwrite.models import ModelUnavailableError

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
        """(n, 3) probabilities of entailment, neutral, contradiction; premises are truncated first."""
        import torch

        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        out = np.zeros((len(premises), 3), dtype=np.float32)
        for start in range(0, len(premises), batch_size):
            batch = self.tokenizer(premises[start:start + batch_size], hypotheses[start:start + batch_size],
                                   truncation="only_first", max_length=self.max_length, padding=True,
                                   return_tensors="pt").to(self.device)
            with torch.inference_mode():
                logits = self.model(**batch).logits.float()
            probs = torch.softmax(logits, dim=-1)[:, list(self.columns)]
            out[start:start + len(probs)] = probs.cpu().numpy()
        return out

    def soft_scores(self, premises: list[str], hypotheses: list[str], batch_size: int = 32) -> np.ndarray:
        """P(entailment) + 0.5 * P(neutral) for each pair."""
        probs = self.probabilities(premises, hypotheses, batch_size)
        return probs[:, 0] + 0.5 * probs[:, 1]


@lru_cache(maxsize=2)
def load_nli(model_id: str) -> NLIModel:
    """Load an NLI model once per process, on GPU in fp16 when present; a clear error naming it otherwise."""
    from transformers import AutoModelForSequenceClassification

    model, tokenizer, device = load_transformer(model_id, AutoModelForSequenceClassification, "NLI model")
    max_length = min(getattr(tokenizer, "model_max_length", 512) or 512, 512)
    return NLIModel(model_id, model, tokenizer, label_columns(model.config.id2label), device, max_length)


def nli_for_profile(model: str | None = None, profile: str | None = None) -> tuple[NLIModel | None, str | None]:
    """The NLI model a metric should use, or (None, why) when the profile has none (e.g. offline `lite`).

    A model that is named (argument, environment or profile) but cannot be loaded is an error, not a skip.
    """
    from sciwrite.models import resolve_model

    try:
        model_id = resolve_model("nli", model, profile)
    except ModelUnavailableError as err:
        return None, str(err)
    return load_nli(model_id), None
