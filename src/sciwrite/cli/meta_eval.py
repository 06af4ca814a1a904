"""`sciwrite meta-eval correlation|agreement|judges|sensitivity|judge-check|hallmark`: metric-metric correlations
across systems, metric-human agreement, judge-judge agreement, metric sensitivity to controlled perturbations of the
reference, whether a judge scores reference sections above damaged copies of them (see `sciwrite.meta_eval`), and
the reference checker on HALLMARK (`sciwrite.cli.hallmark`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.budget import EXIT_BUDGET
from sciwrite.cli.flags import (
    AGREEMENT_RECORD,
    BENCHMARK,
    BOOTSTRAP,
    CONFIDENCE,
    EVALS,
    JUDGE,
    LIMIT,
    METRICS,
    OUT,
    PLOT,
    PROFILE,
    RATINGS,
    SEED,
    SOURCE,
    STUDY,
    TABLE_OUT,
    add_bootstrap_flags,
    add_judge_flags,
)
from sciwrite.cli.hallmark import add_hallmark_command
from sciwrite.cli.judge_client import judge_config, usage_ledger
from sciwrite.core.results import check_output_folder
from sciwrite.core.tables import cell, format_table, write_table
from sciwrite.llm.ledger import breach_line
from sciwrite.meta_eval.agreement import judge_agreement, metric_agreement, metric_scores, read_per_paper, read_ratings
from sciwrite.meta_eval.human_agreement_file import (
    agreement_record,
    judge_rows,
    recorded_judges,
    write_agreement_record,
)
from sciwrite.meta_eval.judge_check import OVERALL, JudgeCheckRun, judge_role, pair_set, run_judge_check
from sciwrite.meta_eval.judge_pairs import CARD, KINDS
from sciwrite.metrics.correlation import correlations_from_dirs, plot_correlation_heatmap
from sciwrite.metrics.judge import llm_record, load_chat_model
from sciwrite.metrics.sensitivity import (
    PERTURBATIONS,
    failures,
    not_scored,
)
from sciwrite.models.plan import resolve_plan
from sciwrite.models.registry import roles_named


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


def agreement_judges(args: argparse.Namespace, paths: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    """(benchmark, judges) of the record ``--record`` writes: those of the summaries beside the per-paper files,
    else ``--benchmark`` and ``--judge``; a flag that contradicts the summaries is refused."""
    benchmark, judges = recorded_judges(paths)
    if args.benchmark and benchmark and args.benchmark != benchmark:
        raise ValueError(f"--benchmark {args.benchmark}: the per_paper files were scored on {benchmark}")
    if args.judge and judges and set(args.judge) != set(judges):
        raise ValueError(f"--judge {' '.join(args.judge)}: the per_paper files were scored by {' + '.join(judges)}")
    benchmark, judges = benchmark or args.benchmark, judges or tuple(args.judge or ())
    if not benchmark:
        raise ValueError("--record: no summary.json beside the per_paper files to read the benchmark from; pass "
                         "--benchmark")
    if not judges:
        raise ValueError("--record: the per_paper files' summaries name no LLM judge; pass --judge with the judge "
                         "whose scores they are")
    return benchmark, judges


def cmd_agreement(args: argparse.Namespace) -> None:
    ratings = read_ratings(args.ratings)
    paths = _system_paths(args.predictions_per_paper)
    judged = agreement_judges(args, paths) if args.record else None  # refused before the bootstrap runs
    scores = metric_scores(read_per_paper(paths), args.metrics)
    rows = metric_agreement(ratings, scores, n_resamples=args.bootstrap, confidence=args.confidence,
                            seed=args.bootstrap_seed)
    print(f"metric-human agreement; {args.confidence:.0%} bootstrap intervals, {args.bootstrap} resamples, "
          f"seed {args.bootstrap_seed}")
    print(format_table(rows, left=3))
    _write(rows, args.out)
    if judged is not None:
        benchmark, judges = judged
        kept = judge_rows(rows, get_benchmark(benchmark).suite.judge_metrics, benchmark)
        record = agreement_record(kept, benchmark=benchmark, judges=judges,
                                  study=args.study or Path(args.ratings).stem, ratings=args.ratings,
                                  confidence=args.confidence, resamples=args.bootstrap, seed=args.bootstrap_seed)
        path = write_agreement_record(record, args.record)
        left = sorted({str(r["metric"]) for r in rows} - {str(r["metric"]) for r in kept})
        print(f"wrote {path}: judge {' + '.join(judges)} on {benchmark}, study {record['study']}, "
              f"{len(kept)} rows (for `sciwrite evaluate {benchmark} --human-agreement {args.record}`)"
              + (f"; left out, not judge metrics: {', '.join(left)}" if left else ""))


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
                                        seed=args.seed, n_resamples=args.bootstrap, show_progress=True)
    rows, n_papers, suite = run.rows, run.n_papers, run.models
    print(f"{args.benchmark} sensitivity: the reference section scored as the prediction, against "
          f"{len(PERTURBATIONS)} perturbations of it, {n_papers} papers, profile {suite.profile}; difference = "
          f"perturbed - reference, 95% paired bootstrap interval ({args.bootstrap} resamples, seed {args.seed})")
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


JUDGE_CHECK_COLUMNS = ["kind", "in_rubric", "n_pairs", "passed", "ties", "unjudged", "pass_rate", "ci_low", "ci_high",
                       "above_chance"]


def print_judge_check(run: JudgeCheckRun, judge: str, title: str) -> None:
    """The check's table (the overall score per kind of damage), the judge's criteria when it has several, the kinds
    outside its rubric and the verdict."""
    n_pairs = len(run.outcomes)
    print(f"{title} judge check: judge {judge}, {run.n_papers} papers, {n_pairs} pairs (pair set {run.digest[:12]}); "
          f"a pair passes when the reference scores strictly above its damaged copy (a tie fails); "
          f"{run.confidence:.0%} Wilson intervals; above_chance: the interval lies above 0.5")
    print(format_table([{**r, "in_rubric": "-" if r["in_rubric"] is None else r["in_rubric"]} for r in run.headline()],
                       JUDGE_CHECK_COLUMNS, left=2))
    by_criterion = [r for r in run.rows if r["criterion"] != OVERALL]
    if by_criterion:
        print("\npass rate by the judge's own criteria (a tie fails):")
        criteria = list(dict.fromkeys(r["criterion"] for r in by_criterion))
        table = [{"kind": kind, **{c: next(r["pass_rate"] for r in by_criterion if r["kind"] == kind and r["criterion"] == c)
                                   for c in criteria}}
                 for kind in dict.fromkeys(r["kind"] for r in by_criterion)]
        print(format_table(table, ["kind", *criteria]))
    for kind, why in run.outside_rubric.items():
        print(f"outside the judge's rubric: {kind}: {why}")
    unjudged = sum(1 for o in run.outcomes if o.passed() is None)
    if unjudged:
        print(f"warning: {unjudged} pairs not judged (a side got no score: see errors in pairs.jsonl)")
    print(f"verdict: {'passes' if run.passes else 'fails'}: " + (
        "every kind of damage its rubric covers is caught above chance" if run.passes else
        f"not above chance on {', '.join(run.below) or 'any kind (no pair judged)'}"))
    if any(r["pass_rate"] == 1.0 and not r["above_chance"] for r in run.headline()):
        print("note: a kind passed on every pair yet is not above chance: too few pairs to tell (raise --limit)")


def write_judge_check(run: JudgeCheckRun, out: Path, judge: str, record: dict) -> None:
    """``judge_check.json`` / ``.csv`` (every row), ``summary.json`` (the verdict, the pair set's digest, the headline
    rows and the LLM record) and ``pairs.jsonl`` (every pair with both sides' scores) under `out`."""
    json_path, csv_path = write_table(run.rows, out / "judge_check")
    summary = {"benchmark": run.benchmark, "judge": judge, "n_papers": run.n_papers, "n_pairs": len(run.outcomes),
               "pair_set_digest": run.digest, "kinds": list(dict.fromkeys(o.pair.kind for o in run.outcomes)),
               "confidence": run.confidence, "verdict": "passes" if run.passes else "fails",
               "below_chance": run.below, "outside_rubric": run.outside_rubric, "card": str(CARD),
               "rows": run.headline(), **record}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    with (out / "pairs.jsonl").open("w", encoding="utf-8") as f:
        for outcome in run.outcomes:
            f.write(json.dumps(outcome.as_dict(), ensure_ascii=False) + "\n")
    print(f"wrote {json_path}, {csv_path}, {out / 'summary.json'} and every pair with its scores to "
          f"{out / 'pairs.jsonl'}")


JUDGE_CHECK_EXIT_STATUSES = (f"exit status: 0 every pair sent to the judge (whatever the verdict); 2 usage or input "
                             f"error; {EXIT_BUDGET} --max-cost kept some requests from being sent (those pairs are "
                             "unjudged; rerun with a higher budget and the same --judge-cache to resume)")


def cmd_judge_check(args: argparse.Namespace) -> int:
    """Build the pairs, judge them, print and write the figures; `EXIT_BUDGET` when --max-cost stopped requests."""
    bench = get_benchmark(args.benchmark)
    out = check_output_folder(Path(args.out or Path("outputs") / "judge-check" / bench.name))
    role = judge_role(bench)
    ledger = usage_ledger(args, out, command="judge-check")
    pairs = pair_set(bench, args.source, args.limit, args.kinds or tuple(KINDS))
    plan = resolve_plan(roles_named(bench.suite.roles, [role]), None, {role: args.judge})
    client, why = load_chat_model(plan, role, judge_config(args), ledger)
    if client is None:
        raise ValueError(f"--judge {args.judge}: {why}")
    run = run_judge_check(bench, pairs, client, confidence=args.confidence)
    print_judge_check(run, args.judge, bench.title)
    record = llm_record({role: client}, ledger)
    usage = record.get("llm_usage") or {}
    print(f"LLM usage: {usage.get('requests', 0)} requests, {usage.get('prompt_tokens', 0)} prompt + "
          f"{usage.get('completion_tokens', 0)} completion tokens, ${usage.get('cost_usd', 0.0):.4f}"
          + (f" ({usage['unpriced_requests']} unpriced)" if usage.get("unpriced_requests") else "")
          + f" -> {usage.get('ledger', out)} (replies from --judge-cache cost nothing and are not counted)")
    write_judge_check(run, out, args.judge, record)
    not_sent = sum(1 for o in run.outcomes if o.not_sent)
    if not_sent:
        print(f"--max-cost: {not_sent} pairs unjudged, their requests not sent (exit status {EXIT_BUDGET})")
    breach = breach_line(ledger)  # an endpoint that billed past the budget: said last, whatever fitted it
    if breach:
        print(breach)
    return EXIT_BUDGET if not_sent or breach else 0


def add_judge_check_command(msub: argparse._SubParsersAction) -> None:
    """`meta-eval judge-check`: the judge client's options are `sciwrite evaluate`'s."""
    k = msub.add_parser("judge-check", help="does a judge score reference sections above copies damaged in known ways "
                                            "(pass rate per kind of damage)",
                        description="Scores the offline sample's reference sections against copies damaged in known "
                                    "ways, with the benchmark's own judge prompt; the pair set is described in "
                                    f"{CARD}.", epilog=JUDGE_CHECK_EXIT_STATUSES)
    BENCHMARK.add(k, required=True, choices=sorted(BENCHMARKS))
    JUDGE.add(k, "the LLM judge's model (openai:<id>, openrouter:<id>, or an id served at --judge-base-url), asked "
                 "with the benchmark's own judge prompt", required=True)
    SOURCE.add(k, "the offline sample's folder (default: the sample, built on first use)")
    LIMIT.add(k, "only the first N papers of the sample")
    k.add_argument("--kinds", nargs="+", choices=tuple(KINDS), metavar="KIND",
                   help=f"only these kinds of damage ({', '.join(KINDS)}; default: all)")
    CONFIDENCE.add(k)
    add_judge_flags(k, "its pair is counted unjudged")
    OUT.add(k, metavar="DIR",
                   help="where to write judge_check.json and .csv (a row per kind), summary.json, pairs.jsonl and the "
                        "usage ledger usage.jsonl (default: outputs/judge-check/<benchmark>)")
    k.set_defaults(func=cmd_judge_check)


def add_meta_eval_commands(sub: argparse._SubParsersAction) -> None:
    """`meta-eval correlation`, `meta-eval agreement`, `meta-eval judges`, `meta-eval sensitivity`,
    `meta-eval judge-check`, `meta-eval hallmark`."""
    p = sub.add_parser("meta-eval", help="meta-evaluation: metric correlations, metric-human and judge agreement, "
                                          "sensitivity, the judge check")
    msub = p.add_subparsers(dest="meta_eval_command", required=True)

    c = msub.add_parser("correlation", help="Spearman correlations between metrics across systems (Table 3)")
    EVALS.add(c, required=True)
    METRICS.add(c, "metrics to correlate (default: numeric in every summary)")
    TABLE_OUT.add(c, "write the table to STEM.json and STEM.csv")
    PLOT.add(c, "write a heat map")
    c.set_defaults(func=cmd_correlation)

    a = msub.add_parser("agreement", help="Kendall tau / Spearman between metrics and human ratings")
    RATINGS.add(a, "human ratings, JSON Lines (see README, Meta-evaluation)", required=True)
    a.add_argument("--predictions-per-paper", nargs="+", required=True, metavar="SYSTEM=PATH",
                   help="per_paper.jsonl written by `sciwrite evaluate`, one per system")
    METRICS.add(a, "metrics to compare (default: numeric in every system's rows)")
    add_bootstrap_flags(a, "papers")
    CONFIDENCE.add(a)
    TABLE_OUT.add(a, "write the table to STEM.json and STEM.csv")
    AGREEMENT_RECORD.add(a)
    STUDY.add(a)
    BENCHMARK.add(a, "the benchmark the judge scored (default: the per_paper files' summaries say)",
                  choices=sorted(BENCHMARKS))
    JUDGE.add(a, "the judge model whose scores were compared, for --record; repeat for a panel (default: the "
                 "per_paper files' summaries say)", action="append")
    a.set_defaults(func=cmd_agreement)

    j = msub.add_parser("judges", help="Goodman-Kruskal gamma and pairwise agreement between two judges")
    j.add_argument("--judge-a", required=True, metavar="FILE", help="first judge's scores, JSON Lines like the ratings")
    j.add_argument("--judge-b", required=True, metavar="FILE", help="second judge's scores, JSON Lines like the ratings")
    TABLE_OUT.add(j, "write the table to STEM.json and STEM.csv")
    j.set_defaults(func=cmd_judges)

    s = msub.add_parser("sensitivity", help="do the metrics move as expected under perturbations of the reference?")
    BENCHMARK.add(s, required=True, choices=sorted(BENCHMARKS))
    PROFILE.add(s)
    LIMIT.add(s, "only the first N papers of the sample")
    METRICS.add(s, "only these metrics (default: all the profile has)")
    BOOTSTRAP.add(s, "bootstrap / permutation resamples of the intervals and p-values (default: 1000)")
    SEED.add(s, "seed of the perturbations, and of their paired bootstrap (default: 0)")
    TABLE_OUT.add(s, "write the table to STEM.json and STEM.csv")
    s.set_defaults(func=cmd_sensitivity)
    add_judge_check_command(msub)
    add_hallmark_command(msub)
