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
    assert "compare needs systems of one benchmark: b (sciig) not rwgbench" in capsys.readouterr().err


def test_new_judge_snapshot_and_old_summaries_are_said(tmp_path, capsys):
    newer = copy.deepcopy(BLOCK)
    newer["judge"]["snapshots"] = {"gpt-5.5-2026-09-30": 4}
    assert run(system(tmp_path, "a", BLOCK), system(tmp_path, "b", newer), system(tmp_path, "c", None)) == 0
    out = capsys.readouterr().out
    assert "warning: b vs a: judge snapshots ['gpt-5.5-2026-04-23'] vs ['gpt-5.5-2026-09-30']" in out
    assert "note: c has no provenance" in out


def bare(tmp_path, name, rows):
    """A per_paper.jsonl alone (no summary beside it), as a user may copy one."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_per_paper_files_of_two_benchmarks_are_refused(tmp_path, capsys):
    """Issue 23: an RWGBench and a SciIG file share rougeL, bertscore_f1 and paper ids; compare said 'rwgbench'."""
    rwg = bare(tmp_path, "rwg", [{"paper_id": f"p{i}", "rougeL": 0.2, "bertscore_f1": 0.5, "precision": 0.1,
                                  "citation_density": 0.9} for i in range(4)])
    sciig = bare(tmp_path, "sciig", [{"paper_id": f"p{i}", "rougeL": 0.3, "bertscore_f1": 0.8, "rouge1": 0.4,
                                      "bleu": 0.1} for i in range(4)])
    assert run(rwg, sciig) == 2
    assert "compare needs systems of one benchmark: sciig (sciig) not rwgbench" in capsys.readouterr().err
    named = bare(tmp_path, "named", [{"paper_id": f"p{i}", "benchmark": "sciig", "rougeL": 0.3} for i in range(4)])
    assert run(rwg, named) == 2  # the rows' own benchmark field decides first
    assert run(rwg, rwg, "--benchmark", "sciig") == 2


def test_runs_with_no_shared_paper_are_refused(tmp_path, capsys):
    a = bare(tmp_path, "a", [{"paper_id": f"a{i}", "rougeL": 0.2, "precision": 0.1} for i in range(3)])
    b = bare(tmp_path, "b", [{"paper_id": f"b{i}", "rougeL": 0.2, "precision": 0.1} for i in range(3)])
    assert run(a, b) == 2
    assert "b and a share no paper (3 and 3 papers, none in common)" in capsys.readouterr().err


def test_a_paper_on_two_lines_is_refused_naming_both(tmp_path, capsys):
    a = bare(tmp_path, "a", [{"paper_id": "p1", "rougeL": 0.2, "precision": 0.1},
                             {"paper_id": "p2", "rougeL": 0.3, "precision": 0.1},
                             {"paper_id": "p1", "rougeL": 0.9, "precision": 0.1}])
    assert run(a, a) == 2
    assert f"{a}:3: paper 'p1' again (first at line 1)" in capsys.readouterr().err


def test_evaluate_records_the_benchmark_in_every_per_paper_row(mini_sample_copy, tmp_path):
    predictions = tmp_path / "sys.jsonl"
    from sciwrite.rwgbench.data.loading import load_rwgbench

    first = load_rwgbench("sample", source=mini_sample_copy)[0]["paper_id"]
    predictions.write_text(json.dumps({"paper_id": first, "text": "X [1].", "candidates": []}) + "\n")
    assert main(["evaluate", "rwgbench", "--predictions", str(predictions), "--source", str(mini_sample_copy),
                 "--profile", "lite", "--metrics", "precision", "--bootstrap", "0", "--out", str(tmp_path / "e")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "e" / "sys" / "per_paper.jsonl").read_text().splitlines()]
    assert rows and all(list(row)[:2] == ["system", "benchmark"] and row["benchmark"] == "rwgbench" for row in rows)
