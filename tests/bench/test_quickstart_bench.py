"""scripts/bench/quickstart.py's file comparison and scripts/bench/encoder_work.py's tally of forward passes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

import encoder_work  # noqa: E402
import quickstart as quickstart_bench  # noqa: E402


def _write(folder: Path, name: str, value) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def test_compare_sorts_files_into_identical_within_tolerance_rounding_step_and_differing(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    log = {"keyphrase_log": [{"phrase": "graph", "cosine": 0.1235}, {"phrase": "tree", "cosine": 0.5}]}
    _write(before, "same.json", {"score": 0.5})
    _write(after, "same.json", {"score": 0.5})
    _write(before, "close.json", {"score": 0.5})
    _write(after, "close.json", {"score": 0.5 + 3e-7})
    _write(before, "kp/a.json", log)
    _write(after, "kp/a.json", {"keyphrase_log": [{"phrase": "graph", "cosine": 0.1234}, log["keyphrase_log"][1]]})
    _write(before, "kp/b.json", log)  # two steps apart: a real difference
    _write(after, "kp/b.json", {"keyphrase_log": [{"phrase": "graph", "cosine": 0.1233}, log["keyphrase_log"][1]]})
    _write(before, "score.json", {"score": 0.1235})  # not a rounded key: one "step" there is a difference
    _write(after, "score.json", {"score": 0.1234})
    _write(before, "only_before.json", {})
    verdict = quickstart_bench.compare(before, after)
    assert verdict["files_compared"] == 5 and verdict["files_identical"] == 1
    assert [f.split(" ")[0] for f in verdict["files_within_tolerance"]] == ["close.json"]
    assert [f.split(" ")[0] for f in verdict["files_one_rounding_step"]] == ["kp/a.json"]
    assert "first at /keyphrase_log[0]/cosine" in verdict["files_one_rounding_step"][0]
    assert sorted(f.split(" ")[0] for f in verdict["files_differing"]) == ["kp/b.json", "score.json"]
    assert verdict["files_missing"] == ["only_before.json"]


def test_encoder_work_tallies_tokens_by_sequence_length(tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime", reason="the tally wraps sciwrite's ONNX Runtime encoder")
    from sciwrite.models.onnx_runtime import OnnxEncoder

    class Session:
        def get_inputs(self):
            return []

        def run(self, _outputs, _feed):
            return [np.zeros((1, 1, 1), dtype=np.float32)]

    monkeypatch.setattr(OnnxEncoder, "hidden", OnnxEncoder.hidden)  # restored after the test
    registered = []
    monkeypatch.setattr(encoder_work.atexit, "register", registered.append)
    assert encoder_work.install(tmp_path / "work.json")
    encoder = OnnxEncoder.__new__(OnnxEncoder)
    encoder.session, encoder.input_names = Session(), []
    phrases = {"input_ids": np.ones((3, 5), dtype=np.int64), "attention_mask": np.array([[1] * 5, [1] * 4 + [0], [1] * 3 + [0] * 2])}
    window = {"input_ids": np.ones((1, 300), dtype=np.int64), "attention_mask": np.ones((1, 300), dtype=np.int64)}
    encoder.hidden(phrases)
    encoder.hidden(window)
    [write] = registered
    write()
    tally = json.loads((tmp_path / "work.json").read_text(encoding="utf-8"))
    phrase_group = tally["groups"]["phrases (<= 16 tokens)"]
    assert (phrase_group["calls"], phrase_group["sequences"], phrase_group["tokens"], phrase_group["padded_tokens"],
            phrase_group["padded_square"]) == (1, 3, 12, 15, 75)
    assert tally["groups"]["windows (> 256)"]["tokens"] == 300
    assert (tally["total"]["calls"], tally["total"]["tokens"], tally["total"]["padded_tokens"]) == (2, 312, 315)


def test_flops_of_minilm_per_token_and_for_attention():
    # 6 layers x (4 x 384^2 + 2 x 384 x 1536) multiply-adds = 10,616,832 per token, twice that in operations
    assert encoder_work.flops(1, 0, **encoder_work.MINILM) == 2 * 10_616_832
    # one sequence of width 512: QK^T and AV add 2 x 6 x 2 x 384 x 512 x 512 operations
    assert encoder_work.flops(512, 512 ** 2, **encoder_work.MINILM) == 512 * 2 * 10_616_832 + 2 * 6 * 2 * 384 * 512 ** 2
