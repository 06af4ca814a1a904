"""A corpus read by doc_id: what every method that shows or searches corpus papers looks them up in."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

logger = logging.getLogger(__name__)


class CorpusLookup:
    """doc_id -> ``{"doc_id", "title", "abstract"}`` over a corpus (a `datasets.Dataset` or a list of dicts).

    Only a doc_id -> row map is held in memory; rows are read on demand (cheap on an Arrow-backed dataset).
    """

    def __init__(self, corpus: Any) -> None:
        self._corpus = corpus
        if hasattr(corpus, "column_names"):
            ids = corpus["doc_id"]
        else:
            self._corpus = list(corpus)
            ids = [doc["doc_id"] for doc in self._corpus]
        self._row = {doc_id: i for i, doc_id in enumerate(ids)}

    def __len__(self) -> int:
        return len(self._row)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._row

    def row(self, doc_id: str) -> dict[str, Any]:
        """The corpus record of `doc_id` with every column it has (authors, year, ...)."""
        return dict(self._corpus[self._row[doc_id]])

    def doc(self, doc_id: str) -> dict[str, str]:
        row = self._corpus[self._row[doc_id]]
        return {"doc_id": doc_id, "title": (row.get("title") or "").strip(),
                "abstract": (row.get("abstract") or "").strip()}

    def docs(self, doc_ids: Iterable[str], what: str = "") -> list[dict[str, str]]:
        """The docs of `doc_ids` in order; ids missing from the corpus are left out with a warning."""
        found, missing = [], []
        for doc_id in doc_ids:
            if doc_id in self._row:
                found.append(self.doc(doc_id))
            else:
                missing.append(doc_id)
        if missing:
            logger.warning("%d doc_id(s)%s are not in the corpus and were left out, e.g. %s", len(missing),
                           f" ({what})" if what else "", missing[:3])
        return found


def as_lookup(corpus: Any) -> CorpusLookup:
    """`corpus` as a `CorpusLookup` (itself if it is one)."""
    return corpus if isinstance(corpus, CorpusLookup) else CorpusLookup(corpus)


__all__ = ["CorpusLookup", "as_lookup"]
