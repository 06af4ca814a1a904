"""Importing the upstream SciIG release format and its prediction files."""

from __future__ import annotations

import json

import pytest
from datasets import Dataset

from sciwrite.core.schema import SchemaError
from sciwrite.sciig import SCIIG_FEATURES, validate_sciig
from sciwrite.sciig.data.upstream import (
    import_upstream_predictions,
    import_upstream_release,
)

RELEASE = [
    {"title": "Paper One", "abstract": "Abs one.", "introduction": "Intro one\n  cites (Li et al., 2022).",
     "neighbors": {"Li et al., 2022": {"title": "Parsing", "authors": ["Ann Li", "Bo Wu", "Cy Zhao"], "abstract": "P."},
                   "Wu, 2020": {"title": "Tagging", "authors": "Bo Wu", "abstract": "T."}}},
    {"id": "p2", "title": "Paper Two", "abstract": "Abs two.", "introduction": "Intro two.", "year": "2025",
     "neighbors": {"Chen and Li, 2021": {"title": "Chunks", "authors": [{"name": "Dan Chen"}, {"name": "Ann Li"}],
                                         "abstract": "C."}}},
]


def test_release_list_becomes_schema_records(tmp_path):
    path = tmp_path / "naacl.json"
    path.write_text(json.dumps(RELEASE))
    records = import_upstream_release(path, venue="NAACL", year=2025)
    ds = validate_sciig(Dataset.from_list(records, features=SCIIG_FEATURES))
    assert ds[0]["neighbors"][1] == {"key": "Wu, 2020", "title": "Tagging", "authors": ["Bo Wu"], "abstract": "T."}
    assert ds[1]["paper_id"] == "p2" and ds[1]["neighbors"][0]["authors"] == ["Dan Chen", "Ann Li"]
    assert ds[0]["paper_id"].startswith("sciig-") and ds[0]["venue"] == "NAACL" and ds[0]["year"] == 2025


def test_release_keyed_object_and_jsonl(tmp_path):
    keyed = tmp_path / "keyed.json"
    keyed.write_text(json.dumps({"a": RELEASE[0], "b": RELEASE[1]}))
    assert [r["paper_id"] for r in import_upstream_release(keyed, venue="ICLR")] == ["a", "p2"]
    lines = tmp_path / "rows.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in RELEASE))
    assert len(import_upstream_release(lines, venue="ICLR")) == 2


def test_release_errors_name_the_record_and_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([RELEASE[0], {"title": "x", "abstract": "y", "introduction": "z"}]))
    with pytest.raises(SchemaError, match=r"bad.json, paper 1: missing field 'neighbors'"):
        import_upstream_release(path, venue="NAACL")
    path.write_text(json.dumps([{**RELEASE[0], "neighbors": {"Li, 2020": 3}}]))
    with pytest.raises(SchemaError, match=r"paper 0: neighbor 'Li, 2020' must be an object"):
        import_upstream_release(path, venue="NAACL")
    path.write_text(json.dumps([RELEASE[1], RELEASE[1]]))
    with pytest.raises(SchemaError, match="paper_id 'p2' occurs twice"):
        import_upstream_release(path, venue="NAACL")


def test_predictions_join_by_label_not_by_order(tmp_path):
    dataset = [{"paper_id": "p1", "introduction": "Intro one\n  cites (Li et al., 2022)."},
               {"paper_id": "p2", "introduction": "Intro two."},
               {"paper_id": "p3", "introduction": "Intro three."}]
    rows = [{"pred": "Generated two.", "label": "  Intro two. ", "desc": "row for p2"},
            {"pred": "Generated one.", "label": "Intro one cites (Li et al., 2022).", "desc": "row for p1"},
            {"pred": "Stray.", "label": "An introduction of no paper here.", "desc": "orphan"},
            {"pred": "Again two.", "label": "Intro two.", "desc": "dup"}]
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    predictions, report = import_upstream_predictions(path, dataset)
    assert predictions == [{"paper_id": "p2", "text": "Generated two."}, {"paper_id": "p1", "text": "Generated one."}]
    assert report["rows"] == 4 and report["matched"] == 2
    assert report["unmatched"] == [{"row": 3, "desc": "orphan"}]
    assert report["duplicates"] == [{"row": 4, "paper_id": "p2"}]
    assert report["papers_without_prediction"] == ["p3"]


def test_predictions_ambiguous_and_malformed(tmp_path):
    dataset = [{"paper_id": "a", "introduction": "Same."}, {"paper_id": "b", "introduction": "Same."}]
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps({"pred": "x", "label": "Same.", "desc": "d"}) + "\n")
    predictions, report = import_upstream_predictions(path, dataset)
    assert predictions == [] and report["ambiguous"] == [{"row": 1, "desc": "d", "paper_ids": ["a", "b"]}]
    path.write_text(json.dumps({"prediction": "x"}) + "\n" + json.dumps({"pred": "y", "label": "z"}) + "\n")
    with pytest.raises(SchemaError, match="row 1: needs fields 'pred' and 'label'"):
        import_upstream_predictions(path, dataset)
