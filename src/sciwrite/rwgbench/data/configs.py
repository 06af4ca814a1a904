"""RWGBench's configs, where they live, and writing a local dataset folder of them.

Configs and their single split: ``papers`` (train), ``test`` (test), ``corpus`` (train), and the offline
sample ``sample`` (test) with its corpus ``sample_corpus`` (train). The Hub repo is
``<namespace>/rwgbench`` where the namespace comes from ``SCIWRITE_HUB_NAMESPACE`` (default ``sciwrite``);
a local folder is any directory with parquet files under ``<config>/`` and a card whose YAML ``configs:``
block lists them. The dense index of a corpus config lives next to the data in ``faiss/<config>/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from datasets import Dataset

from sciwrite.core import paths
from sciwrite.core.datasets import configs_yaml, remove_stale_parquet, write_split
from sciwrite.rwgbench.data.schema import validate_dataset

DATASET_NAME = "rwgbench"


@dataclass(frozen=True)
class ConfigInfo:
    """One RWGBench config: its kind, its single split and, for a paper config, its corpus config."""

    kind: str  # 'paper' or 'corpus'
    split: str
    corpus: str | None = None  # for paper configs: the corpus config their citations point into


RWGBENCH_CONFIGS: dict[str, ConfigInfo] = {
    "papers": ConfigInfo("paper", "train", "corpus"),
    "test": ConfigInfo("paper", "test", "corpus"),
    "corpus": ConfigInfo("corpus", "train"),
    "sample": ConfigInfo("paper", "test", "sample_corpus"),
    "sample_corpus": ConfigInfo("corpus", "train"),
}
"""Every RWGBench config by name: its kind (``paper`` or ``corpus``), its one split and, for paper configs, the
corpus config their citations point into."""
SAMPLE_CONFIGS = ("sample", "sample_corpus")
#: The paper configs a run is scored on (``--split``): the offline sample and the 100-paper test set.
SCORED_SPLITS = ("sample", "test")


def rwgbench_repo_id(namespace: str | None = None) -> str:
    """The Hub dataset repo id ``<namespace>/rwgbench``; the namespace defaults to ``SCIWRITE_HUB_NAMESPACE`` or
    ``sciwrite``."""
    return paths.hub_repo_id(DATASET_NAME, namespace)


def default_rwgbench_dir() -> Path:
    """The local folder of the RWGBench sample: ``$SCIWRITE_DATA_DIR``, else ``~/.cache/sciwrite/rwgbench``.

    `sciwrite build sample` writes there and `load_rwgbench("sample")` looks there.
    """
    return paths.benchmark_data_dir(DATASET_NAME, paths.DATA_DIR_ENV)


def config_info(config: str) -> ConfigInfo:
    """The `ConfigInfo` of `config`; a `ValueError` lists the known configs otherwise."""
    if config not in RWGBENCH_CONFIGS:
        raise ValueError(f"unknown RWGBench config {config!r}; choose one of {sorted(RWGBENCH_CONFIGS)}")
    return RWGBENCH_CONFIGS[config]


def write_dataset_folder(folder: str | Path, tables: dict[str, Dataset], card: str) -> Path:
    """Write RWGBench configs as a local dataset folder that `load_rwgbench(config, source=folder)` reads.

    Each config is validated and written as ``<config>/<split>-00000-of-00001.parquet``, and the card as
    ``README.md``.

    Args:
        folder: The folder to write (created when missing).
        tables: Config name -> its rows (a config with no rows is refused: `datasets` cannot read it back).
        card: The dataset card's text; its YAML ``configs:`` block (`card_configs_yaml`) must list the configs
            for the folder to load.

    Returns:
        `folder`.
    """
    folder = Path(folder)
    empty = [config for config, ds in tables.items() if len(ds) == 0]
    if empty:  # `datasets` cannot load a zero-row parquet split back: leave such configs out instead
        raise ValueError(f"configs {empty} have no rows; leave them out of the folder")
    for config, ds in tables.items():
        info = config_info(config)
        ds = validate_dataset(ds, info.kind, f"config {config!r}")
        remove_stale_parquet(folder, config)
        write_split(folder, config, info.split, ds)
    (folder / "README.md").write_text(card, encoding="utf-8")
    return folder


def card_configs_yaml(configs: list[str]) -> str:
    """The ``configs:`` YAML block for the given configs in the folder layout above."""
    return configs_yaml({c: [config_info(c).split] for c in configs})
