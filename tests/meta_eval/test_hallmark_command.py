"""`sciwrite meta-eval hallmark` on a tiny HALLMARK-shaped folder: the metrics it prints, the predictions it writes
in HALLMARK's format, and its one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciwrite.cli import main
from sciwrite.grounding.resolver import Reference
from sciwrite.grounding.taxonomy import Check, FieldMismatch
from sciwrite.meta_eval.hallmark import HALLUCINATION_TYPES, read_predictions
from sciwrite.meta_eval.hallmark_checker import EXPECTED_VERDICT, predicted_type

POOL = [
    {"bibtex_key": "a21", "bibtex_type": "inproceedings", "fields": {
        "title": "Learning Invariant Representations without Reconstruction", "author": "Amy Zhang 0001 and Yarin Gal",
        "year": "2021", "booktitle": "ICLR"}},
    {"bibtex_key": "b22", "bibtex_type": "inproceedings", "fields": {
        "title": "Conjugate Energy-Based Models", "author": "Hao Wu and Babak Esmaeili", "year": "2022",
        "booktitle": "ICML", "doi": "10.5555/cebm"}},
]


def entry(key, fields, label="VALID", h_type=None, tier=None, method="scraped"):
    return {"bibtex_key": key, "bibtex_type": "inproceedings", "fields": fields, "label": label,
            "hallucination_type": h_type, "difficulty_tier": tier, "generation_method": method, "explanation": ""}


SPLIT = [
    entry("v1", POOL[0]["fields"]),
    entry("v2", POOL[1]["fields"]),
    entry("h1", {**POOL[1]["fields"], "booktitle": "UAI"}, "HALLUCINATED", "wrong_venue", 2, "perturbation"),
    entry("h2", {**POOL[0]["fields"], "year": "2034"}, "HALLUCINATED", "future_date", 1, "perturbation"),
    entry("h3", {**POOL[1]["fields"], "doi": "10.88880/x.1"}, "HALLUCINATED", "fabricated_doi", 1, "perturbation"),
    entry("h4", {"title": "Quantum Embedding Forests", "author": "Wei Seo and Tamara Fu", "year": "2021"},
          "HALLUCINATED", "plausible_fabrication", 3, "llm_generated"),
]


@pytest.fixture()
def hallmark(tmp_path: Path) -> Path:
    data = tmp_path / "hallmark"
    (data / "baseline_results").mkdir(parents=True)
    (data / "dev_public.jsonl").write_text("".join(json.dumps(e) + "\n" for e in SPLIT))
    (data / "valid_entries.jsonl").write_text("".join(json.dumps({**e, "label": "VALID"}) + "\n" for e in POOL))
    (data / "baseline_results" / "doi_only_dev_public.json").write_text(json.dumps({
        "tool_name": "doi_only", "split_name": "dev_public", "num_entries": 6, "detection_rate": 0.25,
        "false_positive_rate": 0.5, "f1_hallucination": 0.333, "tier_weighted_f1": 0.3, "ece": 0.2}))
    return data


def run(data: Path, out: Path, *extra: str) -> int:
    return main(["meta-eval", "hallmark", "--data", str(data), "--snapshot", str(data / "valid_entries.jsonl"),
                 "--out", str(out), "--cutoff-year", "2026", *extra])


def test_scores_a_split_beside_the_published_rows_and_writes_hallmark_predictions(hallmark, tmp_path, capsys):
    assert run(hallmark, tmp_path / "out") == 0
    printed = capsys.readouterr().out
    # h1-h3 caught; h4 (a title the snapshot lacks) unresolved: left out by the conservative treatment, counted as
    # hallucinated by the aggressive one. Both valid entries verified.
    ours = [line.split() for line in printed.splitlines() if line.startswith("sciwrite-checker")]
    assert [row[1] for row in ours] == ["conservative", "aggressive"]
    assert ours[0][3:6] == ["1.0000", "0.0000", "1.0000"] and ours[0][-1] == "1"
    assert ours[1][3:6] == ["1.0000", "0.0000", "1.0000"] and ours[1][-1] == "0"
    assert any(line.startswith("doi_only") and " open " in line for line in printed.splitlines())
    assert "3/3 of the hallucinated entries caught = 1.000" in printed
    predictions = {p.bibtex_key: p for p in read_predictions(tmp_path / "out" / "predictions_dev_public.jsonl")}
    assert {k: (p.label, p.predicted_hallucination_type) for k, p in predictions.items()} == {
        "v1": ("VALID", None), "v2": ("VALID", None), "h1": ("HALLUCINATED", "wrong_venue"),
        "h2": ("HALLUCINATED", "future_date"), "h3": ("HALLUCINATED", "fabricated_doi"), "h4": ("UNCERTAIN", None)}
    checks = [json.loads(line) for line in (tmp_path / "out" / "checks_dev_public.jsonl").read_text().splitlines()]
    assert checks[2]["fields"] == ["venue"] and checks[2]["matched"]["id"] == "b22"
    result = json.loads((tmp_path / "out" / "results_dev_public_aggressive.json").read_text())
    assert result["num_uncertain"] == 0 and result["_provenance"] == {"eval_mode": "aggressive"}


def test_a_complete_snapshot_calls_an_absent_title_fabricated(hallmark, tmp_path, capsys):
    assert run(hallmark, tmp_path / "out", "--complete-snapshot") == 0
    predictions = {p.bibtex_key: p for p in read_predictions(tmp_path / "out" / "predictions_dev_public.jsonl")}
    assert predictions["h4"].label == "HALLUCINATED"
    assert predictions["h4"].predicted_hallucination_type == "plausible_fabrication"


def test_bad_input_is_one_line(hallmark, tmp_path, capsys):
    assert run(hallmark, tmp_path / "out", "--split", "test_private") == 2
    assert "test_private" in capsys.readouterr().err
    assert main(["meta-eval", "hallmark", "--data", str(hallmark)]) == 2
    assert "--snapshot" in capsys.readouterr().err
    broken = hallmark / "broken.jsonl"
    broken.write_text(json.dumps(POOL[0]) + "\n{not json\n")
    assert main(["meta-eval", "hallmark", "--data", str(hallmark), "--snapshot", str(broken)]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]  # after the reading's progress bar
    assert "broken.jsonl:2: not valid JSON" in error


def test_verdicts_map_to_hallmark_types_by_the_fields_that_differ():
    def mismatch(*pairs):
        return Check(Reference("t"), "metadata_mismatch", 0.9, "", mismatches=tuple(
            FieldMismatch(field, kind, "", None, "") for field, kind in pairs))

    cases = {
        ("doi", "does_not_resolve"): "fabricated_doi", ("venue", "nonexistent"): "nonexistent_venue",
        ("venue", "preprint_as_published"): "preprint_as_published", ("authors", "placeholder"): "placeholder_authors",
        ("authors", "partial"): "partial_author_list", ("authors", "replaced"): "swapped_authors",
        ("venue", "differs"): "wrong_venue", ("year", "differs"): "arxiv_version_mismatch"}
    for pair, expected in cases.items():
        assert predicted_type(mismatch(pair)) == expected, pair
    assert predicted_type(mismatch(("authors", "replaced"), ("year", "differs"))) == "merged_citation"
    assert predicted_type(Check(Reference("t"), "title_mismatch", 0.8, "", kind="chimera")) == "chimeric_title"
    assert predicted_type(Check(Reference("t"), "fabricated", 0.8, "")) == "plausible_fabrication"
    assert predicted_type(Check(Reference("t"), "verified", 0.9, "")) is None
    assert set(EXPECTED_VERDICT) == set(HALLUCINATION_TYPES)  # every HALLMARK type has an expected verdict
