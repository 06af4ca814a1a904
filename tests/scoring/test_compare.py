"""`sciwrite.scoring.compare`: the one comparison ``sciwrite compare`` and the leaderboard's Compare tab run, with
the union of the checks the two made (one benchmark and split, provenance, shared papers, numbers that are
scores), typed results in memory."""

from __future__ import annotations

import pytest

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.errors import InputError
from sciwrite.core.paper_row import PaperRow
from sciwrite.scoring.compare import MetricDifference, SystemScores, compare_systems, numeric_keys
from sciwrite.scoring.per_paper_files import rows_by_paper, typed_rows_by_paper
from sciwrite.stats import paired_results

RWGBENCH = get_benchmark("rwgbench")
BLOCK = {"benchmark": "rwgbench", "dataset": {"config": "sample"}, "profile": "lite"}


def typed(rows):
    """{paper_id: PaperRow} of {paper_id: JSON row}, as `sciwrite.scoring.per_paper_files` reads them."""
    return {pid: PaperRow.from_json({"paper_id": pid, **row}) for pid, row in rows.items()}


def system(name, shift=0.0, papers=("p1", "p2", "p3"), **fields):
    rows = typed({pid: {"precision": 0.1 * i + shift, "recall": 0.5} for i, pid in enumerate(papers)})
    return SystemScores(name=name, rows=rows, benchmark=fields.pop("benchmark", "rwgbench"), **fields)


def test_the_table_is_the_paired_results():
    a, b = system("a"), system("b", 0.2)
    comparison = compare_systems([a, b], RWGBENCH, n_resamples=200, seed=3)
    assert comparison.metrics == ("precision", "recall") and comparison.baseline == "a"
    expected = paired_results({pid: row.values for pid, row in a.rows.items()},
                              {pid: row.values for pid, row in b.rows.items()}, ["precision", "recall"], 200, 0.95, 3)
    precision = comparison.by_metric()["precision"]
    assert isinstance(precision, MetricDifference)
    assert (precision.difference, precision.ci_low, precision.p_holm) == (
        expected["precision"].difference, expected["precision"].ci_low, expected["precision"].p_holm)
    assert precision.difference == pytest.approx(0.2) and precision.n_papers == 3
    assert comparison.rows()[0] == {"system": "b", "baseline": "a", "metric": "precision", "n_papers": 3,
                                    "baseline_mean": precision.baseline_mean, "system_mean": precision.system_mean,
                                    "difference": precision.difference, "ci_low": precision.ci_low,
                                    "ci_high": precision.ci_high, "p_value": precision.p_value,
                                    "p_holm": precision.p_holm}


def test_every_table_metric_keeps_the_unscored_ones_without_a_paper():
    comparison = compare_systems([system("a"), system("b")], RWGBENCH, every_table_metric=True, n_resamples=50)
    assert comparison.metrics == tuple(RWGBENCH.suite.metrics)
    assert comparison.by_metric()["llm_judge"].n_papers == 0


@pytest.mark.parametrize(("other", "message"), [
    (system("b", benchmark="sciig"), "compare needs systems of one benchmark: b (sciig) not rwgbench"),
    (system("b", split="test"), "compare needs systems of one split: b (test) not sample"),
    (system("b", papers=("q1", "q2"), split="sample"), "b and a share no paper (2 and 3 papers"),
])
def test_what_either_front_end_refused_is_refused(other, message):
    with pytest.raises(ValueError, match="same benchmark and split" if "one " in message else "share no paper"):
        compare_systems([system("a", split="sample"), other], RWGBENCH, allow_mixed_provenance=True)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compare_systems([system("a", split="sample"), other], RWGBENCH)


def test_different_provenance_needs_the_callers_permission_and_is_said():
    a = system("a", provenance=BLOCK)
    b = system("b", provenance={**BLOCK, "profile": "paper"})
    with pytest.raises(ValueError, match="b was not scored like a: model profile: 'lite' vs 'paper'; tick it$"):
        compare_systems([a, b], RWGBENCH, override_hint="; tick it")
    [check] = compare_systems([a, b], RWGBENCH, allow_mixed_provenance=True).provenance
    assert check.notes() == ["warning: b vs a: model profile: 'lite' vs 'paper'"]
    assert check.scored_differently() == ["model profile: 'lite' vs 'paper'"]
    [unchecked] = compare_systems([a, system("c")], RWGBENCH).provenance
    assert unchecked.notes()[0].startswith("note: c has no provenance")


def test_rows_are_refused_where_they_are_bad():
    with pytest.raises(InputError, match=r"paper 'p1' again \(first at line 1\)"):
        rows_by_paper([(1, {"paper_id": "p1"}), (2, {"paper_id": "p1"})])
    with pytest.raises(InputError, match="expected an object with a paper_id"):
        rows_by_paper([(1, {"precision": 0.1})])
    bad = SystemScores("b", typed({"p1": {"precision": float("nan")}, "p2": {"precision": 0.2}}), "rwgbench")
    with pytest.raises(InputError, match="record 'p1', field 'precision': nan is not a score"):
        compare_systems([system("a", papers=("p1", "p2")), bad], RWGBENCH)


@pytest.mark.parametrize("value", ["high", True, [0.5]])
def test_a_score_that_is_not_a_number_is_refused_not_dropped(value):
    """Text, a bool or a list where a score belongs is one of the row's details, not a number: refused by name."""
    bad = SystemScores("b", typed({"p1": {"precision": value}, "p2": {"precision": 0.2}}), "rwgbench")
    with pytest.raises(InputError, match=f"record 'p1', field 'precision': {value!r} is not a score".replace("[", r"\[")):
        compare_systems([system("a", papers=("p1", "p2")), bad], RWGBENCH, metrics=["precision"])


def test_rows_are_read_typed_by_paper_id():
    rows, lines = rows_by_paper([(1, {"paper_id": 7, "system": "s", "precision": 0.5, "flag": True}),
                                 (2, {"paper_id": "p2", "precision": None, "recall": 1})])
    assert list(rows) == ["7", "p2"] and lines == {"7": 1, "p2": 2}
    assert all(isinstance(row, PaperRow) for row in rows.values())
    assert rows["7"].system == "s" and rows["7"].value("precision") == 0.5 and rows["7"].details["flag"] is True
    # a number (None aside) makes a metric scored; an integer paper_id is no metric
    assert numeric_keys(rows) == {"precision", "recall"}
    assert numeric_keys({"p2": rows["p2"]}) == {"recall"}


def test_typed_rows_are_indexed_as_the_files_are():
    """The leaderboard store's rows, already typed, by paper_id, with the same refusals as a file's lines."""
    rows = [PaperRow.from_json({"paper_id": "p1", "precision": 0.1}), PaperRow.from_json({"paper_id": "p2"})]
    by_paper, places = typed_rows_by_paper(rows)
    assert by_paper == {"p1": rows[0], "p2": rows[1]} and places == {"p1": 1, "p2": 2}
    with pytest.raises(InputError, match=r"paper 'p1' again \(first at line 1\)"):
        typed_rows_by_paper([rows[0], rows[1], rows[0]])
    with pytest.raises(InputError, match="paper_id must be a non-empty string, got None"):
        typed_rows_by_paper([PaperRow(values={"precision": 0.1})])
