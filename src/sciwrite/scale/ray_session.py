"""Connecting to Ray and sizing actor pools: one actor per GPU when the cluster has GPUs, CPU actors otherwise.

`ray_session` starts a local Ray (``ray.init()``) or joins an existing cluster (``address``, e.g. ``"auto"`` or
``"ray://head:10001"``), and leaves a Ray that was already running (a test's, a notebook's) as it found it.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ray
from ray.data import ActorPoolStrategy, DataContext
from ray.exceptions import RayTaskError

logger = logging.getLogger(__name__)

#: Environment variables the actors get from the driver, so that they resolve the same models, profile, caches and
#: offline mode as one process would (on a cluster the workers do not share the driver's shell).
FORWARDED_ENV_PREFIXES = ("SCIWRITE_", "HF_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_", "NLTK_", "OPENAI_")


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[None]:
    """Ray for the duration of a job: joined when already initialised, else started (locally, or connected to the
    cluster at `address`) and shut down at the end. An error raised in an actor comes out as a `RuntimeError`
    carrying the actor's own message (which names the record and field), not as Ray's wrapper."""
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"address": address, "include_dashboard": False, "logging_level": logging.WARNING}
        if address is None and num_cpus is not None:
            options["num_cpus"] = num_cpus
        ray.init(**options)
    try:
        yield
    except RayTaskError as err:
        raise RuntimeError(f"a Ray actor failed: {actor_error(err)}") from err
    finally:
        if started:
            ray.shutdown()


def actor_error(err: BaseException) -> str:
    """The first non-Ray ``SomeError: message`` line of an actor's traceback (its own error), else Ray's message."""
    for line in str(err).splitlines():
        match = _ERROR_LINE.match(line.strip())
        if match and not match.group(1).startswith("ray."):
            return line.strip()
    return str(err).strip().splitlines()[-1] if str(err).strip() else type(err).__name__


_ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)): ")


def forwarded_env() -> dict[str, str]:
    """The driver's variables (`FORWARDED_ENV_PREFIXES`) to set in each actor."""
    return {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV_PREFIXES)}


def actor_options(actors: int | None = None, cpus_per_actor: float = 1.0, elastic: bool = False) -> dict[str, Any]:
    """`map_batches` options of an actor pool: `actors` actors (default: one per GPU, or one per `cpus_per_actor`
    CPUs of the cluster when it has no GPU), each with one GPU or `cpus_per_actor` CPUs, and the driver's
    environment (`forwarded_env`).

    An `elastic` pool starts with one actor and grows to its size as work queues up: a pipeline that starts with
    tasks (listing and reading files, which take a CPU each) would otherwise wait forever on a machine whose every
    CPU an idle actor holds."""
    if actors is not None and actors < 1:
        raise ValueError(f"the actor pool needs at least one actor, got {actors}")
    resources = ray.cluster_resources()
    gpus = int(resources.get("GPU", 0))
    size = actors or (gpus if gpus else max(1, int(resources.get("CPU", 1) // cpus_per_actor)))
    logger.info("actor pool: %d actor(s), each with %s", size, "1 GPU" if gpus else f"{cpus_per_actor:g} CPU(s)")
    pool = ActorPoolStrategy(min_size=1, max_size=size) if elastic and size > 1 else ActorPoolStrategy(size=size)
    return {"compute": pool, **({"num_gpus": 1} if gpus else {"num_cpus": cpus_per_actor}),
            "runtime_env": {"env_vars": forwarded_env()}}


def pool_size(options: dict[str, Any]) -> int:
    """The number of actors of `actor_options`' pool."""
    return int(options["compute"].max_size)


@contextmanager
def data_context(show_progress: bool = True) -> Iterator[DataContext]:
    """Ray Data keeps rows in input order while the block runs (indexes and per-paper rows are matched by position)
    and shows its progress bars when `show_progress`; the driver's previous settings come back afterwards."""
    context = DataContext.get_current()
    before = context.execution_options.preserve_order, context.enable_progress_bars
    context.execution_options.preserve_order, context.enable_progress_bars = True, show_progress
    try:
        yield context
    finally:
        context.execution_options.preserve_order, context.enable_progress_bars = before
