"""Sentence encoders shared by retrieval and the embedding metrics: loaded once, on GPU in fp16 when present."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from sciwrite.models import ModelUnavailableError, model_location, torch_device


def load_sentence_encoder(model_id: str, device: str | None = None, role: str = "sentence encoder") -> Any:
    """A sentence-transformers model (a plain BERT such as SciBERT gets mean pooling); a clear error if unavailable."""
    from sentence_transformers import SentenceTransformer

    device = device or torch_device()
    try:
        model = SentenceTransformer(model_location(model_id), device=device)
    except Exception as err:  # the library raises OSError, HfHubHTTPError, ValueError... depending on why
        raise ModelUnavailableError(
            f"cannot load the {role} {model_id!r} ({type(err).__name__}: {err}). Download it with network access "
            "first, pass a local path, or use the offline profile (SCIWRITE_PROFILE=lite / --profile lite)."
        ) from err
    if device.startswith("cuda"):
        model = model.half()
    return model


@lru_cache(maxsize=4)
def shared_sentence_encoder(model_id: str, role: str = "sentence encoder") -> Any:
    """One instance per model id for the whole process, so metrics never reload a model per call."""
    return load_sentence_encoder(model_id, role=role)


def embed(model: Any, texts: list[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
    """L2-normalised float32 embeddings, computed in batches (a dot product is then a cosine)."""
    if not texts:
        return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
    vectors = model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                           show_progress_bar=show_progress)
    return np.asarray(vectors, dtype=np.float32)


def load_transformer(model_id: str, auto_class: Any, role: str) -> tuple[Any, Any, str]:
    """(model, tokenizer, device) for a transformers checkpoint: eval mode, on GPU in fp16 when present.

    A checkpoint that cannot be loaded is a `ModelUnavailableError` naming the role and the model.
    """
    from transformers import AutoTokenizer

    device = torch_device()
    try:
        tokenizer = AutoTokenizer.from_pretrained(model_location(model_id))
        model = auto_class.from_pretrained(model_location(model_id))
    except Exception as err:  # OSError, HfHubHTTPError, ValueError... depending on why
        raise ModelUnavailableError(f"cannot load the {role} {model_id!r} ({type(err).__name__}: {err})") from err
    model.eval().to(device)
    if device == "cuda":
        model.half()
    return model, tokenizer, device
