"""A system's results folder is written whole or not at all, and a bad output path is refused before scoring."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.core import results
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.results import check_output_folder, write_results
from tests.benchmark_patch import patch_steps

ROWS = [PaperRow(paper_id="p1", values={"score": 0.5})]
SUMMARY = {"system": "s", "score": 0.5}


def test_a_rerun_replaces_the_folder_and_keeps_other_files(tmp_path):
    folder = tmp_path / "out" / "s"
    write_results(folder, "s", ROWS, SUMMARY, [{"score": 0.5}], rejected=[{"line": 3, "problem": "bad"}])
    (folder / "notes.txt").write_text("mine")
    write_results(folder, "s", ROWS, {**SUMMARY, "score": 0.7}, [{"score": 0.7}])
    assert json.loads((folder / "summary.json").read_text())["score"] == 0.7
    assert (folder / "notes.txt").read_text() == "mine"  # not ours: kept
    assert not (folder / "rejected.jsonl").exists()  # a stale one would mislead
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s"]  # no temporary folder left


def test_a_failure_mid_write_leaves_the_earlier_results_whole(tmp_path, monkeypatch):
    folder = tmp_path / "out" / "s"
    write_results(folder, "s", ROWS, SUMMARY, [{"score": 0.5}])
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    def disk_full(path, rows):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(results, "_write_csv", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_results(folder, "s", ROWS, {**SUMMARY, "score": 0.9}, [{"score": 0.9}])
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s"]


def test_an_output_path_under_a_file_is_refused(tmp_path):
    (tmp_path / "taken").write_text("x")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        check_output_folder(tmp_path / "taken")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        check_output_folder(tmp_path / "taken" / "deeper")
    assert check_output_folder(tmp_path / "new" / "folder").is_dir()


@pytest.mark.parametrize("benchmark", ["rwgbench", "sciig"])
def test_evaluate_refuses_a_bad_out_before_any_model_loads(benchmark, tmp_path, monkeypatch, capsys):
    """Issue 23: scoring ran to the end, then the writer crashed on an --out that names a file."""
    def too_early(*args, **kwargs):
        raise AssertionError("the split or the models were loaded before the output path was checked")

    patch_steps(monkeypatch, benchmark, open_split=too_early, load_models=too_early)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"paper_id": "x", "text": "y", "candidates": []}) + "\n")
    taken = tmp_path / "results.txt"
    taken.write_text("not a folder")
    assert main(["evaluate", benchmark, "--predictions", str(predictions), "--out", str(taken), "--no-judge",
                 "--profile", "lite", "--bootstrap", "0"]) == 2
    assert f"--out {taken}" in capsys.readouterr().err and taken.read_text() == "not a folder"


def test_the_store_must_be_a_file(tmp_path):
    from sciwrite.leaderboard.store import ResultsStore

    with pytest.raises(ValueError, match="is a folder; name the SQLite file"):
        ResultsStore(tmp_path)


def test_a_failed_swap_puts_the_earlier_folder_back_with_every_file(tmp_path, monkeypatch):
    """The new folder cannot take the old one's place (another process holds the name, a permission): the earlier
    results and the user's own files in the folder are all back where they were."""
    from pathlib import Path

    folder = tmp_path / "out" / "s"
    write_results(folder, "s", ROWS, SUMMARY, [{"score": 0.5}])
    (folder / "notes.txt").write_text("mine")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    real_rename = Path.rename

    def refuse_the_new_folder(self, target):
        if Path(target) == folder and self.name.startswith(".s.") and ".old-" not in self.name:
            raise PermissionError(13, "Permission denied")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", refuse_the_new_folder)
    with pytest.raises(PermissionError):
        write_results(folder, "s", ROWS, {**SUMMARY, "score": 0.9}, [{"score": 0.9}])
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s"]
