"""Issue 23: a score over part of the split says so (n/N papers) in every table, CSV row and plot, and
``--require-complete`` refuses such a file before any model loads; a prediction citing a doc_id outside the corpus
is named FILE:LINE, not "record 0"."""

from __future__ import annotations

import csv
import json

import pytest

from sciwrite.cli import main
from sciwrite.core.coverage import Coverage, check_complete, with_coverage
from sciwrite.core.summary import Summary
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.sciig.data.loading import load_sciig
from tests.benchmark_patch import patch_steps

CHEAP = ["--profile", "lite", "--no-judge", "--bootstrap", "0"]


def _write(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _rwgbench_prediction(paper) -> dict:
    return {"paper_id": paper["paper_id"], "text": paper["related_work"], "candidates": paper["citations"]}


def test_coverage_rule():
    partial = Summary.from_json({"n_papers": 3, "coverage": {"n_scored": 3, "n_split": 144, "complete": False}})
    assert with_coverage("rag", partial.scored) == "rag (3/144 papers)"
    assert with_coverage("rag", Coverage(144, 144)) == "rag" and with_coverage("rag", None) == "rag"
    # a summary written before the coverage record: n_papers against the provenance's split size
    assert Summary.from_json({"n_papers": 2, "provenance": {"dataset": {"n_papers": 5}}}).scored == Coverage(2, 5)
    assert Summary.from_json({"n_papers": 2}).scored.complete  # the split's size unknown: nothing to say
    with pytest.raises(ValueError, match=r"a\.jsonl: 1/3 papers predicted, 2 missing \(e\.g\. \['q', 'r'\]\)"):
        check_complete({"a.jsonl": ["p"], "b.jsonl": ["p", "q", "r"]}, ["p", "q", "r"])


def test_rwgbench_partial_file_is_labelled_everywhere(mini_sample_folder, tmp_path, capsys):
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    n = len(papers)
    preds = _write(tmp_path / "few.jsonl", [_rwgbench_prediction(papers[0])])
    out = tmp_path / "out"
    assert main(["evaluate", "rwgbench", "--predictions", preds, "--source", str(mini_sample_folder),
                 "--metrics", "precision", "recall", *CHEAP, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"few (1/{n} papers)" in printed  # the Table 2 row
    assert f"few: 1/{n} papers of RWGBench sample scored" in printed and f"partial: few covers 1/{n} papers" in printed
    summary = json.loads((out / "few" / "summary.json").read_text())
    assert summary["coverage"] == {"n_scored": 1, "n_split": n, "complete": False}
    [row] = list(csv.DictReader((out / "few" / "summary.csv").open()))
    assert (row["coverage"], row["n_split"], row["n_papers"]) == (f"1/{n}", str(n), "1")

    full = _write(tmp_path / "all.jsonl", [_rwgbench_prediction(p) for p in papers])
    assert main(["evaluate", "rwgbench", "--predictions", full, "--source", str(mini_sample_folder),
                 "--metrics", "precision", *CHEAP, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "papers)" not in printed and "partial:" not in printed
    [row] = list(csv.DictReader((out / "all" / "summary.csv").open()))
    assert row["coverage"] == f"{n}/{n}"


def test_require_complete_refuses_before_any_model_loads(mini_sample_folder, tmp_path, capsys, monkeypatch):
    def no_models(*args, **kwargs):
        raise AssertionError("models were loaded for a file --require-complete refuses")

    patch_steps(monkeypatch, "rwgbench", load_models=no_models)
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    preds = _write(tmp_path / "few.jsonl", [_rwgbench_prediction(papers[0])])
    out = tmp_path / "out"
    assert main(["evaluate", "rwgbench", "--predictions", preds, "--source", str(mini_sample_folder), *CHEAP,
                 "--require-complete", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{preds}: 1/{len(papers)} papers predicted, {len(papers) - 1} missing" in err
    assert not (out / "few").exists()


def test_evaluate_help_documents_the_exit_statuses(capsys):
    for benchmark in ("rwgbench", "sciig"):
        with pytest.raises(SystemExit):
            main(["evaluate", benchmark, "--help"])
        printed = " ".join(capsys.readouterr().out.split())
        assert "exit status: 0 every file scored" in printed and "--require-complete" in printed


def test_sciig_partial_file_is_labelled_in_the_table_and_every_csv_row(sciig_mini_folder, tmp_path, capsys):
    test = load_sciig("sample", source=sciig_mini_folder, split="test").to_list()
    n = len(test)
    preds = _write(tmp_path / "one.jsonl", [{"paper_id": test[0]["paper_id"], "text": test[0]["introduction"]}])
    out = tmp_path / "out"
    assert main(["evaluate", "sciig", "--predictions", preds, "--source", str(sciig_mini_folder), "--metrics",
                 "rouge", *CHEAP, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"1/{n} papers scored" in printed and f"partial: one covers 1/{n} papers of the test split" in printed
    table_lines = [line for line in printed.splitlines() if "ROUGE" in line]
    assert table_lines and all(line.rstrip().endswith(f"1/{n}") for line in table_lines), table_lines
    rows = list(csv.DictReader((out / "one" / "summary.csv").open()))
    assert rows and {r["coverage"] for r in rows} == {f"1/{n}"}
    assert main(["evaluate", "sciig", "--predictions", preds, "--source", str(sciig_mini_folder), "--metrics",
                 "rouge", *CHEAP, "--require-complete", "--out", str(out)]) == 2
    assert f"{preds}: 1/{n} papers predicted" in capsys.readouterr().err


def test_paper_tables_label_a_partial_column():
    from sciwrite.rwgbench.metrics.report import table2 as rwgbench_table2
    from sciwrite.sciig.paper_tables import table2 as sciig_table2

    partial = {"dataset": "sample", "system": "m", "rougeL": 0.5, "n_papers": 1,
               "coverage": {"n_scored": 1, "n_split": 3, "complete": False}}
    complete = {**partial, "system": "k", "coverage": {"n_scored": 3, "n_split": 3, "complete": True}}
    columns = dict(sciig_table2({"m": Summary.from_json(partial), "k": Summary.from_json(complete)}).columns)
    assert columns == {"sample/m": "m (1/3 papers)", "sample/k": "k"}
    rows = rwgbench_table2([Summary.from_json(partial), Summary.from_json(complete)]).rows
    assert [r.labels for r in rows] == [("m (1/3 papers)",), ("k",)]
    run = {"model": "gpt-4o", "method": "rag", "retriever": "bm25"}
    by_run = rwgbench_table2([Summary.from_json({**partial, "run": run})]).rows
    assert by_run[0].labels == ("", "gpt-4o", "RAG (1/3 papers)")


def test_a_citation_outside_the_corpus_is_named_by_file_and_line(mini_sample_folder, tmp_path, capsys):
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    lines = [_rwgbench_prediction(p) for p in papers]
    lines[1] = {**lines[1], "text": "As shown [1].", "candidates": ["no-such-doc"]}
    preds = _write(tmp_path / "p.jsonl", lines)
    argv = ["evaluate", "rwgbench", "--predictions", preds, "--source", str(mini_sample_folder), "--metrics",
            "precision", *CHEAP, "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert (f"{preds}:2: (paper_id {papers[1]['paper_id']!r}) field 'candidates' cites doc_id(s) that are not in the "
            "corpus: ['no-such-doc']") in err
    assert "record 0" not in err and "record 1" not in err
    assert main([*argv, "--bad-records", "skip"]) == 0  # the line is left out and listed, the others scored
    assert f"rejected: {preds}:2: (paper_id" in capsys.readouterr().out
    rejected = [json.loads(x) for x in (tmp_path / "out" / "p" / "rejected.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rejected] == [2]
