"""SciIG's configs and splits, where they live, and writing one config as a local dataset folder.

Configs ``naacl_2025``, ``iclr_2025``, the offline ``sample`` and ``arxiv`` (a fresh set built from arXiv papers
newer than a model's cutoff, `sciwrite.sciig.data.arxiv_build`), each with the splits ``test`` (papers to
generate introductions for) and ``holdout`` (the pool few-shot exemplars are drawn from, never scored): for
``naacl_2025`` and ``iclr_2025`` the first 52 papers of the data file, as in the SciIG paper's code
(`PAPER_HOLDOUT_SIZE`); for ``sample`` and ``arxiv`` a hash split of paper_id (`holdout_rule`). Files are
``<config>/<split>-00000-of-00001.parquet`` listed in the card's YAML ``configs:`` block. The Hub repo is
``<namespace>/sciig`` (namespace: ``SCIWRITE_HUB_NAMESPACE`` or ``sciwrite``). The ``sample`` is built on first
use in `default_sciig_dir()`: ``SCIWRITE_SCIIG_DIR``, else ``sciig/`` next to the RWGBench data folder
(``$SCIWRITE_DATA_DIR/../sciig``, by default ``~/.cache/sciwrite/sciig``).
"""

from __future__ import annotations

from pathlib import Path

from datasets import Dataset, Features

from sciwrite.core import paths
from sciwrite.core.datasets import configs_yaml, remove_stale_parquet, write_split
from sciwrite.core.schema import ARXIV_PROVENANCE, with_optional
from sciwrite.sciig.data.schema import SCIIG_FEATURES, validate_sciig

DATASET_NAME = "sciig"
SCIIG_CONFIGS: tuple[str, ...] = ("naacl_2025", "iclr_2025", "sample")  # the published card's
"""The configs of the published dataset card: the paper's two datasets and the offline sample."""
#: Configs a user builds on their own machine, never on the published card: ``arxiv``, from papers newer than a
#: model's cutoff (`sciwrite build sciig --from-arxiv`); each user's window is their own.
LOCAL_CONFIGS: tuple[str, ...] = ("arxiv",)
ALL_CONFIGS: tuple[str, ...] = SCIIG_CONFIGS + LOCAL_CONFIGS
SCIIG_SPLITS: tuple[str, ...] = ("test", "holdout")
"""Every config's splits: ``test`` (scored) and ``holdout`` (the few-shot pool, never scored)."""
#: The SciIG code README: "The first 52 generations are treated as the holdout split and excluded; metrics are
#: computed over the remainder". Generations follow the data file's order (the evaluator asserts that the
#: prediction file and the data file are "loaded in parallel order"), so the holdout is the first 52 papers of
#: the data file, which also feed the few-shot exemplars (``holdout_set.json``).
PAPER_HOLDOUT_SIZE = 52
#: Configs split by the paper's rule (`sciwrite.sciig.data.builder.split_first_n`); the others (``sample``) by a
#: hash of paper_id (`sciwrite.sciig.data.builder.split_records`).
PAPER_SPLIT_CONFIGS: tuple[str, ...] = ("naacl_2025", "iclr_2025")


def holdout_rule(config: str) -> str:
    """How `config`'s ``holdout`` split is chosen, in words (written to the build report and the eval summary)."""
    if config in PAPER_SPLIT_CONFIGS:
        return (f"the first {PAPER_HOLDOUT_SIZE} papers of the data file, in file order (SciIG README: the first "
                f"{PAPER_HOLDOUT_SIZE} generations are the holdout, excluded from the metrics)")
    return "papers whose SHA-256 hash of paper_id falls below the holdout fraction (sciwrite's offline rule)"


def sciig_repo_id(namespace: str | None = None) -> str:
    """The Hub dataset repo id ``<namespace>/sciig``; the namespace defaults to ``SCIWRITE_HUB_NAMESPACE`` or
    ``sciwrite``."""
    return paths.hub_repo_id(DATASET_NAME, namespace)


def default_sciig_dir() -> Path:
    """The local folder of the SciIG sample: ``$SCIWRITE_SCIIG_DIR``, else ``sciig/`` beside the RWGBench folder.

    That is ``$SCIWRITE_DATA_DIR/../sciig`` when ``SCIWRITE_DATA_DIR`` is set, else ``~/.cache/sciwrite/sciig``.
    """
    return paths.benchmark_data_dir(DATASET_NAME, "SCIWRITE_SCIIG_DIR")


def check_config(config: str, split: str | None) -> None:
    """A clear error for an unknown config or split."""
    if config not in ALL_CONFIGS:
        raise ValueError(f"unknown SciIG config {config!r}; choose one of {list(ALL_CONFIGS)}")
    if split not in (None, "all", *SCIIG_SPLITS):
        raise ValueError(f"unknown SciIG split {split!r}; choose one of {list(SCIIG_SPLITS)} or 'all'")


def card_configs_block(configs: list[str]) -> str:
    """The YAML ``configs:`` block for `configs`, each with a ``test`` and a ``holdout`` parquet split."""
    return configs_yaml({c: list(SCIIG_SPLITS) for c in configs})


def write_sciig_config(folder: str | Path, config: str, splits: dict[str, list[dict]]) -> Path:
    """Write one config's splits as ``<config>/<split>-00000-of-00001.parquet`` (schema-checked).

    Every split must have rows: `datasets` cannot read an empty parquet split back.
    """
    check_config(config, None)
    if sorted(splits) != sorted(SCIIG_SPLITS):
        raise ValueError(f"config {config!r} needs the splits {list(SCIIG_SPLITS)}, got {sorted(splits)}")
    empty = [s for s, rows in splits.items() if not rows]
    if empty:
        raise ValueError(f"config {config!r}: splits {empty} have no rows")
    folder = Path(folder)
    remove_stale_parquet(folder, config)
    for split, rows in splits.items():
        features = with_optional(Features(dict.fromkeys(rows[0])), SCIIG_FEATURES, ARXIV_PROVENANCE)
        ds = validate_sciig(Dataset.from_list(rows, features=features), f"config {config!r} split {split!r}")
        write_split(folder, config, split, ds)
    return folder
