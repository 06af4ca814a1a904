"""Loading a saved retriever without knowing its kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciwrite.retrieval.base import Retriever, read_config
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.retrieval.dense import DenseRetriever


def load_retriever(directory: str | Path, **kwargs: Any) -> Retriever:
    """Load a retriever saved by `BM25Retriever.save` or `DenseRetriever.save`."""

    kind = read_config(Path(directory))[0]["kind"]
    cls = {"bm25": BM25Retriever, "dense": DenseRetriever}[kind]
    return cls.load(directory, **kwargs)
