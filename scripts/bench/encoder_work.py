"""Count the transformer work of a run: every ONNX Runtime forward pass, its tokens and its seconds.

`install(path)` wraps `sciwrite.models.onnx_runtime.OnnxEncoder.hidden` (the one place the sentence encoders and
BERTScore's token encoder run on CPU) so that each call adds its real tokens (the attention mask's ones), its padded
tokens (batch x longest) and its wall seconds to a tally, grouped by sequence length: phrases (<= 16 tokens),
sentences (<= 64), passages (<= 256) and windows (longer). At exit the tally is written to `path` as JSON.
`scripts/bench/quickstart.py` installs it in the runs of this checkout; code without ONNX Runtime (the code before
issue 14) has nothing to wrap and writes an empty tally.

What it shows: how much of a run is the forward pass itself, and at what rate, so that a target can be checked
against the floor that rate sets (the passes cannot get cheaper without changing the numbers they produce).
"""

from __future__ import annotations

import atexit
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

#: Upper bounds (tokens per sequence, padded) of the groups the tally is split into.
GROUPS = ((16, "phrases (<= 16 tokens)"), (64, "sentences (<= 64)"), (256, "passages (<= 256)"),
          (10 ** 9, "windows (> 256)"))


def _group(width: int) -> str:
    return next(name for bound, name in GROUPS if width <= bound)


def install(path: str | Path) -> bool:
    """Wrap `OnnxEncoder.hidden` and write the tally to `path` at exit; False when the code has no ONNX encoder."""
    try:
        from sciwrite.models.onnx_runtime import OnnxEncoder
    except ImportError:
        Path(path).write_text(json.dumps({"installed": False}), encoding="utf-8")
        return False
    tally: dict[str, dict[str, float]] = {}
    original = OnnxEncoder.hidden

    def hidden(self: Any, features: dict[str, Any]) -> np.ndarray:
        mask = np.asarray(features["attention_mask"])
        start = time.perf_counter()
        out = original(self, features)
        seconds = time.perf_counter() - start
        entry = tally.setdefault(_group(mask.shape[1]), {"calls": 0, "sequences": 0, "tokens": 0, "padded_tokens": 0,
                                                         "seconds": 0.0})
        entry["calls"] += 1
        entry["sequences"] += int(mask.shape[0])
        entry["tokens"] += int(mask.sum())
        entry["padded_tokens"] += int(mask.size)
        entry["seconds"] += seconds
        return out

    OnnxEncoder.hidden = hidden  # type: ignore[method-assign]

    def write() -> None:
        total = {key: sum(e[key] for e in tally.values()) for key in ("calls", "sequences", "tokens", "padded_tokens",
                                                                      "seconds")}
        for entry in (*tally.values(), total):
            entry["tokens_per_second"] = round(entry["tokens"] / entry["seconds"], 1) if entry["seconds"] else None
            entry["seconds"] = round(entry["seconds"], 2)
        Path(path).write_text(json.dumps({"installed": True, "groups": tally, "total": total}, indent=2),
                              encoding="utf-8")

    atexit.register(write)
    return True
