"""Loading a saved retriever without knowing its kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciwrite.retrieval.base import Retriever, read_config
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.retrieval.dense import DenseRetriever

#: The kinds of saved index, by the name their config records.
RETRIEVER_CLASSES: dict[str, type[BM25Retriever] | type[DenseRetriever]] = {"bm25": BM25Retriever,
                                                                            "dense": DenseRetriever}
#: The kinds of index `sciwrite index build --kind` writes.
INDEX_KINDS: tuple[str, ...] = tuple(RETRIEVER_CLASSES)
"""The kinds of index `sciwrite index build --kind` writes and `load_retriever` reads: ``bm25`` and ``dense``."""


def load_retriever(directory: str | Path, **kwargs: Any) -> Retriever:
    """Load a retriever saved by `BM25Retriever.save` or `DenseRetriever.save`, whichever kind it is.

    Args:
        directory: The folder `save` (or `sciwrite index build`) wrote.
        **kwargs: Passed to the kind's `load` (``mmap`` for BM25; ``encoder``, ``nprobe``, ... for dense).
    """
    kind = read_config(Path(directory))[0]["kind"]
    cls = RETRIEVER_CLASSES[kind]
    return cls.load(directory, **kwargs)
