"""RWGBench data: the schema, loaders for the Hub and local folders, and the builders."""

from sciwrite.data.loading import CONFIGS, default_data_dir, hub_repo_id, load_rwgbench, write_dataset_folder
from sciwrite.data.schema import CORPUS_FEATURES, PAPER_FEATURES, SchemaError, validate_dataset
from sciwrite.data.titles import normalize_title

__all__ = [
    "CONFIGS",
    "CORPUS_FEATURES",
    "PAPER_FEATURES",
    "SchemaError",
    "default_data_dir",
    "hub_repo_id",
    "load_rwgbench",
    "normalize_title",
    "validate_dataset",
    "write_dataset_folder",
]
