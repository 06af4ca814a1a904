"""`sciwrite compare A B [C ...]`: paired comparisons of systems on the papers they both scored, from the
per_paper.jsonl files `sciwrite evaluate` writes. The first system is the baseline; for every other system and
metric: the mean difference (system - baseline), its paired-bootstrap interval, a paired permutation test p-value
and the Holm-adjusted p-value across the metrics compared.

The comparison and every check on it (one benchmark and split, the summaries' provenance, shared papers, scores
that are numbers, ``--metrics`` names the files score) are `sciwrite.scoring.compare`'s, the leaderboard's Compare
tab's too; this module parses the arguments, prints the table and its notes, and writes the table and the plot.
After the table: every system's rank on the first metric compared with its rank interval and whether it differs
significantly from the system ranked above it (`sciwrite.core.rank_intervals`, as the board's Rank cells)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.flags import BENCHMARK, CONFIDENCE, METRICS, PLOT, SYSTEM, TABLE_OUT, add_bootstrap_flags
from sciwrite.core.errors import InputError
from sciwrite.core.rank_intervals import RankIntervals, rank_intervals
from sciwrite.core.tables import format_table, headless_pyplot, save_figure, write_table
from sciwrite.scoring.compare import Comparison, MetricDifference, SystemScores, check_same_benchmark, compare_systems
from sciwrite.scoring.per_paper_files import read_system
from sciwrite.stats import INTERVAL_METHOD

#: How the user compares systems scored differently anyway (the end of the refusal).
MIXED_PROVENANCE_HINT = "; pass --allow-mixed-provenance to compare them anyway"


def plot_differences(differences: Sequence[MetricDifference], metrics: Sequence[str], path: str | Path,
                     labels: dict[str, str] | None = None, title: str = "") -> Path:
    """Per metric, each system's mean difference from the baseline with its interval as error bars, one colour
    per system, a line at 0; saved as PNG."""
    plt = headless_pyplot()

    systems = list(dict.fromkeys(d.system for d in differences))
    fig, ax = plt.subplots(figsize=(2.0 + 0.8 * len(metrics), 3.8))
    width = 0.7 / max(len(systems), 1)
    for s, system in enumerate(systems):
        by_metric = {d.metric: d for d in differences if d.system == system}
        xs, ys, low, high = [], [], [], []
        for m, metric in enumerate(metrics):
            d = by_metric.get(metric)
            if d is None or d.difference is None:
                continue
            xs.append(m + (s - (len(systems) - 1) / 2) * width)
            ys.append(d.difference)
            low.append(d.difference - d.ci_low if d.ci_low is not None else 0.0)
            high.append(d.ci_high - d.difference if d.ci_high is not None else 0.0)
        ax.errorbar(xs, ys, yerr=[low, high], fmt="o", capsize=3, label=system)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(metrics)), [(labels or {}).get(m, m) for m in metrics], rotation=45, ha="right",
                  fontsize=8)
    baseline = differences[0].baseline if differences else "baseline"
    ax.set_ylabel(f"difference from {baseline}")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return save_figure(fig, path)


def read_systems(args: argparse.Namespace) -> list[SystemScores]:
    """The systems the command's arguments name, read from their files."""
    if len(args.systems) < 2:
        raise InputError("compare needs two or more systems: the baseline, then the others")
    return [read_system(path, BENCHMARKS) for path in args.systems]


def compare_from_args(args: argparse.Namespace, systems: Sequence[SystemScores] | None = None) -> Comparison:
    """The comparison the command's arguments ask for (`sciwrite.scoring.compare.compare_systems`), of `systems`
    when already read."""
    systems = read_systems(args) if systems is None else systems
    if args.system and len(args.system) != len(systems):
        raise InputError(f"--system needs one name per system ({len(systems)}), got {len(args.system)}")
    benchmark = get_benchmark(check_same_benchmark(systems, args.benchmark))
    return compare_systems(systems, benchmark, metrics=args.metrics, labels=args.system, n_resamples=args.bootstrap,
                           confidence=args.confidence, seed=args.bootstrap_seed,
                           allow_mixed_provenance=args.allow_mixed_provenance,
                           override_hint=MIXED_PROVENANCE_HINT)


def print_comparison(comparison: Comparison) -> None:
    """The notes (provenance, metrics left out), the header saying what was computed, the per-paper notes of the
    benchmark's metrics, the papers left out of a metric, and the table."""
    for line in [*(note for check in comparison.provenance for note in check.notes()), *comparison.left_out]:
        print(line)
    print(f"{comparison.benchmark}: {', '.join(comparison.systems)} against {comparison.baseline} on the papers both "
          f"scored; difference = system - baseline; {100 * comparison.confidence:g}% CI: paired {INTERVAL_METHOD} "
          f"({comparison.n_resamples} resamples); p: paired permutation test, p_holm: Holm across the "
          f"{len(comparison.metrics)} metrics")
    for metric, note in get_benchmark(comparison.benchmark).presentation.per_paper_notes.items():
        if metric in comparison.metrics:
            print(f"{metric}: {note} (not the value the results table shows)")
    for line in comparison.missing:
        print(line)
    print(format_table(comparison.rows()))


def ranks_from_args(args: argparse.Namespace, systems: Sequence[SystemScores],
                    comparison: Comparison) -> RankIntervals:
    """Every system's rank interval on the first metric compared, over the papers all of them scored, from the
    bootstrap the comparison uses on that metric (its resamples, level and generator: ``[seed, 0]``, metric 0's
    in `sciwrite.stats.paired_results`, so two systems' difference interval is the table's), in the order of the
    systems' means there."""
    metric = comparison.metrics[0]
    scale = get_benchmark(comparison.benchmark).suite.scales.get(metric)
    names = [comparison.baseline, *comparison.systems]
    scores = {name: {pid: row.value(metric) for pid, row in system.rows.items()}
              for name, system in zip(names, systems)}
    return rank_intervals(scores, higher_is_better=scale.higher_is_better if scale is not None else True,
                          n_resamples=comparison.n_resamples, confidence=comparison.confidence,
                          rng=[args.bootstrap_seed, 0])


def print_ranks(metric: str, ranks: RankIntervals) -> None:
    """The systems' ranks with their intervals, and each against the system ranked above it."""
    level = f"{100 * ranks.confidence:g}%"
    print(f"\nRanks on {metric} over the {ranks.n_papers} papers every system scored ({level} rank interval: paired "
          f"{INTERVAL_METHOD}, {ranks.n_resamples} resamples, ties share the better rank; vs above: sig. when the "
          f"{level} interval of the difference from the system ranked above excludes 0; flip: share of resamples "
          "in which it scores strictly better than the system above)")
    rows = []
    for rank in ranks.systems:
        row = {"system": rank.system, "rank": rank.rank, "interval": rank.interval or "-", "vs_above": "",
               "difference_ci": "", "flip": ""}
        above = ranks.vs_above(rank.system)
        if above is not None and above.ci_low is not None and above.ci_high is not None:
            row.update(vs_above="sig." if above.significant else "n.s.",
                       difference_ci=f"[{above.ci_low:.3f}, {above.ci_high:.3f}]", flip=f"{above.flip_share:.3f}")
        rows.append(row)
    print(format_table(rows))


def cmd_compare(args: argparse.Namespace) -> None:
    systems = read_systems(args)
    comparison = compare_from_args(args, systems)
    print_comparison(comparison)
    print_ranks(comparison.metrics[0], ranks_from_args(args, systems, comparison))
    if args.out:
        json_path, csv_path = write_table(comparison.rows(), args.out)
        print(f"\nwrote {json_path} and {csv_path}")
    if args.plot:
        benchmark = get_benchmark(comparison.benchmark)
        path = plot_differences(comparison.differences, comparison.metrics, args.plot,
                                benchmark.suite.metric_labels(),
                                title=f"{comparison.benchmark}: difference from {comparison.baseline}")
        print(f"wrote {path}")


def add_compare_command(sub: argparse._SubParsersAction) -> None:
    """The `compare` command."""
    p = sub.add_parser("compare", help="paired comparison of systems' per-paper scores (the first is the baseline)")
    p.add_argument("systems", nargs="+", metavar="PER_PAPER",
                   help="per_paper.jsonl files, or evaluation folders holding one; two or more, the first the baseline")
    SYSTEM.add(p, "system names, one per PER_PAPER (default: the rows' system field)")
    BENCHMARK.add(p, "benchmark (default: detected from the keys)", choices=sorted(BENCHMARKS))
    METRICS.add(p, "metrics to compare (default: the benchmark's table metrics every file holds)")
    CONFIDENCE.add(p)
    p.add_argument("--allow-mixed-provenance", action="store_true",
                   help="compare systems scored under a different dataset, profile, models, judge or prompts "
                        "(their summaries' provenance; never across benchmarks or splits)")
    add_bootstrap_flags(p)
    TABLE_OUT.add(p, "write the table as <STEM>.json and <STEM>.csv")
    PLOT.add(p, "plot the differences with their intervals")
    p.set_defaults(func=cmd_compare)


__all__ = ["MIXED_PROVENANCE_HINT", "add_compare_command", "cmd_compare", "compare_from_args", "plot_differences",
           "print_comparison", "print_ranks", "ranks_from_args", "read_systems"]
