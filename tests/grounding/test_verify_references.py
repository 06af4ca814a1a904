"""`sciwrite verify-references`: JSON Lines and BibTeX lists checked against the corpus, bad entries named and the
others still checked."""

from __future__ import annotations

import json

from sciwrite.cli import main
from sciwrite.grounding.reference_lists import read_reference_list
from sciwrite.rwgbench.data.loading import load_rwgbench


def test_json_lines_and_bibtex_lists_are_checked(mini_sample_folder, tmp_path, capsys):
    corpus = load_rwgbench("sample_corpus", source=mini_sample_folder).to_list()
    real = next(r for r in corpus if len((r["title"] or "").split()) >= 5)
    listed = tmp_path / "refs.jsonl"
    listed.write_text("\n".join([
        json.dumps(real["title"].lower()),  # a title alone, retyped
        json.dumps({"title": "Quantum gravity for recipe generation in the kitchen", "year": 2021}),
        json.dumps({"paper_id": "P1", "text": "...", "references": [{"n": 1, "title": real["title"]},
                                                                       {"n": 2, "title": 7}]}),
        "{not json",
    ]) + "\n", encoding="utf-8")
    bib = tmp_path / "draft.bib"
    bib.write_text("@inproceedings{mine,\n  title = {" + real["title"] + "},\n  author = {Someone, A.},\n"
                   "  year = {2019a}\n}\n@misc{untitled, note = {no title}}\n", encoding="utf-8")
    out = tmp_path / "verdicts.jsonl"
    assert main(["verify-references", str(listed), str(bib), "--source", str(mini_sample_folder),
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "7 references against" in printed and "3 found, 0 ambiguous, 1 not_found, 3 invalid" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["verdict"] for r in rows] == ["found", "not_found", "found", "invalid", "invalid", "found", "invalid"]
    assert {rows[i]["doc_id"] for i in (0, 2, 5)} == {real["doc_id"]}
    assert rows[2]["where"] == f"{listed}:3 (paper_id 'P1') reference [1]"
    assert rows[3]["where"] == f"{listed}:3 (paper_id 'P1') reference [2]"
    assert rows[3]["why"] == "field 'title' must be a string, got int"
    assert rows[4]["where"] == f"{listed}:4" and rows[4]["why"].startswith("not valid JSON")
    assert rows[5]["where"] == f"{bib}:1 @inproceedings{{mine}}" and rows[5]["candidates"]
    assert rows[6]["why"] == "no title field"


def test_an_empty_list_is_named(tmp_path):
    empty = tmp_path / "none.jsonl"
    empty.write_text("\n", encoding="utf-8")
    try:
        read_reference_list(empty)
    except ValueError as err:
        assert str(empty) in str(err) and "no reference in it" in str(err)
    else:
        raise AssertionError("an empty list was accepted")
    assert main(["verify-references", str(tmp_path / "missing.bib")]) == 2


def test_a_draft_bibliography_is_checked_field_by_field_against_a_snapshot(mini_sample_folder, tmp_path, capsys):
    snapshot = tmp_path / "dblp.jsonl"
    snapshot.write_text("\n".join(json.dumps(r) for r in [
        {"key": "conf/iclr/WongK21", "title": "Learning perturbation sets for robust machine learning",
         "authors": ["Eric Wong 0001", "J. Zico Kolter"], "year": 2021, "venue": "ICLR"},
        {"key": "journals/corr/abs-2602-12345", "title": "Sparse Mixtures of Tiny Experts",
         "authors": ["Li Chen", "Maria Rossi"], "year": 2026, "journal": "CoRR", "eprint": "2602.12345"},
    ]) + "\n", encoding="utf-8")
    draft = tmp_path / "draft.bib"
    draft.write_text(
        "@inproceedings{wong, title = {Learning Perturbation Sets for Robust Machine Learning},\n"
        "  author = {Wong, Eric and Kolter, J. Zico}, booktitle = {ICLR}, year = {2021}}\n"
        "@inproceedings{wongyear, title = {Learning perturbation sets for robust machine learning},\n"
        "  author = {Eric Wong and J. Zico Kolter}, booktitle = {ICLR}, year = {2019}}\n"
        "@inproceedings{chen, title = {Sparse Mixtures of Tiny Experts}, author = {Li Chen and Maria Rossi},\n"
        "  booktitle = {NeurIPS}, year = {2026}, eprint = {2602.12345}, archivePrefix = {arXiv}}\n"
        "@article{ghost, title = {Quantum Origami for Sentiment Analysis}, author = {A. Nobody}, year = {2020},\n"
        "  doi = {10.88880/ghost.1}}\n", encoding="utf-8")
    out = tmp_path / "checked.jsonl"
    assert main(["verify-references", str(draft), "--source", str(mini_sample_folder), "--snapshot", str(snapshot),
                 "--cutoff-year", "2026", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 verified, 0 fabricated, 2 metadata_mismatch, 0 title_mismatch, 0 anachronistic, 1 unresolved" in printed
    checks = [json.loads(line)["check"] for line in out.read_text().splitlines()]
    assert [c["verdict"] for c in checks] == ["verified", "metadata_mismatch", "metadata_mismatch", "unresolved"]
    assert checks[1]["fields"] == ["year"] and checks[1]["matched"]["id"] == "conf/iclr/WongK21"
    assert checks[2]["mismatches"][0]["kind"] == "preprint_as_published"
    assert main(["verify-references", str(draft), "--source", str(mini_sample_folder), "--snapshot", str(snapshot),
                 "--complete-snapshot", "--out", str(out)]) == 0
    assert json.loads(out.read_text().splitlines()[-1])["check"]["verdict"] == "fabricated"
