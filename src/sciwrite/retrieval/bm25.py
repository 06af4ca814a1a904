r"""BM25 over title + abstract with bm25s (sparse precomputed scores: fast at a million documents).

Text processing, fixed so that an index and its queries always agree:
- lower-casing and the token pattern ``\b\w\w+\b`` (scikit-learn's; drops one-character tokens);
- English stop-words removed (bm25s's list);
- Snowball English stemming (PyStemmer).
Scoring is bm25s's ``lucene`` variant (Lucene's BM25 idf) with the paper's k1 = 1.5, b = 0.75.
"""

from __future__ import annotations

import logging
import re
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import scipy.sparse as sp
import Stemmer
from bm25s.tokenization import Tokenized, _infer_stopwords

from sciwrite.retrieval.base import SearchResult, check_doc_ids, check_queries, clip_k, read_config, write_config
from sciwrite.retrieval.query import indexed_text

logger = logging.getLogger(__name__)
# bm25s sets its logger to DEBUG when imported, whatever the application configured; let it inherit again.
logging.getLogger("bm25s").setLevel(logging.NOTSET)


TOKEN_PATTERN = r"(?u)\b\w\w+\b"


class Analyzer:
    """Text -> BM25 terms, exactly as `bm25s.tokenize` (lower-case, token pattern, stop-words, stemming).

    Written here because `bm25s.tokenize` loops over every token twice in Python and rebuilds the
    stop-word set per document (about 4 minutes for 1.09M abstracts on one core); this analyzer maps
    each distinct word to its term once and then runs per document at C speed (dict look-ups via
    `map`), giving identical terms — `tests/retrieval/test_retrieval.py` checks it against `bm25s.tokenize`.
    """

    _STOPWORD = -1

    def __init__(self, stemmer: str | None = "english", stopwords: str | None = "en") -> None:
        self._split = re.compile(TOKEN_PATTERN).findall
        self._stopwords = frozenset(_infer_stopwords(stopwords) if stopwords else ())
        self._stem = Stemmer.Stemmer(stemmer).stemWord if stemmer else None
        self.vocab: dict[str, int] = {}  # term -> id
        self._term_id_of_word = _WordTable(self)

    def _term_id(self, word: str) -> int:
        if word in self._stopwords:
            return self._STOPWORD
        term = self._stem(word) if self._stem else word
        return self.vocab.setdefault(term, len(self.vocab))

    def terms(self, text: str) -> list[str]:
        """The terms of `text` (for queries: no vocabulary is touched)."""
        words = (w for w in self._split(text.lower()) if w not in self._stopwords)
        return [self._stem(w) for w in words] if self._stem else list(words)

    def term_ids(self, texts: list[str], show_progress: bool = True) -> Tokenized:
        """Term ids of every text plus the vocabulary, in the form `bm25s.BM25.index` takes.

        The ids come as one flat array with document offsets (`FlatTermIds`), not a list per document:
        at a million documents that is 0.5 GB instead of several, and `_ArrayBM25` scores it vectorised.
        """
        from tqdm.auto import tqdm

        lookup, keep = self._term_id_of_word.__getitem__, (self._STOPWORD).__ne__
        flat, offsets = array("i"), array("q", [0])
        for text in tqdm(texts, desc="tokenizing", disable=not show_progress, mininterval=1.0):
            flat.extend(filter(keep, map(lookup, self._split(text.lower()))))
            offsets.append(len(flat))
        return Tokenized(ids=FlatTermIds(np.frombuffer(flat, dtype=np.int32), np.frombuffer(offsets, dtype=np.int64)),
                         vocab=self.vocab)


@dataclass
class FlatTermIds:
    """Term ids of all documents end to end; document i is ``ids[offsets[i]:offsets[i + 1]]``."""

    ids: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> list[int]:
        return self.ids[self.offsets[i]:self.offsets[i + 1]].tolist()

    def __iter__(self) -> Iterator[list[int]]:
        return (self[i] for i in range(len(self)))


class _ArrayBM25(bm25s.BM25):
    """bm25s with its documented override point, `build_index_from_ids`, computed on whole arrays.

    bm25s builds the score matrix with a Python loop per document (a Counter and small numpy calls:
    minutes at a million documents). Here the same matrix — same idf, same term-frequency saturation,
    same CSC layout — comes from a few sparse-matrix operations; `tests/retrieval/test_retrieval.py` checks that
    both give identical scores. Lists of lists still go through bm25s's own code.
    """

    def build_index_from_ids(self, unique_token_ids: list[int], corpus_token_ids: FlatTermIds | list[list[int]],
                             show_progress: bool = True, leave_progress: bool = False) -> dict[str, Any]:
        if not isinstance(corpus_token_ids, FlatTermIds) or self.method not in ("lucene", "robertson"):
            return super().build_index_from_ids(unique_token_ids, corpus_token_ids, show_progress, leave_progress)
        self.nonoccurrence_array = None
        return bm25_score_matrix(corpus_token_ids, len(unique_token_ids), self.k1, self.b, self.dtype, self.int_dtype)


def bm25_score_matrix(tokens: FlatTermIds, n_terms: int, k1: float, b: float, dtype: str = "float32",
                      int_dtype: str = "int32") -> dict:
    """bm25s's score matrix (documents x terms, CSC) for the Lucene / Robertson variants.

    score(d, t) = idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl)), idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)).
    """
    n_docs = len(tokens)
    doc_len = np.diff(tokens.offsets)
    avg_doc_len = float(doc_len.mean()) if n_docs else 0.0
    # documents x terms with one entry per token; summing duplicates gives the term frequencies
    tf = sp.csr_matrix((np.ones(len(tokens.ids), dtype=np.float32), tokens.ids, tokens.offsets), shape=(n_docs, n_terms))
    tf.sum_duplicates()
    df = np.bincount(tf.indices, minlength=n_terms)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    # in place, in float32, one array of the size of the index at a time: this is the memory peak
    scores = np.repeat((k1 * (1 - b + b * doc_len / max(avg_doc_len, 1e-9))).astype(np.float32), np.diff(tf.indptr))
    scores += tf.data
    np.divide(tf.data, scores, out=scores)
    scores *= idf[tf.indices]
    tf.data = scores.astype(dtype, copy=False)
    csc = tf.tocsc()
    csc.sort_indices()
    return {"data": csc.data.astype(dtype, copy=False), "indices": csc.indices.astype(int_dtype, copy=False),
            "indptr": csc.indptr.astype(np.int64), "num_docs": n_docs}


class _WordTable(dict):
    """word -> term id, filled on first sight of each word (so stemming runs once per distinct word)."""

    def __init__(self, analyzer: Analyzer) -> None:
        super().__init__()
        self._analyzer = analyzer

    def __missing__(self, word: str) -> int:
        term_id = self[word] = self._analyzer._term_id(word)
        return term_id


class BM25Retriever:
    """BM25 retriever over a corpus of ``{doc_id, title, abstract}`` records, indexed on title + abstract.

    Build it with `from_corpus` (or `index`), or read a saved one with `load`; `search` ranks the corpus for each
    query. Text processing is fixed (lower-casing, scikit-learn's token pattern, English stop-words, Snowball
    stemming) so that an index and its queries always agree.

    Args:
        k1: BM25's term-frequency saturation (the paper's 1.5).
        b: BM25's length normalisation (the paper's 0.75).
        method: The bm25s scoring variant (``lucene``: Lucene's idf).
        stemmer: The PyStemmer language, or None for no stemming.
        stopwords: The bm25s stop-word list, or None to keep every word.
    """

    kind = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75, method: str = "lucene", stemmer: str | None = "english",
                 stopwords: str | None = "en") -> None:
        self.k1, self.b, self.method = k1, b, method
        self.stemmer_name, self.stopwords = stemmer, stopwords
        self._analyzer = Analyzer(stemmer, stopwords)
        self._bm25: bm25s.BM25 | None = None
        self.doc_ids: list[str] = []

    def index(self, doc_ids: list[str], texts: list[str], show_progress: bool = True) -> BM25Retriever:
        """Index `texts`, hit i standing for `doc_ids[i]`; returns the retriever.

        Raises:
            ValueError: The lists differ in length, are empty, or a doc_id is empty or repeated.
        """
        if len(doc_ids) != len(texts):
            raise ValueError(f"{len(doc_ids)} doc_ids but {len(texts)} texts")
        if not doc_ids:
            raise ValueError("cannot index an empty corpus")
        check_doc_ids(doc_ids)
        tokens = Analyzer(self.stemmer_name, self.stopwords).term_ids(texts, show_progress=show_progress)
        self._bm25 = _ArrayBM25(k1=self.k1, b=self.b, method=self.method)
        self._bm25.index(tokens, show_progress=show_progress)
        self.doc_ids = list(doc_ids)
        return self

    @classmethod
    def from_corpus(cls, corpus: Iterable[Mapping[str, Any]], show_progress: bool = True, **kwargs: Any) -> BM25Retriever:
        """Build from corpus records (a `datasets.Dataset` or any iterable of dicts) on title + abstract.

        Args:
            corpus: Records with ``doc_id``, ``title`` and ``abstract`` (a record with neither text is an error).
            show_progress: Show progress bars while tokenizing and indexing.
            **kwargs: The constructor's settings (`k1`, `b`, ...).
        """
        doc_ids, texts = _ids_and_texts(corpus)
        return cls(**kwargs).index(doc_ids, texts, show_progress=show_progress)

    def search(self, queries: list[str], k: int = 50, show_progress: bool = True,
               n_threads: int | None = None) -> list[SearchResult]:
        """Top-k doc_ids per query, best first. A query none of whose terms occur in the corpus gets no hits.

        Args:
            queries: The query texts (a list, even for one query; an empty query is an error).
            k: Hits per query; a `k` larger than the corpus returns the whole corpus ranked.
            show_progress: Show a progress bar.
            n_threads: More than 1 spreads queries over bm25s's worker pool; the default runs them in turn, which
                `scripts/bench/retrieval.py` measured as faster on two cores (2.7 vs 2.4 queries/s at 1.09M docs).

        Returns:
            One `SearchResult` per query, in order. Documents that share no term with the query are not hits.
        """
        if self._bm25 is None:
            raise RuntimeError("the BM25 index is empty: call index(), from_corpus() or load() first")
        check_queries(queries)
        k = clip_k(k, len(self.doc_ids))
        query_tokens = [self._analyzer.terms(q) for q in queries]
        vocab = self._bm25.vocab_dict
        known = [i for i, toks in enumerate(query_tokens) if any(t in vocab for t in toks)]
        results = [SearchResult([], []) for _ in queries]
        if len(known) < len(queries):
            logger.info("%d of %d queries share no term with the corpus and get no hits", len(queries) - len(known), len(queries))
        if not known:
            return results
        threads = n_threads if n_threads and n_threads > 1 and len(known) > 1 else 0
        docs, scores = self._bm25.retrieve([query_tokens[i] for i in known], k=k, show_progress=show_progress,
                                           n_threads=threads)
        for row, i in enumerate(known):
            keep = scores[row] > 0  # documents sharing no term score 0: they are not hits
            results[i] = SearchResult([self.doc_ids[j] for j in np.asarray(docs[row])[keep]],
                                      [float(s) for s in np.asarray(scores[row])[keep]])
        return results

    def save(self, directory: str | Path) -> None:
        """Write the index, its doc_ids and its settings to `directory`."""
        if self._bm25 is None:
            raise RuntimeError("nothing to save: the index is empty")
        directory = Path(directory)
        self._bm25.save(str(directory / "bm25s"), show_progress=False)
        write_config(directory, {"kind": self.kind, "k1": self.k1, "b": self.b, "method": self.method,
                                 "stemmer": self.stemmer_name, "stopwords": self.stopwords,
                                 "fields": ["title", "abstract"]}, self.doc_ids)

    @classmethod
    def load(cls, directory: str | Path, mmap: bool = False) -> BM25Retriever:
        """Load what `save` wrote; `mmap=True` keeps the score matrix on disk."""
        directory = Path(directory)
        config, doc_ids = read_config(directory)
        if config.get("kind") != cls.kind:
            raise ValueError(f"{directory} holds a {config.get('kind')!r} retriever, not bm25")
        retriever = cls(k1=config["k1"], b=config["b"], method=config["method"], stemmer=config["stemmer"],
                        stopwords=config["stopwords"])
        retriever._bm25 = bm25s.BM25.load(str(directory / "bm25s"), mmap=mmap, show_progress=False)
        retriever.doc_ids = doc_ids
        return retriever


def _ids_and_texts(corpus: Iterable[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """doc_ids and title + abstract texts; a record with neither title nor abstract is an error naming it."""
    doc_ids, texts = [], []
    for i, doc in enumerate(corpus):
        texts.append(indexed_text(doc, i))
        doc_ids.append(str(doc["doc_id"]))
    return doc_ids, texts
