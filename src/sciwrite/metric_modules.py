"""Finding and loading sciwrite's `evaluate` modules (``metrics/<name>/<name>.py``) from anywhere.

In a checkout (or an editable install) they are read from the repository's ``metrics/`` folder; a
regular install ships them under ``<prefix>/share/sciwrite/metrics`` (see pyproject's data-files).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def metric_search_path() -> list[Path]:
    """Folders that may hold ``<name>/<name>.py``, in the order they are tried."""
    checkout = Path(__file__).resolve().parents[2] / "metrics"
    return [checkout, Path(sys.prefix) / "share" / "sciwrite" / "metrics"]


def available_metrics() -> list[str]:
    """Names of the metric modules that can be loaded."""
    return sorted({p.parent.name for root in metric_search_path() if root.is_dir()
                   for p in root.glob("*/*.py") if p.stem == p.parent.name})


def metric_path(name: str) -> Path:
    """The folder of metric `name`; a clear error listing the known metrics otherwise."""
    for root in metric_search_path():
        if (root / name / f"{name}.py").is_file():
            return root / name
    raise FileNotFoundError(f"no sciwrite metric {name!r}; available: {available_metrics()}")


def load_metric(name: str, **kwargs: Any) -> Any:
    """`evaluate.load` of a sciwrite metric by name, offline."""
    import evaluate

    return evaluate.load(str(metric_path(name)), **kwargs)
