"""SurGE's prediction layout (`sciwrite.surge.prediction_folder`): one subfolder per survey id, read as SurGE's
``eval_all`` reads it (the only file, else the first ``.md``), built in tmp_path in the baselines' shapes
(Autosurvey: a ``.md`` beside a ``.json``; ID and Naive: one file without an extension; upstream's ``log.json`` at
the top), and every error naming the folder or file."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from sciwrite.core.errors import InputError
from sciwrite.surge.prediction_folder import (
    SurveyText,
    is_prediction_folder,
    read_prediction_folder,
    scan_prediction_folder,
    survey_file,
)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


@pytest.fixture
def output(tmp_path: Path) -> Path:
    root = tmp_path / "output"
    write(root / "0" / "A Survey on Edge Computing_.md", "# Edge\n")
    write(root / "0" / "A Survey on Edge Computing_.json", "{}")
    write(root / "10" / "Graph Learning_ A Survey", "### Abstract: graphs\n")
    write(root / "2" / "Moving Target Defenses", "**Abstract:**\nText")
    write(root / "log.json", "{}")
    return root


def test_reads_each_survey_as_surge_does(output):
    surveys = read_prediction_folder(output)
    # ids in numeric order (2 before 10); the Autosurvey folder's .md is read, not its .json
    assert surveys == [
        SurveyText("0", "# Edge\n", output / "0" / "A Survey on Edge Computing_.md"),
        SurveyText("2", "**Abstract:**\nText", output / "2" / "Moving Target Defenses"),
        SurveyText("10", "### Abstract: graphs\n", output / "10" / "Graph Learning_ A Survey"),
    ]


def test_top_level_files_and_hidden_entries_are_skipped_and_reported(output, caplog):
    write(output / ".DS_Store", b"\x00\x01")
    (output / ".ipynb_checkpoints").mkdir()
    write(output / "3" / ".DS_Store", b"\x00")
    write(output / "3" / "survey", "text")
    folder = scan_prediction_folder(output)
    assert [s.survey_id for s in folder.surveys] == ["0", "2", "3", "10"]
    assert folder.surveys[2].source == output / "3" / "survey"  # the hidden file does not count as a second file
    assert folder.skipped == (output / ".DS_Store", output / ".ipynb_checkpoints", output / "log.json")
    with caplog.at_level(logging.INFO, logger="sciwrite.surge.prediction_folder"):
        read_prediction_folder(output)
    assert "log.json: skipped" in caplog.text


def test_leading_zeros_read_as_the_same_id(tmp_path):
    write(tmp_path / "007" / "s", "x")
    assert [s.survey_id for s in read_prediction_folder(tmp_path)] == ["7"]
    write(tmp_path / "7" / "s", "y")
    with pytest.raises(InputError, match=r"names survey 7, as '007' does"):
        read_prediction_folder(tmp_path)


def test_several_markdown_files_take_the_first_sorted_with_a_warning(tmp_path, caplog):
    write(tmp_path / "b.md", "b")
    write(tmp_path / "a.md", "a")
    write(tmp_path / "notes.txt", "n")
    with caplog.at_level(logging.WARNING, logger="sciwrite.surge.prediction_folder"):
        assert survey_file(tmp_path) == tmp_path / "a.md"
    assert "2 .md files; reading a.md" in caplog.text


def test_empty_survey_file_is_an_empty_text(tmp_path):
    write(tmp_path / "5" / "survey", b"")
    assert read_prediction_folder(tmp_path) == [SurveyText("5", "", tmp_path / "5" / "survey")]


def test_byte_order_mark_is_kept_as_surge_keeps_it(tmp_path):
    write(tmp_path / "1" / "s", b"\xef\xbb\xbf# T")
    assert read_prediction_folder(tmp_path)[0].text == "\ufeff# T"


# --- errors -------------------------------------------------------------------------------------------------------

def test_missing_path_and_file_path(tmp_path):
    with pytest.raises(InputError, match=r"missing: no such folder"):
        read_prediction_folder(tmp_path / "missing")
    write(tmp_path / "predictions.jsonl", "{}")
    with pytest.raises(InputError, match=r"predictions.jsonl: is a file, not a folder"):
        read_prediction_folder(tmp_path / "predictions.jsonl")


@pytest.mark.parametrize("files", [[], ["log.json"]])
def test_no_survey_subfolder(tmp_path, files):
    for name in files:
        write(tmp_path / name, "{}")
    with pytest.raises(InputError) as caught:
        read_prediction_folder(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path}: holds no survey subfolder")


def test_a_subfolder_named_otherwise_is_that_survey_id(output):
    """The offline sample's surveys are ACL Anthology ids: a folder named so is that survey, after SurGE's numbers."""
    write(output / "2020.acl-main.33" / "x.md", "x")
    ids = [survey.survey_id for survey in read_prediction_folder(output)]
    assert ids[-1] == "2020.acl-main.33" and all(i.isdigit() for i in ids[:-1])


@pytest.mark.parametrize("content", ["nothing", "only a folder", "only hidden"])
def test_subfolder_without_a_file(tmp_path, content):
    survey = tmp_path / "4"
    survey.mkdir()
    if content == "only a folder":
        (survey / "figures.md").mkdir()  # a folder, even one named .md, is no file
    if content == "only hidden":
        write(survey / ".DS_Store", b"\x00")
    with pytest.raises(InputError) as caught:
        read_prediction_folder(tmp_path)
    assert str(caught.value).startswith(f"{survey}: holds no file to read")


def test_several_files_and_no_markdown(tmp_path):
    write(tmp_path / "4" / "survey.txt", "t")
    write(tmp_path / "4" / "survey.json", "{}")
    write(tmp_path / "4" / "survey.MD", "upper case is not .md, as upstream's endswith('.md')")
    with pytest.raises(InputError) as caught:
        read_prediction_folder(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / '4'}: holds 3 files and none ends in .md (survey.MD, survey.json, "
                              "survey.txt)")
    assert "keep one file or name it .md" in message


def test_non_utf8_bytes_name_the_file_and_offset(tmp_path):
    # "# T\n" is 4 bytes: the stray 0xff is at offset 4
    source = write(tmp_path / "12" / "survey", b"# T\n\xff rest")
    with pytest.raises(InputError) as caught:
        read_prediction_folder(tmp_path)
    assert str(caught.value) == f"{source}: not UTF-8 text (byte 0xff at offset 4); save the survey as UTF-8"


# --- is_prediction_folder -------------------------------------------------------------------------------------------

def test_is_prediction_folder(output, tmp_path):
    assert is_prediction_folder(output)
    assert is_prediction_folder(str(output))
    assert not is_prediction_folder(output / "log.json")  # a file
    assert not is_prediction_folder(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not is_prediction_folder(empty)
    write(output / "sample" / "test-00000-of-00001.parquet", "x")
    assert not is_prediction_folder(output)  # a prediction dataset folder's config
    assert is_prediction_folder(tmp_path / "output" / "0") is False  # files only, no subfolder
