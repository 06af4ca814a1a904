"""`sciwrite push`: a prediction file to the Hub as a dataset config, with a card."""

from __future__ import annotations

import argparse
from pathlib import Path

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core.hub import push_predictions, run_card_fields


def cmd_push(args: argparse.Namespace) -> None:
    fields = run_card_fields(args.predictions, {name: b.prediction_split for name, b in BENCHMARKS.items()})
    url = push_predictions(args.predictions, args.repo_id, fields, config_name=args.config, private=args.private)
    config = args.config or Path(args.predictions).stem
    print(f"pushed {args.predictions} to {url} as config {config!r} ({fields['benchmark']}, {fields['model']}, "
          f"{fields['method']}); evaluate it with --predictions {args.repo_id}:{config}")


def add_push_command(sub: argparse._SubParsersAction) -> None:
    """`push`."""
    p = sub.add_parser("push", help="upload a prediction file to the Hub as a dataset config, with a card")
    p.add_argument("predictions", help="JSON Lines written by `sciwrite generate`")
    p.add_argument("--repo-id", required=True, help="Hub dataset repo, e.g. user/sciwrite-predictions")
    p.add_argument("--config", help="config name (default: the file's stem)")
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.set_defaults(func=cmd_push)
