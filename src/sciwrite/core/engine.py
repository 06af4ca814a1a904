"""Which engine runs a job (one process, or Ray Data), and the one place the optional Ray engine is imported.

``local`` is the default everywhere. ``ray`` needs the ``scale`` extra (``pip install "sciwrite[scale]"``); the
CLI and the report functions reach the Ray code only through `ray_engine`, so that sciwrite imports, and starts,
without Ray installed and without paying for importing it (``import ray.data`` takes seconds).
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

#: The engines a job can run on.
ENGINES = ("local", "ray")
LOCAL, RAY = ENGINES
#: The module whose functions form the Ray engine (it imports ``ray`` at its top).
RAY_ENGINE_MODULE = "sciwrite.scale.ray_engine"
INSTALL_HINT = 'pip install "sciwrite[scale]"'


class ScaleExtraMissingError(RuntimeError):
    """The Ray engine was asked for but Ray is not installed."""


def check_engine(engine: str) -> str:
    """`engine` if it is one of `ENGINES`; otherwise an error naming the choices."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {list(ENGINES)}")
    return engine


def ray_available() -> bool:
    """Whether Ray (with Ray Data) can be imported here."""
    return importlib.util.find_spec("ray") is not None and importlib.util.find_spec("ray.data") is not None


def ray_engine() -> ModuleType:
    """The Ray engine's functions (`sciwrite.scale.ray_engine`: ``build_dense_index``, ``score_on_ray``), imported
    on first use; a clear error saying how to install the extra when Ray is missing.

    This is the project's one import of a sciwrite module by name: an import statement here would make Ray a
    hard dependency of every module that can choose an engine (the CLI, the report functions), and the optional
    import must not run at start-up.
    """
    if not ray_available():
        raise ScaleExtraMissingError(f"the Ray engine needs Ray Data, which is not installed: install sciwrite[scale] "
                                     f"({INSTALL_HINT})")
    return importlib.import_module(RAY_ENGINE_MODULE)
