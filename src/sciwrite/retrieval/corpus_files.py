"""A retrieval corpus's parquet files as the indexes read them (doc_id, title, abstract), without `datasets`: what
the Ray engine streams (`sciwrite.scale.ray_index`) and what an actor is sent of a corpus. A benchmark names its
corpus's files (`sciwrite.benchmark.Corpus.files`)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow.parquet as pq

from sciwrite.core.schema import SchemaError
from sciwrite.retrieval.base import check_doc_ids

#: The corpus fields an index reads: the id and the indexed text (`sciwrite.retrieval.query.indexed_text`).
CORPUS_COLUMNS = ("doc_id", "title", "abstract")
#: Rows per embedding shard of the Ray engine (and per FAISS `add` call): 100k x 1024 float32 is 0.4 GB.
SHARD_ROWS = 100_000


def read_doc_ids(files: Sequence[str]) -> list[str]:
    """The doc_ids of the corpus files in row order (only that column is read), after checking every file has
    the columns an index reads and that the ids are non-empty and unique."""
    doc_ids: list[str] = []
    for path in files:
        names = set(pq.read_schema(path).names)
        missing = [c for c in CORPUS_COLUMNS if c not in names]
        if missing:
            raise SchemaError(f"{path}: corpus file has no field(s) {missing}; a corpus record needs "
                              f"{list(CORPUS_COLUMNS)}")
        doc_ids.extend(str(d) for d in pq.read_table(path, columns=["doc_id"]).column("doc_id").to_pylist())
    check_doc_ids(doc_ids)
    return doc_ids
