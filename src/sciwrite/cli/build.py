"""`sciwrite build <dataset>`: the datasets each benchmark builds (`Benchmark.data.builds`): RWGBench's offline sample,
from arXiv HTML or from its upstream release, and SciIG's."""

from __future__ import annotations

import argparse

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli.options import add_options, option_values
from sciwrite.core.commands import BuildCommand
from sciwrite.core.tables import format_table


def cmd_build(args: argparse.Namespace) -> None:
    command: BuildCommand = args.build_command
    result = command.run(option_values(args, command.options))
    print(result.message)
    if result.statistics:
        print(format_table([{"statistic": k, "value": v} for k, v in result.statistics.items()]))


def add_build_commands(sub: argparse._SubParsersAction) -> None:
    """The `build` group: one command per `BuildCommand` of every benchmark."""
    build = sub.add_parser("build", help="build a dataset").add_subparsers(dest="what", required=True)
    for bench in BENCHMARKS.values():
        for command in bench.data.builds:
            p = add_options(build.add_parser(command.name, help=command.help), command.options)
            p.set_defaults(func=cmd_build, build_command=command)
