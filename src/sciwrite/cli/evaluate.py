"""`sciwrite evaluate <benchmark>`: every metric of a benchmark for prediction files, in the paper's table layout.

One implementation serves every benchmark of `sciwrite.benchmarks.BENCHMARKS`, with the same flags: ``--split``,
one or several ``--predictions`` (one system each, written to ``<out>/<system>/``), ``--bad-records error|skip``,
the model, judge, bootstrap and engine options, and the few options a benchmark declares
(`Benchmark.suite.options`). The scoring core scores (`sciwrite.scoring.files.evaluate_files`) and the benchmark
says what to print (`Benchmark.presentation.report`); this module only parses and prints.
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import replace
from pathlib import Path

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.budget import EXIT_BUDGET, EXIT_FAILED
from sciwrite.cli.flags import (
    ACCEPT_PARTIAL_PANEL,
    BAD_RECORDS_FLAG,
    BATCH_SIZE,
    CUTOFF,
    HUMAN_AGREEMENT,
    JUDGE,
    JUDGE_CHECK,
    METRICS,
    MODEL_ROLE,
    NO_JUDGE,
    OUT,
    PREDICTIONS,
    PROFILE,
    SOURCE,
    SPLIT,
    SYSTEM,
    add_bootstrap_flags,
    add_engine_flags,
    add_judge_flags,
)
from sciwrite.cli.judge_client import judge_config, usage_ledger
from sciwrite.cli.options import add_options, option_values
from sciwrite.core.conditions import summary_condition
from sciwrite.core.summary import HumanAgreementRecord, JudgeCheckRecord, LLMUsage, Summary
from sciwrite.core.tables import format_table
from sciwrite.core.trust import trust_card
from sciwrite.llm.capabilities import describe_adjustment
from sciwrite.llm.ledger import breach_line
from sciwrite.meta_eval.human_agreement_file import agreement_for_run, read_human_agreement
from sciwrite.meta_eval.judge_check_file import check_for_run, read_judge_check
from sciwrite.metrics.cutoff import format_cutoff
from sciwrite.metrics.judge_panel import AGGREGATES, PanelSpec, incomplete_text
from sciwrite.metrics.memorisation import format_memorisation
from sciwrite.models.plan import resolve_plan
from sciwrite.models.registry import ModelUnavailableError, roles_named
from sciwrite.scoring.files import evaluate_files
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.run_tables import RunTables, run_tables

logger = logging.getLogger(__name__)


#: What `sciwrite evaluate <benchmark> --help` says of its exit statuses.
EVALUATE_EXIT_STATUSES = ("exit status: 0 every file scored (a file over part of the split says n/N papers); 2 usage "
                          "or input error, named FILE:LINE, before any model loads (a bad line, a bad --out, a file "
                          "--require-complete refuses); 3 --max-cost kept judge requests from being sent (their "
                          "papers' judge scores left out), or the endpoint billed past it (the last line says by how "
                          f"much and why); {EXIT_FAILED} a judge panel is incomplete: a judge gave "
                          "some papers no usable score (--accept-partial-panel accepts it)")


def print_llm_record(summary: Summary) -> None:
    """The evaluation's LLM spend, the judge's snapshots (a warning when several answered) and what was not applied."""
    snapshots = summary.judge_snapshots or {}
    if len(snapshots) > 1:
        print(f"warning: {summary.system}: the judge answered from {len(snapshots)} snapshots "
              f"({', '.join(f'{k}: {v}' for k, v in snapshots.items())}); scores may not be comparable")
    for role, described in summary.llm_requests.items():
        for item in described.get("adjustments", []):
            print(f"{role}: not applied as asked: {describe_adjustment(item)}")


def print_usage(usage: LLMUsage | None) -> None:
    """The LLM requests' tokens and cost, and the ledger they are in; nothing when none was sent."""
    if usage is not None and usage.requests:
        unpriced = f" ({usage.unpriced_requests} unpriced)" if usage.unpriced_requests else ""
        print(f"LLM usage: {usage.requests} requests, {usage.prompt_tokens} prompt + {usage.completion_tokens} "
              f"completion tokens ({usage.reasoning_tokens} reasoning), ${usage.cost_usd or 0.0:.4f}{unpriced} -> "
              f"{usage.ledger}")


def print_contamination(summaries: list[Summary], tables: RunTables, out: Path) -> None:
    """Beside the tables: each system's memorisation signal, and with ``--cutoff`` the before/after split and where
    `evaluate_files` wrote it (``<out>/cutoff.json``, ``cutoff.csv``, the plot ``cutoff.png``); with several
    systems, the paired test across them (``cutoff_across_systems.csv``)."""
    lines = [line for line in map(format_memorisation, summaries) if line]
    if lines:
        print("\n" + "\n".join(lines))
    files = tables.files(out)
    if tables.cutoff:
        print("\n" + format_cutoff(summaries, tables.labels))
        print(f"wrote {files.cutoff_json}, {files.cutoff_csv} and the plot {files.cutoff_plot}")
        paired = tables.cutoff_across
        if paired:
            print(f"\nacross the {paired[0]['systems']} systems (each system's means before and after are a pair; "
                  "paired permutation test, Holm across metrics):")
            print(format_table([{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()} for r in paired]))
            print(f"wrote {files.across_csv}")


def judge_roles(bench: Benchmark) -> tuple[str, ...]:
    """The model roles of the benchmark's LLM-judge stages (its stage table says which)."""
    return tuple(dict.fromkeys(role for stage in bench.suite.stages if stage.judge for role in stage.roles))


def print_panels(tables: RunTables, out: Path) -> None:
    """Each system's judge panel (judges' means, alpha, judge noise) and, over several systems, Kendall's tau
    between judges, and where `evaluate_files` wrote it (``<out>/judge_panel_systems.json``)."""
    for system, panel in tables.panels.items():
        print(f"\njudge panel, {system}: {', '.join(panel['judges'])} x{panel['samples']} ({panel.get('aggregate')})")
        for criterion, block in panel["criteria"].items():
            means = ", ".join(f"{judge} {fmt(found['mean'])} [{fmt(found['interval'][0])}, {fmt(found['interval'][1])}]"
                              for judge, found in block["judges"].items())
            print(f"  {criterion}: {means}; alpha (ordinal) {fmt(block['krippendorff_alpha_ordinal'])}; "
                  f"within-paper sd {fmt(block['within_paper_sd'])}; judge noise share "
                  f"{fmt(block['judge_noise_share'])}")
    if tables.panel_agreement is not None:
        for criterion, block in tables.panel_agreement["criteria"].items():
            print(f"  across {len(tables.panels)} systems, {criterion}: mean Kendall tau between judges "
                  f"{fmt(block['mean_tau'])}")
        print(f"wrote {tables.files(out).panel_agreement}")


def incomplete_panels(summaries: list[Summary]) -> dict[str, str]:
    """System -> what its judge panel lacks (`incomplete_text`), for each system whose panel has a judge that gave
    some paper no usable score."""
    found = {}
    for summary in summaries:
        panel = summary.judge_panel
        text = incomplete_text(panel.papers_by_judge) if panel is not None and panel.complete is False else None
        if text:
            found[str(summary.system)] = text
    return found


def fmt(value: object) -> str:
    return "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def run_judges(args: argparse.Namespace, bench: Benchmark, models: dict[str, str]) -> tuple[str, ...]:
    """The run's LLM judges as written: ``--judge`` (each, for a panel), else the judge roles' models of the plan
    (``--model-role`` over the profile's); none with ``--no-judge`` or when the plan has no judge."""
    if args.judge:
        return tuple(args.judge)
    roles = judge_roles(bench)
    if args.no_judge or not roles:
        return ()
    plan = resolve_plan(roles_named(bench.suite.roles, roles), args.profile, models)
    found = []
    for role in roles:
        try:
            found.append(plan.model_id(role))
        except ModelUnavailableError:
            continue
    return tuple(dict.fromkeys(found))


def recorded_judge_check(args: argparse.Namespace, bench: Benchmark, models: dict[str, str]) -> JudgeCheckRecord | None:
    """``--judge-check DIR`` read and matched to the run's judge (`check_for_run`: another judge's or benchmark's
    check is refused, one line, before any model loads); None without the flag."""
    if not args.judge_check:
        return None
    return check_for_run(read_judge_check(args.judge_check), run_judges(args, bench, models), bench.name)


def recorded_human_agreement(args: argparse.Namespace, bench: Benchmark,
                             models: dict[str, str]) -> HumanAgreementRecord | None:
    """``--human-agreement DIR`` read and matched to the run's judge (`agreement_for_run`: another judge's or
    benchmark's record is refused, one line, before any model loads); None without the flag."""
    if not args.human_agreement:
        return None
    return agreement_for_run(read_human_agreement(args.human_agreement), run_judges(args, bench, models), bench.name)


def print_trust(args: argparse.Namespace, summaries: list[Summary]) -> None:
    """With ``--judge-check`` or ``--human-agreement``: what each summary's trust card now says of its judge (the
    check's verdict, marked when the judge failed it, and the agreement with people), as the board will show it;
    systems whose cards say the same share a line."""
    if not (args.judge_check or args.human_agreement):
        return
    said: dict[str, list[str]] = {}
    for summary in summaries:
        card = trust_card(summary, summary_condition(summary, args.profile or ""))
        if args.judge_check:
            said.setdefault(f"judge check recorded: {card.check_text()}", []).append(str(summary.system))
        if args.human_agreement:
            said.setdefault(f"agreement with people recorded: {card.human_agreement_text()}", []).append(
                str(summary.system))
    print()
    for text, systems in said.items():
        print(f"{', '.join(systems)}: {text}")


def scoring_request(args: argparse.Namespace, bench: Benchmark, out: Path) -> ScoringRequest:
    """The run's options as the scoring core takes them."""
    metrics = bench.suite.metrics_without_judge(args.metrics) if args.no_judge else args.metrics
    models = dict(args.model_role or [])
    if args.judge:  # the judge roles (the stage table's) get the first judge; the panel names them all
        models.update(dict.fromkeys(judge_roles(bench), args.judge[0]))
    panel = PanelSpec(tuple(args.judge or ()), args.judge_samples, args.judge_aggregate)
    judge = replace(judge_config(args), panel=panel if panel.is_panel else None)
    return ScoringRequest(split=args.split, source=args.source, profile=args.profile, models=models,
                          metrics=metrics, judge=judge, ledger=usage_ledger(args, out), batch_size=args.batch_size,
                          bootstrap=args.bootstrap, seed=args.bootstrap_seed, engine=args.engine, ray_address=args.ray_address,
                          ray_actors=args.ray_actors, bad_records=args.bad_records,
                          require_complete=args.require_complete, cutoff=args.cutoff,
                          options=option_values(args, bench.suite.options),
                          judge_check=recorded_judge_check(args, bench, models),
                          human_agreement=recorded_human_agreement(args, bench, models))


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Score the prediction files on the benchmark the command names, print its report, write the tables;
    `EXIT_BUDGET` when --max-cost kept judge requests from being sent or was not kept (the last line says by how
    much and why), else `EXIT_FAILED` when a judge panel is incomplete (a judge gave some paper no usable score)
    and --accept-partial-panel was not given."""
    bench = get_benchmark(args.benchmark)
    out = Path(args.out or Path("outputs") / bench.name)
    request = scoring_request(args, bench, out)
    results = evaluate_files(bench, args.predictions, request, systems=args.system, out_dir=out)
    summaries = [result.summary for result in results]
    tables = run_tables(bench, summaries)  # what evaluate_files wrote beside the systems' folders
    print(bench.presentation.report(summaries, out))
    print_contamination(summaries, tables, out)
    print_panels(tables, out)
    for summary in summaries:
        print_llm_record(summary)
    print_usage(summaries[0].usage)
    print_trust(args, summaries)
    print(f"\nwrote per_paper.jsonl, summary.json and summary.csv for each system under {out}/<system>/")
    incomplete = incomplete_panels(summaries)
    for system, text in incomplete.items():
        print(f"{system}: judge {text}; its judge scores are over the judges that answered (judge_failures counts "
              "those papers; each row's judge_panel_errors says why)")
    # the clients count for the whole run, and each summary records them as they stood: the last has them all
    not_sent = max(not_sent_over_budget(dict(summary.llm_requests)) for summary in summaries)
    if not_sent:
        print(f"--max-cost: {not_sent} judge requests (retries included) not sent; those papers' judge scores are left out "
              f"(exit status {EXIT_BUDGET})")
    breach = breach_line(request.ledger)  # the last line: by how much and why the budget was not kept
    if breach is not None:
        print(breach)
    if not_sent or breach is not None:
        return EXIT_BUDGET
    if incomplete and not args.accept_partial_panel:
        print(f"judge panel incomplete for {', '.join(incomplete)} (exit status {EXIT_FAILED}; rerun to ask again, "
              "with --judge-cache only the failed requests, or pass --accept-partial-panel to accept it)")
        return EXIT_FAILED
    return 0


def not_sent_over_budget(described: object) -> int:
    """The requests the budget kept from being sent, over an ``llm_requests`` block (a panel's nests its judges')."""
    if not isinstance(described, dict):
        return 0
    own = described.get("not_sent_over_budget")
    return (own if isinstance(own, int) else 0) + sum(not_sent_over_budget(v) for k, v in described.items()
                                                      if k != "not_sent_over_budget")


def add_benchmark_evaluate(evaluate: argparse._SubParsersAction, bench: Benchmark) -> None:
    """`sciwrite evaluate <bench.name>`: the same options for every benchmark."""
    p = evaluate.add_parser(bench.name, help=f"every {bench.title} metric for prediction files (the paper's results "
                                             "table)", epilog=EVALUATE_EXIT_STATUSES)
    fields = ", ".join(f'"{name}"' for name in bench.data.prediction_fields)
    PREDICTIONS.add(p, f'JSON Lines files, one per system: {{{fields}, "text" (or "pred")}} per paper; or a dataset '
                       "folder / Hub dataset id[:config] pushed by `sciwrite push`", required=True)
    data = bench.data
    SPLIT.add(p, f"the {bench.title} split or config to score against (default: {data.offline_config})",
              default=data.offline_config, choices=data.splits)
    SOURCE.add(p)
    PROFILE.add(p)
    MODEL_ROLE.add(p, f"override one model role ({', '.join(bench.suite.model_roles)}); repeatable")
    METRICS.add(p, f"only these metrics or scorers ({', '.join(bench.suite.stages.names)}) (default: all)")
    NO_JUDGE.add(p)
    JUDGE.add(p, "the LLM judge's model (any endpoint --model accepts); give it several times for a panel of judges "
                 "(default: the profile's judge, or --model-role judge=MODEL)", action="append")
    p.add_argument("--judge-samples", type=int, default=1, metavar="N",
                   help="ask each judge N times per paper, seeds 42, 43, ... (default 1: one reading, as the papers)")
    p.add_argument("--judge-aggregate", choices=AGGREGATES, default="mean",
                   help="how a panel combines its judges' scores (default mean)")
    ACCEPT_PARTIAL_PANEL.add(p)
    JUDGE_CHECK.add(p)
    HUMAN_AGREEMENT.add(p)
    add_judge_flags(p, "its paper's judge score is left out")
    BAD_RECORDS_FLAG.add(p)
    p.add_argument("--require-complete", action="store_true",
                   help="refuse a prediction file that leaves papers of the split out (default: score the papers it "
                        "has; every table, CSV row and plot then says n/N papers)")
    add_options(p, bench.suite.options)
    CUTOFF.add(p)
    SYSTEM.add(p, "system names in the tables (default: the prediction files' stems)")
    OUT.add(p, f"output folder; each system writes to <out>/<system>/ (default: outputs/{bench.name})")
    BATCH_SIZE.add(p, default=64)
    add_bootstrap_flags(p)
    add_engine_flags(p, "scoring")
    p.set_defaults(func=cmd_evaluate, benchmark=bench.name)


def add_evaluate_commands(sub: argparse._SubParsersAction) -> None:
    """The `evaluate` group: one command per benchmark."""
    evaluate = sub.add_parser("evaluate", help="score predictions").add_subparsers(dest="what", required=True)
    for bench in BENCHMARKS.values():
        add_benchmark_evaluate(evaluate, bench)
