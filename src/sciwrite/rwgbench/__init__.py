"""RWGBench: related-work generation judged as citation decision-making.

Its data (`data/`: schema, configs, loading, builders), its metrics (`metrics/`: formulas, scorers, frames, judge,
suite, report) and its generation methods (`generation/`). The names most users need are here.
"""

from sciwrite.rwgbench.data.configs import (
    RWGBENCH_CONFIGS,
    default_rwgbench_dir,
    rwgbench_repo_id,
    write_dataset_folder,
)
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.schema import PAPER_FEATURES, validate_dataset
from sciwrite.sources.corpus import CORPUS_FEATURES

__all__ = [
    "RWGBENCH_CONFIGS",
    "CORPUS_FEATURES",
    "PAPER_FEATURES",
    "default_rwgbench_dir",
    "rwgbench_repo_id",
    "load_rwgbench",
    "validate_dataset",
    "write_dataset_folder",
]
