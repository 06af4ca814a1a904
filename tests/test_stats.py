"""Known answers for `sciwrite.stats` and `sciwrite compare`."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from sciwrite.cli import main
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Interval, Summary
from sciwrite.stats import (
    INTERVAL_METHOD,
    bootstrap_intervals,
    format_intervals,
    holm,
    mean_interval,
    paired_results,
    summary_intervals,
    two_sample_comparison,
)
from tests.exact_bootstrap import distribution, level_intervals, resamples

#: Resamples for the exact cases: enough that the empirical CDF stays on its side of each level (`z_score`).
EXACT_RESAMPLES = 400_000


def _system(values: dict[str, list[float | None]]) -> dict[str, dict[str, float | None]]:
    """{paper_id: row} from per-metric value lists."""
    n = len(next(iter(values.values())))
    return {f"p{i}": {m: v[i] for m, v in values.items()} for i in range(n)}


def test_identical_systems_do_not_differ():
    rng = np.random.default_rng(1)
    a = _system({"precision": list(rng.uniform(0, 1, 60)), "recall": list(rng.uniform(0, 1, 60))})
    result = paired_results(a, a, ["precision", "recall"], n_resamples=500)
    for r in result.values():
        assert r.difference == 0 and r.n_papers == 60
        assert r.p_value >= 0.9 and r.p_holm >= 0.9
        assert r.ci_low <= 0 <= r.ci_high and r.ci_high - r.ci_low < 1e-12


def test_noisy_but_equal_systems_have_an_interval_around_zero():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, 200)
    a = _system({"m": list(x)})
    b = _system({"m": list(x + rng.permutation([-0.05, 0.05] * 100))})  # noise of mean 0: no true difference
    r = paired_results(a, b, ["m"], n_resamples=1000)["m"]
    assert r.difference == pytest.approx(0, abs=1e-12) and r.p_value >= 0.9
    assert r.ci_low < 0 < r.ci_high and r.ci_high - r.ci_low < 0.03


def test_a_system_better_on_every_paper_wins():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 0.8, 40)
    a = _system({"m": list(x)})
    b = _system({"m": list(x + 0.1 + rng.uniform(0, 0.05, 40))})
    r = paired_results(a, b, ["m"], n_resamples=1000)["m"]
    assert r.difference > 0.1 and r.p_value < 0.01 and r.p_holm < 0.01
    assert 0 < r.ci_low <= r.difference <= r.ci_high


def test_holm_hand_worked():
    # sorted: 0.01, 0.02, 0.03, 0.04 (m=4) -> 0.04, 0.06, 0.06 (running max over 0.06), 0.06 (running max over 0.04)
    assert holm([0.04, 0.01, 0.03, 0.02]) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    # capped at 1, None left out of the family (m=2): 0.3*2=0.6, 0.8*1 -> 0.8
    assert holm([0.8, None, 0.3]) == pytest.approx([0.8, None, 0.6])
    assert holm([0.6, 0.7]) == [1.0, 1.0]
    assert holm([]) == []


def test_none_is_left_out_of_that_metric_only():
    a = _system({"m": [0.1, 0.2, 0.3, 0.4], "n": [0.5, 0.5, 0.5, 0.5]})
    b = _system({"m": [0.2, None, 0.4, 0.5], "n": [0.6, 0.6, 0.6, 0.6]})
    result = paired_results(a, b, ["m", "n"], n_resamples=100)
    assert result["m"].n_papers == 3 and result["m"].difference == pytest.approx(0.1)
    assert result["n"].n_papers == 4
    intervals = bootstrap_intervals({"m": [1.0, None, 1.0], "n": [0.0, 1.0, None], "k": [None, 2.0]})
    assert intervals["m"] == (1.0, 1.0) and intervals["k"] == (None, None)
    assert 0.0 <= intervals["n"][0] <= intervals["n"][1] <= 1.0


def test_constant_metric_collapses_and_interval_covers_the_mean():
    intervals = bootstrap_intervals({"c": [0.3] * 50, "u": list(np.linspace(0, 1, 101))}, n_resamples=2000)
    assert intervals["c"] == (0.3, 0.3)
    low, high = intervals["u"]
    assert low < 0.5 < high and high - low < 0.15
    assert bootstrap_intervals({"u": [1.0, 2.0]}, seed=5) == bootstrap_intervals({"u": [1.0, 2.0]}, seed=5)


def test_summary_intervals_fields_and_off_switch():
    rows = typed_rows([{"precision": 0.5, "recall": None}, {"precision": 0.7, "recall": None}])
    fields = summary_intervals(rows, ["precision", "recall"], 200, means={"precision": 0.6, "recall": None})
    assert fields.method == INTERVAL_METHOD and fields.n_resamples == 200
    assert fields.confidence == 0.95 and fields.bounds["recall"] == Interval(None, None)
    precision = fields.bounds["precision"]
    assert precision.low is not None and precision.high is not None and 0.5 <= precision.low <= precision.high <= 0.7
    assert format_intervals(Summary(intervals=fields), {"precision": "P"}).startswith(
        "95% CI (bootstrap over papers, 200 resamples): P [")
    off = summary_intervals(rows, ["precision"], 0)
    assert off.bounds == {} and off.method is None and off.n_resamples == 0


def _write_per_paper(path, system, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"system": system, "paper_id": pid, **row}) + "\n" for pid, row in rows.items()))
    return path


def test_compare_command_writes_tables_and_plot(tmp_path, capsys):
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 0.8, 30)
    base = _system({"precision": list(x), "recall": list(x), "rougeL": list(x)})
    better = _system({"precision": list(x + 0.1), "recall": list(x), "rougeL": list(x)})
    for row in better.values():
        row["unresolved_markers"] = 0
    _write_per_paper(tmp_path / "base" / "per_paper.jsonl", "base", base)
    other = _write_per_paper(tmp_path / "better.jsonl", "better", better)
    stem, png = tmp_path / "cmp" / "table", tmp_path / "cmp" / "diff.png"
    assert main(["compare", str(tmp_path / "base"), str(other), "--bootstrap", "1000", "--out", str(stem),
                 "--plot", str(png)]) == 0
    printed = capsys.readouterr().out
    assert "rwgbench: better against base" in printed and "p_holm" in printed
    rows = json.loads(stem.with_suffix(".json").read_text())
    assert [r["metric"] for r in rows] == ["precision", "recall", "rougeL"]  # the table's order, shared keys only
    by = {r["metric"]: r for r in rows}
    assert by["precision"]["difference"] == pytest.approx(0.1) and by["precision"]["p_holm"] < 0.01
    assert by["recall"]["difference"] == 0 and by["recall"]["p_value"] >= 0.9
    assert stem.with_suffix(".csv").read_text().startswith("system,baseline,metric,n_papers")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["compare", str(other)]) == 2


def _exact_mean_intervals(values: list[int]) -> dict[float, tuple[float, float]]:
    """The exact 90 % and 95 % percentile intervals of the mean, every one of the n^n resamples enumerated."""
    n = len(values)
    dist = distribution(Fraction(sum(values[i] for i in r), n) for r in resamples(n))
    return level_intervals(dist, EXACT_RESAMPLES, min_z=6)


@pytest.mark.parametrize("values", [[0, 1, 5], [0, 1, 3, 4]])
def test_the_default_interval_is_the_exact_95_percent_one(values):
    """3 papers (27 resamples) and 4 (256): the 95 % interval of [0, 1, 3, 4] is [0.5, 3.5], the 90 % one
    [0.75, 3.25]."""
    exact = _exact_mean_intervals(values)
    assert mean_interval(values, EXACT_RESAMPLES) == pytest.approx(exact[0.95], abs=1e-12)
    assert mean_interval(values, EXACT_RESAMPLES, confidence=0.90) == pytest.approx(exact[0.90], abs=1e-12)
    assert bootstrap_intervals({"m": values}, EXACT_RESAMPLES)["m"] == pytest.approx(exact[0.95], abs=1e-12)
    fields = summary_intervals(typed_rows({"m": v} for v in values), ["m"], EXACT_RESAMPLES)
    bounds = fields.bounds["m"]
    assert fields.confidence == 0.95 and (bounds.low, bounds.high) == pytest.approx(exact[0.95], abs=1e-12)
    # The reference library converges to the same exact interval.
    ref = stats.bootstrap((np.array(values, float),), np.mean, n_resamples=EXACT_RESAMPLES, method="percentile",
                          rng=np.random.default_rng(1)).confidence_interval
    assert (ref.low, ref.high) == pytest.approx(exact[0.95], abs=1e-12)


def test_paired_interval_is_the_exact_95_percent_one():
    a = [1.0, 2.0, 0.0, 5.0]
    b = [x + d for x, d in zip(a, [0, 1, 3, 4])]
    exact = _exact_mean_intervals([0, 1, 3, 4])
    row = paired_results(_system({"m": a}), _system({"m": b}), ["m"], n_resamples=EXACT_RESAMPLES)["m"]
    assert (row.ci_low, row.ci_high) == pytest.approx(exact[0.95], abs=1e-12)


def test_two_sample_interval_is_the_exact_95_percent_one():
    """Each group resampled on its own: 27 x 27 equally likely pairs of resamples."""
    a, b = [0, 1, 2], [2, 3, 4]
    dist = distribution(Fraction(sum(b[j] for j in rb), 3) - Fraction(sum(a[i] for i in ra), 3)
                        for ra in resamples(3) for rb in resamples(3))
    exact = level_intervals(dist, EXACT_RESAMPLES, min_z=6)
    row = two_sample_comparison(a, b, n_resamples=EXACT_RESAMPLES)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(exact[0.95], abs=1e-12)
    row = two_sample_comparison(a, b, n_resamples=EXACT_RESAMPLES, confidence=0.90)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(exact[0.90], abs=1e-12)


# Monte Carlo comparisons with scipy: with B = 20,000 draws each, an interval end wanders about 0.02 bootstrap
# standard errors (SE) from its limit, so the two agree within 0.1 SE; a 90 % interval's ends lie 0.3 SE inside.
MC_RESAMPLES = 20_000


def _scipy_percentile(data, statistic) -> tuple[float, float, float]:
    result = stats.bootstrap(data, statistic, n_resamples=MC_RESAMPLES, method="percentile",
                             rng=np.random.default_rng(11))
    return result.confidence_interval.low, result.confidence_interval.high, result.standard_error


def test_mean_interval_matches_scipy_percentile_bootstrap():
    x = np.random.default_rng(5).gamma(2.0, 0.1, 40)  # skewed, as per-paper scores often are
    low, high, se = _scipy_percentile((x,), np.mean)
    assert mean_interval(list(x), MC_RESAMPLES) == pytest.approx((low, high), abs=0.1 * se)
    assert bootstrap_intervals({"m": list(x)}, MC_RESAMPLES)["m"] == pytest.approx((low, high), abs=0.1 * se)


def test_paired_interval_matches_scipy_percentile_bootstrap():
    rng = np.random.default_rng(6)
    a = rng.uniform(0, 1, 50)
    b = a + rng.normal(0.05, 0.1, 50)
    low, high, se = _scipy_percentile((b - a,), np.mean)
    row = paired_results(_system({"m": list(a)}), _system({"m": list(b)}), ["m"], MC_RESAMPLES)["m"]
    assert (row.ci_low, row.ci_high) == pytest.approx((low, high), abs=0.1 * se)


def test_two_sample_interval_matches_scipy_percentile_bootstrap():
    rng = np.random.default_rng(8)
    a, b = rng.uniform(0, 1, 30), rng.uniform(0.1, 1.1, 45)
    low, high, se = _scipy_percentile((a, b), lambda x, y, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis))
    row = two_sample_comparison(list(a), list(b), MC_RESAMPLES)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=0.1 * se)
