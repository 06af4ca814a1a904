"""`sciwrite meta-eval correlation|agreement|judges|sensitivity`: metric-metric correlations across systems,
metric-human agreement, judge-judge agreement, and metric sensitivity to controlled perturbations of the reference
(see `sciwrite.meta_eval`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.options import PROFILES, DeprecatedAlias, confidence_level, former_names
from sciwrite.core.results import check_output_folder
from sciwrite.core.tables import cell, format_table, write_table
from sciwrite.meta_eval.agreement import judge_agreement, metric_agreement, metric_scores, read_per_paper, read_ratings
from sciwrite.metrics.correlation import correlations_from_dirs, plot_correlation_heatmap
from sciwrite.metrics.sensitivity import (
    PERTURBATIONS,
    failures,
    not_scored,
)


def _write(rows: list[dict], stem: str | None) -> None:
    if stem:
        json_path, csv_path = write_table(rows, stem)
        print(f"wrote {json_path} and {csv_path}")


def cmd_correlation(args: argparse.Namespace) -> None:
    table = correlations_from_dirs(args.evals, args.metrics)
    rows = table.rows()
    print("\n".join(table.notes()))
    print(format_table(rows, ["metric", *table.metrics]))
    _write(rows, args.out)
    if args.plot:
        print(f"wrote {plot_correlation_heatmap(table, args.plot)}")


def _system_paths(specs: list[str]) -> dict[str, str]:
    paths: dict[str, str] = {}
    for spec in specs:
        system, sep, path = spec.partition("=")
        if not sep or not system or not path:
            raise ValueError(f"--predictions-per-paper wants SYSTEM=PATH, got {spec!r}")
        if system in paths:
            raise ValueError(f"--predictions-per-paper names system {system!r} twice")
        paths[system] = path
    return paths


def cmd_agreement(args: argparse.Namespace) -> None:
    ratings = read_ratings(args.ratings)
    scores = metric_scores(read_per_paper(_system_paths(args.predictions_per_paper)), args.metrics)
    rows = metric_agreement(ratings, scores, n_resamples=args.resamples, confidence=args.confidence, seed=args.seed)
    print(f"metric-human agreement; {args.confidence:.0%} bootstrap intervals, {args.resamples} resamples, "
          f"seed {args.seed}")
    print(format_table(rows, left=3))
    _write(rows, args.out)


def cmd_judges(args: argparse.Namespace) -> None:
    rows = judge_agreement(read_ratings(args.judge_a), read_ratings(args.judge_b))
    print("judge agreement over items both scored; pairwise agreement and gamma leave out pairs tied in either "
          "judge (coverage: the share of pairs compared)")
    print(format_table(rows))
    _write(rows, args.out)


SENSITIVITY_COLUMNS = ["metric", "perturbation", "expected", "n_papers", "reference", "perturbed", "difference",
                       "ci_low", "ci_high", "p_value", "moved_as_expected"]


def cmd_sensitivity(args: argparse.Namespace) -> None:
    bench = get_benchmark(args.benchmark)
    if bench.studies.sensitivity is None:
        raise ValueError(f"benchmark {bench.name!r} declares no sensitivity analysis")
    if args.out:  # checked before the models load, so that a finished run is never lost to its output path
        check_output_folder(Path(args.out).parent)
    run = bench.studies.sensitivity.run(args.profile, bench.suite.expand_metrics(args.metrics), args.limit,
                                        seed=args.seed, n_resamples=args.resamples, show_progress=True)
    rows, n_papers, suite = run.rows, run.n_papers, run.models
    print(f"{args.benchmark} sensitivity: the reference section scored as the prediction, against "
          f"{len(PERTURBATIONS)} perturbations of it, {n_papers} papers, profile {suite.profile}; difference = "
          f"perturbed - reference, 95% paired bootstrap interval ({args.resamples} resamples, seed {args.seed})")
    print(format_table(rows, SENSITIVITY_COLUMNS, left=3))
    failed = failures(rows)
    print(f"\nfails to move as expected ({len(failed)}):" if failed else "\nfails to move as expected: none")
    for r in failed:
        print(f"  {r['metric']} under {r['perturbation']}: expected {r['expected']}, difference "
              f"{cell(r['difference'])} [{cell(r['ci_low'])}, {cell(r['ci_high'])}]")
    for r in not_scored(rows):
        print(f"not scored: {r['metric']} under {r['perturbation']} ({r['n_papers']} papers scored both ways)")
    for metric, why in suite.not_computed.items():
        if why != "not requested":
            print(f"not computed: {metric}: {why}")
    _write(rows, args.out)


def add_meta_eval_commands(sub: argparse._SubParsersAction) -> None:
    """`meta-eval correlation`, `meta-eval agreement`, `meta-eval judges`, `meta-eval sensitivity`."""
    p = sub.add_parser("meta-eval", help="meta-evaluation: metric correlations, metric-human and judge agreement, "
                                          "sensitivity")
    msub = p.add_subparsers(dest="meta_eval_command", required=True)

    c = msub.add_parser("correlation", help="Spearman correlations between metrics across systems (Table 3)")
    c.add_argument("--evals", nargs="+", required=True, metavar="DIR",
                   help="evaluation folders (one system each) holding summary.json")
    c.add_argument("--metrics", nargs="+", help="metrics to correlate (default: numeric in every summary)")
    c.add_argument("--out", metavar="STEM", help="write the table to STEM.json and STEM.csv")
    c.add_argument("--plot", metavar="PNG", help="write a heat map")
    c.set_defaults(func=cmd_correlation)

    a = msub.add_parser("agreement", help="Kendall tau / Spearman between metrics and human ratings")
    a.add_argument("--ratings", required=True, help="human ratings, JSON Lines (see README, Meta-evaluation)")
    a.add_argument("--predictions-per-paper", nargs="+", required=True, metavar="SYSTEM=PATH",
                   help="per_paper.jsonl written by `sciwrite evaluate`, one per system")
    a.add_argument("--metrics", nargs="+", help="metrics to compare (default: numeric in every system's rows)")
    a.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    a.add_argument("--confidence", type=confidence_level, default=0.95, metavar="LEVEL",
                   help="interval level, strictly between 0 and 1 (default 0.95)")
    a.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    a.add_argument("--out", metavar="STEM", help="write the table to STEM.json and STEM.csv")
    a.set_defaults(func=cmd_agreement)

    j = msub.add_parser("judges", help="Goodman-Kruskal gamma and pairwise agreement between two judges")
    j.add_argument("--judge-a", "--a", dest="judge_a", action=DeprecatedAlias, required=True, metavar="FILE",
                   help="first judge's scores, JSON Lines like the ratings" + former_names(["--a"]))
    j.add_argument("--judge-b", "--b", dest="judge_b", action=DeprecatedAlias, required=True, metavar="FILE",
                   help="second judge's scores, JSON Lines like the ratings" + former_names(["--b"]))
    j.add_argument("--out", metavar="STEM", help="write the table to STEM.json and STEM.csv")
    j.set_defaults(func=cmd_judges)

    s = msub.add_parser("sensitivity", help="do the metrics move as expected under perturbations of the reference?")
    s.add_argument("--benchmark", required=True, choices=sorted(BENCHMARKS))
    s.add_argument("--profile", choices=PROFILES, help="model profile (default: $SCIWRITE_PROFILE or paper)")
    s.add_argument("--limit", type=int, help="only the first N papers of the sample")
    s.add_argument("--metrics", nargs="+", metavar="METRIC", help="only these metrics (default: all the profile has)")
    s.add_argument("--resamples", type=int, default=1000, help="bootstrap / permutation resamples (default 1000)")
    s.add_argument("--seed", type=int, default=0, help="seed of the perturbations and the bootstrap (default 0)")
    s.add_argument("--out", metavar="STEM", help="write the table to STEM.json and STEM.csv")
    s.set_defaults(func=cmd_sensitivity)
