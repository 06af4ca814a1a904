"""Fingerprints of loaded models: what names a model's outputs in a cache, whatever path it was loaded from.

A fingerprint hashes the weights themselves (every parameter and buffer, name, dtype, shape and bytes), the
config and the tokenizer's vocabulary and settings, so two copies of one checkpoint share cache entries and a
changed weight, config or tokenizer gets new ones. Hashing all-MiniLM-L6-v2 (90 MB) takes ~0.1 s.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from typing import Any

import numpy as np

#: Fingerprints of the modules hashed in this process: a loaded model is hashed once, however often it is asked.
_MODULE_FINGERPRINTS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def tokenizer_fingerprint(tokenizer: Any) -> str:
    """sha256 of a tokenizer's full definition (fast tokenizers: its JSON) and its special tokens."""
    digest = hashlib.sha256()
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        digest.update(backend.to_str().encode("utf-8"))
    else:
        digest.update(json.dumps(sorted(tokenizer.get_vocab().items())).encode("utf-8"))
    special = getattr(tokenizer, "special_tokens_map", None) or {}  # not every tokenizer class has one
    digest.update(repr(sorted((k, str(v)) for k, v in special.items())).encode("utf-8"))
    return digest.hexdigest()


def module_fingerprint(model: Any) -> str:
    """sha256 of a torch module's state (names, dtypes, shapes, bytes) and, when it has one, its config; computed
    once per loaded module (the weights of an evaluation's models do not change under it)."""
    known = _MODULE_FINGERPRINTS.get(model)
    if known is None:
        known = _MODULE_FINGERPRINTS[model] = _hash_module(model)
    return known


def _hash_module(model: Any) -> str:
    import torch

    digest = hashlib.sha256()
    config = getattr(model, "config", None)
    if config is not None and hasattr(config, "to_dict"):  # less where it was loaded from and by which version
        settings = {k: v for k, v in config.to_dict().items() if not k.startswith("_") and k != "transformers_version"}
        digest.update(json.dumps(settings, sort_keys=True, default=str).encode("utf-8"))
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            value = tensor.detach().cpu().contiguous()
            digest.update(f"{name}|{value.dtype}|{tuple(value.shape)}".encode())
            digest.update(value.reshape(-1).view(torch.uint8).numpy().tobytes() if value.numel() else b"")
    return digest.hexdigest()


def weights_fingerprint(model: Any) -> str | None:
    """sha256 of what a loaded model of a role computes with, whatever wraps it: a sentence encoder's weights
    (computed at load for its cache namespace), a torch model's state (`module_fingerprint`), a frame head over an
    encoder (both); None for what holds no weights here (an API client)."""
    import torch

    if model is None:
        return None
    known = getattr(model, "weights_sha256", None)  # a CachedSentenceEncoder, also through a memo proxy
    if isinstance(known, str):
        return known
    if isinstance(model, torch.nn.Module):
        return module_fingerprint(model)
    head = getattr(model, "head", None)
    if head is not None and hasattr(head, "weight"):  # sentence encoder + logistic frame head
        digest = hashlib.sha256((weights_fingerprint(getattr(model, "encoder", None)) or "").encode())
        for name in ("weight", "bias", "thresholds"):
            digest.update(np.ascontiguousarray(getattr(head, name), dtype=np.float64).tobytes())
        return digest.hexdigest()
    for attribute in ("model", "inner"):  # a model with its tokenizer (NLI, QA, BLEURT, GPT-2), a memo proxy
        inner = getattr(model, attribute, None)
        if inner is not None and inner is not model:
            return weights_fingerprint(inner)
    return None
