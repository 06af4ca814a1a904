"""Issue 23: a prediction file's problems say where: the file, the line and, for bytes that are not UTF-8, the
offset; an empty file is called empty."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.core.errors import InputError
from sciwrite.core.jsonl import iter_json_lines, parse_json_lines
from sciwrite.core.predictions import read_prediction_records, read_predictions


def test_a_latin1_line_is_named_by_file_line_and_offset(tmp_path):
    path = tmp_path / "latin1.jsonl"
    first = (json.dumps({"paper_id": "a", "text": "ok"}) + "\n").encode()
    path.write_bytes(first + '{"paper_id": "b", "text": "caf\xe9"}\n'.encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1\.jsonl:2: not UTF-8 text \(byte 0xe9 at offset") as err:
        list(iter_json_lines(path))
    offset = len(first) + len('{"paper_id": "b", "text": "caf')
    assert str(err.value) == f"{path}:2: not UTF-8 text (byte 0xe9 at offset {offset}); save the file as UTF-8"


def test_bom_and_crlf_are_still_read(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"paper_id": "a", "text": "x"}\r\n\r\n{"paper_id": "b", "text": "y"}\r\n')
    assert [(n, v["paper_id"]) for n, _, v, _ in iter_json_lines(path)] == [(1, "a"), (3, "b")]


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_an_empty_file_is_called_empty(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    for read in (read_predictions, lambda p: read_prediction_records(p, bad_records="skip")):
        with pytest.raises(ValueError, match="the file is empty: no prediction line"):
            read(path)


def test_the_command_names_the_file_of_two_that_failed(tmp_path, capsys):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(json.dumps({"paper_id": "a", "text": "x", "candidates": []}) + "\n")
    bad.write_bytes(b'{"paper_id": "b", "text": "\xff"}\n')
    assert main(["evaluate", "rwgbench", "--predictions", str(bad), str(good), "--profile", "lite", "--no-judge",
                 "--bootstrap", "0", "--out", str(tmp_path / "out")]) == 2
    assert f"{bad}:1: not UTF-8 text (byte 0xff" in capsys.readouterr().err


def test_a_line_that_is_not_json_says_where_in_the_line():
    """The message names the column (json's own message without it can end in a bare 'at')."""
    [(number, _, value, why)] = list(parse_json_lines(['{"paper_id": "p\tq"}']))
    assert (number, value) == (1, None)
    assert why == "not valid JSON (Invalid control character at column 16)"
    [(_, _, _, why)] = list(parse_json_lines(['{"paper_id": }']))
    assert why == "not valid JSON (Expecting value at column 14)"
