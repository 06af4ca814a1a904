"""A dense FAISS index of a corpus built on Ray Data, equal to the one `DenseRetriever.from_corpus` builds.

Steps: Ray Data reads the corpus parquet files; `CorpusEncoder` actors (the encoder loaded once per actor, one
actor per GPU or CPU actors) embed title + abstract (`indexed_text`) in batches; the driver streams the embeddings
in corpus order and writes them as ``.npy`` shards of `shard_rows` rows; the index (a FAISS factory string:
``Flat``, ``IVF4096,Flat``, ``IVF4096,PQ64`` ...) is trained on the same seeded sample of rows one process
trains on (`training_rows`), the shards are added one at a time, and the index is saved in the layout
`load_rwgbench(..., faiss_index=True)` reads. The driver holds one shard, the doc_ids, the training sample and the
index itself (its compressed size for IVF-PQ), never the corpus' texts or all of its embeddings.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import faiss
import numpy as np
import pyarrow as pa
import ray

from sciwrite.retrieval.corpus_files import CORPUS_COLUMNS, SHARD_ROWS, read_doc_ids
from sciwrite.retrieval.dense import DenseRetriever, add_vectors, new_index, train_index, training_rows
from sciwrite.retrieval.query import indexed_text
from sciwrite.scale.ray_session import actor_options, data_context, ray_session

logger = logging.getLogger(__name__)

#: Corpus rows per actor call; the encoder batches them by its own `batch_size`.
ROWS_PER_CALL = 1024


class CorpusEncoder:
    """A Ray Data actor: the dense encoder, loaded once, embedding batches of corpus rows."""

    def __init__(self, encoder: str, batch_size: int) -> None:
        self.retriever = DenseRetriever(encoder=encoder, batch_size=batch_size)
        _ = self.retriever.model  # load it now, once per actor, rather than on the first batch

    def __call__(self, batch: pa.Table) -> dict[str, np.ndarray]:
        records = batch.select(list(CORPUS_COLUMNS)).to_pylist()
        texts = [indexed_text(record) for record in records]
        return {"doc_id": np.array([str(r["doc_id"]) for r in records], dtype=object),
                "embedding": self.retriever.encode(texts, show_progress=False)}


def build_dense_index(files: Sequence[str], out: str | Path, *, encoder: str | None = None, factory: str = "Flat",
                      profile: str | None = None, batch_size: int = 64, nprobe: int = 16, ef_construction: int = 40,
                      address: str | None = None, actors: int | None = None, shard_rows: int = SHARD_ROWS,
                      shards_dir: str | Path | None = None, rows_per_call: int = ROWS_PER_CALL,
                      show_progress: bool = True) -> DenseRetriever:
    """Encode and index the corpus parquet `files` on Ray and save the index to `out`; returns the retriever.

    `address` joins an existing Ray cluster (None: ``ray.init()``, local); `actors` sizes the encoder pool
    (default: one per GPU, else one per CPU), each call embedding `rows_per_call` rows. The embedding shards go to
    `shards_dir` and are kept there, or to a temporary folder next to `out` that is removed at the end.
    """
    if shard_rows < 1:
        raise ValueError(f"shard_rows must be >= 1, got {shard_rows}")
    retriever = DenseRetriever(encoder=encoder, factory=factory, profile=profile, batch_size=batch_size,
                               nprobe=nprobe, ef_construction=ef_construction)
    doc_ids = read_doc_ids(files)
    if not doc_ids:
        raise ValueError("cannot index an empty corpus")
    out = Path(out)
    with ray_session(address), _shard_folder(shards_dir, out) as folder:
        shards = encode_shards(files, doc_ids, retriever.encoder_name, folder, batch_size=batch_size,
                               actors=actors, shard_rows=shard_rows, rows_per_call=rows_per_call,
                               show_progress=show_progress)
        index = index_shards(shards, factory, ef_construction, show_progress)
        retriever.with_index(index, doc_ids)
    retriever.save(out)
    return retriever


def encode_shards(files: Sequence[str], doc_ids: Sequence[str], encoder: str, folder: Path, *, batch_size: int = 64,
                  actors: int | None = None, shard_rows: int = SHARD_ROWS, rows_per_call: int = ROWS_PER_CALL,
                  show_progress: bool = True) -> list[Path]:
    """Embed the corpus on an actor pool and write ``embeddings-NNNNN.npy`` shards of `shard_rows` rows to
    `folder`, in corpus order (checked against `doc_ids`, the files' doc_id column)."""
    shards: list[Path] = []
    position = 0
    with data_context(show_progress):  # set before the datasets are made: they copy the context
        # Blocks of one actor call each (a parquet file may be one block): the pool grows when blocks queue up.
        corpus = (ray.data.read_parquet(list(files)).select_columns(list(CORPUS_COLUMNS))
                  .repartition(target_num_rows_per_block=rows_per_call))
        encoded = corpus.map_batches(CorpusEncoder, fn_constructor_kwargs={"encoder": encoder,
                                                                           "batch_size": batch_size},
                                     batch_size=rows_per_call, batch_format="pyarrow",
                                     **actor_options(actors, elastic=True))
        for batch in encoded.iter_batches(batch_size=shard_rows, batch_format="numpy", prefetch_batches=1):
            ids = [str(d) for d in batch["doc_id"]]
            if ids != list(doc_ids[position:position + len(ids)]):
                raise RuntimeError(f"the encoded rows came back out of corpus order near row {position} (doc_id "
                                   f"{ids[0]!r}); the index would misname its documents")
            path = folder / f"embeddings-{len(shards):05d}.npy"
            np.save(path, np.ascontiguousarray(batch["embedding"], dtype=np.float32))
            shards.append(path)
            position += len(ids)
    if position != len(doc_ids):
        raise RuntimeError(f"{position} rows were encoded but the corpus holds {len(doc_ids)}")
    return shards


def index_shards(shards: Sequence[Path], factory: str = "Flat", ef_construction: int = 40,
                 show_progress: bool = True) -> faiss.Index:
    """A FAISS index of the embedding shards in order: trained on the sample one process would train on (the same
    rows of the whole corpus), then filled one shard at a time."""
    arrays = [np.load(path, mmap_mode="r") for path in shards]
    index = new_index(factory, arrays[0].shape[1], ef_construction)
    if not index.is_trained:
        train_index(index, gather_rows(arrays, training_rows(index, sum(len(a) for a in arrays))), factory)
    return add_vectors(index, arrays, len(arrays), show_progress)


def gather_rows(arrays: Sequence[np.ndarray], rows: np.ndarray) -> np.ndarray:
    """Rows `rows` (sorted, of the arrays stacked in order) of a sequence of arrays, reading one array at a time."""
    bounds = np.cumsum([0, *(len(a) for a in arrays)])
    parts = []
    for k, array in enumerate(arrays):
        start, stop = np.searchsorted(rows, [bounds[k], bounds[k + 1]])
        if stop > start:
            parts.append(np.asarray(array[rows[start:stop] - bounds[k]], dtype=np.float32))
    return np.concatenate(parts)


@contextmanager
def _shard_folder(shards_dir: str | Path | None, out: Path) -> Iterator[Path]:
    """`shards_dir` (created, kept), or a temporary folder next to `out` (removed afterwards)."""
    if shards_dir is not None:
        folder = Path(shards_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("embeddings-*.npy"):
            stale.unlink()  # shards of an earlier run would be added again
        yield folder
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{out.name}-embedding-shards-", dir=out.parent) as tmp:
        yield Path(tmp)

