"""Prediction sources: JSON Lines files with `text` or the runner's `pred`, and prediction datasets (a folder laid
out like a Hub dataset repo, read through `datasets.load_dataset` as a Hub id would be)."""

from __future__ import annotations

import json

import pytest
from datasets import Dataset

from sciwrite.core.predictions import prediction_file, read_predictions


def test_pred_is_read_as_text_and_text_wins_when_both(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"paper_id": "a", "pred": "A [1].", "candidates": ["d1"]}) + "\n"
                    + json.dumps({"paper_id": "b", "pred": "ignored", "text": "B.", "candidates": []}) + "\n")
    records = read_predictions(path)
    assert [r["text"] for r in records] == ["A [1].", "B."]


def test_a_record_without_text_or_pred_names_both_fields(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"paper_id": "a", "candidates": []}) + "\n")
    with pytest.raises(ValueError, match=r"p\.jsonl:1: \(paper_id 'a'\) field 'text' \(or 'pred'\) must be a string"):
        read_predictions(path)


def test_a_dataset_folder_is_read_like_a_file(tmp_path):
    folder = tmp_path / "user__preds"
    (folder / "data").mkdir(parents=True)
    rows = [{"paper_id": "a", "pred": "A [1].", "candidates": ["d1"], "model": "m"},
            {"paper_id": "b", "pred": "B.", "candidates": [], "model": "m"}]
    Dataset.from_list(rows).to_parquet(str(folder / "data" / "train-00000-of-00001.parquet"))
    local = prediction_file(folder)
    assert local.suffix == ".jsonl" and local.is_file()
    assert prediction_file(folder) == local  # written once, reused
    records = read_predictions(folder)
    assert [(r["paper_id"], r["text"], r["candidates"]) for r in records] == [("a", "A [1].", ["d1"]), ("b", "B.", [])]


def test_a_missing_source_says_what_was_tried(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nor a dataset folder or Hub dataset id\[:config\]"):
        prediction_file(tmp_path / "missing.jsonl")
    with pytest.raises(FileNotFoundError, match="loading it as a dataset failed"):
        prediction_file("nobody/no-such-predictions")  # offline in tests: the Hub cannot be reached


def test_a_config_of_a_multi_run_dataset_is_chosen_with_a_colon(tmp_path):
    """`sciwrite push` stores each run as a config of one repo; `repo:config` picks one (here a local folder)."""
    folder = tmp_path / "runs"
    for config, text in (("rag_bm25", "R [1]."), ("direct", "D.")):
        (folder / config).mkdir(parents=True)
        Dataset.from_list([{"paper_id": "a", "pred": text, "candidates": ["d1"]}]).to_parquet(
            str(folder / config / "test-00000-of-00001.parquet"))
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: rag_bm25\n  data_files:\n  - split: test\n    path: rag_bm25/*.parquet\n"
        "- config_name: direct\n  data_files:\n  - split: test\n    path: direct/*.parquet\n---\n# runs\n")
    assert read_predictions(f"{folder}:direct")[0]["text"] == "D."
    assert read_predictions(f"{folder}:rag_bm25")[0]["text"] == "R [1]."


def test_papers_by_id_orders_records_and_names_unknown_ids():
    from sciwrite.core.predictions import papers_by_id

    papers = [{"paper_id": "a", "x": 1}, {"paper_id": "b", "x": 2}]
    assert [p["x"] for p in papers_by_id(["b", "a", "b"], papers)] == [2, 1, 2]
    assert papers_by_id(["a"], Dataset.from_list(papers)) == [{"paper_id": "a", "x": 1}]
    with pytest.raises(ValueError, match=r"field 'references': paper_id\(s\) not among `papers`: \['z'\]"):
        papers_by_id(["a", "z"], papers)
