"""Three-way NLI (entailment / neutral / contradiction) over premise-hypothesis pairs, batched, loaded once.

Two roles load an `NLIModel`: ``nli`` (RWGBench; `load_nli`, `nli_for_profile`), whose labels must name the three
classes, and ``summac_nli`` (SciIG's SummaC-ZS; `load_summac_nli`, `summac_nli_for_profile`), whose label columns
may also come from FEVER / VitaminC names or SummaC's own table of checkpoints (`summac_label_columns`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from sciwrite.models.encoders import length_batches, load_transformer, tokens_per_batch
from sciwrite.models.plan import load_for_profile
from sciwrite.models.registry import ModelRole, ModelUnavailableError

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


def nli_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None
                    ) -> tuple[NLIModel | None, str | None]:
    """The NLI model of `role` (its benchmark's declaration) a metric should use, or (None, why) when the profile
    has none (`load_for_profile`)."""
    return load_for_profile(role, load_nli, model, profile)


# Checkpoints whose config does not name its labels entailment / neutral / contradiction: the columns
# (entailment, neutral, contradiction) SummaC's own model table gives them (entailment 0, contradiction 1).
KNOWN_COLUMNS = {"tals/albert-xlarge-vitaminc-mnli": (0, 2, 1), "tals/albert-base-vitaminc-mnli": (0, 2, 1)}
# VitaminC / FEVER label names for the same three classes.
_FEVER_NAMES = (("entailment", ("support",)), ("neutral", ("not enough", "nei")), ("contradiction", ("refute",)))


def summac_label_columns(id2label: dict[int, str], model_id: str = "") -> tuple[int, int, int]:
    """(entailment, neutral, contradiction) columns: NLI label names, else FEVER names (SUPPORTS / NOT ENOUGH
    INFO / REFUTES), else SummaC's table for the checkpoint; otherwise a ModelUnavailableError."""
    try:
        return label_columns(id2label)
    except ModelUnavailableError:
        pass
    found = {label: int(i) for i, name in id2label.items() for label, stems in _FEVER_NAMES
             if any(stem in str(name).lower() for stem in stems)}
    if len(found) == 3 and len(set(found.values())) == 3:
        return found["entailment"], found["neutral"], found["contradiction"]
    if model_id in KNOWN_COLUMNS:
        return KNOWN_COLUMNS[model_id]
    raise ModelUnavailableError(
        f"the NLI model {model_id!r} labels {dict(id2label)} name no entailment / neutral / contradiction classes")


@lru_cache(maxsize=2)
def load_summac_nli(model_id: str) -> NLIModel:
    """The SummaC NLI model, loaded once per process (GPU fp16 when present), as a sciwrite `NLIModel`."""
    from transformers import AutoModelForSequenceClassification

    model, tokenizer, device = load_transformer(model_id, AutoModelForSequenceClassification, "SummaC NLI model")
    max_length = min(getattr(tokenizer, "model_max_length", 512) or 512, 512)
    return NLIModel(model_id, model, tokenizer, summac_label_columns(model.config.id2label, model_id), device,
                    max_length)


def summac_nli_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None
                           ) -> tuple[NLIModel | None, str | None]:
    """The SummaC NLI model of `role` (SciIG's ``summac_nli``), or (None, why) when the profile has none (offline
    `lite`): not computed."""
    return load_for_profile(role, load_summac_nli, model, profile)
