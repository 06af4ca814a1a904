"""`sciwrite.scoring.compare`: the one comparison ``sciwrite compare`` and the leaderboard's Compare tab run, with
the union of the checks the two made (one benchmark and split, provenance, shared papers, numbers that are
scores), typed results in memory."""

from __future__ import annotations

import pytest

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.errors import InputError
from sciwrite.scoring.compare import MetricDifference, SystemScores, compare_systems
from sciwrite.scoring.per_paper_files import rows_by_paper
from sciwrite.stats import paired_comparison

RWGBENCH = get_benchmark("rwgbench")
BLOCK = {"benchmark": "rwgbench", "dataset": {"config": "sample"}, "profile": "lite"}


def system(name, shift=0.0, papers=("p1", "p2", "p3"), **fields):
    rows = {pid: {"paper_id": pid, "precision": 0.1 * i + shift, "recall": 0.5} for i, pid in enumerate(papers)}
    return SystemScores(name=name, rows=rows, benchmark=fields.pop("benchmark", "rwgbench"), **fields)


def test_the_table_is_paired_comparison_typed():
    a, b = system("a"), system("b", 0.2)
    comparison = compare_systems([a, b], RWGBENCH, n_resamples=200, seed=3)
    assert comparison.metrics == ("precision", "recall") and comparison.baseline == "a"
    expected = paired_comparison(a.rows, b.rows, ["precision", "recall"], 200, 0.95, 3)
    precision = comparison.by_metric()["precision"]
    assert isinstance(precision, MetricDifference)
    assert (precision.difference, precision.ci_low, precision.p_holm) == (
        expected["precision"]["difference"], expected["precision"]["ci_low"], expected["precision"]["p_holm"])
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
    bad = SystemScores("b", {"p1": {"precision": float("nan")}, "p2": {"precision": 0.2}}, "rwgbench")
    with pytest.raises(InputError, match="record 'p1', field 'precision': nan is not a score"):
        compare_systems([system("a", papers=("p1", "p2")), bad], RWGBENCH)
