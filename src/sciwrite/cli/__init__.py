"""The `sciwrite` command line: argparse lives here and calls library functions with plain arguments."""

from sciwrite.cli.commands import build_parser, main

__all__ = ["build_parser", "main"]
