"""`sciwrite index build` and `sciwrite retrieve`: retrieval indexes over a corpus, and candidates for a split."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sciwrite.cli.engine_options import add_engine_options
from sciwrite.core.engine import RAY, ray_engine
from sciwrite.core.tables import format_table
from sciwrite.retrieval import BM25Retriever, DenseRetriever, build_query, evaluate_retrieval, load_retriever
from sciwrite.rwgbench.data.configs import SAMPLE_CONFIGS, default_data_dir
from sciwrite.rwgbench.data.corpus_files import SHARD_ROWS, corpus_files
from sciwrite.rwgbench.data.loading import load_rwgbench


def _local_source(source: str | None, config: str) -> Path | None:
    """The local folder a config is read from (None for a Hub repo)."""

    if source is None:
        return default_data_dir() if config in SAMPLE_CONFIGS else None
    path = Path(source).expanduser()
    return path if path.exists() else None


def cmd_index_build(args: argparse.Namespace) -> None:
    out = _index_folder(args)
    if args.engine == RAY:
        if args.kind != "dense":
            raise ValueError("the Ray engine builds dense indexes (--kind dense); build BM25 with --engine local")
        retriever = ray_engine().build_dense_index(
            corpus_files(args.config, args.source), out, encoder=args.encoder, factory=args.factory,
            profile=args.profile, batch_size=args.batch_size, nprobe=args.nprobe, ef_construction=args.ef_construction,
            address=args.ray_address, actors=args.ray_actors, shard_rows=args.shard_rows, shards_dir=args.shards_dir)
        n_docs = len(retriever.doc_ids)
    else:
        corpus = load_rwgbench(args.config, source=args.source)
        if args.kind == "bm25":
            retriever = BM25Retriever.from_corpus(corpus)
        else:
            retriever = DenseRetriever.from_corpus(corpus, encoder=args.encoder, factory=args.factory,
                                                   profile=args.profile, batch_size=args.batch_size,
                                                   nprobe=args.nprobe, ef_construction=args.ef_construction)
        retriever.save(out)
        n_docs = len(corpus)
    print(f"{args.kind} index of {n_docs} documents from {args.config!r} written to {out}")


def _index_folder(args: argparse.Namespace) -> Path:
    """--out, or next to a local dataset (faiss/<config>, bm25/<config>), or indexes/<config>/<kind>."""
    if args.out:
        return Path(args.out)
    local = _local_source(args.source, args.config)
    if local is None:
        return Path("indexes") / args.config / args.kind
    return local / ("faiss" if args.kind == "dense" else "bm25") / args.config


def cmd_retrieve(args: argparse.Namespace) -> None:
    retriever = load_retriever(args.index)
    papers = load_rwgbench(args.config, source=args.source)
    if args.limit:
        papers = papers.select(range(min(args.limit, len(papers))))
    if args.out:
        queries = [build_query(p, args.with_introduction) for p in papers]
        results = retriever.search(queries, k=args.k)
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as f:
            for paper, result in zip(papers, results):
                f.write(json.dumps({"paper_id": paper["paper_id"], "candidates": result.doc_ids, "scores": result.scores}) + "\n")
        print(f"top-{args.k} candidates for {len(papers)} papers written to {out}")
    report = evaluate_retrieval(retriever, papers, name=Path(args.index).name, ks=args.ks,
                                include_introduction=args.with_introduction)
    print(format_table([report.summary_row()]))


def add_index_commands(sub: argparse._SubParsersAction) -> None:
    """The `index` group and `retrieve`."""
    index = sub.add_parser("index", help="retrieval indexes").add_subparsers(dest="what", required=True)
    p = index.add_parser("build", help="index a corpus config with BM25 or a dense encoder")
    p.add_argument("--corpus", "--config", dest="config", default="sample_corpus", help="corpus config (corpus, sample_corpus)")
    p.add_argument("--source", help="local dataset folder or Hub repo id")
    p.add_argument("--kind", choices=["bm25", "dense"], required=True)
    p.add_argument("--out", help="index folder (default: next to a local dataset, faiss/<config> or bm25/<config>)")
    p.add_argument("--encoder", help="dense encoder id or path (default: the profile's dense_encoder)")
    p.add_argument("--profile", choices=["paper", "lite"], help="model profile (default: $SCIWRITE_PROFILE or paper)")
    p.add_argument("--factory", default="Flat", help="FAISS factory string: Flat (exact), IVF4096,Flat, HNSW32 ...")
    p.add_argument("--nprobe", type=int, default=16, help="IVF lists searched per query")
    p.add_argument("--ef-construction", type=int, default=40, help="HNSW graph-building beam")
    p.add_argument("--batch-size", type=int, default=64, help="encoder batch size")
    add_engine_options(p, "encoding and indexing")
    p.add_argument("--shard-rows", type=int, default=SHARD_ROWS,
                   help=f"--engine ray: rows per embedding shard held by the driver (default {SHARD_ROWS})")
    p.add_argument("--shards-dir", help="--engine ray: keep the embedding shards (.npy) in this folder "
                                        "(default: a temporary folder, removed)")
    p.set_defaults(func=cmd_index_build)

    p = sub.add_parser("retrieve", help="retrieve candidates for a split and report retrieval quality")
    p.add_argument("--index", required=True, help="folder written by `sciwrite index build`")
    p.add_argument("--config", default="sample", help="paper config (sample, test, papers)")
    p.add_argument("--source", help="local dataset folder or Hub repo id")
    p.add_argument("--k", type=int, default=50, help="candidates per paper")
    p.add_argument("--ks", type=int, nargs="+", default=[10, 20, 50], help="recall cut-offs to report")
    p.add_argument("--with-introduction", action="store_true", help="append the introduction to the query")
    p.add_argument("--limit", type=int, help="only the first N papers")
    p.add_argument("--out", help="write the candidates as JSON Lines")
    p.set_defaults(func=cmd_retrieve)
