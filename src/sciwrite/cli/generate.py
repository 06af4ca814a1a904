"""`sciwrite generate <benchmark>`: a benchmark's generation baselines with a method (or prompt level) and a model.

One implementation serves every benchmark of `sciwrite.benchmarks.BENCHMARKS`: the shared run flags
(`sciwrite.cli.flags.add_generation_flags`), ``--config baselines/<benchmark>/<run>.yaml`` (the defaults of one
published run; explicit flags win: `sciwrite.cli.baseline_config`), the options the benchmark declares
(`Benchmark.generation.options`) and ``--push-to-hub``. The command builds its request as the quick start and the
Inspect tasks do (`sciwrite.generation.generate.build_request`) and runs it with the library's one entry point
(`sciwrite.generation.generate.generate`); `sciwrite.cli.generation_run` reads the writer and the run options from
the flags and prints each job's notes and report (and pushes its file when asked). Exit status 3 when
``--max-cost`` stopped a run, 4 when some papers failed (`sciwrite.cli.budget.EXIT_STATUSES`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.baseline_config import add_config_argument
from sciwrite.cli.budget import EXIT_STATUSES, breach_lines, exit_status
from sciwrite.cli.flags import PUSH_TO_HUB, add_generation_flags
from sciwrite.cli.generation_run import CommandOutput, run_options, writer_model
from sciwrite.cli.options import add_options, option_values
from sciwrite.generation.generate import build_request, generate
from sciwrite.generation.jobs import GenerationRequest
from sciwrite.generation.runner import RunReport

#: Where each benchmark's outputs go by default: ``outputs/generations/<benchmark>``.
DEFAULT_OUT = Path("outputs") / "generations"


def default_out(bench: Benchmark) -> Path:
    return DEFAULT_OUT / bench.name


def add_generate_arguments(parser: argparse.ArgumentParser, bench: Benchmark) -> argparse.ArgumentParser:
    """The shared run options, --config, the benchmark's own options and --push-to-hub."""
    add_generation_flags(parser)
    add_config_argument(parser, bench.name)
    add_options(parser, bench.generation.options)
    PUSH_TO_HUB.add(parser, "after each run, publish the output file as a config of this Hub dataset repo")
    return parser


def generation_request(args: argparse.Namespace, bench: Benchmark) -> GenerationRequest:
    """The parsed command as a request (`build_request`, as the quick start and the Inspect tasks make theirs)."""
    return build_request(bench, model=args.model, out=args.out or default_out(bench), seed=args.seed,
                         limit=args.limit, dry_run=args.dry_run, retry_failed=args.retry_failed,
                         options=option_values(args, bench.generation.options))


def run_generate(args: argparse.Namespace, bench: Benchmark | None = None) -> list[RunReport | None]:
    """Run every job the benchmark plans (`generate`), printing each job's notes and report; the runner's reports
    (None for a dry run)."""
    bench = bench or get_benchmark(args.benchmark)
    run = generate(bench, generation_request(args, bench), writer_model(args), run_options(args),
                   CommandOutput(args.push_to_hub))
    return run.reports


def cmd_generate(args: argparse.Namespace) -> int:
    """Run the command; its last line says by how much and why a budget was not kept, when one was not."""
    reports = run_generate(args)
    for line in breach_lines(reports):
        print(line)
    return exit_status(reports)


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
