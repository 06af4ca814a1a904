"""Sentence encoders shared by retrieval and the embedding metrics: loaded once, on GPU in fp16 when present, behind
the on-disk embedding cache and run by ONNX Runtime on CPU (`sciwrite.models.sentence_encoder`); the loaders of the
encoder roles (`keyphrase_encoder_for_profile`, `contextual_encoder_for_profile`); `embed`, length-sorted and
token-budgeted (`sciwrite.models.batching`); and `load_transformer`, which every transformers-checkpoint loader
goes through."""

from __future__ import annotations

from typing import Any

import numpy as np
from tqdm.auto import tqdm

from sciwrite.models.batching import (  # noqa: F401 (re-exported: the encoders' batching lives there)
    CPU_TOKENS_PER_BATCH,
    GPU_TOKENS_PER_BATCH,
    length_batches,
    tokens_per_batch,
)
from sciwrite.models.plan import load_for_profile
from sciwrite.models.registry import (
    ModelRole,
    ModelUnavailableError,
    model_location,
    torch_device,
)
from sciwrite.models.sentence_encoder import CachedSentenceEncoder


def load_sentence_encoder(model_id: str, device: str | None = None, role: str = "sentence encoder") -> Any:
    """A sentence-transformers model (a plain BERT such as SciBERT gets mean pooling) wrapped in a
    `CachedSentenceEncoder` (its ``inner`` is the library's model); a clear error if unavailable."""
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
    return CachedSentenceEncoder(model, model_id)


def shared_sentence_encoder(model_id: str, role: str = "sentence encoder") -> Any:
    """One instance per model id for the whole process, whatever role asks for it, so metrics never reload a
    model per call (the lite profile's MiniLM serves TRT, PSS and the citation-frame head at once)."""
    if model_id not in _LOADED:
        _LOADED[model_id] = load_sentence_encoder(model_id, role=role)
    return _LOADED[model_id]


_LOADED: dict[str, Any] = {}


def keyphrase_encoder_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None
                                  ) -> tuple[Any | None, str | None]:
    """The keyphrase encoder of `role` (loaded once per process), or (None, why) when the profile has none."""
    return load_for_profile(role, load_keyphrase_encoder, model, profile)


def contextual_encoder_for_profile(role: ModelRole, model: str | None = None, profile: str | None = None
                                   ) -> tuple[Any, str | None]:
    """The long-text sentence encoder of `role` (shared, loaded once), or (None, why)."""
    return load_for_profile(role, load_contextual_encoder, model, profile)


def load_keyphrase_encoder(model_id: str) -> Any:
    """The `keyphrase_encoder` role's sentence encoder (shared, loaded once)."""
    return shared_sentence_encoder(model_id, role="keyphrase encoder")


def load_contextual_encoder(model_id: str) -> Any:
    """The `contextual_encoder` role's sentence encoder (shared, loaded once)."""
    return shared_sentence_encoder(model_id, "contextual encoder")


def embed(model: Any, texts: list[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
    """L2-normalised float32 embeddings in length-sorted batches within a token budget (a dot product is then
    a cosine)."""
    if not texts:
        return np.zeros((0, embedding_dimension(model)), dtype=np.float32)
    if getattr(model, "batches_by_tokens", False):  # a CachedSentenceEncoder (or a memo over one) batches itself
        vectors = model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                               show_progress_bar=show_progress)
        return np.asarray(vectors, dtype=np.float32)
    limit = getattr(model, "max_seq_length", None) or 512
    lengths = [min(len(ids), limit) for ids in model.tokenizer(list(texts), verbose=False)["input_ids"]]
    out = np.zeros((len(texts), embedding_dimension(model)), dtype=np.float32)
    batches = length_batches(lengths, batch_size, tokens_per_batch(str(model.device)))
    for rows in tqdm(batches, desc="embedding", unit="batch", disable=not show_progress):
        out[rows] = model.encode([texts[i] for i in rows], batch_size=len(rows), normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
    return out


def embedding_dimension(model: Any) -> int:
    """Size of a sentence-transformers model's embeddings (the method was renamed in sentence-transformers 6)."""
    getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(getter())


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
