"""Loading SciIG configs from the Hub or a local folder, and writing SciIG dataset folders.

Configs ``naacl_2025``, ``iclr_2025`` and the offline ``sample``, each with the splits ``test`` (papers to
generate introductions for) and ``holdout`` (the pool few-shot exemplars are drawn from). Files are
``<config>/<split>-00000-of-00001.parquet`` listed in the card's YAML ``configs:`` block. The Hub repo is
``<namespace>/sciig`` (namespace: ``SCIWRITE_HUB_NAMESPACE`` or ``sciwrite``). The ``sample`` is built on first
use in `default_sciig_dir()`: ``SCIWRITE_SCIIG_DIR``, else ``sciig/`` next to the RWGBench data folder
(``$SCIWRITE_DATA_DIR/../sciig``, by default ``~/.cache/sciwrite/sciig``).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import yaml

from datasets import Dataset, DatasetDict, load_dataset
from sciwrite.data.loading import DEFAULT_NAMESPACE, default_data_dir, local_data_files
from sciwrite.data.schema import SCIIG_FEATURES, validate_dataset

logger = logging.getLogger(__name__)

DATASET_NAME = "sciig"
SCIIG_CONFIGS: tuple[str, ...] = ("naacl_2025", "iclr_2025", "sample")
SCIIG_SPLITS: tuple[str, ...] = ("test", "holdout")


def sciig_repo_id(namespace: str | None = None) -> str:
    """``<namespace>/sciig``; the namespace defaults to ``SCIWRITE_HUB_NAMESPACE`` or ``sciwrite``."""
    return f"{namespace or os.environ.get('SCIWRITE_HUB_NAMESPACE') or DEFAULT_NAMESPACE}/{DATASET_NAME}"


def default_sciig_dir() -> Path:
    """Where the SciIG sample is built and looked for: ``SCIWRITE_SCIIG_DIR``, else ``<data dir>/../sciig``."""
    root = os.environ.get("SCIWRITE_SCIIG_DIR")
    return Path(root) if root else default_data_dir().parent / DATASET_NAME


def _check(config: str, split: str | None) -> None:
    if config not in SCIIG_CONFIGS:
        raise ValueError(f"unknown SciIG config {config!r}; choose one of {list(SCIIG_CONFIGS)}")
    if split not in (None, "all", *SCIIG_SPLITS):
        raise ValueError(f"unknown SciIG split {split!r}; choose one of {list(SCIIG_SPLITS)} or 'all'")


def load_sciig(config: str = "sample", source: str | Path | None = None, split: str | None = None, *,
               revision: str | None = None, build_if_missing: bool = True) -> Dataset | DatasetDict:
    """Load one SciIG config as a `datasets.Dataset`, validated against `SCIIG_FEATURES`.

    `source` is a local folder or a Hub dataset repo id; without it ``sample`` comes from `default_sciig_dir()`
    (built there from the packaged ACL papers on first use when `build_if_missing`) and the other configs from
    `sciig_repo_id()`. `split` is ``"test"`` (the default), ``"holdout"`` or ``"all"`` for a `DatasetDict`.
    """
    _check(config, split)
    if source is None:
        if config == "sample":
            source = default_sciig_dir()
            if build_if_missing and not (Path(source) / "README.md").exists():
                from sciwrite.data.sciig_builder import write_sciig_sample

                logger.info("the SciIG sample is not built yet: building it in %s", source)
                write_sciig_sample(source)
        else:
            source = sciig_repo_id()
    local = Path(source).expanduser()
    wanted = None if split == "all" else (split or "test")
    if local.exists() or str(source).startswith((".", "/", "~")):
        ds = load_dataset("parquet", data_files=local_data_files(local, config), split=wanted)
    else:
        ds = load_dataset(str(source), config, split=wanted, revision=revision)
    return validate_dataset(ds, "sciig", f"SciIG config {config!r} from {source}")


def card_configs_block(configs: list[str]) -> str:
    """The YAML ``configs:`` block for `configs`, each with a ``test`` and a ``holdout`` parquet split."""
    entries = [{"config_name": c, "data_files": [{"split": s, "path": f"{c}/{s}-*.parquet"} for s in SCIIG_SPLITS]}
               for c in configs]
    return yaml.safe_dump({"configs": entries}, sort_keys=False)


def write_sciig_config(folder: str | Path, config: str, splits: dict[str, list[dict]]) -> Path:
    """Write one config's splits as ``<config>/<split>-00000-of-00001.parquet`` (schema-checked).

    Every split must have rows: `datasets` cannot read an empty parquet split back.
    """
    _check(config, None)
    if sorted(splits) != sorted(SCIIG_SPLITS):
        raise ValueError(f"config {config!r} needs the splits {list(SCIIG_SPLITS)}, got {sorted(splits)}")
    empty = [s for s, rows in splits.items() if not rows]
    if empty:
        raise ValueError(f"config {config!r}: splits {empty} have no rows")
    target = Path(folder) / config
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*.parquet"):
        stale.unlink()
    for split, rows in splits.items():
        ds = validate_dataset(Dataset.from_list(rows, features=SCIIG_FEATURES), "sciig", f"config {config!r} split {split!r}")
        ds.to_parquet(str(target / f"{split}-00000-of-00001.parquet"))
    return Path(folder)
