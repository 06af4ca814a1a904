"""The tables of a whole evaluation run, across its systems, written beside the systems' folders: the
before/after-cutoff split (``cutoff.json``, ``cutoff.csv``, the plot ``cutoff.png`` and, with several systems, the
paired test across them in ``cutoff_across_systems.json`` and ``.csv``) and, with several systems judged by a
panel, the judges' agreement across systems (``judge_panel_systems.json``).

`sciwrite.scoring.files.evaluate_files` writes them, so that the Python API and ``sciwrite evaluate`` leave the
same folder; the command prints them. They are computed from the systems' summaries alone, in memory
(`run_tables`), and written as files only by `write_run_tables`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.core.summary import Summary
from sciwrite.core.tables import write_table
from sciwrite.metrics.cutoff import across_systems, cutoff_rows, plot_cutoff
from sciwrite.metrics.judge_panel import systems_agreement

#: The stem of the cutoff table (``.json`` and ``.csv``) under the output folder.
CUTOFF_STEM = "cutoff"
#: The cutoff plot under the output folder.
CUTOFF_PLOT = "cutoff.png"
#: The stem of the paired test across systems (``.json`` and ``.csv``) under the output folder.
CUTOFF_ACROSS_STEM = "cutoff_across_systems"
#: The judges' agreement across systems under the output folder.
PANEL_AGREEMENT = "judge_panel_systems.json"


@dataclass(frozen=True)
class RunFiles:
    """Where a run's tables are (or would be) written; None for a table the run does not have."""

    cutoff_json: Path | None = None
    cutoff_csv: Path | None = None
    cutoff_plot: Path | None = None
    across_json: Path | None = None
    across_csv: Path | None = None
    panel_agreement: Path | None = None

    def written(self) -> list[Path]:
        """Every path, in the order written."""
        return [p for p in (self.cutoff_json, self.cutoff_csv, self.cutoff_plot, self.across_json, self.across_csv,
                            self.panel_agreement) if p is not None]


@dataclass(frozen=True)
class RunTables:
    """A run's tables across its systems.

    Attributes:
        labels: metric key -> the label the cutoff tables show.
        cutoff: One row per (system, metric) split at ``--cutoff`` (`sciwrite.metrics.cutoff.cutoff_rows`); empty
            without a cutoff.
        cutoff_across: Per metric, the paired test across the systems split at the cutoff
            (`sciwrite.metrics.cutoff.across_systems`); empty with fewer than two.
        panels: system -> its summary's judge-panel block, for the systems judged by a panel.
        panel_agreement: Kendall's tau between judges across systems (`systems_agreement`), with two or more
            panels; else None.
    """

    labels: dict[str, str]
    cutoff: list[dict[str, Any]]
    cutoff_across: list[dict[str, Any]]
    panels: dict[str, dict[str, Any]]
    panel_agreement: dict[str, Any] | None

    def files(self, out: str | Path) -> RunFiles:
        """The paths `write_run_tables` writes these tables to under `out`."""
        out = Path(out)
        cutoff, across = out / CUTOFF_STEM, out / CUTOFF_ACROSS_STEM
        return RunFiles(
            cutoff_json=cutoff.with_suffix(".json") if self.cutoff else None,
            cutoff_csv=cutoff.with_suffix(".csv") if self.cutoff else None,
            cutoff_plot=out / CUTOFF_PLOT if self.cutoff else None,
            across_json=across.with_suffix(".json") if self.cutoff and self.cutoff_across else None,
            across_csv=across.with_suffix(".csv") if self.cutoff and self.cutoff_across else None,
            panel_agreement=out / PANEL_AGREEMENT if self.panel_agreement is not None else None)


def cutoff_labels(benchmark: Benchmark) -> dict[str, str]:
    """metric key -> its label in the cutoff tables: the board's columns as "group label", the suite's labels over
    them, and the memorisation signal."""
    return {**{key: f"{group} {label}" for group, columns in benchmark.presentation.board_groups.items()
               for key, label in columns}, **benchmark.suite.metric_labels(), "memorisation": "memorisation"}


def run_tables(benchmark: Benchmark, summaries: Sequence[Summary]) -> RunTables:
    """The run's tables from its systems' summaries (in the order scored)."""
    labels = cutoff_labels(benchmark)
    rows = cutoff_rows(summaries, labels)
    panels = {str(summary.system): summary.judge_panel.to_json() for summary in summaries
              if summary.judge_panel is not None and summary.judge_panel.to_json()}
    return RunTables(labels=labels, cutoff=rows, cutoff_across=across_systems(summaries, labels) if rows else [],
                     panels=panels, panel_agreement=systems_agreement(panels) if len(panels) >= 2 else None)


def write_run_tables(tables: RunTables, out: str | Path) -> RunFiles:
    """Write the run's tables under `out` (only those it has); returns where."""
    files = tables.files(out)
    if tables.cutoff:
        write_table(tables.cutoff, Path(out) / CUTOFF_STEM)
        plot_cutoff(tables.cutoff, Path(out) / CUTOFF_PLOT)
        if tables.cutoff_across:
            write_table(tables.cutoff_across, Path(out) / CUTOFF_ACROSS_STEM)
    if files.panel_agreement is not None:
        files.panel_agreement.write_text(json.dumps(tables.panel_agreement, indent=2) + "\n")
    return files


__all__ = ["CUTOFF_ACROSS_STEM", "CUTOFF_PLOT", "CUTOFF_STEM", "PANEL_AGREEMENT", "RunFiles", "RunTables",
           "cutoff_labels", "run_tables", "write_run_tables"]
