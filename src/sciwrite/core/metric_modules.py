"""Finding and loading sciwrite's `evaluate` modules (``metrics/<name>/<name>.py`` in the repository).

They are installed as package data of `sciwrite.evaluate_modules` (pyproject maps it onto ``metrics/``), so one
`importlib.resources` look-up finds them in a checkout, an editable install and a regular install alike.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

MODULES_PACKAGE = "sciwrite.evaluate_modules"


def metrics_root() -> Path:
    """The folder that holds one ``<name>/<name>.py`` per metric."""
    return Path(str(files(MODULES_PACKAGE)))


def available_metrics() -> list[str]:
    """Names of the metric modules that can be loaded."""
    return sorted(p.parent.name for p in metrics_root().glob("*/*.py") if p.stem == p.parent.name)


def metric_path(name: str) -> Path:
    """The folder of the `evaluate` module `name`, installed with sciwrite.

    Pass it to `evaluate.load` as a string to load the module offline.

    Raises:
        FileNotFoundError: No metric has that name; the message lists the known ones.
    """
    folder = metrics_root() / name
    if (folder / f"{name}.py").is_file():
        return folder
    raise FileNotFoundError(f"no sciwrite metric {name!r}; available: {available_metrics()}")


def load_metric(name: str, **kwargs: Any) -> Any:
    """Load a sciwrite `evaluate` module by name, offline: ``evaluate.load(str(metric_path(name)), **kwargs)``.

    Args:
        name: The module's name, e.g. ``citation_precision_recall``, ``rwgbench`` or ``sciig``
            (`available_metrics` lists them).
        **kwargs: Passed to `evaluate.load` (``config_name``, ``cache_dir``, ...).
    """
    import evaluate  # heavy; only when a metric is loaded

    return evaluate.load(str(metric_path(name)), **kwargs)
