"""`sciwrite quickstart`: the main job end to end on the offline embedded default."""

from __future__ import annotations

import argparse

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli.flags import BASE_URL, LIMIT, MODEL, OUT, PROFILE, SOURCES, STORE
from sciwrite.quickstart import run_quickstart


def cmd_quickstart(args: argparse.Namespace) -> None:
    sources = dict(args.source or [])  # the last folder given for a benchmark wins
    run_quickstart(out_dir=args.out, profile=args.profile, rebuild=args.rebuild, model=args.model, limit=args.limit,
                   base_url=args.base_url, store=args.store, sources=sources)


def add_quickstart_command(sub: argparse._SubParsersAction) -> None:
    """`quickstart`."""
    p = sub.add_parser("quickstart", help="the main job on the offline embedded default")
    OUT.add(p, "folder for the result tables and plot", default="outputs/quickstart")
    SOURCES.add(p, f"a benchmark's sample folder ({', '.join(BENCHMARKS)}; default: its cache folder, built when "
                   "missing); repeatable")
    PROFILE.add(p, "model profile (default: lite)", default="lite")
    p.add_argument("--rebuild", action="store_true", help="rebuild the sample even if it exists")
    MODEL.add(p, "the writer: generate with this model (openrouter:, openai:, hf:, or an id with --base-url) instead "
                 "of the extractive floor")
    BASE_URL.add(p)
    LIMIT.add(p, "generate and score only the first N papers of each benchmark")
    STORE.add(p, "leaderboard store the scored systems are put on (default: $SCIWRITE_LEADERBOARD_STORE or "
                 "<data root>/leaderboard/leaderboard.sqlite)")
    p.set_defaults(func=cmd_quickstart)
