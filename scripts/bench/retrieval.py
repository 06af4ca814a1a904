"""Retrieval benchmark at the full RWGBench corpus size (1,091,394 documents), on synthetic data.

What it measures
----------------
BM25 (``sciwrite.retrieval.BM25Retriever``, bm25s, k1=1.5, b=0.75) on a synthetic corpus of ``--n-docs``
documents of ~165 words drawn from a Zipfian vocabulary (``--vocab-size`` letter-only pseudo-words, exponent
``--zipf``; shorter words are the more frequent ones, no word is an English stop-word):

- index build time through ``BM25Retriever.index`` (tokenization, stop-words, stemming and scoring) and its
  memory: the RSS high-water mark during the build above the RSS just before it, and the process peak;
- queries/s for ``--n-queries`` queries of ~200 words through ``.search(k=50)`` (default: sequential; and with
  one bm25s worker per core);
- the same queries against ``rank_bm25.BM25Okapi(k1=1.5, b=0.75)`` built, after the bm25s index is freed, on the
  very same tokens (bm25s's tokenizer with the retriever's stop-words and stemmer, as lists of strings),
  timed on ``--rank-bm25-queries`` queries (``get_scores`` + ``argpartition`` for the top 50), giving the speed
  ratio; also its build time and the top-50 overlap of the two (they use different idf variants).
  Targets: bm25s >= 100x faster than rank-bm25, index build < 5 minutes.

Dense (``sciwrite.retrieval.DenseRetriever.index_embeddings`` / ``.search_embeddings``, no text encoder) on
``--n-docs`` synthetic L2-normalised vectors of dimension ``--dim``: Gaussian clusters (``--n-clusters`` unit
centres; a point lies between its own centre and a second random centre, weight uniform in [0, ``--mix``),
plus isotropic Gaussian noise of norm ~``--noise``); queries are fresh points drawn the same way.
For the exact ``Flat`` index and approximate ``IVF{nlist},Flat`` (``--nprobe`` sweep) and ``HNSW32``
(``--ef-search`` sweep): build time (training included), queries/s over all ``--dense-queries`` queries in
one batch, speed-up over exact and recall@50 against the exact top 50. HNSW is built on the full corpus only
when a probe build on ``--hnsw-probe-docs`` vectors predicts (n log n scaling) that it fits in
``--hnsw-budget-s``; otherwise on the largest prefix that does, compared with an exact index on that same
prefix, and reported as a subset. Target: recall@50 >= 0.95 at >= 10x the exact index's queries/s.

The BM25 and dense parts each run in their own (spawned) process, so each part's peak RSS is its own.

How to run
----------
Full run (about 35 minutes on 2 cores; peak RSS 12 GiB, in the dense part)::

    .venv/bin/python scripts/bench/retrieval.py --out /tmp/retrieval_bench.json

Smoke test (well under a minute)::

    .venv/bin/python scripts/bench/retrieval.py --n-docs 20000 --out /tmp/retrieval_smoke.json
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import multiprocessing as mp
import os
import platform
import random
import resource
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import psutil

FULL_N_DOCS = 1_091_394
FULL_N_CLUSTERS = 4000
GIB = 1024**3
K = 50
BM25_SPEED_TARGET = 100.0
BM25_BUILD_TARGET_S = 300.0
DENSE_RECALL_TARGET = 0.95
DENSE_SPEEDUP_TARGET = 10.0

# Monotonic clock, shared by the spawned part processes through the environment so their log times line up.
_T0 = float(os.environ.setdefault("SCIWRITE_RETRIEVAL_BENCH_T0", repr(time.monotonic())))


def log(message: str) -> None:
    """Print a progress line with the time since the benchmark started."""
    print(f"[{time.monotonic() - _T0:8.1f}s] {message}", flush=True)


def rss_gib() -> float:
    """This process's resident set size now, in GiB."""
    return psutil.Process().memory_info().rss / GIB


def process_peak_gib() -> float:
    """This process's RSS high-water mark (getrusage ru_maxrss, KiB on Linux), in GiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB


class PeakRSS:
    """Context manager sampling RSS in a background thread: `baseline` before, `peak` during the block."""

    def __init__(self, interval_s: float = 0.05) -> None:
        self.interval_s = interval_s
        self.baseline = self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        process = psutil.Process()
        while not self._stop.is_set():
            self.peak = max(self.peak, process.memory_info().rss / GIB)
            self._stop.wait(self.interval_s)

    def __enter__(self) -> PeakRSS:
        gc.collect()
        self.baseline = self.peak = rss_gib()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_gib())

    @property
    def above_baseline(self) -> float:
        return self.peak - self.baseline


def code_version() -> str:
    """The git commit benchmarked, marked '+dirty' when src/sciwrite/retrieval has uncommitted changes."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "src/sciwrite/retrieval"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def machine_info() -> dict[str, Any]:
    """Cores, memory, CPU model and library versions."""
    import bm25s
    import faiss

    model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    try:
        from importlib.metadata import version

        rank_bm25_version = version("rank-bm25")
    except Exception:  # not installed: the rank-bm25 comparison is then skipped
        rank_bm25_version = None
    return {
        "code": code_version(),
        "cpu_model": model,
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "ram_gib": round(psutil.virtual_memory().total / GIB, 1),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "faiss": faiss.__version__,
        "faiss_omp_threads": faiss.omp_get_max_threads(),
        "bm25s": bm25s.__version__,
        "rank_bm25": rank_bm25_version,
    }


# --------------------------------------------------------------------------- BM25


def make_vocabulary(size: int, seed: int) -> list[str]:
    """`size` distinct letter-only pseudo-words (consonant-vowel syllables), no English stop-word among them,
    ordered shortest first so that the frequent Zipf ranks get the short words, as in real text."""
    from bm25s.stopwords import STOPWORDS_EN

    stop = set(STOPWORDS_EN)
    rnd = random.Random(seed)
    consonants, vowels, finals = "bcdfghjklmnprstvwz", "aeiou", "nrstlmk"
    words: set[str] = set()
    while len(words) < size:
        n_syllables = rnd.choices((1, 2, 3, 4), weights=(2, 5, 4, 2))[0]
        word = "".join(rnd.choice(consonants) + rnd.choice(vowels) for _ in range(n_syllables))
        if rnd.random() < 0.4:
            word += rnd.choice(finals)
        if len(word) >= 3 and word not in stop:
            words.add(word)
    ordered = sorted(words)
    rnd.shuffle(ordered)
    ordered.sort(key=len)
    return ordered


def zipf_cdf(size: int, exponent: float) -> np.ndarray:
    """Cumulative distribution of a Zipf law truncated to ranks 1..size."""
    weights = np.arange(1, size + 1, dtype=np.float64) ** -exponent
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


def sample_texts(n: int, mean_words: float, sd_words: float, vocab: Sequence[str], cdf: np.ndarray,
                 rng: np.random.Generator, chunk: int = 50_000) -> tuple[list[str], int]:
    """`n` texts of about `mean_words` Zipf-distributed words each, and their total word count."""
    words = np.array(vocab, dtype=object)
    texts: list[str] = []
    total = 0
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        lengths = np.clip(np.rint(rng.normal(mean_words, sd_words, m)), 20, 4 * mean_words).astype(np.int64)
        if sd_words == 0:
            lengths[:] = int(mean_words)
        ranks = np.minimum(np.searchsorted(cdf, rng.random(int(lengths.sum())), side="right"), len(vocab) - 1)
        tokens = words[ranks].tolist()
        ends = np.cumsum(lengths).tolist()
        begin = 0
        for end in ends:
            texts.append(" ".join(tokens[begin:end]))
            begin = end
        total += int(lengths.sum())
    return texts, total


def run_bm25(args: argparse.Namespace) -> dict[str, Any]:
    """Build and query bm25s through BM25Retriever, then rank-bm25 on the same tokens."""
    import bm25s
    import Stemmer

    from sciwrite.retrieval import BM25Retriever

    out: dict[str, Any] = {"n_docs": args.n_docs, "vocab_size": args.vocab_size, "zipf_exponent": args.zipf,
                           "n_queries": args.n_queries, "query_words": args.query_words, "k": K}
    log(f"BM25: generating {args.n_docs:,} documents (~{args.doc_words} words, Zipf {args.zipf} over "
        f"{args.vocab_size:,} pseudo-words)")
    t = time.perf_counter()
    vocab = make_vocabulary(args.vocab_size, args.seed)
    cdf = zipf_cdf(args.vocab_size, args.zipf)
    rng = np.random.default_rng([args.seed, 1])
    texts, n_words = sample_texts(args.n_docs, args.doc_words, args.doc_words * 0.25, vocab, cdf, rng)
    queries, _ = sample_texts(args.n_queries, args.query_words, 0, vocab, cdf, rng)
    doc_ids = [f"doc{i}" for i in range(args.n_docs)]
    out["mean_doc_words"] = n_words / args.n_docs
    out["corpus_text_gib"] = sum(map(len, texts)) / GIB
    out["generate_s"] = time.perf_counter() - t
    log(f"BM25: generated in {out['generate_s']:.1f}s, {out['mean_doc_words']:.1f} words/doc, RSS {rss_gib():.2f} GiB")

    retriever = BM25Retriever()
    with PeakRSS() as mem:
        t = time.perf_counter()
        retriever.index(doc_ids, texts, show_progress=False)
        out["build_s"] = time.perf_counter() - t
    out["build_rss_before_gib"] = mem.baseline
    out["build_peak_rss_gib"] = mem.peak
    out["build_peak_above_baseline_gib"] = mem.above_baseline
    out["index_terms"] = len(retriever._bm25.vocab_dict)
    log(f"BM25: bm25s index built in {out['build_s']:.1f}s, {out['index_terms']:,} terms, peak RSS "
        f"{mem.peak:.2f} GiB (+{mem.above_baseline:.2f} GiB over {mem.baseline:.2f} GiB)")

    retriever.search(queries[:2], k=K, show_progress=False)  # warm-up
    parallel_threads = os.cpu_count() or 1
    for label, threads in (("default", None), ("parallel", parallel_threads)):
        t = time.perf_counter()
        results = retriever.search(queries, k=K, show_progress=False, n_threads=threads)
        elapsed = time.perf_counter() - t
        out[f"bm25s_qps_{label}"] = len(queries) / elapsed
        log(f"BM25: bm25s {len(queries)} queries in {elapsed:.2f}s with n_threads="
            f"{threads or 1}: {out[f'bm25s_qps_{label}']:.1f} q/s")
        if label == "default":
            bm25s_top = [set(r.doc_ids) for r in results]
    out["bm25s_search_threads_parallel"] = parallel_threads
    out["mean_hits_per_query"] = float(np.mean([len(s) for s in bm25s_top]))

    m = min(args.rank_bm25_queries, len(queries))
    out["rank_bm25_queries"] = m
    if m == 0:
        out["rank_bm25_skipped"] = "--rank-bm25-queries 0"
        return out
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        out["rank_bm25_skipped"] = "rank-bm25 is not installed (pip install rank-bm25)"
        log(f"BM25: {out['rank_bm25_skipped']}")
        return out
    stemmer = Stemmer.Stemmer(retriever.stemmer_name) if retriever.stemmer_name else None
    stopwords = retriever.stopwords
    query_tokens = bm25s.tokenize(queries[:m], stopwords=stopwords, stemmer=stemmer, return_ids=False,
                                  show_progress=False)
    del retriever, results
    gc.collect()
    log(f"BM25: bm25s index freed, RSS {rss_gib():.2f} GiB; tokenizing the corpus for rank-bm25")
    t = time.perf_counter()
    corpus_tokens = bm25s.tokenize(texts, stopwords=stopwords, stemmer=stemmer, return_ids=False,
                                   show_progress=False)
    out["rank_bm25_tokenize_s"] = time.perf_counter() - t
    del texts
    gc.collect()
    with PeakRSS() as mem:
        t = time.perf_counter()
        okapi = BM25Okapi(corpus_tokens, k1=1.5, b=0.75)
        out["rank_bm25_build_s"] = time.perf_counter() - t
    out["rank_bm25_build_peak_above_baseline_gib"] = mem.above_baseline
    del corpus_tokens
    gc.collect()
    log(f"BM25: rank-bm25 built in {out['rank_bm25_build_s']:.1f}s (tokenizing took "
        f"{out['rank_bm25_tokenize_s']:.1f}s, not counted), +{mem.above_baseline:.2f} GiB; RSS {rss_gib():.2f} GiB")

    seconds, overlaps = [], []
    for i, tokens in enumerate(query_tokens):
        t = time.perf_counter()
        scores = okapi.get_scores(tokens)
        top = np.argpartition(-scores, K - 1)[:K]
        top = top[np.argsort(-scores[top])]
        seconds.append(time.perf_counter() - t)
        overlaps.append(len({doc_ids[j] for j in top} & bm25s_top[i]) / K)
        log(f"BM25: rank-bm25 query {i + 1}/{m}: {seconds[-1]:.2f}s, top-{K} overlap with bm25s {overlaps[-1]:.2f}")
    out["rank_bm25_seconds_per_query"] = seconds
    out["rank_bm25_qps"] = m / sum(seconds)
    out["speed_ratio_default"] = out["bm25s_qps_default"] / out["rank_bm25_qps"]
    out["speed_ratio_parallel"] = out["bm25s_qps_parallel"] / out["rank_bm25_qps"]
    out["top50_overlap_with_rank_bm25"] = float(np.mean(overlaps))
    return out


def finish_bm25(out: dict[str, Any]) -> None:
    """Add the PASS/FAIL verdicts and the process peak to the BM25 results."""
    out["build_target_pass"] = out["build_s"] < BM25_BUILD_TARGET_S
    if "speed_ratio_default" in out:
        out["speed_target_pass"] = out["speed_ratio_default"] >= BM25_SPEED_TARGET
        out["speed_target_pass_parallel"] = out["speed_ratio_parallel"] >= BM25_SPEED_TARGET


# --------------------------------------------------------------------------- dense


def _normalise(x: np.ndarray) -> None:
    x /= np.linalg.norm(x, axis=1, keepdims=True)


def fill_points(out: np.ndarray, labels: np.ndarray, centres: np.ndarray, noise: float, mix: float,
                rng: np.random.Generator) -> None:
    """Write normalised clustered points into `out` (rows) and their own cluster into `labels`."""
    m, dim = out.shape
    own = rng.integers(0, len(centres), m)
    other = rng.integers(0, len(centres), m)
    weight = rng.uniform(0.0, mix, (m, 1)).astype(np.float32)
    np.multiply(centres[own], 1.0 - weight, out=out)
    out += weight * centres[other]
    out += rng.standard_normal((m, dim), dtype=np.float32) * np.float32(noise / math.sqrt(dim))
    _normalise(out)
    labels[:] = own


def make_vectors(n: int, centres: np.ndarray, noise: float, mix: float, rng: np.random.Generator,
                 chunk: int = 32_768) -> tuple[np.ndarray, np.ndarray]:
    """`n` clustered unit vectors (float32, generated in chunks so memory is not doubled) and their clusters."""
    x = np.empty((n, centres.shape[1]), dtype=np.float32)
    labels = np.empty(n, dtype=np.int32)
    for start in range(0, n, chunk):
        end = min(n, start + chunk)
        fill_points(x[start:end], labels[start:end], centres, noise, mix, rng)
    return x, labels


def timed_search(retriever: Any, queries: np.ndarray, min_seconds: float = 0.25, max_runs: int = 5) -> tuple[float, list[Any]]:
    """Median seconds of one batched `search_embeddings` over all queries (repeated while fast), and hits."""
    retriever.search_embeddings(queries[:4], K)  # warm-up; also applies nprobe / efSearch
    runs: list[float] = []
    results: list[Any] = []
    while len(runs) < max_runs and (not runs or sum(runs) < min_seconds):
        t = time.perf_counter()
        results = retriever.search_embeddings(queries, K)
        runs.append(time.perf_counter() - t)
    return float(np.median(runs)), results


def hit_rows(results: list[Any]) -> list[set[int]]:
    """The hits of each query as a set of row numbers (doc_ids are str(row))."""
    return [{int(d) for d in r.doc_ids} for r in results]


def recall_at_k(truth: np.ndarray, found: list[set[int]]) -> float:
    """Mean fraction of each query's exact top-k found by the approximate search."""
    return float(np.mean([len(found[i].intersection(row.tolist())) / len(row) for i, row in enumerate(truth)]))


def exact_search(doc_ids: list[str], vectors: np.ndarray, queries: np.ndarray) -> dict[str, Any]:
    """Build a Flat index, time it, and return its figures and exact top-k rows."""
    from sciwrite.retrieval import DenseRetriever

    retriever = DenseRetriever(encoder="unused", factory="Flat")
    t = time.perf_counter()
    retriever.index_embeddings(doc_ids, vectors, show_progress=False)
    build_s = time.perf_counter() - t
    seconds, results = timed_search(retriever, queries)
    truth = np.array([[int(d) for d in r.doc_ids] for r in results])
    del retriever
    gc.collect()
    return {"build_s": build_s, "search_s": seconds, "qps": len(queries) / seconds, "truth": truth}


def ivf_lists(n: int) -> int:
    """Power of two nearest to 4 * sqrt(n): 4096 at the full 1.09M documents."""
    return 2 ** max(4, round(math.log2(4 * math.sqrt(n))))


def hnsw_size(n: int, probe_n: int, probe_s: float, budget_s: float) -> tuple[int, float]:
    """Largest corpus prefix whose HNSW build, extrapolated as n log n from the probe, fits the budget."""
    def estimate(size: int) -> float:
        return probe_s * (size / probe_n) * (math.log(size) / math.log(probe_n))

    full = estimate(n)
    if full <= budget_s:
        return n, full
    low, high = probe_n, n
    while high - low > 1000:
        mid = (low + high) // 2
        low, high = (mid, high) if estimate(mid) <= budget_s else (low, mid)
    return max(probe_n, low // 1000 * 1000), full


def run_dense(args: argparse.Namespace) -> dict[str, Any]:
    """Exact Flat vs IVF (nprobe sweep) vs HNSW (efSearch sweep) on synthetic clustered vectors."""
    import faiss

    from sciwrite.retrieval import DenseRetriever

    n, dim = args.n_docs, args.dim
    n_clusters = args.n_clusters or max(16, round(FULL_N_CLUSTERS * n / FULL_N_DOCS))
    nlist = args.ivf_lists or ivf_lists(n)
    out: dict[str, Any] = {"n_docs": n, "dim": dim, "n_queries": args.dense_queries, "n_clusters": n_clusters,
                           "noise": args.noise, "mix": args.mix, "k": K, "faiss_omp_threads": faiss.omp_get_max_threads()}
    log(f"dense: generating {n:,} x {dim} vectors ({n * dim * 4 / GIB:.2f} GiB) around {n_clusters:,} centres; "
        f"faiss OpenMP threads {faiss.omp_get_max_threads()}")
    t = time.perf_counter()
    rng = np.random.default_rng([args.seed, 2])
    centres = rng.standard_normal((n_clusters, dim), dtype=np.float32)
    _normalise(centres)
    vectors, labels = make_vectors(n, centres, args.noise, args.mix, rng)
    queries, query_labels = make_vectors(args.dense_queries, centres, args.noise, args.mix,
                                         np.random.default_rng([args.seed, 3]))
    doc_ids = [str(i) for i in range(n)]
    out["generate_s"] = time.perf_counter() - t
    log(f"dense: generated in {out['generate_s']:.1f}s, RSS {rss_gib():.2f} GiB")

    configs: list[dict[str, Any]] = []
    exact = exact_search(doc_ids, vectors, queries)
    truth = exact.pop("truth")
    sims = np.einsum("qkd,qd->qk", vectors[truth[:, [0, K - 1]]], queries)
    out["exact_top50_own_cluster_fraction"] = float(np.mean(labels[truth] == query_labels[:, None]))
    out["exact_top1_similarity"], out["exact_top50th_similarity"] = (float(v) for v in sims.mean(axis=0))
    del sims
    configs.append({"index": "Flat", "param": "-", "n_docs": n, "full_corpus": True, "build_s": exact["build_s"],
                    "qps": exact["qps"], "speedup": 1.0, "recall_at_50": 1.0})
    log(f"dense: Flat built in {exact['build_s']:.1f}s, {exact['qps']:.1f} q/s; exact top-{K}: "
        f"{out['exact_top50_own_cluster_fraction']:.2f} from the query's own cluster, mean similarity "
        f"top-1 {out['exact_top1_similarity']:.3f}, {K}th {out['exact_top50th_similarity']:.3f}")

    if args.nprobe:
        factory = f"IVF{nlist},Flat"
        retriever = DenseRetriever(encoder="unused", factory=factory)
        with PeakRSS() as mem:
            t = time.perf_counter()
            retriever.index_embeddings(doc_ids, vectors, show_progress=False)
            build_s = time.perf_counter() - t
        log(f"dense: {factory} built (trained on {min(n, max(64 * nlist, 10_000)):,} vectors) in {build_s:.1f}s, "
            f"+{mem.above_baseline:.2f} GiB")
        sweep = [p for p in args.nprobe if p <= max(1, nlist // 8)]
        if len(sweep) < len(args.nprobe):
            log(f"dense: nprobe {sorted(set(args.nprobe) - set(sweep))} skipped: above 1/8 of the {nlist} lists")
        for nprobe in sweep:
            retriever.nprobe, retriever._search_index = nprobe, None
            seconds, results = timed_search(retriever, queries)
            row = {"index": factory, "param": f"nprobe={nprobe}", "n_docs": n, "full_corpus": True,
                   "build_s": build_s, "qps": len(queries) / seconds, "speedup": exact["search_s"] / seconds,
                   "recall_at_50": recall_at_k(truth, hit_rows(results))}
            configs.append(row)
            log(f"dense: {factory} nprobe={nprobe}: {row['qps']:.1f} q/s ({row['speedup']:.1f}x), "
                f"recall@{K} {row['recall_at_50']:.4f}")
        del retriever, results
        gc.collect()

    if args.ef_search and args.hnsw_budget_s > 0:
        configs += run_hnsw(args, out, doc_ids, vectors, queries, truth, exact)
    elif args.ef_search:
        out["hnsw_note"] = "skipped: --hnsw-budget-s 0"
    out["configs"] = configs
    return out


def run_hnsw(args: argparse.Namespace, out: dict[str, Any], doc_ids: list[str], vectors: np.ndarray,
             queries: np.ndarray, truth: np.ndarray, exact: dict[str, Any]) -> list[dict[str, Any]]:
    """HNSW32 on the full corpus if its predicted build fits the budget, else on the largest prefix that does."""
    from sciwrite.retrieval import DenseRetriever

    n = len(doc_ids)
    probe_n = min(n, args.hnsw_probe_docs)
    probe = DenseRetriever(encoder="unused", factory="HNSW32")
    t = time.perf_counter()
    probe.index_embeddings(doc_ids[:probe_n], vectors[:probe_n], show_progress=False)
    probe_s = time.perf_counter() - t
    size, full_estimate = hnsw_size(n, probe_n, probe_s, args.hnsw_budget_s)
    out.update(hnsw_probe_docs=probe_n, hnsw_probe_build_s=probe_s, hnsw_full_build_estimate_s=full_estimate,
               hnsw_n_docs=size)
    if size < n:
        out["hnsw_note"] = (f"HNSW32 build on all {n:,} vectors estimated at {full_estimate / 60:.0f} min "
                            f"(probe: {probe_n:,} in {probe_s:.0f}s, n log n scaling) > budget "
                            f"{args.hnsw_budget_s / 60:.0f} min: built on the first {size:,} vectors and compared "
                            f"with an exact index on the same {size:,}")
    else:
        out["hnsw_note"] = f"HNSW32 built on all {n:,} vectors (estimate {full_estimate / 60:.1f} min fitted the budget)"
    log(f"dense: HNSW32 probe {probe_n:,} vectors in {probe_s:.1f}s; {out['hnsw_note']}")
    if size < n:
        exact = exact_search(doc_ids[:size], vectors[:size], queries)
        truth = exact.pop("truth")
        log(f"dense: Flat on the {size:,}-vector subset: {exact['qps']:.1f} q/s")
    if size == probe_n:
        retriever, build_s = probe, probe_s
    else:
        del probe
        gc.collect()
        retriever = DenseRetriever(encoder="unused", factory="HNSW32")
        t = time.perf_counter()
        retriever.index_embeddings(doc_ids[:size], vectors[:size], show_progress=False)
        build_s = time.perf_counter() - t
    log(f"dense: HNSW32 built on {size:,} vectors in {build_s:.1f}s, RSS {rss_gib():.2f} GiB")
    configs = []
    for ef in args.ef_search:
        retriever.ef_search, retriever._search_index = ef, None
        seconds, results = timed_search(retriever, queries)
        row = {"index": "HNSW32", "param": f"efSearch={ef}", "n_docs": size, "full_corpus": size == n,
               "build_s": build_s, "qps": len(queries) / seconds, "speedup": exact["search_s"] / seconds,
               "recall_at_50": recall_at_k(truth, hit_rows(results))}
        if size < n:
            row["exact_qps_same_subset"] = exact["qps"]
        configs.append(row)
        log(f"dense: HNSW32 efSearch={ef}: {row['qps']:.1f} q/s ({row['speedup']:.1f}x), recall@{K} "
            f"{row['recall_at_50']:.4f}")
    return configs


def finish_dense(out: dict[str, Any]) -> None:
    """Pick the fastest full-corpus approximate config meeting both targets; PASS/FAIL."""
    approx = [c for c in out["configs"] if c["index"] != "Flat" and c["full_corpus"]]
    meeting = [c for c in approx if c["recall_at_50"] >= DENSE_RECALL_TARGET and c["speedup"] >= DENSE_SPEEDUP_TARGET]
    best = max(meeting, key=lambda c: c["qps"]) if meeting else None
    out["target_pass"] = best is not None
    out["best_config"] = best
    if best is None and approx:
        fast = [c for c in approx if c["speedup"] >= DENSE_SPEEDUP_TARGET]
        out["best_recall_at_10x"] = max((c["recall_at_50"] for c in fast), default=None)


# --------------------------------------------------------------------------- report


def _fmt(value: Any, spec: str = ".1f") -> str:
    return "-" if value is None else format(value, spec)


def _verdict(ok: bool | None) -> str:
    return "-" if ok is None else ("PASS" if ok else "FAIL")


def format_report(results: dict[str, Any]) -> str:
    """The final table: machine, BM25 figures, dense figures, target verdicts."""
    m = results["machine"]
    lines = ["", "=" * 96, "Retrieval benchmark (synthetic data)", "=" * 96,
             f"machine: {m['usable_cpus']} usable cores ({m['logical_cpus']} logical), {m['ram_gib']} GiB RAM, "
             f"{m['cpu_model']}; faiss {m['faiss']} ({m['faiss_omp_threads']} OpenMP threads), bm25s {m['bm25s']}, "
             f"rank-bm25 {m['rank_bm25']}, numpy {m['numpy']}, Python {m['python']}; code {m['code']}"]
    b = results.get("bm25")
    if b:
        lines += ["", f"BM25: {b['n_docs']:,} docs, {b['mean_doc_words']:.1f} words/doc, Zipf {b['zipf_exponent']} over "
                  f"{b['vocab_size']:,} pseudo-words ({b['index_terms']:,} index terms after stemming); "
                  f"{b['n_queries']} queries of {b['query_words']} words, k={b['k']}",
                  f"  {'bm25s index build (tokenize + index)':<52}{b['build_s']:>10.1f} s   "
                  f"target < {BM25_BUILD_TARGET_S:.0f} s: {_verdict(b['build_target_pass'])}",
                  f"  {'bm25s build peak RSS above baseline':<52}{b['build_peak_above_baseline_gib']:>10.2f} GiB "
                  f"(baseline {b['build_rss_before_gib']:.2f}, peak {b['build_peak_rss_gib']:.2f})",
                  f"  {'BM25 process peak RSS (ru_maxrss, whole part)':<52}{b['process_peak_rss_gib']:>10.2f} GiB",
                  f"  {'bm25s queries/s (default: sequential)':<52}{b['bm25s_qps_default']:>10.2f}",
                  f"  {'bm25s queries/s (' + str(b['bm25s_search_threads_parallel']) + ' worker threads)':<52}"
                  f"{b['bm25s_qps_parallel']:>10.2f}"]
        if "rank_bm25_qps" in b:
            lines += [f"  {'rank-bm25 build (BM25Okapi, same tokens)':<52}{b['rank_bm25_build_s']:>10.1f} s "
                      f"(+{b['rank_bm25_build_peak_above_baseline_gib']:.2f} GiB; tokenizing "
                      f"{b['rank_bm25_tokenize_s']:.1f} s not counted)",
                      f"  {'rank-bm25 queries/s (' + str(b['rank_bm25_queries']) + ' queries)':<52}"
                      f"{b['rank_bm25_qps']:>10.4f} ({1 / b['rank_bm25_qps']:.1f} s/query)",
                      f"  {'speed ratio bm25s / rank-bm25 (both sequential)':<52}{b['speed_ratio_default']:>10.0f} x   "
                      f"target >= {BM25_SPEED_TARGET:.0f}x: {_verdict(b['speed_target_pass'])}",
                      f"  {'speed ratio bm25s (worker threads) / rank-bm25':<52}{b['speed_ratio_parallel']:>10.0f} x   "
                      f"target >= {BM25_SPEED_TARGET:.0f}x: {_verdict(b['speed_target_pass_parallel'])}",
                      f"  {'top-50 overlap bm25s vs rank-bm25 (idf differs)':<52}{b['top50_overlap_with_rank_bm25']:>10.2f}"]
        else:
            lines.append(f"  rank-bm25 comparison skipped: {b.get('rank_bm25_skipped')}")
    d = results.get("dense")
    if d:
        lines += ["", f"Dense: {d['n_docs']:,} x {d['dim']} float32, {d['n_clusters']:,} clusters (noise {d['noise']}, "
                  f"mix {d['mix']}); {d['n_queries']} queries in one batch, k={d['k']}; exact top-{d['k']}: "
                  f"{d['exact_top50_own_cluster_fraction']:.2f} own-cluster, similarity top-1 "
                  f"{d['exact_top1_similarity']:.3f} / {d['k']}th {d['exact_top50th_similarity']:.3f}",
                  f"  {'index':<16}{'param':<15}{'docs':>10}{'build s':>10}{'queries/s':>12}{'speed-up':>10}"
                  f"{'recall@50':>11}  target"]
        for c in d["configs"]:
            ok = None if c["index"] == "Flat" else (c["recall_at_50"] >= DENSE_RECALL_TARGET
                                                    and c["speedup"] >= DENSE_SPEEDUP_TARGET)
            note = "" if c["full_corpus"] else " (subset)"
            lines.append(f"  {c['index']:<16}{c['param']:<15}{c['n_docs']:>10,}{c['build_s']:>10.1f}"
                         f"{c['qps']:>12.1f}{c['speedup']:>9.1f}x{c['recall_at_50']:>11.4f}  {_verdict(ok)}{note}")
        if d.get("hnsw_note"):
            lines.append(f"  HNSW: {d['hnsw_note']}")
        lines.append(f"  {'dense process peak RSS (ru_maxrss)':<52}{d['process_peak_rss_gib']:>10.2f} GiB")
        best = d.get("best_config")
        verdict = (f"PASS with {best['index']} {best['param']} ({best['recall_at_50']:.4f} recall@50 at "
                   f"{best['speedup']:.1f}x)" if best else
                   f"FAIL (best full-corpus recall@50 at >= {DENSE_SPEEDUP_TARGET:.0f}x: "
                   f"{_fmt(d.get('best_recall_at_10x'), '.4f')})")
        lines.append(f"  target recall@50 >= {DENSE_RECALL_TARGET} at >= {DENSE_SPEEDUP_TARGET:.0f}x exact "
                     f"(full corpus): {verdict}")
    lines += ["", f"total wall time: {results['wall_s']:.1f} s", "=" * 96]
    return "\n".join(lines)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def run_part(fn: Callable[[argparse.Namespace], dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    """Run one part in a fresh spawned process (its own peak RSS) unless --in-process; add its process peak."""
    if args.in_process:
        result = fn(args)
        result["process_peak_rss_gib"] = process_peak_gib()
        return result
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
        return pool.submit(_part_with_peak, fn, args).result()


def _part_with_peak(fn: Callable[[argparse.Namespace], dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    result = fn(args)
    result["process_peak_rss_gib"] = process_peak_gib()
    return result


def _int_list(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--n-docs", type=int, default=FULL_N_DOCS, help="corpus size, for BM25 and dense")
    p.add_argument("--dim", type=int, default=1024, help="dense vector dimension")
    p.add_argument("--n-queries", type=int, default=100, help="BM25 queries timed with bm25s")
    p.add_argument("--dense-queries", type=int, default=1000, help="dense queries (one batch)")
    p.add_argument("--rank-bm25-queries", type=int, default=3, help="queries timed with rank-bm25 (0: skip it)")
    p.add_argument("--skip-bm25", action="store_true", help="skip the BM25 part")
    p.add_argument("--skip-dense", action="store_true", help="skip the dense part")
    p.add_argument("--seed", type=int, default=0, help="seed of all synthetic data")
    p.add_argument("--out", default=None, help="write all figures to this JSON file")
    p.add_argument("--vocab-size", type=int, default=80_000, help="BM25 pseudo-word vocabulary")
    p.add_argument("--zipf", type=float, default=1.1, help="Zipf exponent of word frequencies")
    p.add_argument("--doc-words", type=int, default=165, help="mean words per document")
    p.add_argument("--query-words", type=int, default=200, help="words per BM25 query")
    p.add_argument("--n-clusters", type=int, default=None,
                   help=f"dense cluster centres (default {FULL_N_CLUSTERS} at the full size, scaled with --n-docs)")
    p.add_argument("--noise", type=float, default=1.0, help="norm of a point's Gaussian noise (centres are unit)")
    p.add_argument("--mix", type=float, default=0.5, help="max weight of a point's second, random centre")
    p.add_argument("--ivf-lists", type=int, default=None, help="IVF lists (default: power of 2 nearest 4*sqrt(n))")
    p.add_argument("--nprobe", type=_int_list, default=[1, 2, 4, 8, 16, 32, 64, 128],
                   help="IVF nprobe sweep (comma list; '': no IVF; values above nlist/8 are skipped)")
    p.add_argument("--ef-search", type=_int_list, default=[16, 32, 64, 128, 256],
                   help="HNSW efSearch sweep (comma list; '': no HNSW)")
    p.add_argument("--hnsw-budget-s", type=float, default=600.0,
                   help="max predicted HNSW build seconds (0: skip HNSW); above it HNSW runs on a prefix")
    p.add_argument("--hnsw-probe-docs", type=int, default=50_000, help="vectors in the HNSW probe build")
    p.add_argument("--in-process", action="store_true", help="run the parts in this process (peaks then accumulate)")
    args = p.parse_args(argv)
    if args.n_docs < 2 * K:
        p.error(f"--n-docs must be at least {2 * K}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    start = time.perf_counter()
    results: dict[str, Any] = {"machine": machine_info(), "args": vars(args)}
    m = results["machine"]
    log(f"machine: {m['usable_cpus']} cores, {m['ram_gib']} GiB RAM, {m['cpu_model']}; faiss OpenMP threads "
        f"{m['faiss_omp_threads']}; command: {' '.join(sys.argv)}")
    if not args.skip_bm25:
        results["bm25"] = run_part(run_bm25, args)
        finish_bm25(results["bm25"])
    if not args.skip_dense:
        results["dense"] = run_part(run_dense, args)
        finish_dense(results["dense"])
    results["wall_s"] = time.perf_counter() - start
    print(format_report(results), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(_jsonable(results), f, indent=2)
        log(f"figures written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
