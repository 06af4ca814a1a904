"""A system's name is a name, never a path: ``sciwrite evaluate --system ../../escaped --out inner/ev`` wrote outside
``--out``. Every name that becomes ``<out>/<system>/`` goes through one check (`sciwrite.core.system_names`), which
refuses a path separator, ``.``, ``..`` and a link out of the folder, before anything is scored or written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciwrite.cli import main
from sciwrite.core.errors import InputError
from sciwrite.core.system_names import check_system_name, system_path


def _predictions(folder: Path, name: str = "run.jsonl") -> Path:
    path = folder / name
    path.write_text(json.dumps({"paper_id": "p1", "text": "Earlier work [1].", "candidates": ["d1"]}) + "\n")
    return path


def _evaluate(*argv: str) -> int:
    return main(["evaluate", "rwgbench", "--split", "sample", "--profile", "lite", "--bootstrap", "0", *argv])


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("sciwrite: error: ") and "\n" not in err and "Traceback" not in err
    return err


@pytest.mark.parametrize("name", ["../../escaped", "../escaped", "a/b", "..", ".", "a\\b", "/tmp/abs"])
def test_evaluate_refuses_a_system_name_that_is_a_path_and_writes_nothing(tmp_path, capsys, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    run = _predictions(tmp_path)
    assert _evaluate("--predictions", str(run), "--system", name, "--out", "inner/ev") == 2
    err = _error(capsys)
    assert f"field '--system': system name {name!r}" in err and "a system name is a name, never a path" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["ev", "inner", "run.jsonl"]  # nothing beside --out


def test_a_prediction_file_whose_stem_is_a_path_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = _predictions(tmp_path, "...jsonl")  # its stem, the default system name, is ".."
    assert _evaluate("--predictions", str(run), "--out", "ev") == 2
    assert f"{run}: system name '..' is a path" in _error(capsys)


def test_a_link_out_of_the_output_folder_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "ev").mkdir()
    (tmp_path / "ev" / "run").symlink_to(tmp_path / "elsewhere")
    assert _evaluate("--predictions", str(_predictions(tmp_path)), "--out", "ev") == 2
    assert f"system name 'run' resolves to {tmp_path / 'elsewhere'}, outside ev" in _error(capsys)
    assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("name", ["bm25-rag", "gpt-5.5 RAG", "run_2", "..hidden"])
def test_a_plain_name_is_kept_as_it_is(tmp_path, name):
    assert check_system_name(name) == name
    assert system_path(tmp_path, name) == tmp_path / name


@pytest.mark.parametrize("name", ["", "  ", "a\0b"])
def test_an_empty_name_or_one_no_file_system_takes_is_refused(name):
    with pytest.raises(InputError, match="system name|empty"):
        check_system_name(name)
