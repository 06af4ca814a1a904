"""`sciwrite generate rwgbench|sciig`: generation baselines with a method (or prompt level) and a model."""

from __future__ import annotations

import argparse

from sciwrite.cli.generate_common import exit_status
from sciwrite.cli.generate_rwgbench import add_generate_rwgbench_arguments, run_generate_rwgbench
from sciwrite.cli.generate_sciig import add_generate_sciig_arguments, run_generate_sciig


def cmd_generate_sciig(args: argparse.Namespace) -> int:
    return exit_status(run_generate_sciig(args))


def cmd_generate_rwgbench(args: argparse.Namespace) -> int:
    return exit_status(run_generate_rwgbench(args))


def add_generate_commands(sub: argparse._SubParsersAction) -> None:
    """The `generate` group."""
    generate = sub.add_parser("generate", help="generate predictions with a method and a model").add_subparsers(
        dest="what", required=True)

    p = add_generate_sciig_arguments(generate.add_parser(
        "sciig", help="SciIG introductions with one or more of the seven prompting regimes"))
    p.set_defaults(func=cmd_generate_sciig)
    p = add_generate_rwgbench_arguments(generate.add_parser(
        "rwgbench", help="RWGBench related-work sections: Direct, RAG, ALCE, TAG, Workflow (+ Oracle)"))
    p.set_defaults(func=cmd_generate_rwgbench)
