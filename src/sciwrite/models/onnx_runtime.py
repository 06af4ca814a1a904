"""A BERT-style transformer run by ONNX Runtime on CPU: exported once with `torch.onnx.export`, kept on disk.

Why: on 2 CPU cores ONNX Runtime runs all-MiniLM-L6-v2 1.4-2.3x faster than PyTorch (fp32, embeddings within
2.1e-7 of PyTorch's: scores stay equal to 1e-6). sentence-transformers' own ``backend="onnx"`` goes through
`optimum`, whose releases require transformers < 5 (installing it downgrades the stack), so the export and the
session are done here directly: the model's last hidden state (or one chosen layer) as the only output, batch and
sequence axes dynamic, eager attention (the traced SDPA path bakes a mask shortcut into the graph).

The exported file lives under ``<cache_root()>/onnx/<fingerprint>/model.onnx`` (written to a temporary file and
moved into place, so concurrent processes never read a partial export). Either package missing (`onnxruntime`,
or `onnx`, which the exporter needs) means `available()` is False and callers keep PyTorch.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from sciwrite.core.paths import cache_root

logger = logging.getLogger(__name__)

#: ``SCIWRITE_ENCODER_BACKEND``: ``auto`` (ONNX Runtime on CPU when installed, the default), ``torch`` or ``onnx``.
BACKEND_ENV = "SCIWRITE_ENCODER_BACKEND"
BACKENDS = ("auto", "torch", "onnx")
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17


def backend_choice() -> str:
    """The backend the environment asks for (``auto`` when unset)."""
    choice = (os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in BACKENDS:
        raise ValueError(f"{BACKEND_ENV}={choice!r}: choose one of {BACKENDS}")
    return choice


def available() -> bool:
    """Whether ONNX Runtime and the ONNX exporter's `onnx` package are installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


#: Architectures (``config.model_type``) whose ONNX export is checked against PyTorch (within 1e-6, the tests):
#: BERT, which all-MiniLM-L6-v2, SciBERT and BGE are. Others stay on PyTorch under ``auto`` (Longformer's export,
#: for one, fails in ONNX Runtime's Gather).
ONNX_MODEL_TYPES = frozenset({"bert"})


def onnx_supported(model: Any) -> bool:
    """Whether `model` (a transformers model) is an architecture this module exports (`ONNX_MODEL_TYPES`)."""
    return getattr(getattr(model, "config", None), "model_type", None) in ONNX_MODEL_TYPES


def use_onnx(device: str) -> bool:
    """ONNX Runtime for a model on `device`: on CPU when available (``auto``), always with ``onnx``, never with
    ``torch``; a GPU keeps PyTorch (fp16) under ``auto``."""
    choice = backend_choice()
    if choice == "torch":
        return False
    if choice == "onnx":
        if not available():
            raise RuntimeError(f"{BACKEND_ENV}=onnx but onnxruntime / onnx are not installed "
                               "(pip install onnxruntime onnx)")
        return True
    return str(device).startswith("cpu") and available()


class _LastHidden:
    """What the export traces: the transformer's hidden states of one layer for (ids, mask, token types)."""

    def __init__(self, model: Any, layer: int | None) -> None:
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                        token_type_ids: torch.Tensor) -> torch.Tensor:
                out = self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                                 output_hidden_states=layer is not None)
                return out.last_hidden_state if layer is None else out.hidden_states[layer]

        self.module = Wrapped().eval()


def export(model: Any, path: Path, layer: int | None = None) -> Path:
    """Export a transformers encoder (BERT-like: ids, mask, token types) to `path`, atomically."""
    import torch

    example = {  # small ids: valid in any vocabulary
        "input_ids": torch.tensor([[2, 5, 6, 3], [2, 7, 3, 0]]),
        "attention_mask": torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]]),  # padding present: the mask stays in the graph
        "token_type_ids": torch.zeros((2, 4), dtype=torch.long),
    }
    previous = getattr(model.config, "_attn_implementation", None)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".onnx")
    os.close(handle)
    try:
        model.config._attn_implementation = "eager"
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes on shape checks that hold for every input of this graph
            torch.onnx.export(_LastHidden(model, layer).module, tuple(example[k] for k in INPUTS), temp,
                              input_names=list(INPUTS), output_names=["hidden"], opset_version=OPSET, dynamo=False,
                              dynamic_axes={name: {0: "batch", 1: "sequence"} for name in (*INPUTS, "hidden")})
        os.replace(temp, path)
    finally:
        model.config._attn_implementation = previous
        Path(temp).unlink(missing_ok=True)
    return path


class OnnxEncoder:
    """An ONNX Runtime session over an exported transformer: `hidden(features)` -> (batch, seq, dim) float32."""

    def __init__(self, path: Path, threads: int | None = None) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or _torch_threads()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.path = path
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]

    def hidden(self, features: dict[str, Any]) -> np.ndarray:
        """Hidden states for tokenizer features (torch tensors or arrays); missing token types are zeros."""
        ids = _array(features["input_ids"])
        feed = {"input_ids": ids, "attention_mask": _array(features["attention_mask"]),
                "token_type_ids": _array(features["token_type_ids"]) if "token_type_ids" in features
                else np.zeros_like(ids)}
        return self.session.run(None, {name: feed[name] for name in self.input_names})[0]


def onnx_encoder_for(model: Any, fingerprint: str, layer: int | None = None) -> OnnxEncoder:
    """The session of `model` (exported on first use, then read from the cache folder). The last layer asked for
    by number is the same graph as the last hidden state, so both share one export."""
    if layer is not None and layer == getattr(model.config, "num_hidden_layers", None):
        layer = None
    path = cache_root() / "onnx" / f"{fingerprint[:32]}-{'last' if layer is None else layer}" / "model.onnx"
    if not path.exists():
        logger.info("exporting %s to ONNX at %s (once per model and machine)", type(model).__name__, path)
        export(model, path, layer)
    return OnnxEncoder(path)


def _array(value: Any) -> np.ndarray:
    return np.ascontiguousarray(value.cpu().numpy() if hasattr(value, "cpu") else value, dtype=np.int64)


def _torch_threads() -> int:
    import torch

    return max(1, torch.get_num_threads())
