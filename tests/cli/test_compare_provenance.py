"""`sciwrite compare` reads each system's summary.json beside its per_paper.jsonl and refuses to compare scores
computed under a different benchmark, dataset, profile, models, judge or prompts (unless asked, and never across
benchmarks); judge snapshots that changed and summaries without provenance are said, not hidden."""

from __future__ import annotations

import copy
import json

import pytest

from sciwrite.cli import main

BLOCK = {"benchmark": "rwgbench", "dataset": {"config": "test", "fingerprint": "f1", "n_papers": 4},
         "profile": "paper", "models": {"scibert": "allenai/scibert_scivocab_uncased"},
         "judge": {"model": "gpt-5.5", "snapshots": {"gpt-5.5-2026-04-23": 4}}, "prompt_templates_sha256": "ab"}


def system(tmp_path, name, block, shift=0.0):
    folder = tmp_path / name
    folder.mkdir()
    rows = [{"system": name, "paper_id": f"p{i}", "rougeL": 0.2 + 0.01 * i + shift, "bertscore_f1": 0.5 + shift}
            for i in range(4)]
    (folder / "per_paper.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = {"system": name} if block is None else {"schema_version": 1, "system": name, "provenance": block}
    (folder / "summary.json").write_text(json.dumps(summary))
    return str(folder)


def run(*argv):
    return main(["compare", *argv, "--bootstrap", "50"])


def test_same_provenance_compares(tmp_path, capsys):
    assert run(system(tmp_path, "a", BLOCK), system(tmp_path, "b", BLOCK, 0.05)) == 0
    assert "warning" not in capsys.readouterr().out


@pytest.mark.parametrize(("path", "value", "label"), [
    (("profile",), "lite", "model profile"), (("dataset", "fingerprint"), "f2", "dataset content"),
    (("judge", "model"), "gpt-4o", "judge model"), (("prompt_templates_sha256",), "cd", "prompt templates"),
])
def test_different_provenance_is_refused_unless_asked(tmp_path, capsys, path, value, label):
    other = copy.deepcopy(BLOCK)
    target = other
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    a, b = system(tmp_path, "a", BLOCK), system(tmp_path, "b", other, 0.05)
    assert run(a, b) == 2
    err = capsys.readouterr().err
    assert f"b was not scored like a: {label}" in err and "--allow-mixed-provenance" in err
    assert run(a, b, "--allow-mixed-provenance") == 0
    assert f"warning: b vs a: {label}" in capsys.readouterr().out


def test_another_benchmark_is_never_compared(tmp_path, capsys):
    other = {**BLOCK, "benchmark": "sciig"}
    assert run(system(tmp_path, "a", BLOCK), system(tmp_path, "b", other), "--allow-mixed-provenance") == 2
    assert "benchmark: 'rwgbench' vs 'sciig'" in capsys.readouterr().err


def test_new_judge_snapshot_and_old_summaries_are_said(tmp_path, capsys):
    newer = copy.deepcopy(BLOCK)
    newer["judge"]["snapshots"] = {"gpt-5.5-2026-09-30": 4}
    assert run(system(tmp_path, "a", BLOCK), system(tmp_path, "b", newer), system(tmp_path, "c", None)) == 0
    out = capsys.readouterr().out
    assert "warning: b vs a: judge snapshots ['gpt-5.5-2026-04-23'] vs ['gpt-5.5-2026-09-30']" in out
    assert "note: c has no provenance" in out
