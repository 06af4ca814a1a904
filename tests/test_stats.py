"""Known answers for `sciwrite.stats` and `sciwrite compare`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sciwrite.cli import main
from sciwrite.stats import (
    INTERVAL_METHOD,
    bootstrap_intervals,
    format_intervals,
    holm,
    paired_comparison,
    summary_intervals,
)


def _system(values: dict[str, list[float | None]]) -> dict[str, dict[str, float | None]]:
    """{paper_id: row} from per-metric value lists."""
    n = len(next(iter(values.values())))
    return {f"p{i}": {m: v[i] for m, v in values.items()} for i in range(n)}


def test_identical_systems_do_not_differ():
    rng = np.random.default_rng(1)
    a = _system({"precision": list(rng.uniform(0, 1, 60)), "recall": list(rng.uniform(0, 1, 60))})
    result = paired_comparison(a, a, ["precision", "recall"], n_resamples=500)
    for r in result.values():
        assert r["difference"] == 0 and r["n_papers"] == 60
        assert r["p_value"] >= 0.9 and r["p_holm"] >= 0.9
        assert r["ci_low"] <= 0 <= r["ci_high"] and r["ci_high"] - r["ci_low"] < 1e-12


def test_noisy_but_equal_systems_have_an_interval_around_zero():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, 200)
    a = _system({"m": list(x)})
    b = _system({"m": list(x + rng.permutation([-0.05, 0.05] * 100))})  # noise of mean 0: no true difference
    r = paired_comparison(a, b, ["m"], n_resamples=1000)["m"]
    assert r["difference"] == pytest.approx(0, abs=1e-12) and r["p_value"] >= 0.9
    assert r["ci_low"] < 0 < r["ci_high"] and r["ci_high"] - r["ci_low"] < 0.03


def test_a_system_better_on_every_paper_wins():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 0.8, 40)
    a = _system({"m": list(x)})
    b = _system({"m": list(x + 0.1 + rng.uniform(0, 0.05, 40))})
    r = paired_comparison(a, b, ["m"], n_resamples=1000)["m"]
    assert r["difference"] > 0.1 and r["p_value"] < 0.01 and r["p_holm"] < 0.01
    assert 0 < r["ci_low"] <= r["difference"] <= r["ci_high"]


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
    result = paired_comparison(a, b, ["m", "n"], n_resamples=100)
    assert result["m"]["n_papers"] == 3 and result["m"]["difference"] == pytest.approx(0.1)
    assert result["n"]["n_papers"] == 4
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
    rows = [{"precision": 0.5, "recall": None}, {"precision": 0.7, "recall": None}]
    fields = summary_intervals(rows, ["precision", "recall"], 200, means={"precision": 0.6, "recall": None})
    assert fields["interval_method"] == INTERVAL_METHOD and fields["n_resamples"] == 200
    assert fields["confidence"] == 0.95 and fields["intervals"]["recall"] == [None, None]
    assert 0.5 <= fields["intervals"]["precision"][0] <= fields["intervals"]["precision"][1] <= 0.7
    assert format_intervals(fields, {"precision": "P"}).startswith("95% CI (bootstrap over papers, 200 resamples): P [")
    assert summary_intervals(rows, ["precision"], 0)["intervals"] == {}


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
