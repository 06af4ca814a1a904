"""Where sciwrite keeps things on disk, each overridable by an environment variable.

- ``SCIWRITE_CACHE_DIR`` (default ``~/.cache/sciwrite``): caches (WordNet copies, datasets read as predictions,
  the ONNX exports of encoders under ``onnx/``).
- ``SCIWRITE_EMBEDDING_CACHE`` (default ``<SCIWRITE_CACHE_DIR>/embeddings``; ``off`` disables it): the on-disk
  cache of sentence embeddings (`sciwrite.models.embedding_cache`).
- ``SCIWRITE_ENCODER_BACKEND`` (``auto``, ``torch`` or ``onnx``): what runs the sentence and BERTScore encoders on
  CPU (`sciwrite.models.onnx_runtime`; ``auto``: ONNX Runtime when installed).
- ``SCIWRITE_DATA_DIR`` (default ``~/.cache/sciwrite/rwgbench``): the RWGBench local folder; the other
  benchmarks' folders sit beside it (``<its parent>/<benchmark>``) unless their own variable names one.
- ``SCIWRITE_HUB_NAMESPACE`` (default ``sciwrite``): the Hub namespace of the published datasets.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_NAMESPACE = "sciwrite"
DATA_DIR_ENV = "SCIWRITE_DATA_DIR"


def cache_root() -> Path:
    """``$SCIWRITE_CACHE_DIR`` or ``~/.cache/sciwrite``."""
    return Path(os.environ.get("SCIWRITE_CACHE_DIR") or Path.home() / ".cache" / "sciwrite")


def data_root() -> Path:
    """The folder holding every benchmark's local dataset folder: the parent of ``$SCIWRITE_DATA_DIR`` when it
    is set (that variable names RWGBench's folder), else ``~/.cache/sciwrite``."""
    named = os.environ.get(DATA_DIR_ENV)
    return Path(named).parent if named else Path.home() / ".cache" / "sciwrite"


def benchmark_data_dir(name: str, env: str) -> Path:
    """A benchmark's local dataset folder: ``$<env>`` when set, else ``data_root() / name``."""
    named = os.environ.get(env)
    return Path(named) if named else data_root() / name


def hub_repo_id(name: str, namespace: str | None = None) -> str:
    """``<namespace>/<name>``; the namespace defaults to ``SCIWRITE_HUB_NAMESPACE`` or ``sciwrite``."""
    return f"{namespace or os.environ.get('SCIWRITE_HUB_NAMESPACE') or DEFAULT_NAMESPACE}/{name}"
