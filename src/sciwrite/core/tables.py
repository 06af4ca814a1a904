"""Result tables as a person reads them (aligned text) and as tools read them (JSON, CSV), plus plots."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

#: What a results table shows for a metric without a value (not computed, or not applicable), as the papers print it.
MISSING_CELL = "\u2013"


def cell(value: Any, none: str = "-") -> str:
    """One table cell: floats to 4 decimals, `none` for a value not computed, anything else as text."""
    if value is None:
        return none
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def _aligned(header: Sequence[str], cells: Sequence[Sequence[str]], left: int) -> tuple[list[int], Callable[..., str]]:
    """Column widths, and a function that joins one line's values: the first `left` columns flush left."""
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) if i < left else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths)))

    return widths, line


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None, left: int = 1) -> str:
    """A plain-text table with aligned columns (floats to 4 decimals), a rule under the header; the first
    `left` columns are flush left, the others flush right."""
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())
    cells = [[cell(row.get(c, ""), none="None") for c in columns] for row in rows]
    widths, line = _aligned(columns, cells, left)
    return "\n".join([line(columns), "  ".join("-" * w for w in widths), *(line(r) for r in cells)])


def format_grouped_table(rows: Sequence[Sequence[Any]], label: str | Sequence[str], groups: Mapping[str, Sequence[str]],
                         blocks: Mapping[int, str] | None = None) -> str:
    """A wide table whose metric columns sit under group names (a paper's results table): `rows` hold a row's
    label(s) and then one value per column, in the order of `groups` (group -> its column labels). `label` names
    the leading label column, or several; `blocks` puts a title line (e.g. a retriever's name) before the row of
    that index, as papers divide their tables."""
    labels = [label] if isinstance(label, str) else list(label)
    header = [*labels, *(column for columns in groups.values() for column in columns)]
    cells = [[cell(v, none="") if i < len(labels) else cell(v) for i, v in enumerate(row)] for row in rows]
    widths, line = _aligned(header, cells, len(labels))
    spans, column = [" " * (sum(widths[:len(labels)]) + 2 * (len(labels) - 1))], len(labels)
    for group, columns in groups.items():
        span = sum(widths[column:column + len(columns)]) + 2 * (len(columns) - 1)
        spans.append(f" {group} ".center(span, "-") if group else " " * span)  # an untitled group: no rule
        column += len(columns)
    body = []
    for i, row in enumerate(cells):
        if blocks and i in blocks:
            body.append(blocks[i])
        body.append(line(row))
    return "\n".join(["  ".join(spans), line(header), *body])


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
    plt = headless_pyplot()

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
    return save_figure(fig, path)


def headless_pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend (no display needed); imported only when a plot is drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path, dpi: int = 130) -> Path:
    """Lay out a matplotlib figure, write it to `path` (its folder created) and release it; returns the path."""
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    headless_pyplot().close(fig)
    return path
