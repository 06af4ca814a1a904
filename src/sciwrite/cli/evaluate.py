"""`sciwrite evaluate <benchmark>`: every metric of a benchmark for prediction files, in the paper's table layout.

One implementation serves every benchmark of `sciwrite.benchmarks.BENCHMARKS`, with the same flags: ``--split``,
one or several ``--predictions`` (one system each, written to ``<out>/<system>/``), ``--bad-records error|skip``,
the model, judge, bootstrap and engine options, and the few on/off options a benchmark declares
(`Benchmark.evaluate_flags`, and `Benchmark.evaluate_options` with a value). The benchmark scores (`Benchmark.evaluate`) and says what to print
(`Benchmark.report`); this module only parses and prints. ``sciwrite evaluate sciig-table3`` prints SciIG's Table 3
from several levels' summaries.
"""

from __future__ import annotations

import argparse
import datetime
import logging
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.engine_options import add_engine_options
from sciwrite.cli.generate_common import LEDGER_NAME, model_option
from sciwrite.cli.options import add_options, iso_date, option_values
from sciwrite.core.predictions import BAD_RECORDS
from sciwrite.core.tables import format_table, write_table
from sciwrite.llm.capabilities import describe_adjustment
from sciwrite.llm.ledger import PriceTable, UsageLedger
from sciwrite.metrics.cutoff import across_systems, cutoff_rows, format_cutoff, plot_cutoff
from sciwrite.metrics.memorisation import format_memorisation
from sciwrite.sciig.metrics.tables import format_table3, table3_from_summary_files, table3_rows

logger = logging.getLogger(__name__)


#: What `sciwrite evaluate <benchmark> --help` says of its exit statuses.
EVALUATE_EXIT_STATUSES = ("exit status: 0 every file scored (a file over part of the split says n/N papers); 2 usage "
                          "or input error, named FILE:LINE, before any model loads (a bad line, a bad --out, a file "
                          "--require-complete refuses)")


def metric_labels(benchmark: str) -> dict[str, str]:
    """Short metric labels of a benchmark's results table (`Benchmark.metric_labels`)."""
    return get_benchmark(benchmark).metric_labels()


def llm_options(args: argparse.Namespace, out: Path) -> dict[str, object]:
    """The judge's (and SciIG's citation extractor's) client options: endpoint, cache, model options, and the usage
    ledger under the evaluation folder, its lines tagged with this evaluation's run id."""
    run = f"evaluate-{datetime.datetime.now(datetime.UTC).strftime('%Y%m%dT%H%M%S.%fZ')}"
    options: dict[str, object] = {k: v for k, v in (("base_url", args.judge_base_url),
                                                    ("cache_path", args.judge_cache)) if v}
    if args.judge_option:
        options["options"] = dict(args.judge_option)
    options["ledger"] = UsageLedger(out / LEDGER_NAME, prices=PriceTable.load(args.prices), tags={"run": run})
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
    labels = {**{key: f"{group} {label}" for group, columns in bench.board_groups.items() for key, label in columns},
              **bench.metric_labels(), "memorisation": "memorisation"}
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


def cmd_evaluate(args: argparse.Namespace) -> None:
    """Score the prediction files on the benchmark the command names, print its report, write the tables."""
    bench = get_benchmark(args.benchmark)
    out = Path(args.out or Path("outputs") / bench.name)
    systems = args.system or [Path(p).stem for p in args.predictions]
    metrics = bench.metrics_without_judge(args.metrics) if args.no_judge else args.metrics
    flags = {name: getattr(args, name) for name in bench.evaluate_flags} | option_values(args, bench.evaluate_options)
    summaries = bench.evaluate(args.predictions, args.split, source=args.source, out_dir=out, systems=systems,
                               profile=args.profile, models=dict(args.model or []), metrics=metrics,
                               judge_options=llm_options(args, out), batch_size=args.batch_size,
                               bootstrap=args.bootstrap, seed=args.seed, engine=args.engine,
                               ray_address=args.ray_address, ray_actors=args.ray_actors,
                               bad_records=args.bad_records, require_complete=args.require_complete,
                               cutoff=args.cutoff, **flags)
    print(bench.report(summaries, out))
    print_contamination(summaries, bench, out)
    for summary in summaries:
        print_llm_record(summary)
    print_usage(summaries[0])
    print(f"\nwrote per_paper.jsonl, summary.json and summary.csv for each system under {out}/<system>/")


def cmd_evaluate_sciig_table3(args: argparse.Namespace) -> None:
    summaries = table3_from_summary_files(dict(args.summary))
    print(format_table3(summaries))
    if args.out:
        json_path, csv_path = write_table(table3_rows(summaries), args.out)
        print(f"\nwrote {json_path} and {csv_path}")


def _level_file(value: str) -> tuple[str, str]:
    level, sep, path = value.partition("=")
    if not sep or not level or not path:
        raise argparse.ArgumentTypeError(f"expected LEVEL=SUMMARY_JSON (e.g. SHORT=outputs/sciig/short/summary.json), "
                                         f"got {value!r}")
    return level, path


def _role_model(value: str) -> tuple[str, str]:
    role, sep, model = value.partition("=")
    if not sep or not role or not model:
        raise argparse.ArgumentTypeError(f"expected ROLE=MODEL (e.g. nli=path/to/model), got {value!r}")
    return role, model


class _DeprecatedAlias(argparse.Action):
    """``--split`` under a former name (SciIG's ``--dataset``): read, with a warning naming the new flag."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if option_string != "--split":
            logger.warning("%s is deprecated: use --split (it takes the same values)", option_string)
        setattr(namespace, self.dest, values)


def add_llm_options(p: argparse.ArgumentParser) -> None:
    """The judge's endpoint, cache, model options and price table."""
    p.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the judge (default: $SCIWRITE_LLM_BASE_URL)")
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
    fields = ", ".join(f'"{name}"' for name in bench.prediction_fields)
    p.add_argument("--predictions", required=True, nargs="+",
                   help=f'JSON Lines files, one per system: {{{fields}, "text" (or "pred")}} per paper; or a dataset '
                        "folder / Hub dataset id[:config] pushed by `sciwrite push`")
    p.add_argument("--split", *bench.split_aliases, dest="split", action=_DeprecatedAlias,
                   default=bench.offline_config, choices=bench.splits,
                   help=f"the {bench.title} split or config to score against (default: {bench.offline_config})"
                        + (f"; {', '.join(bench.split_aliases)}: its former name" if bench.split_aliases else ""))
    p.add_argument("--source", help="local dataset folder or Hub repo id (default: the sample folder / the Hub)")
    p.add_argument("--profile", choices=["paper", "lite"], help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--model", action="append", type=_role_model, metavar="ROLE=MODEL",
                   help=f"override one model role ({', '.join(bench.model_roles)}); repeatable")
    p.add_argument("--metrics", nargs="+", metavar="METRIC",
                   help="only these metrics" + (f" or scorers ({', '.join(bench.stage_names)})" if bench.stage_names
                                                else "") + " (default: all)")
    p.add_argument("--no-judge", action="store_true", help="skip the LLM judge")
    add_llm_options(p)
    p.add_argument("--bad-records", choices=BAD_RECORDS, default="error",
                   help="a malformed line (or a paper predicted twice, differently): 'error' refuses the file naming "
                        "every such line (default); 'skip' scores the other lines and writes these to rejected.jsonl")
    p.add_argument("--require-complete", action="store_true",
                   help="refuse a prediction file that leaves papers of the split out (default: score the papers it "
                        "has; every table, CSV row and plot then says n/N papers)")
    for name, text in bench.evaluate_flags.items():
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, action="store_true", help=text)
    add_options(p, bench.evaluate_options)
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
    """The `evaluate` group: one command per benchmark, and SciIG's Table 3."""
    evaluate = sub.add_parser("evaluate", help="score predictions").add_subparsers(dest="what", required=True)
    for bench in BENCHMARKS.values():
        add_benchmark_evaluate(evaluate, bench)
    p = evaluate.add_parser("sciig-table3", help="the SciIG paper's Table 3 (prompt levels side by side) from the "
                                                 "summary.json of each level's `sciwrite evaluate sciig` run")
    p.add_argument("--summary", action="append", required=True, type=_level_file, metavar="LEVEL=SUMMARY_JSON",
                   help="one level's summary (SHORT, MEDIUM, ELABORATE, AUTOCOT, ZERO_SHOT, ONE_SHOT, TWO_SHOT, "
                        "THREE_SHOT); repeatable")
    p.add_argument("--out", help="also write the table as <out>.json and <out>.csv")
    p.set_defaults(func=cmd_evaluate_sciig_table3)
