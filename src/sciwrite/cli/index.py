"""`sciwrite index build` and `sciwrite retrieve`: retrieval indexes over a benchmark's corpus (`Benchmark.data.corpus`),
and candidates for a split."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark, Corpus
from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.cli.flags import (
    BATCH_SIZE,
    BENCHMARK,
    CORPUS,
    INDEX,
    LIMIT,
    OUT,
    PROFILE,
    SOURCE,
    SPLIT,
    K,
    add_engine_flags,
)
from sciwrite.core.engine import RAY, ray_engine
from sciwrite.core.tables import format_table
from sciwrite.retrieval import (
    INDEX_KINDS,
    BM25Retriever,
    DenseRetriever,
    SearchResult,
    build_query,
    evaluate_retrieval,
    load_retriever,
)
from sciwrite.retrieval.corpus_files import SHARD_ROWS

#: The benchmarks with a retrieval corpus, and the first of them (the default of ``--benchmark``).
CORPUS_BENCHMARKS = [name for name, bench in BENCHMARKS.items() if bench.data.corpus is not None]


def corpus_of(name: str) -> tuple[Benchmark, Corpus]:
    """The benchmark called `name` and its corpus; an error when it has none."""
    bench = get_benchmark(name)
    if bench.data.corpus is None:
        raise ValueError(f"{bench.title} has no retrieval corpus; choose one of {CORPUS_BENCHMARKS}")
    return bench, bench.data.corpus


def _local_source(source: str | None, config: str, corpus: Corpus) -> Path | None:
    """The local folder a corpus config is read from (None for a Hub repo)."""
    if source is None:
        return corpus.default_folder(config)
    path = Path(source).expanduser()
    return path if path.exists() else None


def cmd_index_build(args: argparse.Namespace) -> None:
    bench, corpus_part = corpus_of(args.benchmark)
    config = args.corpus or corpus_part.default
    out = _index_folder(args, corpus_part, config)
    if args.engine == RAY:
        if args.kind != "dense":
            raise ValueError("the Ray engine builds dense indexes (--kind dense); build BM25 with --engine local")
        retriever = ray_engine().build_dense_index(
            corpus_part.files(config, args.source), out, encoder=args.encoder, factory=args.factory,
            profile=args.profile, batch_size=args.batch_size, nprobe=args.nprobe, ef_construction=args.ef_construction,
            address=args.ray_address, actors=args.ray_actors, shard_rows=args.shard_rows, shards_dir=args.shards_dir)
        n_docs = len(retriever.doc_ids)
    else:
        corpus = bench.data.load(config, source=args.source)
        if args.kind == "bm25":
            retriever = BM25Retriever.from_corpus(corpus)
        else:
            retriever = DenseRetriever.from_corpus(corpus, encoder=args.encoder, factory=args.factory,
                                                   profile=args.profile, batch_size=args.batch_size,
                                                   nprobe=args.nprobe, ef_construction=args.ef_construction)
        retriever.save(out)
        n_docs = len(corpus)
    print(f"{args.kind} index of {n_docs} documents from {config!r} written to {out}")


def _index_folder(args: argparse.Namespace, corpus: Corpus, config: str) -> Path:
    """--out, or next to a local dataset (faiss/<config>, bm25/<config>), or indexes/<config>/<kind>."""
    if args.out:
        return Path(args.out)
    local = _local_source(args.source, config, corpus)
    if local is None:
        return Path("indexes") / config / args.kind
    return local / ("faiss" if args.kind == "dense" else "bm25") / config


def cmd_retrieve(args: argparse.Namespace) -> None:
    bench, corpus_part = corpus_of(args.benchmark)
    retriever = load_retriever(args.index)
    papers = bench.data.load(args.split or corpus_part.default_papers, source=args.source)
    if args.limit:
        papers = papers.select(range(min(args.limit, len(papers))))
    if args.out:
        queries = [build_query(p, args.with_introduction) for p in papers]
        # one hit more than asked for, so that leaving the target paper out still leaves k
        results = retriever.search(queries, k=args.k + 1)
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as f:
            for paper, result in zip(papers, results):
                f.write(json.dumps(candidates_line(paper["paper_id"], result, args.k)) + "\n")
        print(f"top-{args.k} candidates for {len(papers)} papers (each without itself) written to {out}")
    report = evaluate_retrieval(retriever, papers, name=Path(args.index).name, ks=args.recall_at,
                                include_introduction=args.with_introduction)
    print(format_table([report.summary_row()]))


def candidates_line(paper_id: str, result: SearchResult, k: int) -> dict[str, Any]:
    """A ``retrieve --out`` line: the paper's top-`k` hits without the paper itself (a paper cannot cite itself; the
    generation's candidates and the retrieval scores leave it out too), with their scores."""
    hits = [(doc_id, score) for doc_id, score in zip(result.doc_ids, result.scores) if doc_id != paper_id][:k]
    return {"paper_id": paper_id, "candidates": [doc_id for doc_id, _ in hits], "scores": [score for _, score in hits]}


def corpus_configs_text(field: str) -> str:
    """A corpus part's configs, for --help (every benchmark with a corpus)."""
    return "; ".join(f"{name}: {', '.join(getattr(BENCHMARKS[name].data.corpus, field))}" for name in CORPUS_BENCHMARKS)


def add_corpus_benchmark(p: argparse.ArgumentParser) -> None:
    """--benchmark, among those with a retrieval corpus (default: the first)."""
    BENCHMARK.add(p, f"whose corpus (default: {CORPUS_BENCHMARKS[0] if CORPUS_BENCHMARKS else 'none'})",
                  choices=CORPUS_BENCHMARKS, default=CORPUS_BENCHMARKS[0] if CORPUS_BENCHMARKS else None)


def add_index_commands(sub: argparse._SubParsersAction) -> None:
    """The `index` group and `retrieve`."""
    index = sub.add_parser("index", help="retrieval indexes").add_subparsers(dest="what", required=True)
    p = index.add_parser("build", help="index a corpus config with BM25 or a dense encoder")
    add_corpus_benchmark(p)
    CORPUS.add(p, f"corpus config ({corpus_configs_text('configs')}; default: the offline sample's)")
    SOURCE.add(p, "local dataset folder or Hub repo id of the corpus (default: the sample folder / the Hub)")
    p.add_argument("--kind", choices=INDEX_KINDS, required=True, help="BM25 or a dense encoder")
    OUT.add(p, "index folder (default: next to a local dataset, faiss/<config> or bm25/<config>)")
    p.add_argument("--encoder", help="dense encoder id or path (default: the profile's dense_encoder)")
    PROFILE.add(p)
    p.add_argument("--factory", default="Flat", help="FAISS factory string: Flat (exact), IVF4096,Flat, HNSW32 ...")
    p.add_argument("--nprobe", type=int, default=16, help="IVF lists searched per query")
    p.add_argument("--ef-construction", type=int, default=40, help="HNSW graph-building beam")
    BATCH_SIZE.add(p, "encoder batch size", default=64)
    add_engine_flags(p, "encoding and indexing")
    p.add_argument("--shard-rows", type=int, default=SHARD_ROWS,
                   help=f"--engine ray: rows per embedding shard held by the driver (default {SHARD_ROWS})")
    p.add_argument("--shards-dir", help="--engine ray: keep the embedding shards (.npy) in this folder "
                                        "(default: a temporary folder, removed)")
    p.set_defaults(func=cmd_index_build)

    p = sub.add_parser("retrieve", help="retrieve candidates for a split and report retrieval quality")
    INDEX.add(p, required=True)
    add_corpus_benchmark(p)
    SPLIT.add(p, f"the papers' config ({corpus_configs_text('paper_configs')}; default: the offline sample)",
              metavar="CONFIG")
    SOURCE.add(p)
    K.add(p, "retrieved candidates per paper (default: 50)", default=50)
    p.add_argument("--recall-at", dest="recall_at", type=int, nargs="+", default=[10, 20, 50], metavar="K",
                   help="recall cut-offs to report (default: 10 20 50)")
    p.add_argument("--with-introduction", action="store_true", help="append the introduction to the query")
    LIMIT.add(p)
    OUT.add(p, "write the candidates as JSON Lines")
    p.set_defaults(func=cmd_retrieve)
