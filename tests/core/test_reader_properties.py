"""Issue 23: property-based tests of every reader of user files and of the citation-marker parser.

Random bytes, random text, and valid prediction files mutated byte by byte (inserted, deleted, replaced) go to the
prediction readers, the leaderboard's upload check, the per-paper reader of `compare` and the marker parser. Each
either returns its documented type or raises its documented error (`ValueError`, naming the file); none raises
anything else. ``scripts/bench/reader_properties.py`` runs the same properties with more examples and times each
reader on 1 MB inputs (random, mutated and adversarial).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import tempfile
import time
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install -e '.[dev]')")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sciwrite.core.jsonl import parse_json_lines  # noqa: E402
from sciwrite.core.predictions import read_prediction_records, read_predictions, record_problem  # noqa: E402
from sciwrite.leaderboard.submission import CheckedPredictions, check_predictions  # noqa: E402
from sciwrite.rwgbench.metrics.formulas import ResolvedCitations, parse_citation_markers, resolve_citations  # noqa: E402
from sciwrite.scoring.per_paper_files import read_per_paper  # noqa: E402

#: Examples per property: a few dozen here (seconds); the bench script asks thousands.
EXAMPLES = int(os.environ.get("SCIWRITE_HYPOTHESIS_EXAMPLES", "60"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True, database=None)
IDS = ("p1", "p2", "p3")
#: property -> [examples run, longest seconds of one]; written to $SCIWRITE_HYPOTHESIS_REPORT (the bench's figures).
OBSERVED: dict[str, list[float]] = {}


def timed(test):
    """Count `test`'s examples and keep the longest one's seconds in `OBSERVED`."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        started = time.perf_counter()
        try:
            return test(*args, **kwargs)
        finally:
            seen = OBSERVED.setdefault(test.__name__, [0, 0.0])
            seen[0] += 1
            seen[1] = max(seen[1], time.perf_counter() - started)

    return run


@atexit.register
def _write_report() -> None:
    if os.environ.get("SCIWRITE_HYPOTHESIS_REPORT") and OBSERVED:
        Path(os.environ["SCIWRITE_HYPOTHESIS_REPORT"]).write_text(json.dumps(OBSERVED, indent=2), encoding="utf-8")

#: Text rich in what the parsers look for: brackets, digits, separators, dashes, quotes, braces, newlines.
MARKERISH = st.text(alphabet=st.sampled_from(list("[]0123456789,;-\u2013 \n\t{}\":abc\u00e9\u4e2d")) | st.characters(),
                    max_size=400)


def _valid_record(pid: str, text: str, candidates: list[str]) -> str:
    return json.dumps({"paper_id": pid, "text": text, "candidates": candidates}, ensure_ascii=False)


VALID_FILES = st.lists(st.builds(_valid_record, st.sampled_from(IDS), MARKERISH,
                                 st.lists(st.text(max_size=8), max_size=4)), min_size=1, max_size=6).map(
    lambda lines: "\n".join(lines).encode("utf-8"))


@st.composite
def mutated(draw, files=VALID_FILES) -> bytes:
    """A valid prediction file with a few bytes inserted, deleted or replaced (a truncated upload, a bad editor)."""
    data = bytearray(draw(files))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(("insert", "delete", "replace")))
        byte = draw(st.integers(0, 255))
        if action == "insert":
            data.insert(at, byte)
        elif data and at < len(data):
            if action == "delete":
                del data[at]
            else:
                data[at] = byte
    return bytes(data)


ANY_FILE = st.one_of(st.binary(max_size=600), VALID_FILES, mutated(), MARKERISH.map(lambda t: t.encode("utf-8")))


def _file(content: bytes) -> Path:
    fd, name = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    return Path(name)


@SETTINGS
@given(ANY_FILE)
@timed
def test_the_prediction_readers_return_records_or_raise_value_error_naming_the_file(content):
    path = _file(content)
    try:
        for read in (read_predictions, lambda p: read_prediction_records(p, bad_records="error")[0]):
            try:
                records = read(path)
            except ValueError as err:
                assert str(path) in str(err)
            else:
                assert records and all(record_problem(r) is None for r in records)
        try:
            records, rejected = read_prediction_records(path, bad_records="skip")
        except ValueError as err:  # not UTF-8, or empty: nothing to score at all
            assert str(path) in str(err)
        else:
            assert all(record_problem(r) is None for r in records)
            assert all(isinstance(r["line"], int) and isinstance(r["problem"], str) for r in rejected)
    finally:
        path.unlink()


@SETTINGS
@given(ANY_FILE)
@timed
def test_the_leaderboard_check_never_raises(content):
    checked = check_predictions(content, "rwgbench", IDS, candidates=True)
    assert isinstance(checked, CheckedPredictions) and all(isinstance(p, str) for p in checked.problems)
    assert checked.problems or sorted(r["paper_id"] for r in checked.records) == sorted(IDS)  # accepted: every paper


@SETTINGS
@given(st.lists(MARKERISH, max_size=8))
@timed
def test_json_lines_parse_every_line_or_say_why(lines):
    for number, line, value, problem in parse_json_lines(lines):
        assert 1 <= number <= len(lines) and line == lines[number - 1]
        assert (value is None) or problem is None
        assert problem is None or problem.startswith("not valid JSON")


@SETTINGS
@given(ANY_FILE)
@timed
def test_compare_reads_a_per_paper_file_or_says_where_it_fails(content):
    path = _file(content)
    try:
        name, rows = read_per_paper(path)
        assert isinstance(name, str) and rows and all(isinstance(k, str) for k in rows)
    except ValueError as err:
        assert str(path) in str(err)
    finally:
        path.unlink()


@SETTINGS
@given(MARKERISH, st.lists(st.text(max_size=5), max_size=12))
@timed
def test_markers_parse_to_numbers_and_resolve_to_candidates(text, candidates):
    numbers = parse_citation_markers(text)
    assert isinstance(numbers, list) and all(type(n) is int and n >= 0 for n in numbers)
    resolved = resolve_citations(text, candidates)
    assert isinstance(resolved, ResolvedCitations)
    assert resolved.n_markers == len(resolved.doc_ids) + len(resolved.out_of_range)
    assert set(resolved.doc_ids) <= set(candidates)
    assert all(not 1 <= n <= len(candidates) for n in resolved.out_of_range)
    in_range = [candidates[n - 1] for n in numbers if 1 <= n <= len(candidates)]
    assert resolved.doc_ids == in_range  # the span-at-a-time resolution is the number-at-a-time one


@pytest.mark.parametrize("text", ["[" * 200_000, '{"a":' * 50_000, '{"n": ' + "9" * 10_000 + "}",
                                  "[" + "1" * 10_000 + "]", "[1-100]" * 1_000])
def test_adversarial_lines_are_problems_not_crashes(text, tmp_path):
    """Nesting too deep for the JSON parser, numbers too long for int(): a named line, not a RecursionError."""
    path = tmp_path / "p.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{path}:1: (not valid JSON|expected a JSON object|field)"):
        read_predictions(path)
    assert check_predictions(text.encode(), "rwgbench", IDS, candidates=True).problems
    assert isinstance(parse_citation_markers(text), list)
