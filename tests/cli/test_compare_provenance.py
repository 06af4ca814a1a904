"""`sciwrite compare` reads each system's summary.json beside its per_paper.jsonl and refuses to compare scores
computed under a different benchmark, dataset, profile, models, judge or prompts (unless asked, and never across
benchmarks); judge snapshots that changed and summaries without provenance are said, not hidden."""

from __future__ import annotations

import copy
import json

import pytest

from sciwrite.cli import main

ROWS_A, ROWS_B = "rows-sha256:" + "a" * 64, "rows-sha256:" + "b" * 64
BLOCK = {"benchmark": "rwgbench", "dataset": {"config": "test", "fingerprint": ROWS_A, "n_papers": 4},
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
    (("profile",), "lite", "model profile"), (("dataset", "fingerprint"), ROWS_B, "dataset content"),
    (("dataset", "n_papers"), 5, "dataset size"),
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


def test_summaries_with_the_older_fingerprint_are_compared_and_the_rule_named(tmp_path, capsys):
    """Issue 37: two `build sample` runs of the same data gave the `datasets` cache fingerprints 3c0d... and
    9cd8...; compare refused them. Such a fingerprint says nothing of the content: not compared, and said so."""
    old_a, old_b, new = (copy.deepcopy(BLOCK) for _ in range(3))
    old_a["dataset"]["fingerprint"], old_b["dataset"]["fingerprint"] = "3c0d8f1e2a4b6c7d", "9cd8a0b1c2d3e4f5"
    assert run(system(tmp_path, "a", old_a), system(tmp_path, "b", old_b, 0.05), system(tmp_path, "c", new)) == 0
    out = capsys.readouterr().out
    assert "note: b vs a: dataset content not compared ('3c0d8f1e2a4b6c7d' vs '9cd8a0b1c2d3e4f5'): the rule is that " \
           "only fingerprints of the rows (rows-sha256:...) are compared" in out
    assert "note: c vs a: dataset content not compared ('3c0d8f1e2a4b6c7d' vs 'rows-sha256:" in out
    assert "warning" not in out


def rows_file(tmp_path, name, rows, raw_line=None):
    """A per_paper.jsonl of `rows`; `raw_line` (number, text) replaces one line verbatim (NaN is not JSON's)."""
    lines = [json.dumps(r) for r in rows]
    if raw_line:
        lines[raw_line[0] - 1] = raw_line[1]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def scores(shift=0.0):
    return [{"paper_id": f"p{i}", "rougeL": 0.2 + 0.01 * i + shift, "precision": 0.1 + shift} for i in range(4)]


@pytest.mark.parametrize(("line", "where"), [
    ('{"paper_id": "p2", "rougeL": "high", "precision": 0.1}',
     ":3, record 'p2', field 'rougeL': 'high' is not a score"),
    ('{"paper_id": "p2", "rougeL": NaN, "precision": 0.1}', ":3, record 'p2', field 'rougeL': nan is not a score"),
    ('{"paper_id": "p2", "rougeL": 0.2, "precision": true}', ":3, record 'p2', field 'precision': True is not a score"),
    ('{"paper_id": null, "rougeL": 0.2, "precision": 0.1}', ":3, field 'paper_id': paper_id must be a non-empty"),
])
def test_a_bad_row_is_refused_naming_file_line_record_and_field(tmp_path, capsys, line, where):
    """Issue 37: such rows were dropped without a word (paper_id null read as the paper 'None')."""
    a, b = rows_file(tmp_path, "a", scores()), rows_file(tmp_path, "b", scores(0.05), (3, line))
    assert run(a, b) == 2
    err = capsys.readouterr().err
    assert f"sciwrite: error: {b}{where}" in err and len(err.strip().splitlines()) == 1
    assert run(b, a, "--metrics", "rougeL", "precision") == 2  # as the baseline, and with --metrics too
    assert f"{b}{where}" in capsys.readouterr().err


def test_a_paper_without_a_value_is_left_out_of_that_metric_and_said(tmp_path, capsys):
    rows = scores(0.05)
    rows[1]["rougeL"] = None
    assert run(rows_file(tmp_path, "a", scores()), rows_file(tmp_path, "b", rows), "--out", str(tmp_path / "t")) == 0
    out = capsys.readouterr().out
    assert "note: b vs a: rougeL: 1 of 4 shared papers have no value on one side and are left out of it (p1)" in out
    table = {r["metric"]: r for r in json.loads((tmp_path / "t.json").read_text())}
    assert table["rougeL"]["n_papers"] == 3 and table["precision"]["n_papers"] == 4


def test_a_mistyped_metric_is_refused_with_the_metrics_and_a_suggestion(tmp_path, capsys):
    """Issue 37: --metrics rougel gave a row of None."""
    a, b = rows_file(tmp_path, "a", scores()), rows_file(tmp_path, "b", scores(0.05))
    assert run(a, b, "--metrics", "rougel") == 2
    err = capsys.readouterr().err
    assert "--metrics 'rougel' is scored in none of the files; did you mean 'rougeL'?" in err
    assert "the metrics every file scores: precision, rougeL" in err
    only_a = rows_file(tmp_path, "c", [{k: v for k, v in r.items() if k != "precision"} for r in scores()])
    assert run(a, only_a, "--metrics", "precision") == 2
    assert f"--metrics 'precision' is scored in {only_a}" in capsys.readouterr().err


@pytest.mark.parametrize("level", ["1.5", "0", "1", "-0.2", "high"])
def test_an_impossible_confidence_is_refused_naming_the_flag(tmp_path, capsys, level):
    a = rows_file(tmp_path, "a", scores())
    with pytest.raises(SystemExit) as exit_info:
        run(a, a, "--confidence", level)
    assert exit_info.value.code == 2
    assert "argument --confidence: expected a" in capsys.readouterr().err
