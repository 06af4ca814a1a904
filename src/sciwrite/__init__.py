"""sciwrite: benchmarking AI-assisted scientific writing (RWGBench, SciIG) the Hugging Face way."""

__version__ = "0.1.0"

from sciwrite.core.metric_modules import load_metric, metric_path  # noqa: E402

__all__ = ["__version__", "load_metric", "metric_path"]
