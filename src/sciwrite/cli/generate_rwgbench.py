"""`sciwrite generate rwgbench`: run the RWGBench generation methods on a split and write JSON Lines.

One output file per method: ``<out>/<model label>_rwgbench-<split>_<method>[-oracle]_<retriever>.jsonl``
(default out ``outputs/generations/rwgbench``; ``<retriever>`` is ``none`` for Direct, which retrieves nothing).
Every line carries ``paper_id``, ``pred``, ``desc`` (the exact prompt), ``benchmark``, ``split``, ``model``,
``method``, ``retriever`` (``bm25``/``dense``, ``oracle`` with --oracle, null for Direct), ``seed``, ``k``,
``oracle``, ``candidates`` (the doc_ids the markers resolve to, in marker order) and what the method adds.

Candidates come from a saved retriever (``--index``, see ``sciwrite index build``) or from one built here from
the split's corpus (BM25, or dense with the ``--profile``'s encoder); the retrieval query is the target's title
and abstract (``--query-with-introduction`` adds the introduction). ``--model extractive`` runs the non-LLM
extractive floor over the same candidates instead of a method.

``--config baselines/rwgbench/<row>.yaml`` sets the defaults of one published Table 2 row (method, retriever,
oracle, k, ...; see `generate_common.load_config`); explicit flags win.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from sciwrite.cli.generate_common import (
    EXTRACTIVE,
    add_config_argument,
    add_run_arguments,
    execute,
    file_label,
)
from sciwrite.core.hub import push_predictions
from sciwrite.generation.extractive import ExtractiveRWGBench
from sciwrite.retrieval.base import read_config
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.retrieval.dense import DenseRetriever
from sciwrite.retrieval.saved import load_retriever
from sciwrite.rwgbench.data.configs import config_info
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.generation.methods import (
    DEFAULT_K,
    METHODS,
    WORKFLOW_K,
    CorpusLookup,
    make_method,
    prepare_records,
    resolve_methods,
)

logger = logging.getLogger(__name__)

DEFAULT_OUT = Path("outputs/generations/rwgbench")
SPLITS = {"sample": "sample", "test": "test"}  # --split -> paper config
RETRIEVERS = ("bm25", "dense")


def add_generate_rwgbench_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The shared run options plus the RWGBench ones, and --config."""
    add_run_arguments(parser)
    add_config_argument(parser, "rwgbench")
    parser.add_argument("--split", choices=sorted(SPLITS), default="sample",
                        help="the offline sample (144 ACL papers) or the 100-paper test set")
    parser.add_argument("--source", help="dataset folder or Hub repo id of the papers (default: the sample folder "
                                         "for 'sample', the Hub repo for 'test')")
    parser.add_argument("--corpus-source", help="folder or Hub repo id of the corpus (default: --source)")
    parser.add_argument("--method", nargs="+", metavar="METHOD",
                        help=f"one or several of {', '.join(METHODS)}, or 'all' (not used with --model extractive)")
    parser.add_argument("--retriever", choices=RETRIEVERS, default="bm25", help="candidate retriever (default bm25)")
    parser.add_argument("--index", help="folder of a saved retriever (sciwrite index build); else one is built from "
                                        "the corpus")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help=f"retrieved candidates per paper (default {DEFAULT_K})")
    parser.add_argument("--workflow-k", type=int, default=WORKFLOW_K,
                        help=f"hits per Workflow query (default {WORKFLOW_K})")
    parser.add_argument("--oracle", action=argparse.BooleanOptionalAction, default=False,
                        help="the gold citations (seed-shuffled) are the candidate list instead of retrieved papers")
    parser.add_argument("--query-with-introduction", action=argparse.BooleanOptionalAction, default=False,
                        help="retrieve with title + abstract + introduction (default: title + abstract)")
    parser.add_argument("--profile", choices=["paper", "lite"],
                        help="model profile of the dense encoder built here (default: $SCIWRITE_PROFILE or paper)")
    parser.add_argument("--push-to-hub", metavar="REPO_ID",
                        help="after each run, publish the output file as a config of this Hub dataset repo")
    return parser


def output_path(out: str | Path | None, model: str, split: str, method: str, oracle: bool,
                retriever: str | None) -> Path:
    name = (f"{file_label(model)}_rwgbench-{split}_{file_label(method)}{'-oracle' if oracle else ''}_"
            f"{retriever or 'none'}.jsonl")
    return Path(out or DEFAULT_OUT) / name


def load_split(split: str, source: str | None, corpus_source: str | None) -> tuple[Any, Any]:
    """The split's papers and its corpus (papers without any row are an error)."""

    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {sorted(SPLITS)}")
    config = SPLITS[split]
    papers = load_rwgbench(config, source=source)
    if len(papers) == 0:
        raise ValueError(f"the RWGBench split {split!r} ({source or 'default source'}) has no papers")
    corpus = load_rwgbench(config_info(config).corpus, source=corpus_source or source)
    return papers, corpus


def build_retriever(kind: str, corpus: Any, index: str | None = None, profile: str | None = None) -> Any:
    """A saved retriever (its kind must be `kind`), or one built from `corpus`."""
    if kind not in RETRIEVERS:
        raise ValueError(f"unknown retriever {kind!r}; choose one of {', '.join(RETRIEVERS)}")
    if index:
        saved = read_config(Path(index))[0].get("kind")
        if saved != kind:
            raise ValueError(f"--index {index} holds a {saved!r} retriever but --retriever is {kind!r}; pass "
                             f"--retriever {saved}")
        return load_retriever(index)
    if kind == "bm25":
        return BM25Retriever.from_corpus(corpus)

    return DenseRetriever.from_corpus(corpus, profile=profile)


def run_generate_rwgbench(args: argparse.Namespace) -> list[Any]:
    """Generate with every requested method (or the extractive floor); the run reports (None for a dry run)."""
    extractive = args.model == EXTRACTIVE
    if extractive:
        if args.method:
            logger.warning("--method is not used with --model extractive (the extractive floor is its own method)")
        names = ["extractive"]
    else:
        names = resolve_methods(args.method)
    if args.oracle and "direct" in names:
        if names == ["direct"]:
            raise ValueError("--oracle gives a candidate list, but the direct method uses none; choose another "
                             "method")
        logger.warning("--oracle: skipping the direct method, which uses no candidate list")
        names = [n for n in names if n != "direct"]
    if args.k < 1:
        raise ValueError(f"--k must be >= 1, got {args.k}")

    papers, corpus = load_split(args.split, args.source, args.corpus_source)
    # Only the papers the run can reach are searched: the first --limit (one for a plain dry run).
    reach = args.limit if args.limit and args.limit > 0 else (1 if args.dry_run else None)
    if reach is not None and not args.retry_failed:
        papers = [papers[i] for i in range(min(reach, len(papers)))]
    lookup = CorpusLookup(corpus)
    wants_topk = not args.oracle and any(n in ("rag", "alce", "tag", "extractive") for n in names)
    wants_search = wants_topk or (not args.oracle and "workflow" in names and not args.dry_run)
    retriever = build_retriever(args.retriever, corpus, args.index, args.profile) if wants_search else None

    records: dict[str, list[dict[str, Any]]] = {}

    def records_for(name: str) -> list[dict[str, Any]]:
        mode = "oracle" if args.oracle and name != "direct" else (
            "topk" if name in ("rag", "alce", "tag", "extractive") else "none")
        if mode not in records:
            records[mode] = prepare_records(papers, lookup, retriever if mode == "topk" else None, args.k,
                                            oracle=mode == "oracle", seed=args.seed,
                                            include_introduction=args.query_with_introduction,
                                            show_progress=mode == "topk")
        return records[mode]

    reports = []
    for name in names:
        if extractive:
            method: Any = ExtractiveRWGBench()
        else:
            method = make_method(name, retriever=retriever, corpus=lookup, retriever_name=args.retriever, k=args.k,
                                 oracle=args.oracle, workflow_k=args.workflow_k)
        retriever_label = None if name == "direct" else ("oracle" if args.oracle else args.retriever)
        # k: hits per query for Workflow (also over the oracle pool), the list length for the others (none with
        # --oracle, whose list is the gold set).
        k = None if name == "direct" else (args.workflow_k if name == "workflow" else (None if args.oracle else args.k))
        meta = {"benchmark": "rwgbench", "split": args.split, "model": args.model, "method": method.name,
                "retriever": retriever_label, "seed": args.seed, "k": k, "oracle": bool(args.oracle)}
        out_path = output_path(args.out, args.model, args.split, method.name, args.oracle,
                               None if name == "direct" else args.retriever)
        report = execute(args, records_for(name), method, out_path, meta)
        reports.append(report)
        if report is not None and getattr(args, "push_to_hub", None):
            fields = {**meta, "dataset": f"rwgbench-{args.split}"}
            print(f"pushed {out_path} to {push_predictions(out_path, args.push_to_hub, fields)}")
    return reports


__all__ = ["DEFAULT_OUT", "add_generate_rwgbench_arguments", "build_retriever", "load_split", "output_path",
           "run_generate_rwgbench"]
