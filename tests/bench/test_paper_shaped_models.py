"""The paper-shaped builder: real shapes at scale 1, and at a tiny scale folders the project's loaders read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "bench"))

import paper_shaped_models as psm

TEXTS = ["Citation frames describe why a paper cites another one.", "We train a model on the corpus."] * 50


def test_real_shapes_are_the_papers_sizes():
    assert psm.scaled(psm.SHAPES["nli"].sizes, 1)["hidden_size"] == 1024
    assert psm.SHAPES["nli"].sizes["num_hidden_layers"] == 24 and psm.SHAPES["nli"].sizes["intermediate_size"] == 4096
    assert psm.SHAPES["scibert"].sizes["vocab_size"] == 31090
    assert psm.SHAPES["dense_encoder"].sizes["num_attention_heads"] == 16
    small = psm.scaled(psm.SHAPES["nli"].sizes, 16)
    assert small["hidden_size"] == 64 and small["num_hidden_layers"] == 1 and small["vocab_size"] == 128100


@pytest.mark.parametrize("role", ["nli", "citation_frame", "bleurt"])
def test_tiny_folders_load_with_the_projects_loaders(role, tmp_path):
    manifest = psm.build_role(role, tmp_path, scale=16, texts=lambda: TEXTS)
    path = manifest["path"]
    if role == "nli":
        from sciwrite.models.nli import load_nli

        model = load_nli(path)
        assert model.probabilities(["A premise."], ["A hypothesis."]).shape == (1, 3)
    elif role == "citation_frame":
        from sciwrite.models.citation_frames import load_citation_frame_classifier

        model = load_citation_frame_classifier(path)
        assert model.predict(["as shown by [1]"]).shape == (1, 7)
    else:
        from sciwrite.models.bleurt import load_bleurt

        model = load_bleurt(path)
        assert len(model.score(["a reference"], ["a candidate"])) == 1
    assert manifest["parameters"] == psm.parameter_count(model.model)
    assert psm.build_role(role, tmp_path, scale=16) == manifest  # reused from the cache folder
