"""`sciwrite quickstart`: the main job end to end on the offline embedded default."""

from __future__ import annotations

import argparse

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli.options import PROFILES, DeprecatedKeyed, benchmark_folder
from sciwrite.quickstart import run_quickstart


def cmd_quickstart(args: argparse.Namespace) -> None:
    sources = dict(args.source or [])  # the last folder given for a benchmark wins
    run_quickstart(out_dir=args.out, profile=args.profile, rebuild=args.rebuild, model=args.model, limit=args.limit,
                   base_url=args.base_url, store=args.store, sources=sources)


def add_quickstart_command(sub: argparse._SubParsersAction) -> None:
    """`quickstart`."""
    p = sub.add_parser("quickstart", help="the main job on the offline embedded default")
    p.add_argument("--out", default="outputs/quickstart", help="folder for the result tables and plot")
    p.add_argument("--source", action="append", type=benchmark_folder, metavar="BENCHMARK=DIR",
                   help=f"a benchmark's sample folder ({', '.join(BENCHMARKS)}; default: its cache folder, built when "
                        "missing); repeatable")
    for name, bench in BENCHMARKS.items():  # former spellings (`BenchmarkData.sample_dir_aliases`), not in --help
        for flag in bench.data.sample_dir_aliases:
            p.add_argument(flag, dest="source", action=DeprecatedKeyed, key=name, current="--source",
                           help=argparse.SUPPRESS)
    p.add_argument("--profile", default="lite", choices=PROFILES, help="model profile (default: lite)")
    p.add_argument("--rebuild", action="store_true", help="rebuild the sample even if it exists")
    p.add_argument("--model", help="generate with this model (openrouter:, openai:, hf:, or an id with --base-url) "
                                   "instead of the extractive floor")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint for a bare --model id")
    p.add_argument("--limit", type=int, help="generate and score only the first N papers of each benchmark")
    p.add_argument("--store", help="leaderboard store the scored systems are put on (default: "
                                   "$SCIWRITE_LEADERBOARD_STORE or <data root>/leaderboard/leaderboard.sqlite)")
    p.set_defaults(func=cmd_quickstart)
