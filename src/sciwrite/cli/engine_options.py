"""The options of the commands that can run on Ray Data (`sciwrite.scale`): --engine, --ray-address, --ray-actors."""

from __future__ import annotations

import argparse

from sciwrite.core.engine import ENGINES, LOCAL


def add_engine_options(p: argparse.ArgumentParser, what: str) -> None:
    """--engine, --ray-address and --ray-actors, shared by the commands that can run on Ray."""
    p.add_argument("--engine", choices=ENGINES, default=LOCAL,
                   help=f"where {what} runs: one process (local, default) or Ray Data (ray; needs sciwrite[scale])")
    p.add_argument("--ray-address", metavar="ADDRESS",
                   help="join this Ray cluster (auto, ray://head:10001; default: start a local Ray)")
    p.add_argument("--ray-actors", type=int, metavar="N",
                   help="actors of the pool (default: one per GPU, or one per CPU without GPUs)")
