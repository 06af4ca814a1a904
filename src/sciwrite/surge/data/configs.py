"""SurGE's configs, where they live, and writing a local dataset folder of them.

Configs and their single split: ``surveys`` (test: SurGE's 205 expert surveys), ``corpus`` (train: its
1,086,992 papers), the offline sample ``sample`` (test) with its corpus ``sample_corpus`` (train), and the local
``arxiv`` (test: surveys posted after a model's cutoff, `sciwrite build surge --from-arxiv`). The Hub repo
is ``<namespace>/surge`` (namespace from ``SCIWRITE_HUB_NAMESPACE``, default ``sciwrite``); nothing is uploaded there
by default, because SurGE's data licence is not stated: `sciwrite build surge` writes a local folder from the files
SurGE's README links to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from datasets import Dataset

from sciwrite.core import paths
from sciwrite.core.datasets import configs_yaml, remove_stale_parquet, write_split
from sciwrite.surge.data.schema import validate_dataset

DATASET_NAME = "surge"
#: Where SurGE's own files are published (its README's link to a Google Drive folder).
UPSTREAM_FILES_URL = "https://drive.google.com/drive/folders/1ZZPeZvjexFcCmgFqxftKeCPn1vYeBR0Q"
UPSTREAM_REPO = "https://github.com/oneal2000/SurGE"


@dataclass(frozen=True)
class ConfigInfo:
    """One SurGE config: its kind (``survey`` or ``corpus``), its one split and, for surveys, their corpus."""

    kind: str
    split: str
    corpus: str | None = None


SURGE_CONFIGS: dict[str, ConfigInfo] = {
    "surveys": ConfigInfo("survey", "test", "corpus"),
    "corpus": ConfigInfo("corpus", "train"),
    "sample": ConfigInfo("survey", "test", "sample_corpus"),
    "sample_corpus": ConfigInfo("corpus", "train"),
}
SAMPLE_CONFIGS = ("sample", "sample_corpus")
#: Configs a user builds on their own machine, never on the published card: ``arxiv``, surveys posted on arXiv after
#: a model's cutoff (`sciwrite build surge --from-arxiv`). Its folder holds no corpus: the corpus is read from the
#: source and config its build recorded (`corpus_location`).
LOCAL_CONFIGS: dict[str, ConfigInfo] = {"arxiv": ConfigInfo("survey", "test", "corpus")}
#: The survey configs a run is scored on (``--split``).
SCORED_SPLITS = ("sample", "surveys", "arxiv")
#: Where a fresh ``arxiv`` folder records its corpus: ``{"corpus": {"source": ..., "config": ...}}`` in this file.
BUILD_REPORT = "build_report.json"


@dataclass(frozen=True)
class CorpusLocation:
    """Where a survey config's corpus is read: its config, from a local folder or Hub repo (None: the default)."""

    config: str
    source: str | Path | None


def surge_repo_id(namespace: str | None = None) -> str:
    """The Hub dataset repo id ``<namespace>/surge`` (namespace: ``SCIWRITE_HUB_NAMESPACE`` or ``sciwrite``)."""
    return paths.hub_repo_id(DATASET_NAME, namespace)


def default_surge_dir() -> Path:
    """The local folder of the SurGE sample: ``$SCIWRITE_SURGE_DIR``, else ``~/.cache/sciwrite/surge``."""
    return paths.benchmark_data_dir(DATASET_NAME, "SCIWRITE_SURGE_DIR")


def config_info(config: str) -> ConfigInfo:
    """The `ConfigInfo` of `config`; a `ValueError` lists the known configs otherwise."""
    info = SURGE_CONFIGS.get(config) or LOCAL_CONFIGS.get(config)
    if info is None:
        raise ValueError(f"unknown SurGE config {config!r}; choose one of {sorted(SURGE_CONFIGS | LOCAL_CONFIGS)}")
    return info


def corpus_location(config: str, source: str | Path | None) -> CorpusLocation:
    """Where the corpus of survey config `config` read from `source` is: its corpus config from `source` itself, or,
    for a fresh ``arxiv`` folder, the source and config its build recorded in its `BUILD_REPORT` (the folder holds no
    corpus: `sciwrite build surge --from-arxiv --corpus-source`).

    Raises:
        ValueError: `config` is no survey config, or an ``arxiv`` source is not a local folder that records its corpus.
    """
    info = config_info(config)
    if info.kind != "survey" or info.corpus is None:
        raise ValueError(f"SurGE config {config!r} is a {info.kind} config, not a survey config")
    if config not in LOCAL_CONFIGS:
        return CorpusLocation(info.corpus, source)
    wanted = f"SurGE config {config!r} is read from the folder `sciwrite build surge --from-arxiv` wrote"
    if source is None:
        raise ValueError(f"{wanted}: give that folder as --source")
    report = Path(source).expanduser() / BUILD_REPORT
    if not report.is_file():
        raise ValueError(f"{wanted}, which records its corpus in {BUILD_REPORT}: {report} not found")
    try:
        recorded = json.loads(report.read_text(encoding="utf-8"))["corpus"]
        return CorpusLocation(str(recorded["config"]), str(recorded["source"]))
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{report}: no corpus recorded (expected a key 'corpus' holding 'source' and 'config'; "
                         f"{type(err).__name__}: {err})") from None


def write_dataset_folder(folder: str | Path, tables: dict[str, Dataset], card: str) -> Path:
    """Write SurGE configs (config -> rows, each validated) as ``<config>/<split>-00000-of-00001.parquet`` and the
    card as ``README.md``: a folder `load_surge(config, source=folder)` reads. An empty config is refused (`datasets`
    cannot read a zero-row split back)."""
    folder = Path(folder)
    empty = [config for config, ds in tables.items() if len(ds) == 0]
    if empty:
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


__all__ = ["BUILD_REPORT", "LOCAL_CONFIGS", "SAMPLE_CONFIGS", "SCORED_SPLITS", "SURGE_CONFIGS", "UPSTREAM_FILES_URL",
           "UPSTREAM_REPO", "ConfigInfo", "CorpusLocation", "card_configs_yaml", "config_info", "corpus_location",
           "default_surge_dir", "surge_repo_id", "write_dataset_folder"]
