"""The parquet files of an RWGBench corpus config, read without `datasets`, for engines that stream them
(Ray Data reads the files themselves; the driver reads only the doc_id column, `sciwrite.retrieval.corpus_files`).

The files are the ones `load_rwgbench` reads, in the same order, so an index built from them has the row order
`load_rwgbench(..., faiss_index=True)` checks.
"""

from __future__ import annotations

from pathlib import Path

from sciwrite.core.datasets import is_local_source, local_data_files
from sciwrite.rwgbench.data.configs import SAMPLE_CONFIGS, config_info, default_rwgbench_dir, rwgbench_repo_id
from sciwrite.rwgbench.data.loading import load_rwgbench


def corpus_files(config: str, source: str | Path | None = None, revision: str | None = None) -> list[str]:
    """The parquet files of corpus config `config` of a local folder or a Hub dataset repo (downloaded), in
    the order `load_rwgbench` reads them. The sample configs default to the local sample folder (built on first
    use), the others to the Hub repo, as in `load_rwgbench`."""
    info = config_info(config)
    if info.kind != "corpus":
        raise ValueError(f"{config!r} is a {info.kind} config; an index is built over a corpus config")
    if source is None:
        if config in SAMPLE_CONFIGS:
            load_rwgbench(config)  # builds the sample folder when it is missing
            source = default_rwgbench_dir()
        else:
            source = rwgbench_repo_id()
    if is_local_source(source):
        folder = Path(source).expanduser()
    else:
        from huggingface_hub import snapshot_download  # only for a Hub source

        folder = Path(snapshot_download(str(source), repo_type="dataset", revision=revision,
                                        allow_patterns=["README.md", f"{config}/*"]))
    files = local_data_files(folder, config)
    return files[info.split] if info.split in files else [f for split in files.values() for f in split]
