"""Run one part of a benchmark in a fresh spawned process, so that its model loads and peak memory are its own."""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Callable
from typing import Any


def run_spawned(target: Callable[..., None], args: tuple[Any, ...], label: str) -> Any:
    """What ``target(*args, queue)`` puts on its queue, run in a spawned child; exits naming `label` if it fails."""
    context = mp.get_context("spawn")
    queue: mp.Queue = context.Queue()
    process = context.Process(target=target, args=(*args, queue))
    process.start()
    result = queue.get()
    process.join()
    if process.exitcode:
        sys.exit(f"{label} failed (exit code {process.exitcode})")
    return result
