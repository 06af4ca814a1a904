"""Loading RWGBench configs from the Hub or a local folder, and writing local dataset folders.

Configs and their single split: ``papers`` (train), ``test`` (test), ``corpus`` (train), and the offline
sample ``sample`` (test) with its corpus ``sample_corpus`` (train). The Hub repo is
``<namespace>/rwgbench`` where the namespace comes from ``SCIWRITE_HUB_NAMESPACE`` (default ``sciwrite``);
a local folder is any directory with parquet files under ``<config>/`` and a card whose YAML ``configs:``
block lists them. The dense index of a corpus config lives next to the data in ``faiss/<config>/``.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from datasets import Dataset, DatasetDict, load_dataset

from sciwrite.data.schema import SchemaError, validate_dataset

logger = logging.getLogger(__name__)

DEFAULT_NAMESPACE = "sciwrite"
DATASET_NAME = "rwgbench"


@dataclass(frozen=True)
class ConfigInfo:
    kind: str  # 'paper' or 'corpus'
    split: str
    corpus: str | None = None  # for paper configs: the corpus config their citations point into


CONFIGS: dict[str, ConfigInfo] = {
    "papers": ConfigInfo("paper", "train", "corpus"),
    "test": ConfigInfo("paper", "test", "corpus"),
    "corpus": ConfigInfo("corpus", "train"),
    "sample": ConfigInfo("paper", "test", "sample_corpus"),
    "sample_corpus": ConfigInfo("corpus", "train"),
}
SAMPLE_CONFIGS = ("sample", "sample_corpus")


def hub_repo_id(namespace: str | None = None) -> str:
    """``<namespace>/rwgbench``; the namespace defaults to ``SCIWRITE_HUB_NAMESPACE`` or ``sciwrite``."""
    return f"{namespace or os.environ.get('SCIWRITE_HUB_NAMESPACE') or DEFAULT_NAMESPACE}/{DATASET_NAME}"


def default_data_dir() -> Path:
    """Where `sciwrite build sample` writes and `load_rwgbench('sample')` looks: ``SCIWRITE_DATA_DIR``
    or ``~/.cache/sciwrite/rwgbench``."""
    root = os.environ.get("SCIWRITE_DATA_DIR")
    return Path(root) if root else Path.home() / ".cache" / "sciwrite" / DATASET_NAME


def config_info(config: str) -> ConfigInfo:
    if config not in CONFIGS:
        raise ValueError(f"unknown RWGBench config {config!r}; choose one of {sorted(CONFIGS)}")
    return CONFIGS[config]


def card_configs(folder: Path) -> dict[str, Any]:
    """The ``configs:`` entries of a folder's card, by name; {} when there is no card or no block."""
    card = folder / "README.md"
    if not card.exists():
        return {}
    text = card.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    try:
        meta = yaml.safe_load(text.split("---", 2)[1]) or {}
    except yaml.YAMLError as err:
        raise SchemaError(f"{card}: the YAML header cannot be parsed ({err})") from err
    return {c["config_name"]: c for c in meta.get("configs") or [] if isinstance(c, dict) and "config_name" in c}


def local_data_files(folder: Path, config: str) -> dict[str, list[str]]:
    """The parquet files of `config` in a local folder, by split, as its card lists them.

    Explains precisely what is wrong with a folder that cannot serve `config`.
    """
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a directory")
    configs = card_configs(folder)
    if not configs:
        raise SchemaError(
            f"{folder} is not an RWGBench dataset folder: it needs a README.md whose YAML header has a `configs:` "
            f"block (see datasets/rwgbench/README.md), found {'no README.md' if not (folder / 'README.md').exists() else 'none'}"
        )
    if config not in configs:
        raise SchemaError(f"{folder} has no config {config!r}; its card lists {sorted(configs)}")
    files: dict[str, list[str]] = {}
    for entry in configs[config].get("data_files") or []:
        split, patterns = (entry.get("split", "train"), entry["path"]) if isinstance(entry, dict) else ("train", entry)
        for pattern in [patterns] if isinstance(patterns, str) else patterns:
            found = sorted(str(p) for p in folder.glob(pattern))
            if not found:
                raise SchemaError(f"{folder}: config {config!r} lists data files {pattern!r} but none exist")
            files.setdefault(split, []).extend(found)
    if not files:
        raise SchemaError(f"{folder}: config {config!r} lists no data files")
    return files


def load_rwgbench(config: str = "sample", source: str | Path | None = None, split: str | None = None, *,
                  faiss_index: bool = False, revision: str | None = None,
                  build_if_missing: bool = True) -> Dataset | DatasetDict:
    """Load one RWGBench config as a `datasets.Dataset`, validated against the schema.

    `source` is a local folder or a Hub dataset repo id. Without it, the sample configs come from
    `default_data_dir()` (built there from the packaged ACL papers on first use when `build_if_missing`),
    the others from the Hub repo `hub_repo_id()`. `split=None` returns the config's one split;
    `split="all"` returns a `DatasetDict`. `faiss_index=True` attaches the published dense index
    (``faiss/<config>/``) to a corpus config as the FAISS index ``"embeddings"``.
    """
    info = config_info(config)
    if source is None:
        if config in SAMPLE_CONFIGS:
            source = default_data_dir()
            if build_if_missing and not (Path(source) / "README.md").exists():
                from sciwrite.data.sample_folder import write_sample_folder

                logger.info("the offline sample is not built yet: building it in %s", source)
                write_sample_folder(source)
        else:
            source = hub_repo_id()
    local = Path(source).expanduser()
    is_local = local.exists() or str(source).startswith((".", "/", "~"))
    where = f"RWGBench config {config!r} from {source}"
    if is_local:
        # Resolved files, not the folder: the cache key then covers each file's path and modification
        # time, so a folder rebuilt in place is read anew (a folder id is cached by name and card only).
        files = local_data_files(local, config)
        ds = load_dataset("parquet", data_files=files, split=None if split == "all" else (split or info.split))
    else:
        ds = load_dataset(str(source), config, split=None if split == "all" else (split or info.split), revision=revision)
    ds = validate_dataset(ds, info.kind, where)
    if faiss_index:
        if info.kind != "corpus" or not isinstance(ds, Dataset):
            raise ValueError("faiss_index=True applies to a single split of a corpus config")
        attach_faiss_index(ds, _faiss_dir(source, config, is_local, revision))
    return ds


def _faiss_dir(source: str | Path, config: str, is_local: bool, revision: str | None) -> Path:
    if is_local:
        folder = Path(source).expanduser() / "faiss" / config
        if not folder.is_dir():
            raise FileNotFoundError(f"{source} has no dense index for {config!r} (expected {folder}); "
                                    f"build one with `sciwrite index build --kind dense`")
        return folder
    from huggingface_hub import snapshot_download

    root = snapshot_download(str(source), repo_type="dataset", revision=revision, allow_patterns=[f"faiss/{config}/*"])
    return Path(root) / "faiss" / config


def attach_faiss_index(ds: Dataset, folder: Path, column: str = "embeddings") -> Dataset:
    """Attach a saved `DenseRetriever` index to the corpus it was built from (rows in the same order)."""
    from sciwrite.retrieval.base import read_config
    from sciwrite.retrieval.dense import INDEX_FILE

    config, doc_ids = read_config(folder)
    if doc_ids != ds["doc_id"]:
        raise SchemaError(f"the dense index in {folder} was built over other documents or another row order "
                          f"({len(doc_ids)} ids vs {len(ds)} rows); rebuild it from this corpus")
    ds.load_faiss_index(column, str(folder / INDEX_FILE))
    logger.info("attached dense index (%s, encoder %s) as %r", config["factory"], config["encoder"], column)
    return ds


def write_dataset_folder(folder: str | Path, tables: dict[str, Dataset], card: str) -> Path:
    """Write each config as ``<config>/<split>-00000-of-00001.parquet`` and the card as README.md."""
    folder = Path(folder)
    empty = [config for config, ds in tables.items() if len(ds) == 0]
    if empty:  # `datasets` cannot load a zero-row parquet split back: leave such configs out instead
        raise ValueError(f"configs {empty} have no rows; leave them out of the folder")
    for config, ds in tables.items():
        info = config_info(config)
        ds = validate_dataset(ds, info.kind, f"config {config!r}")
        target = folder / config / f"{info.split}-00000-of-00001.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        for stale in target.parent.glob("*.parquet"):
            stale.unlink()
        ds.to_parquet(str(target))
    (folder / "README.md").write_text(card, encoding="utf-8")
    return folder


def card_configs_yaml(configs: list[str]) -> str:
    """The ``configs:`` YAML block for the given configs in the folder layout above."""
    entries = [{"config_name": c, "data_files": [{"split": config_info(c).split, "path": f"{c}/{config_info(c).split}-*.parquet"}]}
               for c in configs]
    return yaml.safe_dump({"configs": entries}, sort_keys=False)


def write_json(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
