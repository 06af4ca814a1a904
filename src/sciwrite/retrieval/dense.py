"""Dense retrieval: sentence-transformers embeddings in a FAISS inner-product index.

Embeddings are L2-normalised, so inner product is cosine similarity. The index type is a FAISS factory
string: exact ``Flat`` by default; for the full 1.09M-document corpus an approximate index such as
``IVF4096,Flat`` (searched with ``nprobe``, default 16: 13x the exact speed at 0.999 recall@50 on the
benchmark's 1.09M clustered vectors) or ``HNSW32`` (built with ``efConstruction``, searched with
``efSearch``), see ``scripts/bench/retrieval.py`` for the speed/recall trade-off. On a machine with GPUs the encoder runs in
fp16 on the GPU and, when faiss-gpu is installed (extra ``gpu``), so does the search.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from sciwrite.models.encoders import load_sentence_encoder, shared_sentence_encoder
from sciwrite.models.registry import DENSE_ENCODER, resolve_model
from sciwrite.retrieval.base import SearchResult, check_doc_ids, check_queries, clip_k, read_config, write_config
from sciwrite.retrieval.bm25 import _ids_and_texts

logger = logging.getLogger(__name__)

INDEX_FILE = "index.faiss"

# Instructions the encoders were trained with for short queries against passages (from their model cards).
QUERY_INSTRUCTIONS = {
    "bge-large-en-v1.5": "Represent this sentence for searching relevant passages: ",
    "bge-base-en-v1.5": "Represent this sentence for searching relevant passages: ",
    "bge-small-en-v1.5": "Represent this sentence for searching relevant passages: ",
}


def default_query_instruction(encoder: str) -> str:
    """The query instruction for a known encoder id or path, '' for encoders trained without one."""
    name = encoder.rstrip("/").split("/")[-1]
    return QUERY_INSTRUCTIONS.get(name, "")


def load_encoder(name_or_path: str, device: str | None = None) -> Any:
    """Load the dense encoder (on GPU in fp16 when present); a clear error naming it if unavailable.

    Without a `device` it is the process's one instance of that model (`shared_sentence_encoder`): a second index
    over the same corpus, or the metrics' use of the same model, neither reloads it nor embeds a text it already
    embedded (its embedding cache holds the vectors).
    """
    if device is None:
        return shared_sentence_encoder(name_or_path, role="dense encoder")
    return load_sentence_encoder(name_or_path, device, role="dense encoder")


def train_sample_size(index: faiss.Index, n: int) -> int:
    """How many vectors to train an approximate index on: enough per IVF list, never more than we have."""
    ivf = faiss.try_extract_index_ivf(index)
    wanted = 64 * ivf.nlist if ivf is not None else 100_000
    return min(n, max(wanted, 10_000))


#: Vectors added to a FAISS index per call (bounds the copy FAISS makes of each chunk).
ADD_CHUNK = 100_000


def new_index(factory: str, dimension: int, ef_construction: int = 40) -> faiss.Index:
    """An empty inner-product index of the FAISS `factory` string (HNSW gets its graph-building beam)."""
    index = faiss.index_factory(dimension, factory, faiss.METRIC_INNER_PRODUCT)
    hnsw = getattr(faiss.downcast_index(index), "hnsw", None)
    if hnsw is not None:  # a larger graph-building beam buys recall with build time
        hnsw.efConstruction = ef_construction
    return index


def training_rows(index: faiss.Index, n: int, seed: int = 0) -> np.ndarray:
    """The sorted rows, out of `n` vectors, to train an untrained `index` on: a seeded sample of
    `train_sample_size`, so that any engine that sees the same vectors in the same order trains the same index."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, train_sample_size(index, n), replace=False))


def train_index(index: faiss.Index, sample: np.ndarray, factory: str = "") -> None:
    """Train `index` (IVF centroids, PQ codebooks) on `sample`."""
    logger.info("training %s on %d vectors", factory or type(index).__name__, len(sample))
    index.train(np.ascontiguousarray(sample, dtype=np.float32))


def add_vectors(index: faiss.Index, chunks: Iterable[np.ndarray], total: int | None = None,
                show_progress: bool = True) -> faiss.Index:
    """Add chunks of vectors to `index` in order (vector ids follow the order), one chunk in memory at a time."""
    for chunk in _progress(chunks, show_progress, "adding to FAISS index", total):
        index.add(np.ascontiguousarray(chunk, dtype=np.float32))
    return index


class DenseRetriever:
    """Dense retriever: a sentence-transformers encoder embeds title + abstract; FAISS searches by inner product.

    Embeddings are L2-normalised, so the inner product is the cosine similarity. Build it with `from_corpus` (or
    `index_texts`, `index_embeddings`), or read a saved one with `load`.

    Args:
        encoder: A sentence-transformers model id or path; None: ``$SCIWRITE_MODEL_DENSE_ENCODER``, else the
            ``dense_encoder`` role of the profile (``lite``: the packaged all-MiniLM-L6-v2; ``paper``:
            BAAI/bge-large-en-v1.5).
        factory: The FAISS index factory string: ``Flat`` (exact), or an approximate index such as
            ``IVF4096,Flat`` or ``HNSW32`` for a million documents.
        query_instruction: Text put before every query; None: the encoder's own (BGE's), '' for none.
        nprobe: IVF lists searched per query (IVF indexes only).
        ef_search: HNSW's search beam (HNSW indexes only).
        ef_construction: HNSW's graph-building beam (HNSW indexes only).
        batch_size: Texts per encoder batch.
        profile: The model profile (``lite`` or ``paper``) the encoder is resolved from when `encoder` is None;
            None: ``$SCIWRITE_PROFILE``, else ``paper``.
        device: The encoder's device (None: the GPU when there is one).
    """

    kind = "dense"

    def __init__(self, encoder: str | None = None, factory: str = "Flat", query_instruction: str | None = None,
                 nprobe: int = 16, ef_search: int = 128, ef_construction: int = 40, batch_size: int = 64,
                 profile: str | None = None, device: str | None = None) -> None:
        self.encoder_name = resolve_model(DENSE_ENCODER, encoder, profile)
        self.factory = factory
        self.query_instruction = (default_query_instruction(self.encoder_name)
                                  if query_instruction is None else query_instruction)
        self.nprobe, self.ef_search, self.ef_construction = nprobe, ef_search, ef_construction
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self.index: faiss.Index | None = None
        self._search_index: faiss.Index | None = None
        self.doc_ids: list[str] = []

    @property
    def model(self) -> Any:
        """The sentence-transformers encoder, loaded on first use."""
        if self._model is None:
            self._model = load_encoder(self.encoder_name, self.device)
        return self._model

    def encode(self, texts: list[str], show_progress: bool = True) -> np.ndarray:
        """Normalised float32 embeddings, computed in batches."""
        vectors = self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=show_progress)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def index_embeddings(self, doc_ids: list[str], embeddings: np.ndarray, show_progress: bool = True) -> DenseRetriever:
        """Build the FAISS index from precomputed (normalised) embeddings, row i standing for `doc_ids[i]`."""
        if len(doc_ids) != len(embeddings):
            raise ValueError(f"{len(doc_ids)} doc_ids but {len(embeddings)} embeddings")
        if not doc_ids:
            raise ValueError("cannot index an empty corpus")
        check_doc_ids(doc_ids)
        embeddings = np.ascontiguousarray(embeddings, dtype=np.float32)
        index = new_index(self.factory, embeddings.shape[1], self.ef_construction)
        if not index.is_trained:
            train_index(index, embeddings[training_rows(index, len(embeddings))], self.factory)
        chunks = (embeddings[start:start + ADD_CHUNK] for start in range(0, len(embeddings), ADD_CHUNK))
        add_vectors(index, chunks, -(-len(embeddings) // ADD_CHUNK), show_progress)
        return self.with_index(index, doc_ids)

    def with_index(self, index: faiss.Index, doc_ids: list[str]) -> DenseRetriever:
        """Use a built FAISS index whose vector i stands for `doc_ids[i]` (as `index_embeddings` and the Ray
        engine of `sciwrite.scale` build it)."""
        if index.ntotal != len(doc_ids):
            raise ValueError(f"the index holds {index.ntotal} vectors but {len(doc_ids)} doc_ids were given")
        self.index, self._search_index, self.doc_ids = index, None, list(doc_ids)
        return self

    def index_texts(self, doc_ids: list[str], texts: list[str], show_progress: bool = True) -> DenseRetriever:
        """Embed `texts` and index them."""
        return self.index_embeddings(doc_ids, self.encode(texts, show_progress), show_progress)

    @classmethod
    def from_corpus(cls, corpus: Iterable[Mapping[str, Any]], show_progress: bool = True, **kwargs: Any) -> DenseRetriever:
        """Build from corpus records (a `datasets.Dataset` or any iterable of dicts) on title + abstract.

        Args:
            corpus: Records with ``doc_id``, ``title`` and ``abstract`` (a record with neither text is an error).
            show_progress: Show progress bars while encoding and indexing.
            **kwargs: The constructor's settings (`encoder`, `factory`, `profile`, ...).
        """
        doc_ids, texts = _ids_and_texts(corpus)
        return cls(**kwargs).index_texts(doc_ids, texts, show_progress=show_progress)

    def _searcher(self) -> faiss.Index:
        """The index with its search parameters set, moved to the GPUs when faiss-gpu sees any."""
        if self.index is None:
            raise RuntimeError("the dense index is empty: call index_texts(), from_corpus() or load() first")
        if self._search_index is None:
            index = self.index
            if hasattr(faiss, "get_num_gpus") and faiss.get_num_gpus() > 0:
                index = faiss.index_cpu_to_all_gpus(index)
            set_search_parameters(index, nprobe=self.nprobe, ef_search=self.ef_search)
            self._search_index = index
        return self._search_index

    def search_embeddings(self, query_vectors: np.ndarray, k: int = 50) -> list[SearchResult]:
        """Top-k doc_ids for precomputed normalised query vectors."""
        k = clip_k(k, len(self.doc_ids))
        scores, ids = self._searcher().search(np.ascontiguousarray(query_vectors, dtype=np.float32), k)
        return [SearchResult([self.doc_ids[j] for j in row_ids if j >= 0],
                             [float(s) for s, j in zip(row_scores, row_ids) if j >= 0])
                for row_scores, row_ids in zip(scores, ids)]

    def search(self, queries: list[str], k: int = 50, show_progress: bool = True) -> list[SearchResult]:
        """Top-k doc_ids per query, best first (the query instruction is put before each query).

        Args:
            queries: The query texts (a list, even for one query; an empty query is an error).
            k: Hits per query; a `k` larger than the corpus returns the whole corpus ranked.
            show_progress: Show a progress bar while encoding the queries.

        Returns:
            One `SearchResult` per query, in order; scores are cosine similarities.
        """
        check_queries(queries)
        vectors = self.encode([self.query_instruction + q for q in queries], show_progress=show_progress)
        return self.search_embeddings(vectors, k)

    def config(self) -> dict[str, Any]:
        """The settings `save` writes beside the index (``sciwrite_retriever.json``)."""
        return {"kind": self.kind, "encoder": self.encoder_name, "factory": self.factory,
                "query_instruction": self.query_instruction, "nprobe": self.nprobe, "ef_search": self.ef_search,
                "ef_construction": self.ef_construction,
                "metric": "inner_product", "normalized": True, "fields": ["title", "abstract"],
                "dimension": None if self.index is None else self.index.d}

    def save(self, directory: str | Path) -> None:
        """Write the FAISS index (CPU form), doc_ids and settings to `directory`."""
        if self.index is None:
            raise RuntimeError("nothing to save: the index is empty")
        directory = Path(directory)
        write_config(directory, self.config(), self.doc_ids)
        faiss.write_index(self.index, str(directory / INDEX_FILE))

    @classmethod
    def load(cls, directory: str | Path, encoder: str | None = None, **kwargs: Any) -> DenseRetriever:
        """Load what `save` wrote. The encoder is the one the index was built with unless overridden."""
        directory = Path(directory)
        config, doc_ids = read_config(directory)
        if config.get("kind") != cls.kind:
            raise ValueError(f"{directory} holds a {config.get('kind')!r} retriever, not dense")
        settings = {"nprobe": config["nprobe"], "ef_search": config["ef_search"],
                    "ef_construction": config.get("ef_construction", 40), **kwargs}
        retriever = cls(encoder=encoder or config["encoder"], factory=config["factory"],
                        query_instruction=config["query_instruction"], **settings)
        retriever.index = faiss.read_index(str(directory / INDEX_FILE))
        if retriever.index.ntotal != len(doc_ids):
            raise ValueError(f"{directory}: the index holds {retriever.index.ntotal} vectors but doc_ids.json lists {len(doc_ids)}")
        retriever.doc_ids = doc_ids
        return retriever


def set_search_parameters(index: faiss.Index, nprobe: int, ef_search: int) -> None:
    """Set nprobe (IVF) / efSearch (HNSW) where the index has them; exact indexes ignore both."""
    params = faiss.GpuParameterSpace() if "Gpu" in type(index).__name__ and hasattr(faiss, "GpuParameterSpace") else faiss.ParameterSpace()
    if faiss.try_extract_index_ivf(index) is not None:
        params.set_index_parameter(index, "nprobe", nprobe)
    if "HNSW" in _index_description(index):
        params.set_index_parameter(index, "efSearch", ef_search)


def _index_description(index: faiss.Index) -> str:
    names = [type(index).__name__]
    inner = getattr(index, "index", None)
    if inner is not None:
        names.append(type(faiss.downcast_index(inner)).__name__)
    return " ".join(names)


def _progress(iterable: Any, show: bool, desc: str, total: int | None = None) -> Any:
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, disable=not show, total=total)
