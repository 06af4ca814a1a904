"""`sciwrite evaluate ... --cutoff YYYY-MM-DD`: every metric of a system split into the papers published up to a
model's training cutoff and those published after it, with intervals and a test of the difference.

A paper's date is its ``published`` field (version 1 on arXiv, ISO date; records built with ``--from-arxiv``), else
its ``year``: a paper whose year is the cutoff's own cannot be placed and is counted as undetermined. A
``published`` value that is not a date is an error, found when the split is opened (`check_dates`), before any
model loads: guessing its side would move the paper silently. Papers on
the two sides are different papers, so the difference (after - before) gets a two-sample bootstrap interval and a
two-sample permutation test (`sciwrite.stats.two_sample_comparison`), Holm-adjusted across the metrics. A system
that scores clearly higher before its cutoff than after it, with memorisation to match, has likely seen the older
papers. With several systems, each metric is also tested across them (`across_systems`): each system's mean before
and after is one pair, so the paired test asks whether systems in general score differently after the cutoff.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sciwrite.core.errors import InputError, Where
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import CutoffSplit, Summary
from sciwrite.core.tables import format_table, headless_pyplot, save_figure
from sciwrite.stats import holm, mean_interval, permutation_p_value, two_sample_comparison

BEFORE, AFTER, UNDETERMINED = "before", "after", "undetermined"
RULE = ("before: published on or before the cutoff; after: published after it (the `published` date, else the "
        "year; a paper of the cutoff's own year without a date is undetermined)")
TEST = "two-sample: percentile bootstrap of the difference (each side resampled) and a permutation test, Holm-adjusted"


DATE_FORMAT = "YYYY-MM-DD (a time after it, as in 2026-07-03T17:59:59Z, is allowed)"
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}(?:$|[T ])")


def published_date(value: Any) -> date | None:
    """A paper's ``published`` value as a date (None when it has none); raises ValueError for one that is not a date
    written `DATE_FORMAT`."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    if _ISO_DAY.match(text):
        try:
            return date.fromisoformat(text[:10])
        except ValueError:  # 2026-02-30
            pass
    raise ValueError(f"{value!r} is not a date written {DATE_FORMAT}")


def _dates(papers: Any) -> list[tuple[int, Any, Any]]:
    """(row, paper_id, published) of each paper of a `datasets.Dataset` (two columns read, no row decoded) or of a
    list of records."""
    if isinstance(papers, list | tuple):
        return [(row, p.get("paper_id"), p.get("published")) for row, p in enumerate(papers)]
    if "published" not in (papers.column_names or []):
        return []
    return [(row, *pair) for row, pair in enumerate(zip(papers["paper_id"], papers["published"]))]


def check_dates(papers: Any, where: str | Path) -> None:
    """Raise `InputError` naming `where` (the split), the paper and the field when a paper's ``published`` is not a
    date: what ``--cutoff`` checks when the split is opened, before any model loads or any paper is scored."""
    bad: list[tuple[int, Any, ValueError]] = []
    for row, paper_id, value in _dates(papers):
        try:
            published_date(value)
        except ValueError as err:
            bad.append((row, paper_id, err))
    if bad:
        row, paper_id, first_error = bad[0]
        more = f" ({len(bad) - 1} more papers too)" if len(bad) > 1 else ""
        raise InputError(f"{first_error}{more}",
                         Where(path=str(where), record=str(paper_id) if paper_id else f"row {row + 1}",
                               field="published"),
                         hint=f"write it as {DATE_FORMAT} or leave it empty (the year is used then), or drop --cutoff")


def side(paper: Mapping[str, Any], cutoff: date) -> str:
    """Which side of `cutoff` a paper falls on (see the module docstring); raises ValueError naming the paper for a
    ``published`` value that is not a date."""
    try:
        published = published_date(paper.get("published"))
    except ValueError as err:
        raise InputError(str(err), Where(record=paper.get("paper_id"), field="published"),
                         hint=f"write it as {DATE_FORMAT}") from None
    if published is not None:
        return BEFORE if published <= cutoff else AFTER
    year = paper.get("year")
    if not isinstance(year, int):
        return UNDETERMINED
    return BEFORE if year < cutoff.year else AFTER if year > cutoff.year else UNDETERMINED


def cutoff_comparison(rows: Sequence[PaperRow], papers: Sequence[Mapping[str, Any]],
                      metrics: Sequence[str], cutoff: date, n_resamples: int = 1000, seed: int = 0) -> CutoffSplit:
    """One system's metrics before and after `cutoff`: `rows` are its per-paper rows and `papers` their records, in
    the same order. A metric no row holds a value for (not computed) is left out."""
    metrics = [m for m in metrics if any(r.value(m) is not None for r in rows)]
    sides = [side(p, cutoff) for p in papers]
    by_side = {s: [r for r, s2 in zip(rows, sides) if s2 == s] for s in (BEFORE, AFTER)}
    compared = {}
    for i, metric in enumerate(metrics):
        before, after = [r.value(metric) for r in by_side[BEFORE]], [r.value(metric) for r in by_side[AFTER]]
        compared[metric] = two_sample_comparison(before, after, n_resamples, seed=seed + i)
        compared[metric]["interval_a"] = list(mean_interval(before, n_resamples, rng=[seed, i, 0]))
        compared[metric]["interval_b"] = list(mean_interval(after, n_resamples, rng=[seed, i, 1]))
    for metric, adjusted in zip(metrics, holm([compared[m]["p_value"] for m in metrics])):
        compared[metric]["p_holm"] = adjusted
    return CutoffSplit(cutoff=cutoff.isoformat(), rule=RULE, test=TEST, n_before=len(by_side[BEFORE]),
                       n_after=len(by_side[AFTER]),
                       undetermined=tuple(str(p.get("paper_id")) for p, s in zip(papers, sides) if s == UNDETERMINED),
                       metrics=compared)


def across_systems(summaries: Sequence[Summary], labels: Mapping[str, str], n_resamples: int = 1000,
                   seed: int = 0) -> list[dict[str, Any]]:
    """With several systems split at the cutoff: per metric, the paired test over the systems that scored both
    sides (each system's mean before and after is one pair; `sciwrite.stats.permutation_p_value`, exact for a few
    systems), Holm across metrics. Empty with fewer than 2 such systems."""
    splits = [s.cutoff for s in summaries if s.cutoff]
    if len(splits) < 2:
        return []
    rows = []
    for i, metric in enumerate(splits[0].metrics):
        pairs = [(c["mean_a"], c["mean_b"]) for c in (split.metrics.get(metric) for split in splits)
                 if c and c["mean_a"] is not None and c["mean_b"] is not None]
        if len(pairs) < 2:
            continue
        before, after = [a for a, _ in pairs], [b for _, b in pairs]
        rows.append({"metric": labels.get(metric, metric), "systems": len(pairs),
                     "mean_before": sum(before) / len(pairs), "mean_after": sum(after) / len(pairs),
                     "mean_difference": sum(b - a for a, b in pairs) / len(pairs),
                     "p_value": permutation_p_value(before, after, n_resamples, seed + i)})
    for row, adjusted in zip(rows, holm([r["p_value"] for r in rows])):
        row["p_holm"] = adjusted
    return rows


def _number(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _interval(bounds: Sequence[float | None]) -> str:
    return "" if bounds[0] is None else f"[{bounds[0]:.3f}, {bounds[1]:.3f}]"


def plot_cutoff(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """A forest plot per system: each metric's difference (after - before) with its 95% interval, a line at 0."""
    plt = headless_pyplot()
    systems = list(dict.fromkeys(r["system"] for r in rows))
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    fig, axes = plt.subplots(1, len(systems), figsize=(4.2 * len(systems), 0.9 + 0.32 * len(metrics)),
                             squeeze=False, sharey=True)
    for ax, system in zip(axes[0], systems):
        mine = {r["metric"]: r for r in rows if r["system"] == system}
        ys = [y for y, m in enumerate(metrics) if mine.get(m, {}).get("difference") is not None]
        xs = [mine[metrics[y]]["difference"] for y in ys]
        low = [x - (mine[metrics[y]]["ci_low"] if mine[metrics[y]]["ci_low"] is not None else x) for x, y in zip(xs, ys)]
        high = [(mine[metrics[y]]["ci_high"] if mine[metrics[y]]["ci_high"] is not None else x) - x
                for x, y in zip(xs, ys)]
        ax.errorbar(xs, ys, xerr=[low, high], fmt="o", capsize=3, markersize=4)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_yticks(range(len(metrics)), metrics, fontsize=8)
        ax.set_xlabel("after - before the cutoff", fontsize=8)
        ax.set_title(f"{system} (cutoff {rows[0]['cutoff']})", fontsize=9)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0][0].invert_yaxis()  # once: the axes share it; the first metric on top
    return save_figure(fig, path)


def cutoff_rows(summaries: Sequence[Summary], labels: Mapping[str, str]) -> list[dict[str, Any]]:
    """The tidy table of every system's split: one row per (system, metric)."""
    rows = []
    for summary in summaries:
        split = summary.cutoff
        if not split:
            continue
        for metric, c in split.metrics.items():
            rows.append({"system": summary.system, "metric": labels.get(metric, metric),
                         "cutoff": split.cutoff, "n_before": c["n_a"], "before": c["mean_a"],
                         "before_low": c["interval_a"][0], "before_high": c["interval_a"][1], "n_after": c["n_b"],
                         "after": c["mean_b"], "after_low": c["interval_b"][0], "after_high": c["interval_b"][1],
                         "difference": c["difference"], "ci_low": c["ci_low"], "ci_high": c["ci_high"],
                         "p_value": c["p_value"], "p_holm": c["p_holm"]})
    return rows


def format_cutoff(summaries: Sequence[Summary], labels: Mapping[str, str]) -> str:
    """The report's section: per system, each metric before and after the cutoff and the difference."""
    blocks = []
    for summary in summaries:
        split = summary.cutoff
        if not split:
            continue
        table = [{"metric": labels.get(m, m),
                  f"before (n={split.n_before})": f"{_number(c['mean_a'])} {_interval(c['interval_a'])}",
                  f"after (n={split.n_after})": f"{_number(c['mean_b'])} {_interval(c['interval_b'])}",
                  "after - before": f"{_number(c['difference'])} {_interval([c['ci_low'], c['ci_high']])}",
                  "p (Holm)": _number(c["p_holm"])}
                 for m, c in split.metrics.items()]
        undetermined = f"; undetermined: {len(split.undetermined)}" if split.undetermined else ""
        blocks.append(f"{summary.system}: papers before and after the cutoff {split.cutoff} ({split.test}"
                      f"{undetermined})\n{format_table(table)}")
    return "\n\n".join(blocks)


__all__ = ["AFTER", "BEFORE", "DATE_FORMAT", "RULE", "TEST", "UNDETERMINED", "across_systems", "check_dates",
           "cutoff_comparison", "cutoff_rows", "format_cutoff", "plot_cutoff", "published_date", "side"]
