"""`sciwrite evaluate <benchmark>`: every metric of a benchmark for prediction files, in the paper's table layout.

One implementation serves every benchmark of `sciwrite.benchmarks.BENCHMARKS`, with the same flags: ``--split``,
one or several ``--predictions`` (one system each, written to ``<out>/<system>/``), ``--bad-records error|skip``,
the model, judge, bootstrap and engine options, and the few options a benchmark declares
(`Benchmark.suite.options`). The scoring core scores (`sciwrite.scoring.files.evaluate_files`) and the benchmark
says what to print (`Benchmark.presentation.report`); this module only parses and prints.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
from pathlib import Path

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.engine_options import add_engine_options
from sciwrite.cli.generate_common import EXIT_BUDGET, LEDGER_NAME, budget_usd, model_option
from sciwrite.cli.options import (
    PROFILES,
    DeprecatedAlias,
    add_options,
    former_names,
    iso_date,
    key_value,
    option_values,
)
from sciwrite.core.predictions import BAD_RECORDS, DEFAULT_BAD_RECORDS
from sciwrite.core.tables import format_table, write_table
from sciwrite.llm.capabilities import describe_adjustment
from sciwrite.llm.ledger import PriceTable, UsageLedger
from sciwrite.metrics.cutoff import across_systems, cutoff_rows, format_cutoff, plot_cutoff
from sciwrite.metrics.judge_panel import AGGREGATES, PANEL, PanelSpec, systems_agreement
from sciwrite.metrics.memorisation import format_memorisation
from sciwrite.scoring.files import evaluate_files
from sciwrite.scoring.request import ScoringRequest

logger = logging.getLogger(__name__)


#: What `sciwrite evaluate <benchmark> --help` says of its exit statuses.
EVALUATE_EXIT_STATUSES = ("exit status: 0 every file scored (a file over part of the split says n/N papers); 2 usage "
                          "or input error, named FILE:LINE, before any model loads (a bad line, a bad --out, a file "
                          "--require-complete refuses); 3 --max-cost kept judge requests from being sent (their papers' "
                          "judge scores left out)")


def llm_options(args: argparse.Namespace, out: Path, command: str = "evaluate") -> dict[str, object]:
    """The judge's (and SciIG's citation extractor's) client options: endpoint, cache, model options, and the usage
    ledger under the evaluation folder, its lines tagged with this run's id (`command` and the time), its budget
    ``--max-cost`` where the command has one (`sciwrite human-eval llm-annotate` shares these options)."""
    run = f"{command}-{datetime.datetime.now(datetime.UTC).strftime('%Y%m%dT%H%M%S.%fZ')}"
    options: dict[str, object] = {k: v for k, v in (("base_url", args.base_url),
                                                    ("cache_path", args.judge_cache)) if v}
    if args.judge_option:
        options["options"] = dict(args.judge_option)
    options["ledger"] = UsageLedger(out / LEDGER_NAME, prices=PriceTable.load(args.prices), tags={"run": run},
                                    max_cost=getattr(args, "max_cost", None))
    return options


def print_llm_record(summary: dict) -> None:
    """The evaluation's LLM spend, the judge's snapshots (a warning when several answered) and what was not applied."""
    snapshots = summary.get("judge_snapshots") or {}
    if len(snapshots) > 1:
        print(f"warning: {summary['system']}: the judge answered from {len(snapshots)} snapshots "
              f"({', '.join(f'{k}: {v}' for k, v in snapshots.items())}); scores may not be comparable")
    for role, described in (summary.get("llm_requests") or {}).items():
        for item in described.get("adjustments", []):
            print(f"{role}: not applied as asked: {describe_adjustment(item)}")


def print_usage(summary: dict) -> None:
    usage = summary.get("llm_usage")
    if usage and usage.get("requests"):
        unpriced = f" ({usage['unpriced_requests']} unpriced)" if usage["unpriced_requests"] else ""
        print(f"LLM usage: {usage['requests']} requests, {usage['prompt_tokens']} prompt + {usage['completion_tokens']} "
              f"completion tokens ({usage['reasoning_tokens']} reasoning), ${usage['cost_usd']:.4f}{unpriced} -> "
              f"{usage['ledger']}")


def print_contamination(summaries: list[dict], bench: Benchmark, out: Path) -> None:
    """Beside the tables: each system's memorisation signal, and with ``--cutoff`` the before/after split, also
    written as ``<out>/cutoff.json``, ``cutoff.csv`` and the plot ``cutoff.png``; with several systems, the paired
    test across them (``cutoff_across_systems.csv``)."""
    lines = [line for line in map(format_memorisation, summaries) if line]
    if lines:
        print("\n" + "\n".join(lines))
    labels = {**{key: f"{group} {label}" for group, columns in bench.presentation.board_groups.items()
                 for key, label in columns}, **bench.suite.metric_labels(), "memorisation": "memorisation"}
    rows = cutoff_rows(summaries, labels)
    if rows:
        print("\n" + format_cutoff(summaries, labels))
        json_path, csv_path = write_table(rows, out / "cutoff")
        print(f"wrote {json_path}, {csv_path} and the plot {plot_cutoff(rows, out / 'cutoff.png')}")
        paired = across_systems(summaries, labels)
        if paired:
            print(f"\nacross the {paired[0]['systems']} systems (each system's means before and after are a pair; "
                  "paired permutation test, Holm across metrics):")
            print(format_table([{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()} for r in paired]))
            print(f"wrote {write_table(paired, out / 'cutoff_across_systems')[1]}")


def judge_roles(bench: Benchmark) -> tuple[str, ...]:
    """The model roles of the benchmark's LLM-judge stages (its stage table says which)."""
    return tuple(dict.fromkeys(role for stage in bench.suite.stages if stage.judge for role in stage.roles))


def print_panels(summaries: list[dict], out: Path) -> None:
    """Each system's judge panel (judges' means, alpha, judge noise) and, over several systems, Kendall's tau
    between judges, written as ``<out>/judge_panel_systems.json``."""
    panels = {summary["system"]: summary["judge_panel"] for summary in summaries if summary.get("judge_panel")}
    for system, panel in panels.items():
        print(f"\njudge panel, {system}: {', '.join(panel['judges'])} x{panel['samples']} ({panel.get('aggregate')})")
        for criterion, block in panel["criteria"].items():
            means = ", ".join(f"{judge} {fmt(found['mean'])} [{fmt(found['interval'][0])}, {fmt(found['interval'][1])}]"
                              for judge, found in block["judges"].items())
            print(f"  {criterion}: {means}; alpha (ordinal) {fmt(block['krippendorff_alpha_ordinal'])}; "
                  f"within-paper sd {fmt(block['within_paper_sd'])}; judge noise share "
                  f"{fmt(block['judge_noise_share'])}")
    if len(panels) >= 2:
        agreement = systems_agreement(panels)
        for criterion, block in agreement["criteria"].items():
            print(f"  across {len(panels)} systems, {criterion}: mean Kendall tau between judges "
                  f"{fmt(block['mean_tau'])}")
        path = out / "judge_panel_systems.json"
        path.write_text(json.dumps(agreement, indent=2) + "\n")
        print(f"wrote {path}")


def fmt(value: object) -> str:
    return "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def scoring_request(args: argparse.Namespace, bench: Benchmark, out: Path) -> ScoringRequest:
    """The run's options as the scoring core takes them."""
    metrics = bench.suite.metrics_without_judge(args.metrics) if args.no_judge else args.metrics
    models, judge_options = dict(args.model or []), llm_options(args, out)
    if args.judge:  # the judge roles (the stage table's) get the first judge; the panel names them all
        models.update(dict.fromkeys(judge_roles(bench), args.judge[0]))
    panel = PanelSpec(tuple(args.judge or ()), args.judge_samples, args.judge_aggregate)
    if panel.is_panel:
        judge_options[PANEL] = panel
    return ScoringRequest(split=args.split, source=args.source, profile=args.profile, models=models,
                          metrics=metrics, judge_options=judge_options, batch_size=args.batch_size,
                          bootstrap=args.bootstrap, seed=args.seed, engine=args.engine, ray_address=args.ray_address,
                          ray_actors=args.ray_actors, bad_records=args.bad_records,
                          require_complete=args.require_complete, cutoff=args.cutoff,
                          options=option_values(args, bench.suite.options))


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Score the prediction files on the benchmark the command names, print its report, write the tables;
    `EXIT_BUDGET` when --max-cost kept judge requests from being sent."""
    bench = get_benchmark(args.benchmark)
    out = Path(args.out or Path("outputs") / bench.name)
    results = evaluate_files(bench, args.predictions, scoring_request(args, bench, out), systems=args.system,
                             out_dir=out)
    summaries = [result.summary for result in results]
    print(bench.presentation.report(summaries, out))
    print_contamination(summaries, bench, out)
    print_panels(summaries, out)
    for summary in summaries:
        print_llm_record(summary)
    print_usage(summaries[0])
    print(f"\nwrote per_paper.jsonl, summary.json and summary.csv for each system under {out}/<system>/")
    # the clients count for the whole run, and each summary records them as they stood: the last has them all
    not_sent = max(not_sent_over_budget(summary.get("llm_requests")) for summary in summaries)
    if not_sent:
        print(f"--max-cost: {not_sent} judge requests (retries included) not sent; those papers' judge scores are left out "
              f"(exit status {EXIT_BUDGET})")
        return EXIT_BUDGET
    return 0


def not_sent_over_budget(described: object) -> int:
    """The requests the budget kept from being sent, over an ``llm_requests`` block (a panel's nests its judges')."""
    if not isinstance(described, dict):
        return 0
    own = described.get("not_sent_over_budget")
    return (own if isinstance(own, int) else 0) + sum(not_sent_over_budget(v) for k, v in described.items()
                                                      if k != "not_sent_over_budget")


_role_model = key_value("ROLE=MODEL", "nli=path/to/model")


def add_llm_options(p: argparse.ArgumentParser, former: tuple[str, ...] = ("--judge-base-url",)) -> None:
    """The endpoint of the judge (and SciIG's citation extractor), its cache, model options and price table; a
    command new since the rename reads no `former` spelling of --base-url."""
    p.add_argument("--base-url", *former, dest="base_url", action=DeprecatedAlias,
                   help="OpenAI-compatible endpoint of the judge and of SciIG's citation extractor (default: "
                        "$SCIWRITE_LLM_BASE_URL)" + former_names(former))
    p.add_argument("--judge-cache", help="JSON Lines cache of judge replies, so a rerun resumes")
    p.add_argument("--judge-option", action="append", type=model_option, metavar="KEY=VALUE",
                   help="a request parameter of every judge call, over the model-family table (VALUE is YAML), "
                        "e.g. reasoning_effort=low; repeatable")
    p.add_argument("--prices", metavar="FILE",
                   help="price table (YAML, USD per million tokens) for the usage ledger <out>/usage.jsonl "
                        "(default: $SCIWRITE_PRICES over the packaged table)")


def add_bootstrap_options(p: argparse.ArgumentParser) -> None:
    """--bootstrap N and --seed, shared by the commands that report intervals."""
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the 95%% intervals over papers (default: 1000; 0: no intervals)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default: 0)")


def add_benchmark_evaluate(evaluate: argparse._SubParsersAction, bench: Benchmark) -> None:
    """`sciwrite evaluate <bench.name>`: the same options for every benchmark."""
    p = evaluate.add_parser(bench.name, help=f"every {bench.title} metric for prediction files (the paper's results "
                                             "table)", epilog=EVALUATE_EXIT_STATUSES)
    fields = ", ".join(f'"{name}"' for name in bench.data.prediction_fields)
    p.add_argument("--predictions", required=True, nargs="+",
                   help=f'JSON Lines files, one per system: {{{fields}, "text" (or "pred")}} per paper; or a dataset '
                        "folder / Hub dataset id[:config] pushed by `sciwrite push`")
    data = bench.data
    p.add_argument("--split", *data.split_aliases, dest="split", action=DeprecatedAlias,
                   default=data.offline_config, choices=data.splits,
                   help=f"the {bench.title} split or config to score against (default: {data.offline_config})"
                        + former_names(data.split_aliases))
    p.add_argument("--source", help="local dataset folder or Hub repo id (default: the sample folder / the Hub)")
    p.add_argument("--profile", choices=PROFILES, help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--model", action="append", type=_role_model, metavar="ROLE=MODEL",
                   help=f"override one model role ({', '.join(bench.suite.model_roles)}); repeatable")
    p.add_argument("--metrics", nargs="+", metavar="METRIC",
                   help=f"only these metrics or scorers ({', '.join(bench.suite.stages.names)}) (default: all)")
    p.add_argument("--no-judge", action="store_true", help="skip the LLM judge")
    p.add_argument("--judge", action="append", metavar="MODEL",
                   help="the LLM judge's model (any endpoint --model accepts); give it several times for a panel of "
                        "judges (default: the profile's judge, or --model judge=MODEL)")
    p.add_argument("--judge-samples", type=int, default=1, metavar="N",
                   help="ask each judge N times per paper, seeds 42, 43, ... (default 1: one reading, as the papers)")
    p.add_argument("--judge-aggregate", choices=AGGREGATES, default="mean",
                   help="how a panel combines its judges' scores (default mean)")
    p.add_argument("--max-cost", type=budget_usd, metavar="USD",
                   help="never spend more than this many dollars on the judges (the usage ledger, earlier runs "
                        "included): a request that does not fit is not sent, its paper's judge score is left out and "
                        f"the command exits {EXIT_BUDGET}")
    add_llm_options(p)
    p.add_argument("--bad-records", choices=BAD_RECORDS, default=DEFAULT_BAD_RECORDS,
                   help="a malformed line (or a paper predicted twice, differently): 'error' refuses the file naming "
                        "every such line (default); 'skip' scores the other lines and writes these to rejected.jsonl")
    p.add_argument("--require-complete", action="store_true",
                   help="refuse a prediction file that leaves papers of the split out (default: score the papers it "
                        "has; every table, CSV row and plot then says n/N papers)")
    add_options(p, bench.suite.options)
    p.add_argument("--cutoff", type=iso_date, metavar="YYYY-MM-DD",
                   help="a model's training cutoff: split every metric into papers published on or before it and "
                        "after it, with intervals and a test of the difference (written to <out>/cutoff.csv)")
    p.add_argument("--system", nargs="+", help="system names in the tables (default: the prediction files' stems)")
    p.add_argument("--out", help=f"output folder; each system writes to <out>/<system>/ (default: outputs/{bench.name})")
    p.add_argument("--batch-size", type=int, default=64, help="model batch size")
    add_bootstrap_options(p)
    add_engine_options(p, "scoring")
    p.set_defaults(func=cmd_evaluate, benchmark=bench.name)


def add_evaluate_commands(sub: argparse._SubParsersAction) -> None:
    """The `evaluate` group: one command per benchmark."""
    evaluate = sub.add_parser("evaluate", help="score predictions").add_subparsers(dest="what", required=True)
    for bench in BENCHMARKS.values():
        add_benchmark_evaluate(evaluate, bench)
