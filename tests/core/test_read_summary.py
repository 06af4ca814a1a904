"""`core.results.read_summary`, which every reader of a summary.json goes through, checks the summary's shape and
names the file, the line or the field of a summary it cannot use."""

from __future__ import annotations

import json

import pytest

from sciwrite.core.errors import InputError
from sciwrite.core.results import read_summary

GOOD = {"schema_version": 2, "system": "s", "split": "sample", "n_papers": 3, "rougeL": 0.2,
        "provenance": {"benchmark": "sciig", "dataset": {"config": "sample"}, "models": {}, "judge": None}}


def write(tmp_path, data: bytes | str):
    path = tmp_path / "summary.json"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_a_good_summary_reads(tmp_path):
    assert read_summary(write(tmp_path, json.dumps(GOOD)).parent) == GOOD


@pytest.mark.parametrize(("change", "field", "found"), [
    ({"provenance": "scored by hand"}, "provenance", "a string"),
    ({"provenance": {**GOOD["provenance"], "dataset": "sample"}}, "provenance.dataset", "a string"),
    ({"provenance": {**GOOD["provenance"], "models": ["scibert"]}}, "provenance.models", "a list"),
    ({"system": 3}, "system", "an integer"),
    ({"n_papers": "3"}, "n_papers", "a string"),
    ({"n_papers": True}, "n_papers", "true or false"),
    ({"intervals": []}, "intervals", "a list"),
])
def test_a_field_of_the_wrong_type_is_named(tmp_path, change, field, found):
    path = write(tmp_path, json.dumps({**GOOD, **change}))
    with pytest.raises(InputError) as info:
        read_summary(path)
    assert info.value.where.path == path and info.value.where.field == field
    assert str(info.value).startswith(f"{path}, field '{field}': is {found}, not ")


@pytest.mark.parametrize(("data", "problem", "line"), [
    ('{"schema_version": 2,\n "system": "s", "n_pap', "not valid JSON", 2),
    ("", "not valid JSON", 1),
    (b'{"system": "caf\xe9"}', "not UTF-8 text (byte 0xe9 at offset 15)", None),
    ("[1, 2]", "is a list, not a JSON object", None),
])
def test_a_corrupt_summary_is_one_line_naming_the_file(tmp_path, data, problem, line):
    path = write(tmp_path, data)
    with pytest.raises(InputError) as info:
        read_summary(path)
    message = str(info.value)
    assert "\n" not in message and problem in message
    assert info.value.where.path == path and info.value.where.line == line
