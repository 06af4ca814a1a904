"""A sentence-transformers model behind the on-disk embedding cache, run by ONNX Runtime on CPU when it can be.

`CachedSentenceEncoder.encode` takes the calls the suites, the writers and dense retrieval make
(``encode(texts, batch_size, normalize_embeddings, convert_to_numpy, show_progress_bar)``): each distinct text is
looked up in the content-addressed cache (`sciwrite.models.embedding_cache`) and only the missing ones reach the
model, in length-sorted token-budget batches (`sciwrite.models.batching`), with a progress bar over texts. Any
other argument (prompts, tensors, precision...) goes to the wrapped model untouched; every other attribute is
the wrapped model's own.

Backends. On CPU, when `onnxruntime` and `onnx` are installed and the model is a plain Transformer + mean/CLS
Pooling (+ Normalize) pipeline, the transformer runs in ONNX Runtime on the features sentence-transformers itself
prepares (its `preprocess`: same tokens, truncation and padding), and the pooling and normalisation are done
here as the library's modules do them (embeddings within ~2e-7 of PyTorch's). Otherwise the wrapped model's own
`encode` runs, batch by batch, exactly as `sciwrite.models.encoders.embed` called it before. The backend is part
of the cache key, so a vector is only ever reused by the backend that computed it.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from sciwrite.models.batching import length_batches, tokens_per_batch
from sciwrite.models.embedding_cache import (
    EmbeddingCache,
    embedding_cache_dir,
    namespace_of,
    text_key,
)
from sciwrite.models.fingerprint import module_fingerprint, tokenizer_fingerprint
from sciwrite.models.onnx_runtime import onnx_encoder_for, onnx_supported, use_onnx

#: Bump when the way vectors are computed changes, so that older cache entries are never read again.
FORMAT = "sentence-embedding/v1"
#: Arguments `encode` handles itself; a call with any other goes to the wrapped model.
_OWN_ARGUMENTS = {"batch_size", "normalize_embeddings", "convert_to_numpy", "show_progress_bar"}


def pooling_plan(model: Any) -> tuple[str, bool] | None:
    """(pooling mode, ends with Normalize) when `model` is a BERT-style Transformer -> Pooling(mean | cls)
    [-> Normalize] with no default prompt, the pipelines this module runs in ONNX Runtime; None for any other."""
    try:
        modules = list(model)
    except TypeError:
        return None
    names = [type(m).__name__ for m in modules]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    if not hasattr(modules[0], "auto_model") or getattr(model, "default_prompt_name", None):
        return None
    if "token_type_ids" not in inspect.signature(modules[0].auto_model.forward).parameters:
        return None  # the export feeds BERT's three inputs
    mode = modules[1].pooling_mode
    mode = mode[0] if isinstance(mode, (tuple, list)) and len(mode) == 1 else mode
    if mode not in ("mean", "cls"):
        return None
    return str(mode), names[-1] == "Normalize"


def _l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """As torch.nn.functional.normalize (p=2, eps=1e-12): v / max(||v||, eps)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class CachedSentenceEncoder:
    """Wraps a loaded `SentenceTransformer`; see the module docstring. `inner` is the wrapped model."""

    #: `sciwrite.models.encoders.embed` hands such a model all texts at once (it batches them itself).
    batches_by_tokens = True

    def __init__(self, model: Any, model_id: str, cache_dir: Any = None, onnx: bool | None = None) -> None:
        self.inner = model
        self.model_id = model_id
        device = str(model.device)
        self._plan = pooling_plan(model)
        self._onnx_wanted = ((use_onnx(device) if onnx is None else onnx) and self._plan is not None
                             and onnx_supported(model[0].auto_model))
        self.backend = "onnx-cpu-fp32" if self._onnx_wanted else f"torch-{device}-{next(model.parameters()).dtype}"
        transformer = model[0].auto_model if self._plan else None
        weights = module_fingerprint(transformer if transformer is not None else model)
        self.weights_sha256 = weights  # what the provenance records for the role (`weights_fingerprint`)
        self.namespace = namespace_of(FORMAT, weights, tokenizer_fingerprint(model.tokenizer), model.max_seq_length,
                                      [type(m).__name__ for m in model], _module_settings(model), self.backend)
        folder = embedding_cache_dir() if cache_dir is None else cache_dir
        self.cache = (EmbeddingCache(folder, self.namespace, _dimension(model))
                      if folder not in (None, False) else None)
        self._session: Any = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __iter__(self) -> Any:
        return iter(self.inner)

    def __getitem__(self, index: Any) -> Any:
        return self.inner[index]

    def __len__(self) -> int:
        return len(self.inner)

    def encode(self, sentences: str | Sequence[str], batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool | None = False, **kwargs: Any) -> Any:
        """float32 embeddings of `sentences` (one row per text, in order; a single string gives one vector)."""
        if kwargs or not convert_to_numpy or not isinstance(sentences, (str, list, tuple)):
            return self.inner.encode(sentences, batch_size=batch_size, normalize_embeddings=normalize_embeddings,
                                     convert_to_numpy=convert_to_numpy, show_progress_bar=show_progress_bar, **kwargs)
        single = isinstance(sentences, str)
        texts = [sentences] if isinstance(sentences, str) else list(sentences)
        with self._lock:
            vectors = self._vectors(texts, max(1, int(batch_size)), bool(normalize_embeddings), bool(show_progress_bar))
        return vectors[0] if single else vectors

    def flush(self) -> None:
        """Write the vectors computed so far to the cache folder (also done at exit and every few thousand)."""
        if self.cache is not None:
            self.cache.flush()

    def _vectors(self, texts: list[str], batch_size: int, normalize: bool, show_progress: bool) -> np.ndarray:
        unique = list(dict.fromkeys(texts))
        tag = f"{self.namespace}:{'normalised' if normalize else 'raw'}"
        keys = [text_key(tag, t) for t in unique] if self.cache is not None else []
        found = self.cache.get(keys) if self.cache is not None else {}
        missing = [i for i in range(len(unique)) if not keys or keys[i] not in found]
        computed = self._compute([unique[i] for i in missing], batch_size, normalize, show_progress)
        if self.cache is not None and missing:
            self.cache.put([keys[i] for i in missing], computed)
        row_of = {unique[i]: computed[j] for j, i in enumerate(missing)}
        for i, key in enumerate(keys):
            if key in found:
                row_of[unique[i]] = found[key]
        if not texts:
            return np.zeros((0, _dimension(self.inner)), dtype=np.float32)
        return np.stack([row_of[t] for t in texts]).astype(np.float32, copy=False)

    def _compute(self, texts: list[str], batch_size: int, normalize: bool, show_progress: bool) -> np.ndarray:
        """Embed `texts` with the backend, in length-sorted batches within the device's token budget."""
        out = np.zeros((len(texts), _dimension(self.inner)), dtype=np.float32)
        if not texts:
            return out
        limit = getattr(self.inner, "max_seq_length", None) or 512
        lengths = [min(len(ids), limit) for ids in self.inner.tokenizer(texts, verbose=False)["input_ids"]]
        batches = length_batches(lengths, batch_size, tokens_per_batch(str(self.inner.device)))
        with tqdm(total=len(texts), desc="embedding", unit="text", disable=not show_progress) as bar:
            for rows in batches:
                batch = [texts[i] for i in rows]
                out[rows] = self._onnx_batch(batch, normalize) if self._onnx_wanted else self.inner.encode(
                    batch, batch_size=len(batch), normalize_embeddings=normalize, convert_to_numpy=True,
                    show_progress_bar=False)
                bar.update(len(rows))
        return out

    def _onnx_batch(self, texts: list[str], normalize: bool) -> np.ndarray:
        """One batch through ONNX Runtime: the library's own features in, its pooling and Normalize redone."""
        if self._session is None:
            self._session = onnx_encoder_for(self.inner[0].auto_model, self.weights_sha256)
        features = self.inner.preprocess(texts)
        hidden = self._session.hidden(features)
        mask = np.asarray(features["attention_mask"], dtype=np.float32)
        mode, ends_normalised = self._plan  # type: ignore[misc]
        if mode == "cls":
            vectors = hidden[:, 0]
        else:  # as Pooling's mean: sum of unmasked token states / max(count, 1e-9)
            summed = np.einsum("bsd,bs->bd", hidden, mask)
            vectors = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        if ends_normalised:
            vectors = _l2_normalise(vectors)
        if normalize:
            vectors = _l2_normalise(vectors)
        return vectors.astype(np.float32, copy=False)


def _dimension(model: Any) -> int:
    getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(getter())


def _module_settings(model: Any) -> list[Any]:
    """Each module's own settings (pooling mode, ...), as far as the library exposes them."""
    settings = []
    for module in model:
        getter = getattr(module, "get_config_dict", None)
        settings.append(sorted(getter().items()) if callable(getter) else None)
    return settings
