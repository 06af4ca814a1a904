"""Lexical (BM25) and dense (sentence-transformers + FAISS) retrieval over an RWGBench corpus.

Names are imported on first use, so that `sciwrite.retrieval.query` (used by the metrics) does not load
bm25s, FAISS and torch.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_WHERE = {
    "Retriever": "base", "SearchResult": "base", "load_retriever": "base",
    "BM25Retriever": "bm25", "DenseRetriever": "dense",
    "RetrievalReport": "evaluation", "evaluate_retrieval": "evaluation", "ndcg_at_k": "evaluation",
    "recall_at_k": "evaluation",
    "build_query": "query", "document_text": "query",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'sciwrite.retrieval' has no attribute {name!r}")
    return getattr(import_module(f"sciwrite.retrieval.{_WHERE[name]}"), name)
