"""Dataset folders in the Hub layout, shared by the benchmarks: a card whose YAML ``configs:`` block lists
parquet files per config and split, read the same way from a local folder or a Hub dataset repo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from datasets import Dataset, DatasetDict, load_dataset

from sciwrite.core.schema import SchemaError


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


def local_data_files(folder: Path, config: str, card_help: str = "datasets/rwgbench/README.md",
                     benchmark: str = "RWGBench") -> dict[str, list[str]]:
    """The parquet files of `config` in a local folder, by split, as its card lists them.

    Explains precisely what is wrong with a folder that cannot serve `config`.
    """
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a directory")
    configs = card_configs(folder)
    if not configs:
        raise SchemaError(
            f"{folder} is not an {benchmark} dataset folder: it needs a README.md whose YAML header has a `configs:` "
            f"block (see {card_help}), found {'no README.md' if not (folder / 'README.md').exists() else 'none'}"
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


def is_local_source(source: str | Path) -> bool:
    """Whether `source` names a local folder (it exists, or is written as a path) rather than a Hub repo id."""
    return Path(source).expanduser().exists() or str(source).startswith((".", "/", "~"))


def load_config(source: str | Path, config: str, split: str | None, revision: str | None = None, *,
                card_help: str = "datasets/rwgbench/README.md", benchmark: str = "RWGBench") -> Dataset | DatasetDict:
    """One config of a local dataset folder or a Hub dataset repo; `split` None gives a `DatasetDict`."""
    if is_local_source(source):
        # Resolved files, not the folder: the cache key then covers each file's path and modification
        # time, so a folder rebuilt in place is read anew (a folder id is cached by name and card only).
        files = local_data_files(Path(source).expanduser(), config, card_help, benchmark)
        return load_dataset("parquet", data_files=files, split=split)
    return load_dataset(str(source), config, split=split, revision=revision)


def configs_yaml(splits_by_config: dict[str, list[str]]) -> str:
    """The card's ``configs:`` YAML block: each config's splits at ``<config>/<split>-*.parquet``."""
    entries = [{"config_name": c, "data_files": [{"split": s, "path": f"{c}/{s}-*.parquet"} for s in splits]}
               for c, splits in splits_by_config.items()]
    return yaml.safe_dump({"configs": entries}, sort_keys=False)


def write_split(folder: Path, config: str, split: str, ds: Dataset) -> Path:
    """Write one split as ``<config>/<split>-00000-of-00001.parquet``."""
    target = folder / config / f"{split}-00000-of-00001.parquet"
    target.parent.mkdir(parents=True, exist_ok=True)
    ds.to_parquet(str(target))
    return target


def remove_stale_parquet(folder: Path, config: str) -> None:
    """Remove a config's parquet files before it is written anew."""
    for stale in (folder / config).glob("*.parquet"):
        stale.unlink()


def write_json(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
