"""RWGBench and SciIG data: the schemas, loaders for the Hub and local folders, and the builders."""

from sciwrite.data.loading import CONFIGS, default_data_dir, hub_repo_id, load_rwgbench, write_dataset_folder
from sciwrite.data.schema import CORPUS_FEATURES, PAPER_FEATURES, SCIIG_FEATURES, SchemaError, validate_dataset
from sciwrite.data.sciig_loading import load_sciig
from sciwrite.data.titles import normalize_title

__all__ = [
    "CONFIGS",
    "CORPUS_FEATURES",
    "PAPER_FEATURES",
    "SCIIG_FEATURES",
    "SchemaError",
    "default_data_dir",
    "hub_repo_id",
    "load_rwgbench",
    "load_sciig",
    "normalize_title",
    "validate_dataset",
    "write_dataset_folder",
]
