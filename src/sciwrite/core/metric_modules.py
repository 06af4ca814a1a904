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
    """The folder of metric `name`; a clear error listing the known metrics otherwise."""
    folder = metrics_root() / name
    if (folder / f"{name}.py").is_file():
        return folder
    raise FileNotFoundError(f"no sciwrite metric {name!r}; available: {available_metrics()}")


def load_metric(name: str, **kwargs: Any) -> Any:
    """`evaluate.load` of a sciwrite metric by name, offline."""
    import evaluate  # heavy; only when a metric is loaded

    return evaluate.load(str(metric_path(name)), **kwargs)
