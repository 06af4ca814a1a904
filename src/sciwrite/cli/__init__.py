"""The `sciwrite` command: fetch arXiv papers, build datasets, build and query retrieval indexes, generate, evaluate, compare systems,
meta-evaluate the metrics, run the papers' human studies, list the models, print the papers' tables, publish predictions, run the quick start, serve the leaderboard."""

from __future__ import annotations

import argparse
import logging
import sys

from sciwrite.cli.build import add_build_commands
from sciwrite.cli.compare import add_compare_command
from sciwrite.cli.deprecated import rewrite_deprecated
from sciwrite.cli.evaluate import add_evaluate_commands
from sciwrite.cli.fetch import add_fetch_commands
from sciwrite.cli.generate import add_generate_commands
from sciwrite.cli.generate_common import parse_args
from sciwrite.cli.human_eval import add_human_eval_commands
from sciwrite.cli.index import add_index_commands
from sciwrite.cli.leaderboard import add_leaderboard_commands
from sciwrite.cli.meta_eval import add_meta_eval_commands
from sciwrite.cli.models import add_models_command
from sciwrite.cli.paper_table import add_paper_table_command
from sciwrite.cli.push import add_push_command, normalise_push_argv
from sciwrite.cli.quickstart import add_quickstart_command
from sciwrite.cli.verify_references import add_verify_references_command


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, one group per module of this package."""
    parser = argparse.ArgumentParser(prog="sciwrite", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True)
    add_fetch_commands(sub)
    add_build_commands(sub)
    add_index_commands(sub)
    add_evaluate_commands(sub)
    add_compare_command(sub)
    add_generate_commands(sub)
    add_meta_eval_commands(sub)
    add_human_eval_commands(sub)
    add_models_command(sub)
    add_paper_table_command(sub)
    add_leaderboard_commands(sub)
    add_verify_references_command(sub)
    add_push_command(sub)
    add_quickstart_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = rewrite_deprecated(normalise_push_argv(list(sys.argv[1:] if argv is None else argv)))
    args = parse_args(build_parser(), argv)
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        status = args.func(args)  # a command may return its exit status (generate: 3 when --max-cost stopped it)
    except (ValueError, FileNotFoundError, RuntimeError) as err:
        print(f"sciwrite: error: {err}", file=sys.stderr)
        return 2
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["build_parser", "main"]
