"""`sciwrite compare A B [C ...]`: paired comparisons of systems on the papers they both scored, from the
per_paper.jsonl files `sciwrite evaluate` writes. The first system is the baseline; for every other system and
metric: the mean difference (system - baseline), its paired-bootstrap interval, a paired permutation test p-value
and the Holm-adjusted p-value across the metrics compared (`sciwrite.stats.paired_comparison`). Systems whose
summaries' provenance differ (benchmark, dataset, profile, models, judge, prompts) are refused unless
``--allow-mixed-provenance``; systems of different benchmarks (their rows' ``benchmark``, their provenance, or their
metrics), systems with no paper in common, and a per-paper file with a paper on two lines are always refused,
naming the problem."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.evaluate import add_bootstrap_options
from sciwrite.core.jsonl import iter_json_lines, line_ref
from sciwrite.core.provenance import provenance_differences, schema_version_of, snapshot_changes
from sciwrite.core.tables import format_table, headless_pyplot, save_figure, write_table
from sciwrite.stats import INTERVAL_METHOD, paired_comparison


def read_per_paper(path: str | Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """(system name, {paper_id: row}) of a per_paper.jsonl file, or of a folder holding one. The name is the
    rows' ``system`` field, else the folder's name (the file's stem for a file given by name). A paper_id on two
    lines is an error naming both lines."""
    path = Path(path)
    fallback = path.name if path.is_dir() else path.stem
    if path.is_dir():
        path = path / "per_paper.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such per_paper.jsonl (give the file or the evaluation folder)")
    rows: dict[str, dict[str, Any]] = {}
    first_line: dict[str, int] = {}
    for number, _, row, problem in iter_json_lines(path):
        if problem is not None:
            raise ValueError(f"{line_ref(path, number)}: {problem}")
        if not isinstance(row, dict) or "paper_id" not in row:
            raise ValueError(f"{line_ref(path, number)}: expected an object with a paper_id")
        paper_id = str(row["paper_id"])
        if paper_id in rows:
            raise ValueError(f"{line_ref(path, number)}: paper {paper_id!r} again (first at line "
                             f"{first_line[paper_id]}): "
                             "which row counts? keep one row per paper")
        rows[paper_id], first_line[paper_id] = row, number
    if not rows:
        raise ValueError(f"{path}: no rows")
    names = {row.get("system") for row in rows.values()} - {None}
    name = names.pop() if len(names) == 1 else (path.parent.name if path.name == "per_paper.jsonl" else fallback)
    return name, rows


def read_provenance(path: str | Path) -> dict[str, Any] | None:
    """The provenance block of the summary.json beside a per_paper.jsonl file (None for a schema-0 summary or none)."""
    path = Path(path)
    summary = (path if path.is_dir() else path.parent) / "summary.json"
    if not summary.is_file():
        return None
    try:
        data = json.loads(summary.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{summary}: not JSON ({err})") from err
    return data.get("provenance") if isinstance(data, dict) and schema_version_of(data) >= 1 else None


def check_comparable(names: Sequence[str], blocks: Sequence[Mapping[str, Any] | None], allow: bool) -> None:
    """Refuse systems scored on another benchmark always, and under another dataset, profile, models, judge or
    prompts unless `allow`; print what differs (and judge snapshots that changed, and summaries without
    provenance)."""
    base = blocks[0]
    for name, block in zip(names[1:], blocks[1:]):
        if base is None or block is None:
            missing = names[0] if base is None else name
            print(f"note: {missing} has no provenance (a summary written before schema 1): comparability unchecked")
            continue
        differences = provenance_differences(base, block)
        if differences and (not allow or base.get("benchmark") != block.get("benchmark")):
            hint = "" if base.get("benchmark") != block.get("benchmark") else \
                "; pass --allow-mixed-provenance to compare them anyway"
            raise ValueError(f"{name} was not scored like {names[0]}: " + "; ".join(differences) + hint)
        for line in differences:
            print(f"warning: {name} vs {names[0]}: {line}")
        changed = snapshot_changes(base, block)
        if changed:
            print(f"warning: {name} vs {names[0]}: {changed}")


def numeric_keys(rows: Mapping[str, Mapping[str, Any]]) -> set[str]:
    """Keys holding a number (not a bool) in at least one row."""
    return {k for row in rows.values() for k, v in row.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


def detect_benchmark(keys: set[str]) -> str:
    """The benchmark whose table metrics the keys hold the most of."""
    best = max(BENCHMARKS, key=lambda name: len(keys & set(BENCHMARKS[name].suite.metrics)))
    if not keys & set(BENCHMARKS[best].suite.metrics):
        raise ValueError("the per_paper files hold no metric of a known benchmark; pass --benchmark and --metrics")
    return best


def benchmark_of(path: str | Path, rows: Mapping[str, Mapping[str, Any]],
                 provenance: Mapping[str, Any] | None) -> str:
    """The benchmark a system was scored on: its rows' ``benchmark`` field, else its summary's provenance, else the
    benchmark whose table metrics its rows hold the most of."""
    named = {row.get("benchmark") for row in rows.values()} - {None}
    if len(named) > 1:
        raise ValueError(f"{path}: rows of several benchmarks ({', '.join(sorted(map(str, named)))})")
    if named:
        return str(named.pop())
    if provenance and provenance.get("benchmark"):
        return str(provenance["benchmark"])
    return detect_benchmark(numeric_keys(rows))


def check_same_benchmark(names: Sequence[str], benchmarks: Sequence[str], asked: str | None) -> str:
    """The one benchmark every system was scored on (and `asked`, when given); an error naming the odd ones."""
    expected = asked or benchmarks[0]
    odd = [f"{name} ({bench})" for name, bench in zip(names, benchmarks) if bench != expected]
    if odd:
        raise ValueError(f"compare needs systems of one benchmark: {', '.join(odd)} not {expected}; a difference "
                         "between two benchmarks' scores means nothing")
    return expected


def check_shared_papers(systems: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """Each system must share papers with the baseline: a comparison over no paper is no comparison."""
    base_name, base = systems[0]
    for name, rows in systems[1:]:
        if not set(base) & set(rows):
            raise ValueError(f"{name} and {base_name} share no paper ({len(rows)} and {len(base)} papers, none in "
                             "common): were they scored on the same split?")


def compare_systems(systems: Sequence[tuple[str, Mapping[str, Mapping[str, Any]]]], metrics: Sequence[str],
                    n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0) -> list[dict[str, Any]]:
    """One row per (system, metric) for every system after the first (the baseline)."""
    (base_name, base), rows = systems[0], []
    for name, other in systems[1:]:
        result = paired_comparison(base, other, metrics, n_resamples, confidence, seed)
        for metric in metrics:
            r = result[metric]
            rows.append({"system": name, "baseline": base_name, "metric": metric, "n_papers": r["n_papers"],
                         "baseline_mean": r["mean_a"], "system_mean": r["mean_b"], "difference": r["difference"],
                         "ci_low": r["ci_low"], "ci_high": r["ci_high"], "p_value": r["p_value"],
                         "p_holm": r["p_holm"]})
    return rows


def plot_differences(rows: Sequence[Mapping[str, Any]], metrics: Sequence[str], path: str | Path,
                     labels: Mapping[str, str] | None = None, title: str = "") -> Path:
    """Per metric, each system's mean difference from the baseline with its interval as error bars, one colour
    per system, a line at 0; saved as PNG."""
    plt = headless_pyplot()

    systems = list(dict.fromkeys(r["system"] for r in rows))
    fig, ax = plt.subplots(figsize=(2.0 + 0.8 * len(metrics), 3.8))
    width = 0.7 / max(len(systems), 1)
    for s, system in enumerate(systems):
        by_metric = {r["metric"]: r for r in rows if r["system"] == system}
        xs, ys, low, high = [], [], [], []
        for m, metric in enumerate(metrics):
            r = by_metric.get(metric)
            if r is None or r["difference"] is None:
                continue
            xs.append(m + (s - (len(systems) - 1) / 2) * width)
            ys.append(r["difference"])
            low.append(r["difference"] - r["ci_low"] if r["ci_low"] is not None else 0.0)
            high.append(r["ci_high"] - r["difference"] if r["ci_high"] is not None else 0.0)
        ax.errorbar(xs, ys, yerr=[low, high], fmt="o", capsize=3, label=system)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(metrics)), [(labels or {}).get(m, m) for m in metrics], rotation=45, ha="right",
                  fontsize=8)
    baseline = rows[0]["baseline"] if rows else "baseline"
    ax.set_ylabel(f"difference from {baseline}")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return save_figure(fig, path)


def cmd_compare(args: argparse.Namespace) -> None:
    if len(args.systems) < 2:
        raise ValueError("compare needs two or more systems: the baseline, then the others")
    systems = [read_per_paper(p) for p in args.systems]
    blocks = [read_provenance(p) for p in args.systems]
    benchmark = check_same_benchmark([name for name, _ in systems],
                                     [benchmark_of(p, rows, block) for p, (_, rows), block in
                                      zip(args.systems, systems, blocks)], args.benchmark)
    check_comparable([name for name, _ in systems], blocks, args.allow_mixed_provenance)
    check_shared_papers(systems)
    if args.name:
        if len(args.name) != len(systems):
            raise ValueError(f"--name needs one name per system ({len(systems)}), got {len(args.name)}")
        systems = [(name, rows) for name, (_, rows) in zip(args.name, systems)]
    if len({name for name, _ in systems}) != len(systems):
        systems = [(f"{name}#{i}", rows) for i, (name, rows) in enumerate(systems)]
    shared = set.intersection(*(numeric_keys(rows) for _, rows in systems))
    metrics = args.metrics or [m for m in get_benchmark(benchmark).suite.metrics if m in shared]
    if not metrics:
        raise ValueError(f"the per_paper files share no {benchmark} metric")
    rows = compare_systems(systems, metrics, args.bootstrap, args.confidence, args.seed)
    print(f"{benchmark}: {', '.join(name for name, _ in systems[1:])} against {systems[0][0]} on the papers both "
          f"scored; difference = system - baseline; {100 * args.confidence:g}% CI: paired {INTERVAL_METHOD} "
          f"({args.bootstrap} resamples); p: paired permutation test, p_holm: Holm across the {len(metrics)} metrics")
    for metric, note in get_benchmark(benchmark).presentation.per_paper_notes.items():
        if metric in metrics:
            print(f"{metric}: {note} (not the value the results table shows)")
    print(format_table(rows))
    if args.out:
        json_path, csv_path = write_table(rows, args.out)
        print(f"\nwrote {json_path} and {csv_path}")
    if args.plot:
        path = plot_differences(rows, metrics, args.plot, get_benchmark(benchmark).suite.metric_labels(),
                                title=f"{benchmark}: difference from {systems[0][0]}")
        print(f"wrote {path}")


def add_compare_command(sub: argparse._SubParsersAction) -> None:
    """The `compare` command."""
    p = sub.add_parser("compare", help="paired comparison of systems' per-paper scores (the first is the baseline)")
    p.add_argument("systems", nargs="+", metavar="PER_PAPER",
                   help="per_paper.jsonl files, or evaluation folders holding one; two or more, the first the baseline")
    p.add_argument("--name", nargs="+", help="system names (default: the rows' system field)")
    p.add_argument("--benchmark", choices=sorted(BENCHMARKS), help="benchmark (default: detected from the keys)")
    p.add_argument("--metrics", nargs="+", metavar="METRIC",
                   help="metrics to compare (default: the benchmark's table metrics every file holds)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default: 0.95)")
    p.add_argument("--allow-mixed-provenance", action="store_true",
                   help="compare systems scored under a different dataset, profile, models, judge or prompts "
                        "(their summaries' provenance; never across benchmarks)")
    add_bootstrap_options(p)
    p.add_argument("--out", metavar="STEM", help="write the table as <STEM>.json and <STEM>.csv")
    p.add_argument("--plot", metavar="PNG", help="plot the differences with their intervals")
    p.set_defaults(func=cmd_compare)


__all__ = ["add_compare_command", "benchmark_of", "check_same_benchmark", "check_shared_papers", "compare_systems",
           "detect_benchmark", "plot_differences", "read_per_paper"]
