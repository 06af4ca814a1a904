"""Metric-metric Spearman correlations across systems (RWGBench Table 3): a monotone pair gives 1.0, a reversed
one -1.0, a constant metric no correlation; default metrics, bad folders, and the CLI table and heat map."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sciwrite.cli import main
from sciwrite.core.summary import Summary
from sciwrite.metrics.correlation import (
    correlations_from_dirs,
    load_summaries,
    metric_correlations,
    numeric_metrics,
    plot_correlation_heatmap,
)

SUMMARIES = {
    "sys_a": {"system": "sys_a", "n_papers": 10, "recall": 0.1, "soft": 0.2, "pss": 0.9, "flat": 0.5,
              "bumpy": 0.3, "profile": "lite", "unresolved_markers": 3, "judge": None},
    "sys_b": {"system": "sys_b", "n_papers": 10, "recall": 0.2, "soft": 0.5, "pss": 0.6, "flat": 0.5,
              "bumpy": 0.1, "profile": "lite", "unresolved_markers": 0, "judge": 0.4},
    "sys_c": {"system": "sys_c", "n_papers": 12, "recall": 0.4, "soft": 0.6, "pss": 0.2, "flat": 0.5,
              "bumpy": 0.2, "profile": "lite", "unresolved_markers": 1, "judge": 0.6},
}


@pytest.fixture
def eval_dirs(tmp_path: Path) -> list[Path]:
    dirs = []
    for name, summary in SUMMARIES.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
        dirs.append(folder)
    return dirs


def typed(summaries):
    return {name: Summary.from_json(summary) for name, summary in summaries.items()}


def test_default_metrics_are_numeric_in_every_summary_less_counts():
    assert numeric_metrics(typed(SUMMARIES)) == ["recall", "soft", "pss", "flat", "bumpy"]


def test_a_summarys_schema_version_and_interval_level_are_not_metrics():
    """Every summary.json carries both as numbers; neither is a score to correlate."""
    stamped = {name: {**summary, "schema_version": 2, "confidence": 0.95} for name, summary in SUMMARIES.items()}
    assert numeric_metrics(typed(stamped)) == ["recall", "soft", "pss", "flat", "bumpy"]


def test_monotone_reversed_and_constant(eval_dirs):
    table = correlations_from_dirs(eval_dirs)
    assert table.systems == ["sys_a", "sys_b", "sys_c"] and table.n_systems == 3
    rho = {(a, b): table.matrix[i][j] for i, a in enumerate(table.metrics) for j, b in enumerate(table.metrics)}
    assert rho["recall", "soft"] == pytest.approx(1.0)
    assert rho["recall", "pss"] == pytest.approx(-1.0)
    assert rho["pss", "recall"] == pytest.approx(-1.0)
    assert rho["recall", "bumpy"] == pytest.approx(-0.5)  # ranks 1,2,3 vs 3,1,2: 1 - 6*6/(3*8)
    assert rho["recall", "recall"] == 1.0
    assert table.undefined == ["flat"]
    assert all(rho["flat", m] is None and rho[m, "flat"] is None for m in table.metrics)
    assert any("flat" in line and "undefined" in line for line in table.notes())
    row = table.rows()[0]
    assert row["metric"] == "recall" and row["n_systems"] == 3 and row["flat"] is None


def test_given_metrics_and_their_errors():
    table = metric_correlations(typed(SUMMARIES), ["pss", "soft"])
    assert table.metrics == ["pss", "soft"] and table.matrix[0][1] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="'judge'.*sys_a"):
        metric_correlations(typed(SUMMARIES), ["judge", "soft"])
    with pytest.raises(ValueError, match="at least 3 systems"):
        metric_correlations(typed(dict(list(SUMMARIES.items())[:2])))


def test_load_summaries_names_and_errors(tmp_path, eval_dirs):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "summary.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.*not valid JSON"):
        load_summaries([tmp_path / "bad"])
    with pytest.raises(FileNotFoundError, match="no summary.json"):
        load_summaries([tmp_path / "missing"])
    (tmp_path / "nameless").mkdir()
    (tmp_path / "nameless" / "summary.json").write_text('{"recall": 1}', encoding="utf-8")
    names = list(load_summaries([*eval_dirs, eval_dirs[0], tmp_path / "nameless"]))
    assert names[:3] == ["sys_a", "sys_b", "sys_c"] and names[3].startswith("sys_a (") and names[4] == "nameless"


def test_heatmap_png(tmp_path, eval_dirs):
    path = plot_correlation_heatmap(correlations_from_dirs(eval_dirs), tmp_path / "plots" / "heat.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_correlation_writes_table_and_plot(tmp_path, eval_dirs, capsys):
    stem, png = tmp_path / "out" / "corr", tmp_path / "corr.png"
    assert main(["meta-eval", "correlation", "--evals", *map(str, eval_dirs), "--out", str(stem),
                 "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "across 3 systems" in out and "undefined" in out and "-1.0000" in out
    rows = json.loads(stem.with_suffix(".json").read_text())
    assert [r["metric"] for r in rows] == ["recall", "soft", "pss", "flat", "bumpy"]
    assert rows[0]["soft"] == pytest.approx(1.0) and rows[0]["flat"] is None
    assert stem.with_suffix(".csv").read_text().splitlines()[0] == "metric,recall,soft,pss,flat,bumpy,n_systems"
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert not math.isnan(rows[0]["pss"])


def test_cli_correlation_error_is_reported(tmp_path, eval_dirs, capsys):
    assert main(["meta-eval", "correlation", "--evals", *map(str, eval_dirs[:2])]) == 2
    assert "at least 3 systems" in capsys.readouterr().err
