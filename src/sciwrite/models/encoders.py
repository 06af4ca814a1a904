"""Sentence encoders shared by retrieval and the embedding metrics: loaded once, on GPU in fp16 when present; the
loaders of the encoder roles (`keyphrase_encoder_for_profile`, `contextual_encoder_for_profile`); length-sorted,
token-budgeted batching; and `load_transformer`, which every transformers-checkpoint loader goes through."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from sciwrite.models.registry import ModelUnavailableError, load_for_profile, model_location, torch_device


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


def shared_sentence_encoder(model_id: str, role: str = "sentence encoder") -> Any:
    """One instance per model id for the whole process, whatever role asks for it, so metrics never reload a
    model per call (the lite profile's MiniLM serves TRT, PSS and the citation-frame head at once)."""
    if model_id not in _LOADED:
        _LOADED[model_id] = load_sentence_encoder(model_id, role=role)
    return _LOADED[model_id]


_LOADED: dict[str, Any] = {}


def keyphrase_encoder_for_profile(model: str | None = None, profile: str | None = None) -> tuple[Any | None, str | None]:
    """The keyphrase encoder (loaded once per process), or (None, why) when the profile has none."""
    return load_for_profile("keyphrase_encoder", lambda m: shared_sentence_encoder(m, role="keyphrase encoder"),
                            model, profile)


def contextual_encoder_for_profile(model: str | None = None, profile: str | None = None) -> tuple[Any, str | None]:
    """The `contextual_encoder` role's sentence encoder (shared, loaded once), or (None, why)."""
    return load_for_profile("contextual_encoder", lambda m: shared_sentence_encoder(m, "contextual encoder"), model, profile)


#: Padded tokens per batch on CPU. There a batch is compute-bound: measured on 2 cores with MiniLM, 64 x 20
#: tokens run at ~4,800 tokens/s but 1 x 20 at ~1,100, while 1 x 512 (~3,400/s) beats 16 x 512 (~3,000/s). A
#: token budget keeps short texts in large batches and stops a long tail from padding a whole batch.
CPU_TOKENS_PER_BATCH = 2048
#: On GPU the budget only guards memory; `batch_size` is the limit that usually applies.
GPU_TOKENS_PER_BATCH = 131072


def tokens_per_batch(device: str) -> int:
    return GPU_TOKENS_PER_BATCH if str(device).startswith("cuda") else CPU_TOKENS_PER_BATCH


def length_batches(lengths: Sequence[int], batch_size: int, max_tokens: int) -> list[list[int]]:
    """Indices grouped into batches of similar length: sorted by length, each batch at most `batch_size` items
    and at most `max_tokens` once padded to its longest item (a single longer item gets a batch of its own)."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if current and (len(current) >= batch_size or (len(current) + 1) * max(lengths[i], 1) > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def embed(model: Any, texts: list[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
    """L2-normalised float32 embeddings in length-sorted batches within a token budget (a dot product is then
    a cosine)."""
    if not texts:
        return np.zeros((0, embedding_dimension(model)), dtype=np.float32)
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
