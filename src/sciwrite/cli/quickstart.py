"""`sciwrite quickstart`: the main job end to end on the offline embedded default."""

from __future__ import annotations

import argparse

from sciwrite.quickstart import run_quickstart


def cmd_quickstart(args: argparse.Namespace) -> None:
    run_quickstart(out_dir=args.out, data_dir=args.data_dir, profile=args.profile, rebuild=args.rebuild,
                   model=args.model, limit=args.limit, base_url=args.base_url, sciig_dir=args.sciig_dir, store=args.store)


def add_quickstart_command(sub: argparse._SubParsersAction) -> None:
    """`quickstart`."""
    p = sub.add_parser("quickstart", help="the main job on the offline embedded default")
    p.add_argument("--out", default="outputs/quickstart", help="folder for the result tables and plot")
    p.add_argument("--data-dir", help="dataset folder (default: $SCIWRITE_DATA_DIR or ~/.cache/sciwrite/rwgbench)")
    p.add_argument("--sciig-dir", help="SciIG sample folder (default: $SCIWRITE_SCIIG_DIR or <data dir>/../sciig)")
    p.add_argument("--profile", default="lite", choices=["paper", "lite"])
    p.add_argument("--rebuild", action="store_true", help="rebuild the sample even if it exists")
    p.add_argument("--model", help="generate with this model (openrouter:, openai:, hf:, or an id with --base-url) "
                                   "instead of the extractive floor")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint for a bare --model id")
    p.add_argument("--limit", type=int, help="generate and score only the first N papers of each benchmark")
    p.add_argument("--store", help="leaderboard store the scored systems are put on (default: "
                                   "$SCIWRITE_LEADERBOARD_STORE or <data root>/leaderboard/leaderboard.sqlite)")
    p.set_defaults(func=cmd_quickstart)
