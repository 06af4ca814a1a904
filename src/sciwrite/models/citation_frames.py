"""Citation-frame classifiers (the `citation_frame` role): which of the seven MultiCite frames (`FRAMES`) a
citation context carries. RWGBench's citation frame alignment (`sciwrite.rwgbench.metrics.frames`) counts them.

Two classifier backends share one interface, ``predict(contexts) -> (n, 7) bool`` with columns in `FRAMES`
order, and each is loaded once per process:

- a *frame head* folder (``head.safetensors`` + ``config.json``): a sentence encoder named in the config,
  then one-vs-rest logistic regression with a tuned threshold per frame. The `lite` profile's packaged
  model is one (all-MiniLM-L6-v2 + a head trained on MultiCite by
  ``scripts/train_citation_frame_classifier.py``);
- a transformers sequence-classification checkpoint trained multi-label: a frame is on when its sigmoid
  exceeds 0.5. The model's own label names are mapped onto the frames ("Background", "@BACK@", ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from sciwrite.models.encoders import embed, embedding_dimension, load_transformer, shared_sentence_encoder
from sciwrite.models.plan import load_for_profile
from sciwrite.models.registry import ModelRole, ModelUnavailableError, model_location

#: The seven MultiCite citation frames, in the order the tables report them.
FRAMES: tuple[str, ...] = ("motivation", "background", "uses", "extends", "similarities", "differences", "future_work")

HEAD_WEIGHTS = "head.safetensors"
HEAD_CONFIG = "config.json"
#: ``config.json`` of a frame-head folder says what it is with this value under "sciwrite_model".
HEAD_KIND = "citation-frame-head"
#: Decision rule of a transformers checkpoint: a frame is on when sigmoid(logit) > this.
SIGMOID_THRESHOLD = 0.5

# Spellings of each frame in label sets seen in the wild, compared lower-case with non-letters removed:
# "Future Work" -> "futurework", "@BACK@" -> "back", "Extention" (MultiCite's own spelling) -> "extention".
_FRAME_ALIASES: dict[str, tuple[str, ...]] = {
    "motivation": ("motivation", "motivate", "motivates", "mot"),
    "background": ("background", "back", "bg"),
    "uses": ("uses", "use", "usage", "using"),
    "extends": ("extends", "extend", "extension", "extention", "ext"),
    "similarities": ("similarities", "similarity", "similar", "sim"),
    "differences": ("differences", "difference", "different", "dif", "diff"),
    "future_work": ("futurework", "future", "fut"),
}
_FRAME_OF_KEY = {alias: frame for frame, aliases in _FRAME_ALIASES.items() for alias in aliases}
# MultiCite's "@UNSURE@" intent is no frame: a model may keep its column, which is then ignored.
_IGNORED_KEYS = frozenset({"unsure"})


def _label_key(name: Any) -> str:
    return re.sub(r"[^a-z]", "", str(name).lower())


def frame_of_label(name: Any) -> str | None:
    """The frame a model label names ("Background", "@BACK@", "future work", "extension"), else None."""
    return _FRAME_OF_KEY.get(_label_key(name))


def frame_columns(id2label: Mapping[Any, Any]) -> tuple[int, ...]:
    """Output column of each frame, in `FRAMES` order, read from the model's label names.

    Every label must name a frame (an "unsure" column is ignored) and every frame must have one column:
    otherwise counts would silently miss a frame, so it is a `ModelUnavailableError`.
    """
    found: dict[str, int] = {}
    unmapped: list[str] = []
    duplicated: list[str] = []
    for index, name in sorted(((int(i), n) for i, n in id2label.items())):
        frame = frame_of_label(name)
        if frame is None:
            if _label_key(name) not in _IGNORED_KEYS:
                unmapped.append(str(name))
        elif frame in found:
            duplicated.append(str(name))
        else:
            found[frame] = index
    missing = [f for f in FRAMES if f not in found]
    if unmapped or missing or duplicated:
        raise ModelUnavailableError(
            f"the citation-frame model's labels {dict(id2label)} do not map one-to-one onto the MultiCite frames "
            f"{list(FRAMES)} (unmapped: {unmapped}, frames without a label: {missing}, repeated: {duplicated}); "
            "a multi-label classifier over these seven frames is needed")
    return tuple(found[f] for f in FRAMES)


class FrameClassifier(Protocol):
    """What CFA needs from a classifier: its id and (n, 7) boolean frame decisions, columns in `FRAMES` order."""

    model_id: str

    def predict(self, contexts: list[str], batch_size: int = 64) -> np.ndarray: ...


@dataclass(frozen=True)
class FrameHead:
    """One-vs-rest logistic regression over sentence embeddings: P(frame) = sigmoid(W e + b); a frame is
    on when P >= its threshold (thresholds are tuned per frame, so rare frames are not always off)."""

    weight: np.ndarray  # (7, d), rows in FRAMES order
    bias: np.ndarray  # (7,)
    thresholds: np.ndarray  # (7,) probabilities

    def probabilities(self, embeddings: np.ndarray) -> np.ndarray:
        logits = np.asarray(embeddings, dtype=np.float64) @ self.weight.T.astype(np.float64) + self.bias
        return 1.0 / (1.0 + np.exp(-logits))

    def decide(self, embeddings: np.ndarray) -> np.ndarray:
        return self.probabilities(embeddings) >= self.thresholds

    def save(self, folder: str | Path) -> None:
        from safetensors.numpy import save

        tensors = {"weight": self.weight, "bias": self.bias, "thresholds": self.thresholds}
        data = save({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()},
                    metadata={"frames": " ".join(FRAMES)})
        (Path(folder) / HEAD_WEIGHTS).write_bytes(data)  # file mode from the umask (save_file writes 0600)

    @classmethod
    def load(cls, folder: str | Path, frames: Sequence[str] = FRAMES) -> FrameHead:
        """Read the head; rows saved in another frame order (`frames`) are put in `FRAMES` order."""
        from safetensors.numpy import load_file

        tensors = load_file(str(Path(folder) / HEAD_WEIGHTS))
        if sorted(frames) != sorted(FRAMES):
            raise ModelUnavailableError(f"the frame head in {folder} has frames {list(frames)}, not {list(FRAMES)}")
        order = [list(frames).index(f) for f in FRAMES]
        weight, bias, thresholds = (tensors[k] for k in ("weight", "bias", "thresholds"))
        if weight.ndim != 2 or weight.shape[0] != len(FRAMES) or not bias.shape == thresholds.shape == (len(FRAMES),):
            raise ModelUnavailableError(f"the frame head in {folder} has weight {weight.shape}, bias {bias.shape}")
        return cls(weight[order], bias[order], thresholds[order])


@dataclass
class HeadFrameClassifier:
    """Sentence encoder + `FrameHead` (the packaged lite model is one)."""

    model_id: str
    encoder_id: str
    encoder: Any
    head: FrameHead

    def predict(self, contexts: list[str], batch_size: int = 64) -> np.ndarray:
        if not contexts:
            return np.zeros((0, len(FRAMES)), dtype=bool)
        return self.head.decide(embed(self.encoder, list(contexts), batch_size))


@dataclass
class TransformerFrameClassifier:
    """A multi-label transformers sequence classifier; `columns` are its output columns in `FRAMES` order."""

    model_id: str
    model: Any
    tokenizer: Any
    columns: tuple[int, ...]
    device: str
    max_length: int = 512

    def probabilities(self, contexts: list[str], batch_size: int = 64) -> np.ndarray:
        """(n, 7) sigmoid probabilities; contexts are batched by length so that little padding is computed."""
        import torch

        out = np.zeros((len(contexts), len(FRAMES)), dtype=np.float32)
        order = sorted(range(len(contexts)), key=lambda i: len(contexts[i]))
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            batch = self.tokenizer([contexts[i] for i in rows], truncation=True, max_length=self.max_length,
                                   padding=True, return_tensors="pt").to(self.device)
            with torch.inference_mode():
                logits = self.model(**batch).logits.float()
            out[rows] = torch.sigmoid(logits[:, list(self.columns)]).cpu().numpy()
        return out

    def predict(self, contexts: list[str], batch_size: int = 64) -> np.ndarray:
        return self.probabilities(list(contexts), batch_size) > SIGMOID_THRESHOLD


def is_frame_head(location: str | Path) -> bool:
    """Whether `location` is a local frame-head folder (rather than a transformers checkpoint or Hub id)."""
    return (Path(location) / HEAD_WEIGHTS).is_file()


def _load_head(model_id: str, folder: Path) -> HeadFrameClassifier:
    config = json.loads((folder / HEAD_CONFIG).read_text())
    if config.get("sciwrite_model") != HEAD_KIND or "encoder" not in config:
        raise ModelUnavailableError(f"{folder / HEAD_CONFIG} does not describe a {HEAD_KIND} (with its encoder)")
    head = FrameHead.load(folder, config.get("frames", FRAMES))
    encoder = shared_sentence_encoder(config["encoder"], role="citation-frame encoder")
    dimension = embedding_dimension(encoder)
    if dimension != head.weight.shape[1]:
        raise ModelUnavailableError(f"the frame head of {model_id!r} expects {head.weight.shape[1]}-d embeddings, "
                                    f"but {config['encoder']!r} gives {dimension}-d")
    return HeadFrameClassifier(model_id, config["encoder"], encoder, head)


def _load_transformer_classifier(model_id: str) -> TransformerFrameClassifier:
    from transformers import AutoModelForSequenceClassification

    model, tokenizer, device = load_transformer(model_id, AutoModelForSequenceClassification,
                                                "citation-frame classifier")
    if getattr(model.config, "problem_type", None) == "single_label_classification":
        raise ModelUnavailableError(f"the citation-frame classifier {model_id!r} is single-label (softmax); "
                                    "CFA needs a multi-label one (a sigmoid per frame)")
    max_length = min(getattr(tokenizer, "model_max_length", 512) or 512, 512)
    return TransformerFrameClassifier(model_id, model, tokenizer, frame_columns(model.config.id2label), device,
                                      max_length)


@lru_cache(maxsize=2)
def load_citation_frame_classifier(model_id: str) -> HeadFrameClassifier | TransformerFrameClassifier:
    """Load a citation-frame classifier once per process: a frame-head folder or a transformers checkpoint."""
    location = model_location(model_id)
    if is_frame_head(location):
        return _load_head(model_id, Path(location))
    return _load_transformer_classifier(model_id)


def citation_frame_classifier_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None
                                          ) -> tuple[FrameClassifier | None, str | None]:
    """The classifier of `role` (its benchmark's declaration) a metric should use, or (None, why) when the profile
    has none (`load_for_profile`)."""
    return load_for_profile(role, load_citation_frame_classifier, model, profile)
