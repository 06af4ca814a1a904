"""Result tables as a person reads them (aligned text) and as tools read them (JSON, CSV), plus plots."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """A plain-text table with aligned columns (floats to 4 decimals)."""
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())
    cells = [[_cell(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    line = lambda values: "  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths)))  # noqa: E731
    return "\n".join([line(columns), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def write_table(rows: Sequence[dict[str, Any]], stem: str | Path) -> tuple[Path, Path]:
    """Write `rows` to ``<stem>.json`` and ``<stem>.csv``; returns both paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    json_path, csv_path = stem.with_suffix(".json"), stem.with_suffix(".csv")
    json_path.write_text(json.dumps(list(rows), indent=2), encoding="utf-8")
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return json_path, csv_path


def plot_metric_bars(rows: Sequence[dict[str, Any]], label: str, metrics: Sequence[str], path: str | Path,
                     title: str = "") -> Path:
    """Grouped bars: one group per metric, one bar per row (system), saved as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(metrics), 3.6))
    width = 0.8 / max(len(rows), 1)
    for i, row in enumerate(rows):
        xs = [m + (i - (len(rows) - 1) / 2) * width for m in range(len(metrics))]
        bars = ax.bar(xs, [row[m] for m in metrics], width=width, label=str(row[label]))
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
    ax.set_xticks(range(len(metrics)), metrics)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path
