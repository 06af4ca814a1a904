"""Every front end reaches the one scoring core: the suite evaluate modules carry the summary `sciwrite evaluate`
writes (provenance, coverage, intervals) and keep their models between calls; ``--metrics`` takes metric keys,
stage names and evaluate-module names for both benchmarks; summaries of every schema read in today's layout."""

from __future__ import annotations

import json

import pytest

import sciwrite
from sciwrite.cli import main
from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION, migrate_summary
from sciwrite.core.results import read_summary
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.sciig.data.loading import load_sciig

PAPER = {"paper_id": "p1", "title": "Graph parsing", "abstract": "We parse graphs with transformers.",
         "introduction": "Graph parsers are slow (Li et al., 2022). We make them fast.",
         "neighbors": [{"key": "Li et al., 2022", "title": "Parsing", "authors": ["Ann Li"], "abstract": ""}]}


def test_the_sciig_module_returns_the_cores_summary_and_keeps_its_models(monkeypatch):
    from sciwrite.sciig.metrics import evaluation

    loads = []
    real = evaluation.EVALUATION.load_models

    def counted(**options):
        loads.append(options["metrics"])
        return real(**options)

    from tests.benchmark_patch import patch_steps

    patch_steps(monkeypatch, "sciig", load_models=counted)
    metric = sciwrite.load_metric("sciig")
    for _ in range(2):
        result = metric.compute(predictions=[PAPER["introduction"]], references=["p1"], papers=[PAPER],
                                profile="lite", metrics=["sciig_rouge", "citation_correctness"], bootstrap=10)
    assert loads == [("rouge1", "rouge2", "rougeL", "citation_precision", "citation_recall")]  # loaded once
    assert result["rougeL"] == 1.0 and result["citation_precision"] == 1.0 and result["bleu"] is None
    assert result["schema_version"] == SUMMARY_SCHEMA_VERSION and result["provenance"]["benchmark"] == "sciig"
    assert result["coverage"] == {"n_scored": 1, "n_split": 1, "complete": True} and "rougeL" in result["intervals"]


def test_the_rwgbench_module_returns_the_cores_summary():
    paper = {"paper_id": "p1", "title": "Graph parsing", "abstract": "We parse graphs.",
             "related_work": "Transformers [1] replaced recurrent models.", "citations": ["d1", "d2"]}
    corpus = {"d1": "Attention is all you need.", "d2": "A graph parser."}
    result = sciwrite.load_metric("rwgbench").compute(
        predictions=[paper["related_work"]], references=["p1"], candidates=[["d1"]], papers=[paper], corpus=corpus,
        profile="lite", metrics=["citation_precision_recall"], return_per_paper=True)
    assert (result["precision"], result["recall"]) == (1.0, 0.5) and result["topical_relevance"] is None
    assert result["provenance"]["benchmark"] == "rwgbench" and result["coverage"]["n_scored"] == 1
    assert result["per_paper"][0]["paper_id"] == "p1" and result["grounding"]["grounding_found_rate"] == 1.0


def test_evaluate_takes_stage_and_module_names(mini_sample_folder, sciig_mini_folder, tmp_path):
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    rwg = tmp_path / "rwg.jsonl"
    rwg.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": p["related_work"],
                                       "candidates": p["citations"]}) + "\n" for p in papers))
    assert main(["evaluate", "rwgbench", "--predictions", str(rwg), "--source", str(mini_sample_folder),
                 "--profile", "lite", "--metrics", "reference_grounding", "--bootstrap", "0",
                 "--out", str(tmp_path / "r")]) == 0
    summary = read_summary(tmp_path / "r" / "rwg")
    assert summary["precision"] is None and summary["grounding"]["grounding_found_rate"] == 1.0
    intros = load_sciig("sample", source=sciig_mini_folder, split="test").to_list()
    sciig = tmp_path / "sciig.jsonl"
    sciig.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": p["introduction"]}) + "\n"
                             for p in intros))
    assert main(["evaluate", "sciig", "--predictions", str(sciig), "--source", str(sciig_mini_folder),
                 "--profile", "lite", "--metrics", "citation_correctness", "sciig_rouge", "--bootstrap", "0",
                 "--out", str(tmp_path / "s")]) == 0
    summary = read_summary(tmp_path / "s" / "sciig")
    assert summary["rougeL"] == pytest.approx(1.0) and summary["citation_recall"] is not None
    assert summary["meteor"] is None and (summary["split"], summary["scored_split"]) == ("sample", "test")


def test_older_summaries_read_in_todays_layout(tmp_path):
    old_sciig = {"schema_version": 1, "system": "s", "dataset": "naacl_2025", "split": "test", "rouge1": 0.4}
    assert migrate_summary(old_sciig) == {"schema_version": 1, "system": "s", "split": "naacl_2025",
                                          "scored_split": "test", "rouge1": 0.4}
    assert list(migrate_summary(old_sciig)) == ["schema_version", "system", "split", "scored_split", "rouge1"]
    old_rwgbench = {"schema_version": 1, "system": "r", "split": "sample", "precision": 0.5}
    assert migrate_summary(old_rwgbench) == old_rwgbench
    current = {"schema_version": 2, "split": "sample", "dataset": "kept: not the schema-1 key"}
    assert migrate_summary(current) == current
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "summary.json").write_text(json.dumps(old_sciig))
    assert read_summary(tmp_path / "s")["split"] == "naacl_2025"
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"bad.json: is a list, not a JSON object"):
        read_summary(tmp_path / "bad.json")
