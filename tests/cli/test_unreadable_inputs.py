"""Input files a command cannot read (not UTF-8, not YAML, no usable paper) are named in the one error line: the
file, the line (and byte offset or column) and what to do, never a codec's or the `datasets` library's words."""

from __future__ import annotations

import json

import pytest

from sciwrite.rwgbench.data.sample import build_sample
from sciwrite.sciig.data.upstream import import_upstream_predictions, import_upstream_release
from tests.cli.error_line import error_line

#: A paper whose title is ISO-8859-1 (latin-1): byte 0xe9 is no UTF-8 on its own.
LATIN1 = b"caf\xe9"


def test_generate_config_not_utf8_names_the_file_line_and_offset(tmp_path, capsys):
    config = tmp_path / "latin1.yaml"
    config.write_bytes(b"benchmark: rwgbench\ndescription: " + LATIN1 + b"\n")
    line = error_line(["generate", "rwgbench", "--model", "extractive", "--config", str(config),
                       "--out", str(tmp_path / "out")], capsys)
    assert f"{config}:2" in line
    assert "not UTF-8" in line and "byte 0xe9 at offset 36" in line and "save the file as UTF-8" in line


def test_generate_config_bad_yaml_names_the_file_line_and_column(tmp_path, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text("benchmark: rwgbench\nlimit: [2\n", encoding="utf-8")
    line = error_line(["generate", "rwgbench", "--model", "extractive", "--config", str(config),
                       "--out", str(tmp_path / "out")], capsys)
    assert f"{config}:3:1: not valid YAML (expected ',' or ']'" in line
    assert "while parsing a flow sequence at line 2, column 8" in line
    assert "<unicode string>" not in line


@pytest.mark.parametrize("layout", ["jsonl", "json"])
def test_sciig_release_not_utf8_names_the_file_and_line(tmp_path, capsys, layout):
    paper = b'{"title": "' + LATIN1 + b'", "abstract": "a", "introduction": "i", "neighbors": {}}'
    release = tmp_path / f"release.{layout}"
    release.write_bytes(b'{"title": "t", "abstract": "a", "introduction": "i", "neighbors": {}}\n' + paper + b"\n"
                        if layout == "jsonl" else b"[\n" + paper + b"\n]\n")
    line = error_line(["build", "sciig", "--release", str(release), "--venue", "ACL", "--out", str(tmp_path / "o")],
                      capsys)
    assert f"{release}:2" in line and "not UTF-8" in line and "save the file as UTF-8" in line


def test_sciig_predictions_not_utf8_names_the_file_and_line(tmp_path):
    predictions = tmp_path / "preds.jsonl"
    predictions.write_bytes(b'{"pred": "' + LATIN1 + b'", "label": "x"}\n')
    with pytest.raises(ValueError, match=rf"^{predictions}:1: not UTF-8 text \(byte 0xe9 at offset 13\)"):
        import_upstream_predictions(predictions, [{"paper_id": "p", "introduction": "x"}])
    assert import_upstream_release  # the release reads through the same reader (above)


def test_build_sample_without_a_readable_paper_says_so(tmp_path, capsys):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "P99-1001.json").write_bytes(b'{"title": "' + LATIN1 + b'"}')
    out = tmp_path / "out"
    line = error_line(["build", "sample", "--paper-dir", str(papers), "--out", str(out)], capsys)
    assert f"no readable paper in {papers}" in line
    assert str(papers / "P99-1001.json") in line and "0xe9" in line
    assert "Keys mismatch" not in line
    assert not out.exists()


def test_build_sample_without_a_usable_paper_names_each_reason(tmp_path):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "P99-1001.json").write_bytes(b'{"title": "' + LATIN1 + b'"}')
    no_title = {"pdf_parse": {"body_text": []}, "title": ""}
    (papers / "P99-1002.json").write_text(json.dumps(no_title), encoding="utf-8")
    with pytest.raises(ValueError, match=r"no usable paper in .*papers: .*P99-1001\.json.*no-title: P99-1002"):
        build_sample(papers, show_progress=False)


def test_build_sciig_that_keeps_too_few_papers_names_them_and_why(tmp_path, capsys):
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "P99-1001.json").write_bytes(b'{"title": "' + LATIN1 + b'"}')
    line = error_line(["build", "sciig", "--paper-dir", str(papers), "--out", str(tmp_path / "out")], capsys)
    assert "kept 0 of 1 papers" in line
    assert f"skipped: unreadable: {papers / 'P99-1001.json'}: not a readable JSON file" in line
