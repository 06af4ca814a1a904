"""What every retriever offers, and loading a saved one without knowing its kind."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

logger = logging.getLogger(__name__)

CONFIG_FILE = "sciwrite_retriever.json"


@dataclass
class SearchResult:
    """The ranked hits for one query: corpus doc_ids and their scores, best first.

    Attributes:
        doc_ids: The hits' corpus doc_ids.
        scores: Their scores (BM25 scores, or cosine similarities for dense retrieval), in the same order.
    """

    doc_ids: list[str]
    scores: list[float]


class Retriever(Protocol):
    """What every retriever offers: the corpus doc_ids it ranks, `search` and `save`.

    A retriever of your own that has these is measured by `evaluate_retrieval` like the built-in ones.

    Attributes:
        doc_ids: The indexed documents' ids, in index order.
    """

    doc_ids: list[str]

    def search(self, queries: list[str], k: int = 50, show_progress: bool = True) -> list[SearchResult]:
        """Top-k hits per query, best first."""
        ...

    def save(self, directory: str | Path) -> None:
        """Write the retriever to `directory`, for `load_retriever`."""
        ...


def check_queries(queries: list[str]) -> None:
    """Refuse empty queries up front, naming their positions, instead of failing inside a library."""
    if isinstance(queries, str):
        raise TypeError("search() takes a list of queries; wrap a single query in a list")
    empty = [i for i, q in enumerate(queries) if not isinstance(q, str) or not q.strip()]
    if empty:
        raise ValueError(f"empty query at position(s) {empty[:10]}{' ...' if len(empty) > 10 else ''}; every query needs text")


def clip_k(k: int, n_docs: int) -> int:
    """k larger than the corpus returns the whole corpus ranked, with a logged warning."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k > n_docs:
        logger.warning("k=%d is larger than the corpus (%d documents); returning all %d", k, n_docs, n_docs)
        return n_docs
    return k


def check_doc_ids(doc_ids: list[str]) -> None:
    """Duplicate or empty doc_ids would make hits ambiguous: refuse them, naming a few."""
    seen: set[str] = set()
    dupes = []
    for i, d in enumerate(doc_ids):
        if not d:
            raise ValueError(f"corpus record {i} has an empty doc_id")
        if d in seen:
            dupes.append(d)
        seen.add(d)
    if dupes:
        raise ValueError(f"{len(dupes)} duplicate doc_id(s) in the corpus, e.g. {dupes[:5]}; de-duplicate it first")


def write_config(directory: Path, config: dict[str, Any], doc_ids: list[str]) -> None:
    """Write a saved retriever's settings and doc_ids to `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / CONFIG_FILE).write_text(json.dumps(config, indent=2))
    (directory / "doc_ids.json").write_text(json.dumps(doc_ids))


def read_config(directory: Path) -> tuple[dict[str, Any], list[str]]:
    """A saved retriever's settings and doc_ids; `FileNotFoundError` when `directory` holds none."""
    path = directory / CONFIG_FILE
    if not path.exists():
        raise FileNotFoundError(f"{directory} holds no saved sciwrite retriever ({CONFIG_FILE} missing)")
    return json.loads(path.read_text()), json.loads((directory / "doc_ids.json").read_text())
