"""`sciwrite compare A B [C ...]`: paired comparisons of systems on the papers they both scored, from the
per_paper.jsonl files `sciwrite evaluate` writes. The first system is the baseline; for every other system and
metric: the mean difference (system - baseline), its paired-bootstrap interval, a paired permutation test p-value
and the Holm-adjusted p-value across the metrics compared (`sciwrite.stats.paired_comparison`). Systems whose
summaries' provenance differ (benchmark, dataset, profile, models, judge, prompts) are refused unless
``--allow-mixed-provenance``; systems of different benchmarks (their rows' ``benchmark``, their provenance, or their
metrics), systems with no paper in common, and a per-paper file with a paper on two lines are always refused,
naming the problem. The dataset content is compared when both summaries fingerprint its rows; an older summary's
fingerprint (the `datasets` cache's) is not, and a note says so (`sciwrite.core.provenance.content_unchecked`).

No paper is lost without a word: a row without a paper_id, or a score that is not a finite number ("high", NaN),
is refused naming the file, line, paper and metric; a paper without a value (null) for a metric is left out of that
metric, and a note names it. A ``--metrics`` name that some file does not score is refused, naming the metrics the
files share and the closest name."""

from __future__ import annotations

import argparse
import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.evaluate import add_bootstrap_options
from sciwrite.cli.options import confidence_level
from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import iter_json_lines
from sciwrite.core.provenance import content_unchecked, provenance_differences, schema_version_of, snapshot_changes
from sciwrite.core.results import read_summary
from sciwrite.core.tables import format_table, headless_pyplot, save_figure, write_table
from sciwrite.stats import INTERVAL_METHOD, paired_comparison

#: Papers named in a note before "and N more".
NAMED_PAPERS = 5


@dataclass(frozen=True)
class PerPaperFile:
    """One system's per_paper.jsonl: where it is, the system's name, its rows by paper_id and the line of each."""

    path: Path
    name: str
    rows: dict[str, dict[str, Any]]
    lines: dict[str, int]

    def where(self, paper_id: str, field: str) -> Where:
        return Where(path=self.path, line=self.lines.get(paper_id), record=paper_id, field=field)


def _paper_id(value: Any, path: Path, number: int) -> str:
    """A row's paper_id as text: a non-empty string or an integer; anything else is refused at its line."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value
    raise InputError(f"paper_id must be a non-empty string, got {value!r}", Where(path=path, line=number,
                     field="paper_id"), hint="give every row its paper's id (rows without one cannot be paired)")


def read_per_paper_file(path: str | Path) -> PerPaperFile:
    """A per_paper.jsonl file, or a folder holding one. The name is the rows' ``system`` field, else the folder's
    name (the file's stem for a file given by name). A line that is not a JSON object, a row without a usable
    paper_id and a paper_id on two lines are errors naming the file and line."""
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
            raise InputError(problem, Where(path=path, line=number))
        if not isinstance(row, dict) or "paper_id" not in row:
            raise InputError("expected an object with a paper_id", Where(path=path, line=number))
        paper_id = _paper_id(row["paper_id"], path, number)
        if paper_id in rows:
            raise InputError(f"paper {paper_id!r} again (first at line {first_line[paper_id]}): which row counts?",
                             Where(path=path, line=number), hint="keep one row per paper")
        rows[paper_id], first_line[paper_id] = row, number
    if not rows:
        raise InputError("no rows", Where(path=path))
    names = {row.get("system") for row in rows.values()} - {None}
    name = names.pop() if len(names) == 1 else (path.parent.name if path.name == "per_paper.jsonl" else fallback)
    return PerPaperFile(path, str(name), rows, first_line)


def read_per_paper(path: str | Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """(system name, {paper_id: row}) of a per_paper.jsonl file or a folder holding one (`read_per_paper_file`)."""
    read = read_per_paper_file(path)
    return read.name, read.rows


def check_values(file: PerPaperFile, metrics: Iterable[str]) -> None:
    """Every value of `metrics` in the file is a finite number or null (a paper without that score); anything else
    ("high", NaN, true) is an error naming the file, line, paper and metric: it would silently drop the paper."""
    for paper_id, row in file.rows.items():
        for metric in metrics:
            value = row.get(metric)
            if value is None or (_is_number(value) and math.isfinite(value)):
                continue
            raise InputError(f"{value!r} is not a score", file.where(paper_id, metric),
                             hint="write a finite number, or null for a paper without this score")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read_provenance(path: str | Path) -> dict[str, Any] | None:
    """The provenance block of the summary.json beside a per_paper.jsonl file (None for a schema-0 summary or none),
    read and checked by `sciwrite.core.results.read_summary` (an error names the file and the field)."""
    path = Path(path)
    summary = (path if path.is_dir() else path.parent) / "summary.json"
    if not summary.is_file():
        return None
    data = read_summary(summary)
    block = data.get("provenance")
    return block if schema_version_of(data) >= 1 and isinstance(block, dict) else None


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
        unchecked = content_unchecked(base, block)
        if unchecked:
            print(f"note: {name} vs {names[0]}: {unchecked}")


def numeric_keys(rows: Mapping[str, Mapping[str, Any]]) -> set[str]:
    """Keys holding a number (not a bool) in at least one row."""
    return {k for row in rows.values() for k, v in row.items() if _is_number(v)}


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


def choose_metrics(files: Sequence[PerPaperFile], benchmark: str, asked: Sequence[str] | None) -> list[str]:
    """The metrics to compare: `asked` (each in every file, else an error listing the files' metrics and the
    closest name), or the benchmark's table metrics every file scores. Every compared or table metric's values are
    checked (`check_values`)."""
    suite = list(get_benchmark(benchmark).suite.metrics)
    scored = [numeric_keys(file.rows) for file in files]
    if asked:
        for metric in asked:
            _check_asked(metric, files, scored)
        metrics = list(dict.fromkeys(asked))
    else:
        metrics = [m for m in suite if all(m in keys for keys in scored)]
        for file, keys in zip(files, scored):
            left_out = [m for m in suite if m not in keys and any(m in other for other in scored)]
            if left_out:
                print(f"note: not compared: {', '.join(left_out)} ({file.name} has no value for it in {file.path})")
    for file in files:
        check_values(file, [m for m in dict.fromkeys([*metrics, *suite]) if any(m in r for r in file.rows.values())])
    if not metrics:
        raise InputError(f"the per_paper files share no {benchmark} metric",
                         hint="name the metrics to compare with --metrics")
    return metrics


def _check_asked(metric: str, files: Sequence[PerPaperFile], scored: Sequence[set[str]]) -> None:
    """A --metrics name every file scores; else an error naming the files without it, the metrics they share and
    the closest name (difflib)."""
    lacking = [file for file, keys in zip(files, scored) if metric not in keys]
    if not lacking:
        return
    shared = sorted(set.intersection(*map(set, scored)))
    close = difflib.get_close_matches(metric, sorted(set().union(*scored)), n=1)
    guess = f"did you mean {close[0]!r}? " if close else ""
    where = "none of the files" if len(lacking) == len(files) else ", ".join(str(f.path) for f in lacking)
    raise InputError(f"--metrics {metric!r} is scored in {where}",
                     hint=f"{guess}the metrics every file scores: {', '.join(shared) or 'none'}")


def missing_notes(files: Sequence[PerPaperFile], names: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """One line per (system, metric) whose shared papers lack a value (null or absent) on either side: those papers
    are left out of that metric only, and said so (how many, and which)."""
    (base, *others), notes = files, []
    for file, name in zip(others, names[1:]):
        shared = [pid for pid in base.rows if pid in file.rows]
        for metric in metrics:
            left = [pid for pid in shared if base.rows[pid].get(metric) is None or file.rows[pid].get(metric) is None]
            if left:
                shown = ", ".join(left[:NAMED_PAPERS]) + (f" and {len(left) - NAMED_PAPERS} more"
                                                          if len(left) > NAMED_PAPERS else "")
                notes.append(f"note: {name} vs {names[0]}: {metric}: {len(left)} of {len(shared)} shared papers "
                             f"have no value on one side and are left out of it ({shown})")
    return notes


def cmd_compare(args: argparse.Namespace) -> None:
    if len(args.systems) < 2:
        raise InputError("compare needs two or more systems: the baseline, then the others")
    files = [read_per_paper_file(p) for p in args.systems]
    blocks = [read_provenance(p) for p in args.systems]
    benchmark = check_same_benchmark([f.name for f in files],
                                     [benchmark_of(f.path, f.rows, block) for f, block in zip(files, blocks)],
                                     args.benchmark)
    check_comparable([f.name for f in files], blocks, args.allow_mixed_provenance)
    check_shared_papers([(f.name, f.rows) for f in files])
    names = [f.name for f in files]
    if args.name:
        if len(args.name) != len(files):
            raise InputError(f"--name needs one name per system ({len(files)}), got {len(args.name)}")
        names = list(args.name)
    if len(set(names)) != len(names):
        names = [f"{name}#{i}" for i, name in enumerate(names)]
    metrics = choose_metrics(files, benchmark, args.metrics)
    systems = [(name, file.rows) for name, file in zip(names, files)]
    rows = compare_systems(systems, metrics, args.bootstrap, args.confidence, args.seed)
    print(f"{benchmark}: {', '.join(names[1:])} against {names[0]} on the papers both "
          f"scored; difference = system - baseline; {100 * args.confidence:g}% CI: paired {INTERVAL_METHOD} "
          f"({args.bootstrap} resamples); p: paired permutation test, p_holm: Holm across the {len(metrics)} metrics")
    for metric, note in get_benchmark(benchmark).presentation.per_paper_notes.items():
        if metric in metrics:
            print(f"{metric}: {note} (not the value the results table shows)")
    for line in missing_notes(files, names, metrics):
        print(line)
    print(format_table(rows))
    if args.out:
        json_path, csv_path = write_table(rows, args.out)
        print(f"\nwrote {json_path} and {csv_path}")
    if args.plot:
        path = plot_differences(rows, metrics, args.plot, get_benchmark(benchmark).suite.metric_labels(),
                                title=f"{benchmark}: difference from {names[0]}")
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
    p.add_argument("--confidence", type=confidence_level, default=0.95, metavar="LEVEL",
                   help="interval level, strictly between 0 and 1 (default: 0.95)")
    p.add_argument("--allow-mixed-provenance", action="store_true",
                   help="compare systems scored under a different dataset, profile, models, judge or prompts "
                        "(their summaries' provenance; never across benchmarks)")
    add_bootstrap_options(p)
    p.add_argument("--out", metavar="STEM", help="write the table as <STEM>.json and <STEM>.csv")
    p.add_argument("--plot", metavar="PNG", help="plot the differences with their intervals")
    p.set_defaults(func=cmd_compare)


__all__ = ["PerPaperFile", "add_compare_command", "benchmark_of", "check_same_benchmark", "check_shared_papers",
           "check_values", "choose_metrics", "compare_systems", "detect_benchmark", "missing_notes",
           "plot_differences", "read_per_paper", "read_per_paper_file"]
