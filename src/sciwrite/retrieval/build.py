"""The retriever a generation run searches: a saved one of the kind asked for (``--index``), or one built here from
the split's corpus (``--retriever bm25|dense``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciwrite.retrieval.base import read_config
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.retrieval.dense import DenseRetriever
from sciwrite.retrieval.saved import load_retriever

#: The kinds of retriever a run may search (``--retriever``).
RETRIEVERS = ("bm25", "dense")


def build_retriever(kind: str, corpus: Any, index: str | None = None, profile: str | None = None) -> Any:
    """A saved retriever (its kind must be `kind`), or one built from `corpus`."""
    if kind not in RETRIEVERS:
        raise ValueError(f"unknown retriever {kind!r}; choose one of {', '.join(RETRIEVERS)}")
    if index:
        saved = read_config(Path(index))[0].get("kind")
        if saved != kind:
            raise ValueError(f"--index {index} holds a {saved!r} retriever but --retriever is {kind!r}; pass "
                             f"--retriever {saved}")
        return load_retriever(index)
    if kind == "bm25":
        return BM25Retriever.from_corpus(corpus)
    return DenseRetriever.from_corpus(corpus, profile=profile)


__all__ = ["RETRIEVERS", "build_retriever"]
