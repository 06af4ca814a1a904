"""Choosing an engine, and the error when the Ray engine is asked for without Ray (runs without Ray)."""

from __future__ import annotations

import pytest

from sciwrite.cli import main
from sciwrite.core import engine as scale_engine


def test_unknown_engine_names_the_choices():
    assert scale_engine.check_engine("ray") == "ray" and scale_engine.check_engine("local") == "local"
    with pytest.raises(ValueError, match=r"unknown engine 'spark'; choose one of \['local', 'ray'\]"):
        scale_engine.check_engine("spark")


def test_missing_ray_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(scale_engine, "ray_available", lambda: False)
    with pytest.raises(scale_engine.ScaleExtraMissingError, match=r"install sciwrite\[scale\]"):
        scale_engine.ray_engine()
    argv = ["index", "build", "--kind", "dense", "--engine", "ray", "--source", str(tmp_path), "--corpus",
            "sample_corpus", "--out", str(tmp_path / "index")]
    assert main(argv) == 2
    assert "install sciwrite[scale]" in capsys.readouterr().err


def test_the_ray_engine_builds_dense_indexes_only(tmp_path, capsys):
    argv = ["index", "build", "--kind", "bm25", "--engine", "ray", "--source", str(tmp_path), "--out", str(tmp_path)]
    assert main(argv) == 2
    assert "the Ray engine builds dense indexes" in capsys.readouterr().err
