"""Lexical (BM25) and dense (sentence-transformers + FAISS) retrieval over an RWGBench corpus."""

from sciwrite.retrieval.base import Retriever, SearchResult
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.retrieval.dense import DenseRetriever
from sciwrite.retrieval.evaluation import RetrievalReport, evaluate_retrieval, ndcg_at_k, recall_at_k
from sciwrite.retrieval.query import build_query, document_text
from sciwrite.retrieval.saved import INDEX_KINDS, load_retriever

__all__ = [
    "INDEX_KINDS",
    "BM25Retriever",
    "DenseRetriever",
    "RetrievalReport",
    "Retriever",
    "SearchResult",
    "build_query",
    "document_text",
    "evaluate_retrieval",
    "load_retriever",
    "ndcg_at_k",
    "recall_at_k",
]
