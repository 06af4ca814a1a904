"""The parquet files of a SurGE corpus config, read without `datasets`, for the retrieval index builders and the
engines that stream them (`sciwrite.benchmark.Corpus.files`), in the order `load_surge` reads them."""

from __future__ import annotations

from pathlib import Path

from sciwrite.core.datasets import is_local_source, local_data_files
from sciwrite.surge.data.configs import SAMPLE_CONFIGS, config_info, default_surge_dir, surge_repo_id
from sciwrite.surge.data.loading import load_surge


def corpus_files(config: str, source: str | Path | None = None, revision: str | None = None) -> list[str]:
    """The parquet files of corpus config `config` of a local folder or a Hub dataset repo (downloaded); the sample
    corpus defaults to the local sample folder (built on first use), the full corpus to the Hub repo."""
    info = config_info(config)
    if info.kind != "corpus":
        raise ValueError(f"{config!r} is a {info.kind} config; an index is built over a corpus config")
    if source is None:
        if config in SAMPLE_CONFIGS:
            load_surge(config)  # builds the sample folder when it is missing
            source = default_surge_dir()
        else:
            source = surge_repo_id()
    if is_local_source(source):
        folder = Path(source).expanduser()
    else:
        from huggingface_hub import snapshot_download  # only for a Hub source

        folder = Path(snapshot_download(str(source), repo_type="dataset", revision=revision,
                                        allow_patterns=["README.md", f"{config}/*"]))
    files = local_data_files(folder, config, "datasets/surge/README.md", "SurGE")
    return files[info.split] if info.split in files else [f for split in files.values() for f in split]


def default_folder(config: str) -> Path | None:
    """The local folder a corpus config is read from when no source is named (None: the Hub)."""
    return default_surge_dir() if config in SAMPLE_CONFIGS else None


__all__ = ["corpus_files", "default_folder"]
