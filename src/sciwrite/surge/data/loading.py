"""Loading SurGE configs (see `sciwrite.surge.data.configs`) from a local folder or the Hub; the offline ``sample``
and ``sample_corpus`` are built on first use."""

from __future__ import annotations

import logging
from pathlib import Path

from datasets import Dataset, DatasetDict

from sciwrite.core.datasets import is_local_source, load_config
from sciwrite.core.errors import hub_unreachable, is_offline_error
from sciwrite.surge.data.configs import SAMPLE_CONFIGS, config_info, default_surge_dir, surge_repo_id
from sciwrite.surge.data.sample_folder import write_sample_folder
from sciwrite.surge.data.schema import validate_dataset

logger = logging.getLogger(__name__)

#: What works without the Hub.
OFFLINE_HINT = ("offline, use the sample (`--split sample`) or `--source DIR`, a folder `sciwrite build surge` wrote "
                "from SurGE's surveys.json, queries.json and corpus.json")


def load_surge(config: str = "sample", source: str | Path | None = None, split: str | None = None, *,
               revision: str | None = None, build_if_missing: bool = True) -> Dataset | DatasetDict:
    """Load one SurGE config as a `datasets.Dataset`, validated against the SurGE schema.

    Args:
        config: ``sample``, ``sample_corpus``, ``surveys`` or ``corpus`` (`SURGE_CONFIGS`), or ``arxiv`` (a fresh
            split in a folder you built, `LOCAL_CONFIGS`).
        source: A local dataset folder or a Hub dataset repo id; None: the sample folder for the sample configs
            (built there from the packaged ACL papers on first use when `build_if_missing`), else the Hub repo.
        split: None for the config's one split; ``"all"`` for a `DatasetDict`.
        revision: The Hub revision to load.
        build_if_missing: Build the offline sample when it is asked for and not built yet.

    Raises:
        SchemaError: The data does not match the schema; the message says what is wrong.
        ValueError: An unknown config.
    """
    info = config_info(config)
    if source is None:
        if config in SAMPLE_CONFIGS:
            source = default_surge_dir()
            if build_if_missing and not (Path(source) / "README.md").exists():
                logger.info("the SurGE sample is not built yet: building it in %s", source)
                write_sample_folder(source)
        else:
            source = surge_repo_id()
    try:
        ds = load_config(source, config, None if split == "all" else (split or info.split), revision,
                         card_help="datasets/surge/README.md", benchmark="SurGE")
    except Exception as err:
        if is_local_source(source) or not is_offline_error(err):
            raise
        raise hub_unreachable(f"SurGE config {config!r}", str(source), OFFLINE_HINT) from err
    return validate_dataset(ds, info.kind, f"SurGE config {config!r} from {source}")


__all__ = ["OFFLINE_HINT", "load_surge"]
