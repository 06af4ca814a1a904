"""Loading RWGBench configs from the Hub or a local folder (see `sciwrite.rwgbench.data.configs`), with the
corpus's published dense index attached on request."""

from __future__ import annotations

import logging
from pathlib import Path

from datasets import Dataset, DatasetDict

from sciwrite.core.datasets import is_local_source, load_config
from sciwrite.core.errors import hub_unreachable, is_offline_error
from sciwrite.core.schema import SchemaError
from sciwrite.retrieval.base import read_config
from sciwrite.retrieval.dense import INDEX_FILE
from sciwrite.rwgbench.data.configs import SAMPLE_CONFIGS, config_info, default_rwgbench_dir, rwgbench_repo_id
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.data.schema import validate_dataset

logger = logging.getLogger(__name__)

#: What works without the Hub, by the kind of config asked for.
OFFLINE_HINTS = {
    "paper": "offline, use the sample (`--split sample`; `--configs sample` in paper-table) or `--source DIR`, a "
             "folder `sciwrite build rwgbench` wrote",
    "corpus": "offline, use the sample's corpus (`--corpus sample_corpus`; `--split sample` where a split's corpus "
              "is read) or `--source DIR`, a folder `sciwrite build rwgbench` wrote",
}


def load_rwgbench(config: str = "sample", source: str | Path | None = None, split: str | None = None, *,
                  faiss_index: bool = False, revision: str | None = None,
                  build_if_missing: bool = True) -> Dataset | DatasetDict:
    """Load one RWGBench config as a `datasets.Dataset`, validated against the schema.

    Without a `source`, the sample configs come from `default_rwgbench_dir()` (built there from the packaged ACL
    papers on first use when `build_if_missing`), the others from the Hub repo `rwgbench_repo_id()`.

    Args:
        config: One of `RWGBENCH_CONFIGS`: ``sample``, ``sample_corpus``, ``test``, ``papers`` or ``corpus``.
        source: A local dataset folder or a Hub dataset repo id; None for the default above.
        split: None for the config's one split; ``"all"`` for a `DatasetDict` of every split.
        faiss_index: Attach the published dense index (``faiss/<config>/`` next to the data) to a corpus config
            as the FAISS index ``"embeddings"``.
        revision: The Hub revision (branch, tag or commit) to load.
        build_if_missing: Build the offline sample when it is asked for and not built yet.

    Returns:
        The config's split (a `DatasetDict` with ``split="all"``), cast to `PAPER_FEATURES` or `CORPUS_FEATURES`.

    Raises:
        SchemaError: The data does not match the schema; the message says what is wrong.
        ValueError: An unknown config, or ``faiss_index=True`` for a paper config.
    """
    info = config_info(config)
    if source is None:
        if config in SAMPLE_CONFIGS:
            source = default_rwgbench_dir()
            if build_if_missing and not (Path(source) / "README.md").exists():
                logger.info("the offline sample is not built yet: building it in %s", source)
                write_sample_folder(source)
        else:
            source = rwgbench_repo_id()
    is_local = is_local_source(source)
    try:
        ds = load_config(source, config, None if split == "all" else (split or info.split), revision)
    except Exception as err:
        if is_local or not is_offline_error(err):
            raise
        raise hub_unreachable(f"RWGBench config {config!r}", str(source), OFFLINE_HINTS[info.kind]) from err
    ds = validate_dataset(ds, info.kind, f"RWGBench config {config!r} from {source}")
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
    from huggingface_hub import snapshot_download  # only for a Hub source

    root = snapshot_download(str(source), repo_type="dataset", revision=revision, allow_patterns=[f"faiss/{config}/*"])
    return Path(root) / "faiss" / config


def attach_faiss_index(ds: Dataset, folder: Path, column: str = "embeddings") -> Dataset:
    """Attach a saved `DenseRetriever` index to the corpus it was built from (rows in the same order)."""
    config, doc_ids = read_config(folder)
    if doc_ids != ds["doc_id"]:
        raise SchemaError(f"the dense index in {folder} was built over other documents or another row order "
                          f"({len(doc_ids)} ids vs {len(ds)} rows); rebuild it from this corpus")
    ds.load_faiss_index(column, str(folder / INDEX_FILE))
    logger.info("attached dense index (%s, encoder %s) as %r", config["factory"], config["encoder"], column)
    return ds
