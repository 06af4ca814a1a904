"""Loading SciIG configs (see `sciwrite.sciig.data.configs`) from the Hub or a local folder; the offline
``sample`` is built on first use."""

from __future__ import annotations

import logging
from pathlib import Path

from datasets import Dataset, DatasetDict

from sciwrite.core.datasets import is_local_source, load_config
from sciwrite.core.errors import hub_unreachable, is_offline_error
from sciwrite.sciig.data.builder import write_sciig_sample
from sciwrite.sciig.data.configs import check_config, default_sciig_dir, sciig_repo_id
from sciwrite.sciig.data.schema import validate_sciig

logger = logging.getLogger(__name__)

#: What works without the Hub.
OFFLINE_HINT = ("offline, use the sample (`--split sample`; `--configs sample` in paper-table) or `--source DIR`, a "
                "folder `sciwrite build sciig` wrote")


def load_sciig(config: str = "sample", source: str | Path | None = None, split: str | None = None, *,
               revision: str | None = None, build_if_missing: bool = True) -> Dataset | DatasetDict:
    """Load one SciIG config as a `datasets.Dataset`, validated against `SCIIG_FEATURES`.

    Without a `source`, ``sample`` comes from `default_sciig_dir()` (built there from the packaged ACL papers on
    first use when `build_if_missing`) and the other configs from the Hub repo `sciig_repo_id()`.

    Args:
        config: ``sample``, ``naacl_2025``, ``iclr_2025`` (`SCIIG_CONFIGS`) or ``arxiv`` (a folder you built).
        source: A local dataset folder or a Hub dataset repo id; None for the default above.
        split: ``"test"`` (None: the default), ``"holdout"`` (the few-shot pool, never scored) or ``"all"`` for a
            `DatasetDict` of both.
        revision: The Hub revision (branch, tag or commit) to load.
        build_if_missing: Build the offline sample when it is asked for and not built yet.

    Returns:
        The split, cast to `SCIIG_FEATURES`.

    Raises:
        SchemaError: The data does not match the schema; the message says what is wrong.
        ValueError: An unknown config or split.
    """
    check_config(config, split)
    if source is None:
        if config == "sample":
            source = default_sciig_dir()
            if build_if_missing and not (Path(source) / "README.md").exists():
                logger.info("the SciIG sample is not built yet: building it in %s", source)
                write_sciig_sample(source)
        else:
            source = sciig_repo_id()
    try:
        ds = load_config(source, config, None if split == "all" else (split or "test"), revision,
                         card_help="datasets/sciig/README.md", benchmark="SciIG")
    except Exception as err:
        if is_local_source(source) or not is_offline_error(err):
            raise
        raise hub_unreachable(f"SciIG config {config!r}", str(source), OFFLINE_HINT) from err
    return validate_sciig(ds, f"SciIG config {config!r} from {source}")
