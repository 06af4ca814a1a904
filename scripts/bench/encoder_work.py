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

import argparse
import atexit
import json
import sys
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
                                                         "padded_square": 0, "seconds": 0.0})
        entry["calls"] += 1
        entry["sequences"] += int(mask.shape[0])
        entry["tokens"] += int(mask.sum())
        entry["padded_tokens"] += int(mask.size)
        entry["padded_square"] += int(mask.shape[0]) * int(mask.shape[1]) ** 2  # attention's work grows with width^2
        entry["seconds"] += seconds
        return out

    OnnxEncoder.hidden = hidden  # type: ignore[method-assign]

    def write() -> None:
        total = {key: sum(e[key] for e in tally.values())
                 for key in ("calls", "sequences", "tokens", "padded_tokens", "padded_square", "seconds")}
        for entry in (*tally.values(), total):
            entry["tokens_per_second"] = round(entry["tokens"] / entry["seconds"], 1) if entry["seconds"] else None
            entry["seconds"] = round(entry["seconds"], 2)
        Path(path).write_text(json.dumps({"installed": True, "groups": tally, "total": total}, indent=2),
                              encoding="utf-8")

    atexit.register(write)
    return True


#: all-MiniLM-L6-v2, every encoder of the `lite` profile (sentence encoders and BERTScore's, whose layer is the last).
MINILM = {"layers": 6, "hidden": 384, "intermediate": 1536}


def flops(padded_tokens: int, padded_square: int, layers: int, hidden: int, intermediate: int) -> float:
    """Floating-point operations of a BERT encoder's forward passes: per token and layer the four attention
    projections (4 h^2 multiply-adds) and the feed-forward pair (2 h i), plus QK^T and AV (2 w h per token for a
    sequence of width w); a multiply-add is 2 operations. Embeddings, softmax and LayerNorm are left out."""
    per_token = 2 * layers * (4 * hidden * hidden + 2 * hidden * intermediate)
    return per_token * padded_tokens + 2 * layers * 2 * hidden * padded_square


def matmul_peak(rows: int = 2048, hidden: int = 384, intermediate: int = 1536, repeats: int = 30) -> float:
    """FLOP/s of numpy's float32 matrix product at the feed-forward shape (rows x hidden @ hidden x intermediate),
    best of five rounds: what this machine's BLAS reaches at best on the encoder's main operation."""
    rng = np.random.default_rng(0)
    a = rng.random((rows, hidden), dtype=np.float32)
    b = rng.random((hidden, intermediate), dtype=np.float32)
    a @ b
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * rows * hidden * intermediate * repeats / best


def main() -> int:
    parser = argparse.ArgumentParser(description="the floor a tally of forward passes sets on this machine")
    parser.add_argument("tally", type=Path, help="an encoder_work.json written by install()")
    args = parser.parse_args()
    tally = json.loads(args.tally.read_text(encoding="utf-8"))
    if not tally.get("installed"):
        raise SystemExit(f"{args.tally}: no ONNX Runtime forward passes were tallied")
    peak = matmul_peak()
    print(f"numpy float32 matmul at MiniLM's feed-forward shape: {peak / 1e9:.1f} GFLOP/s (best of 5)")
    for group, entry in [*tally["groups"].items(), ("all", tally["total"])]:
        work = flops(entry["padded_tokens"], entry["padded_square"], **MINILM)
        print(f"{group:26} {work / 1e12:7.2f} TFLOP: {work / peak:7.1f} s at that peak; ran {entry['seconds']:7.1f} s "
              f"({work / entry['seconds'] / 1e9 if entry['seconds'] else 0:.1f} GFLOP/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
