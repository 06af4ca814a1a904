"""`sciwrite generate <benchmark>`: a benchmark's generation baselines with a method (or prompt level) and a model.

One implementation serves every benchmark of `sciwrite.benchmarks.BENCHMARKS`: the shared run options
(`generate_common.add_run_arguments`), ``--config baselines/<benchmark>/<run>.yaml`` (the defaults of one
published run; explicit flags win), the options the benchmark declares (`Benchmark.generation.options`) and
``--push-to-hub``. The benchmark plans the run (`Benchmark.generation.plan`, see `sciwrite.generation.jobs`);
this module executes each job, prints its report and pushes its file when asked. Exit status 3 when
``--max-cost`` stopped a run, 4 when some papers failed (`generate_common.EXIT_STATUSES`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.generate_common import EXIT_STATUSES, add_config_argument, add_run_arguments, execute, exit_status
from sciwrite.cli.options import add_options, option_values
from sciwrite.core.hub import push_predictions
from sciwrite.generation.jobs import GenerationRequest

#: Where each benchmark's outputs go by default: ``outputs/generations/<benchmark>``.
DEFAULT_OUT = Path("outputs") / "generations"


def default_out(bench: Benchmark) -> Path:
    return DEFAULT_OUT / bench.name


def add_generate_arguments(parser: argparse.ArgumentParser, bench: Benchmark) -> argparse.ArgumentParser:
    """The shared run options, --config, the benchmark's own options and --push-to-hub."""
    add_run_arguments(parser)
    add_config_argument(parser, bench.name)
    add_options(parser, bench.generation.options)
    parser.add_argument("--push-to-hub", metavar="REPO_ID",
                        help="after each run, publish the output file as a config of this Hub dataset repo")
    return parser


def generation_request(args: argparse.Namespace, bench: Benchmark) -> GenerationRequest:
    """The parsed command as the benchmark's planner reads it."""
    return GenerationRequest(model=args.model, out=Path(args.out or default_out(bench)), seed=args.seed,
                             limit=args.limit, dry_run=args.dry_run, retry_failed=args.retry_failed,
                             options=option_values(args, bench.generation.options))


def run_generate(args: argparse.Namespace, bench: Benchmark | None = None) -> list[Any]:
    """Run every job the benchmark plans; the runner's reports (None for a dry run)."""
    bench = bench or get_benchmark(args.benchmark)
    reports = []
    for job in bench.generation.plan(generation_request(args, bench)):
        for note in job.notes:
            print(f"note: {job.method.name}: {note}")
        report = execute(args, job.records, job.method, job.out_path, job.meta)
        reports.append(report)
        if report is not None and getattr(args, "push_to_hub", None):
            print(f"pushed {job.out_path} to {push_predictions(job.out_path, args.push_to_hub, dict(job.card))}")
    return reports


def cmd_generate(args: argparse.Namespace) -> int:
    return exit_status(run_generate(args))


def add_generate_commands(sub: argparse._SubParsersAction) -> None:
    """The `generate` group: one command per benchmark."""
    generate = sub.add_parser("generate", help="generate predictions with a method and a model").add_subparsers(
        dest="what", required=True)
    for bench in BENCHMARKS.values():
        p = add_generate_arguments(generate.add_parser(bench.name, help=bench.generation.help, epilog=EXIT_STATUSES),
                                   bench)
        p.set_defaults(func=cmd_generate, benchmark=bench.name)


__all__ = ["DEFAULT_OUT", "add_generate_arguments", "add_generate_commands", "default_out", "generation_request",
           "run_generate"]
