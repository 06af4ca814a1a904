"""How metrics relate across systems: Spearman correlations between metric means over system configurations,
as the RWGBench paper's Table 3 (52 configurations, seven metrics) — a table (metric x metric, with the number of
systems) and a heat map.

Input: evaluation folders, one system each, every one holding the ``summary.json`` that ``sciwrite evaluate
rwgbench|sciig --out DIR`` writes (top-level metric -> mean over papers). By default the metrics are the numeric
top-level keys present (and not None) in every summary, less bookkeeping counts (``n_*``, error and marker
counts, timings). A metric constant across the systems has no rank correlation: its cells are None (NaN in the
plot), and `CorrelationTable.undefined` names it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from sciwrite.core.results import load_summary
from sciwrite.core.summary import Summary
from sciwrite.core.tables import headless_pyplot, save_figure

#: Numeric summary keys that count things rather than score systems: never picked as metrics by default.
BOOKKEEPING_KEYS = frozenset({"unresolved_markers", "citation_extractor_errors", "empty_citation_rate",
                              "schema_version", "confidence"})

#: Fewer systems than this give no meaningful rank correlation (two points are always +-1).
MIN_SYSTEMS = 3


@dataclass
class CorrelationTable:
    """Spearman rho between every pair of `metrics` over `systems` (None where undefined)."""

    metrics: list[str]
    systems: list[str]
    matrix: list[list[float | None]]
    undefined: list[str]

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def rows(self) -> list[dict[str, Any]]:
        """One row per metric: its correlation with every metric, and the number of systems."""
        return [{"metric": m, **dict(zip(self.metrics, values)), "n_systems": self.n_systems}
                for m, values in zip(self.metrics, self.matrix)]

    def notes(self) -> list[str]:
        """What a reader of the table needs told: the systems, and the metrics without a correlation."""
        lines = [f"Spearman correlations across {self.n_systems} systems: {', '.join(self.systems)}"]
        if self.undefined:
            lines.append(f"undefined (constant across systems, shown as None): {', '.join(self.undefined)}")
        return lines


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load_summaries(eval_dirs: Sequence[str | Path]) -> dict[str, Summary]:
    """System -> its ``summary.json``; the system is the summary's ``system`` field, or the folder's name when
    that is missing or taken by an earlier folder."""
    summaries: dict[str, Summary] = {}
    for folder in map(Path, eval_dirs):
        path = folder / "summary.json" if folder.is_dir() or not folder.suffix else folder
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no summary.json (write one with `sciwrite evaluate ... --out DIR`)")
        summary = load_summary(path)
        name = summary.system
        if not name or name in summaries:
            name = path.parent.name if name is None else f"{name} ({path.parent})"
        summaries[name] = summary
    return summaries


def numeric_metrics(summaries: Mapping[str, Summary]) -> list[str]:
    """Metrics numeric in every summary (in the first summary's order), less bookkeeping counts."""
    if not summaries:
        return []
    first, *rest = summaries.values()
    return [k for k, v in first.metrics.items()
            if _is_number(v) and not k.startswith("n_") and k not in BOOKKEEPING_KEYS
            and all(_is_number(s.reported(k)) for s in rest)]


def metric_correlations(summaries: Mapping[str, Summary],
                        metrics: Sequence[str] | None = None) -> CorrelationTable:
    """Spearman rho (``scipy.stats.spearmanr``) between each pair of metrics across the systems."""
    if len(summaries) < MIN_SYSTEMS:
        raise ValueError(f"need at least {MIN_SYSTEMS} systems for a rank correlation, got {len(summaries)}")
    metrics = list(metrics) if metrics else numeric_metrics(summaries)
    if not metrics:
        raise ValueError("no metric is numeric in every summary; name them with --metrics")
    systems = list(summaries)
    for metric in metrics:
        bad = [s for s in systems if not _is_number(summaries[s].reported(metric))]
        if bad:
            raise ValueError(f"metric {metric!r} is missing or not a number in the summary of {', '.join(bad)}")
    values = {m: np.array([float(summaries[s].reported(m)) for s in systems]) for m in metrics}
    undefined = [m for m in metrics if np.ptp(values[m]) == 0]
    matrix: list[list[float | None]] = []
    for a in metrics:
        row: list[float | None] = []
        for b in metrics:
            if a in undefined or b in undefined:
                row.append(None)
            elif a == b:
                row.append(1.0)
            else:
                row.append(float(stats.spearmanr(values[a], values[b]).statistic))
        matrix.append(row)
    return CorrelationTable(metrics, systems, matrix, undefined)


def correlations_from_dirs(eval_dirs: Sequence[str | Path], metrics: Sequence[str] | None = None) -> CorrelationTable:
    """`metric_correlations` over the summaries of `eval_dirs`."""
    return metric_correlations(load_summaries(eval_dirs), metrics)


def plot_correlation_heatmap(table: CorrelationTable, path: str | Path, title: str = "") -> Path:
    """The table as a heat map (red positive, blue negative, grey undefined), values written in the cells."""
    plt = headless_pyplot()

    data = np.array([[np.nan if v is None else v for v in row] for row in table.matrix], dtype=float)
    n = len(table.metrics)
    size = 1.2 + 0.7 * n
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="lightgrey")
    image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=-1, vmax=1)
    ax.set_xticks(range(n), table.metrics, rotation=45, ha="right")
    ax.set_yticks(range(n), table.metrics)
    for i in range(n):
        for j in range(n):
            ax.text(j, i, "n/a" if np.isnan(data[i, j]) else f"{data[i, j]:.2f}", ha="center", va="center",
                    fontsize=8, color="white" if abs(np.nan_to_num(data[i, j])) > 0.6 else "black")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="Spearman rho")
    ax.set_title(title or f"Spearman correlations ({table.n_systems} systems)")
    return save_figure(fig, path, dpi=150)
