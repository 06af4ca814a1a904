"""`sciwrite compare A B [C ...]`: paired comparisons of systems on the papers they both scored, from the
per_paper.jsonl files `sciwrite evaluate` writes. The first system is the baseline; for every other system and
metric: the mean difference (system - baseline), its paired-bootstrap interval, a paired permutation test p-value
and the Holm-adjusted p-value across the metrics compared.

The comparison and every check on it (one benchmark and split, the summaries' provenance, shared papers, scores
that are numbers, ``--metrics`` names the files score) are `sciwrite.scoring.compare`'s, the leaderboard's Compare
tab's too; this module parses the arguments, prints the table and its notes, and writes the table and the plot.
After the table: every system's rank on the first metric compared with its rank interval and whether it differs
significantly from the system ranked above it (`sciwrite.core.rank_intervals`, as the board's Rank cells). Then
the "Cost and judge" table, one line per system in rank order: its Rank cell as the board writes it, what the run
cost (the generator's and the judge's dollars per paper, the total and the generator's tokens per paper, from the
usage ledgers beside its predictions and its summary; "unknown" with the reason, never 0), the price table, and
its judge with their snapshots and the judge check's verdict (`sciwrite.core.run_facts`, the facts the board and
paper-table show). ``--out STEM`` writes those rows too, as ``<STEM>.runs.json`` and ``<STEM>.runs.csv``; a ledger
that disagrees with its predictions is refused, naming its file and line, before anything is printed."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.flags import BENCHMARK, CONFIDENCE, METRICS, PLOT, SYSTEM, TABLE_OUT, add_bootstrap_flags
from sciwrite.core.costs import COST_COLUMNS, cost_text
from sciwrite.core.errors import InputError
from sciwrite.core.rank_intervals import RankIntervals, rank_intervals
from sciwrite.core.results import load_summary
from sciwrite.core.run_facts import RunFacts, evaluation_facts, unrecorded_facts, with_rank, write_runs
from sciwrite.core.tables import format_table, headless_pyplot, save_figure, write_table
from sciwrite.core.trust import NO_CHECK
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


#: Why a system compared from its per_paper.jsonl alone has no cost or judge.
NO_SUMMARY = "no summary.json beside its per_paper.jsonl"


def run_facts(systems: Sequence[SystemScores], comparison: Comparison) -> list[RunFacts]:
    """Each system's cost and judge (`evaluation_facts`, named as the comparison names it) from the summary.json
    beside its per_paper.jsonl and the ledgers beside that and its predictions; without a summary, unknown."""
    facts = []
    for name, system in zip([comparison.baseline, *comparison.systems], systems, strict=True):
        file = system.path.parent / "summary.json" if system.path is not None else None
        if file is None or not file.is_file():
            facts.append(unrecorded_facts(name, NO_SUMMARY))
        else:
            facts.append(evaluation_facts(load_summary(file), file, system=name))
    return facts


def ranked_facts(facts: Sequence[RunFacts], ranks: RankIntervals) -> list[RunFacts]:
    """`facts` in rank order, each with its Rank cell (`with_rank`)."""
    by_system = {f.system: f for f in facts}
    return [with_rank(by_system[rank.system], ranks) for rank in ranks.systems]


def _check_cell(facts: RunFacts) -> str:
    """The judge check's verdict and pass rate (the full record is in ``--out``'s runs file)."""
    check = facts.card.check
    if check is None:
        return NO_CHECK
    rate = f" ({check.pass_rate:.3f})" if check.pass_rate is not None else ""
    return f"{check.verdict or 'unknown'}{rate}"


def print_run_facts(metric: str, facts: Sequence[RunFacts]) -> None:
    """The "Cost and judge" table: per system its Rank cell on `metric`, its costs ("unknown", never 0), its
    judge and check; then each system's price table and why a cost is unknown."""
    print(f"\nCost and judge (rank on {metric} as above; dollars and tokens from the usage ledgers beside the "
          "predictions (gen) and the summary (judge), per scored paper; unknown: no ledger or an unpriced request)")
    rows = []
    for f in facts:
        fields = f.fields()
        rows.append({"system": f.system, "rank": f.rank, **{label: cost_text(key, fields[key])
                                                             for key, label in COST_COLUMNS},
                     "judge": f.judge, "judge check": _check_cell(f)})
    print(format_table(rows))
    for f in facts:
        fields = f.fields()
        print(f"{f.system}: prices: {fields['price_table']}"
              + (f"; cost unknown: {fields['cost_unknown']}" if fields["cost_unknown"] else ""))


def cmd_compare(args: argparse.Namespace) -> None:
    systems = read_systems(args)
    comparison = compare_from_args(args, systems)
    facts = run_facts(systems, comparison)  # a bad ledger is refused before anything is printed
    ranks = ranks_from_args(args, systems, comparison)
    facts = ranked_facts(facts, ranks)
    print_comparison(comparison)
    print_ranks(comparison.metrics[0], ranks)
    print_run_facts(comparison.metrics[0], facts)
    if args.out:
        json_path, csv_path = write_table(comparison.rows(), args.out)
        runs_json, runs_csv = write_runs(facts, args.out)
        print(f"\nwrote {json_path}, {csv_path}, {runs_json} and {runs_csv}")
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
    TABLE_OUT.add(p, "write the table as <STEM>.json and <STEM>.csv, and each system's rank, cost and judge as "
                     "<STEM>.runs.json and <STEM>.runs.csv")
    PLOT.add(p, "plot the differences with their intervals")
    p.set_defaults(func=cmd_compare)


__all__ = ["MIXED_PROVENANCE_HINT", "NO_SUMMARY", "add_compare_command", "cmd_compare", "compare_from_args",
           "plot_differences", "print_comparison", "print_ranks", "print_run_facts", "ranked_facts", "ranks_from_args",
           "read_systems", "run_facts"]
