"""How `sciwrite generate rwgbench` plans a run: its options, the methods, the papers, their candidates and the
output files (`sciwrite.generation.jobs`).

One output file per method: ``<out>/<model label>_rwgbench-<split>_<method>[-oracle]_<retriever>.jsonl``
(default out ``outputs/generations/rwgbench``; ``<retriever>`` is ``none`` for Direct, which retrieves nothing).
Every line carries ``paper_id``, ``pred``, ``desc`` (the exact prompt), ``benchmark``, ``split``, ``model``,
``method``, ``retriever`` (``bm25``/``dense``, ``oracle`` with --oracle, null for Direct), ``seed``, ``k``,
``oracle``, ``candidates`` (the doc_ids the markers resolve to, in marker order) and what the method adds.

Candidates come from a saved retriever (``--index``, see ``sciwrite index build``) or from one built here from
the split's corpus (BM25, or dense with the ``--profile``'s encoder; `sciwrite.retrieval.build.build_retriever`); the
retrieval query is the target's title and abstract (``--query-with-introduction`` adds the introduction). ``--model
extractive`` runs the non-LLM extractive floor over the same candidates instead of a method. The retriever is built once, and each candidate
mode (top-k, oracle, none) is prepared once, when the first method needing it runs.

The agent (``--method agent``) searches that retriever itself, at most ``--max-tool-calls`` times per paper; its file
is ``..._agent_<retriever>.jsonl``, with its trace beside it (``..._agent_<retriever>.traces.jsonl``), and its
lines' ``k`` is null (the model picks each search's k). It does not take ``--oracle`` (which would hand it the
answer): alone it is an error, among other methods it is skipped with a warning, as Direct is.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sciwrite.core.commands import Option
from sciwrite.generation.agent import MAX_TOOL_CALLS
from sciwrite.generation.corpus_lookup import CorpusLookup
from sciwrite.generation.extractive import ExtractiveRWGBench
from sciwrite.generation.jobs import GenerationJob, GenerationRequest, file_label
from sciwrite.models.registry import PROFILES
from sciwrite.retrieval.build import RETRIEVERS, build_retriever
from sciwrite.rwgbench.data.configs import config_info
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.generation.methods import (
    DEFAULT_K,
    METHODS,
    WORKFLOW_K,
    make_method,
    prepare_records,
    resolve_methods,
)

logger = logging.getLogger(__name__)

SPLITS = {"sample": "sample", "test": "test"}  # --split -> paper config
#: The methods that read a retrieved top-k candidate list.
TOPK_METHODS = ("rag", "alce", "tag", "extractive")
#: What the command says before an agent run: the baseline is ours, not the paper's.
AGENT_NOTES = ("sciwrite's own baseline, not one of the paper's (RWGBench has no agent): its prompts are ours "
               "(templates/agent_*.txt); no tool result holds the target paper or a work published after it; the "
               "tool calls go to <output stem>.traces.jsonl",)


GENERATE_OPTIONS: tuple[Option, ...] = (
    Option("split", "the offline sample (144 ACL papers) or the 100-paper test set", choices=tuple(sorted(SPLITS)),
           default="sample"),
    Option("source", "dataset folder or Hub repo id of the papers (default: the sample folder for 'sample', the Hub "
                     "repo for 'test')"),
    Option("corpus_source", "folder or Hub repo id of the corpus (default: --source)"),
    Option("method", f"one or several of {', '.join(METHODS)}, or 'all' (not used with --model extractive)",
           many=True, metavar="METHOD"),
    Option("retriever", "candidate retriever (default bm25)", choices=RETRIEVERS, default="bm25"),
    Option("index", "folder of a saved retriever (sciwrite index build); else one is built from the corpus"),
    Option("k", f"retrieved candidates per paper (default {DEFAULT_K})", type=int, default=DEFAULT_K),
    Option("workflow_k", f"hits per Workflow query (default {WORKFLOW_K})", type=int, default=WORKFLOW_K),
    Option("max_tool_calls", f"tool calls per paper of the agent method before it must write (default "
                             f"{MAX_TOOL_CALLS}); --max-cost bounds its spend on top", type=int, default=MAX_TOOL_CALLS),
    Option("oracle", "the gold citations (seed-shuffled) are the candidate list instead of retrieved papers",
           switch=True),
    Option("query_with_introduction", "retrieve with title + abstract + introduction (default: title + abstract)",
           switch=True),
    Option("profile", "model profile of the dense encoder built here (default: $SCIWRITE_PROFILE or paper)",
           choices=PROFILES),
)


def output_path(out: str | Path, model: str, split: str, method: str, oracle: bool, retriever: str | None) -> Path:
    name = (f"{file_label(model)}_rwgbench-{split}_{file_label(method)}{'-oracle' if oracle else ''}_"
            f"{retriever or 'none'}.jsonl")
    return Path(out) / name


def load_split(split: str, source: str | None, corpus_source: str | None) -> tuple[Any, Any]:
    """The split's papers and its corpus (papers without any row are an error)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {sorted(SPLITS)}")
    config = SPLITS[split]
    corpus_config = config_info(config).corpus
    if corpus_config is None:  # every split is a paper config, which names its corpus
        raise ValueError(f"the RWGBench split {split!r} ({config}) has no corpus config")
    papers = load_rwgbench(config, source=source)
    if len(papers) == 0:
        raise ValueError(f"the RWGBench split {split!r} ({source or 'default source'}) has no papers")
    corpus = load_rwgbench(corpus_config, source=corpus_source or source)
    return papers, corpus


#: The methods --oracle cannot serve, in the order they are checked: (the error when it is the only method asked
#: for, the warning when it is skipped among others).
NO_ORACLE = {
    "direct": ("--oracle gives a candidate list, but the direct method uses none; choose another method",
               "--oracle: skipping the direct method, which uses no candidate list"),
    "agent": ("--oracle gives the gold citations, but the agent method searches the corpus itself (the gold list "
              "would hand it the answer); choose another method or drop --oracle",
              "--oracle: skipping the agent method, which searches the corpus itself"),
}


def method_names(request: GenerationRequest) -> list[str]:
    """The methods to run, in order: the extractive floor alone, or --method without those --oracle cannot serve
    (`NO_ORACLE`)."""
    options = request.options
    if request.extractive:
        if options.get("method"):
            logger.warning("--method is not used with --model extractive (the extractive floor is its own method)")
        return ["extractive"]
    names = resolve_methods(options.get("method"))
    for name, (refused, skipped) in (NO_ORACLE.items() if options.get("oracle") else ()):
        if name not in names:
            continue
        if names == [name]:
            raise ValueError(refused)
        logger.warning(skipped)
        names = [n for n in names if n != name]
    return names


def plan_generation(request: GenerationRequest) -> Iterator[GenerationJob]:
    """One job per method (or the extractive floor), each prepared when the command reaches it."""
    options = request.options
    oracle = bool(options.get("oracle"))
    k = options.get("k", DEFAULT_K)
    workflow_k = options.get("workflow_k", WORKFLOW_K)
    max_tool_calls = options.get("max_tool_calls", MAX_TOOL_CALLS)
    retriever_kind = options.get("retriever", "bm25")
    split = options.get("split", "sample")
    names = method_names(request)
    if k < 1:
        raise ValueError(f"--k must be >= 1, got {k}")
    if max_tool_calls < 1:
        raise ValueError(f"--max-tool-calls must be >= 1, got {max_tool_calls}")

    papers, corpus = load_split(split, options.get("source"), options.get("corpus_source"))
    # Only the papers the run can reach are searched: the first --limit (one for a plain dry run).
    if request.reach is not None and not request.retry_failed:
        papers = [papers[i] for i in range(min(request.reach, len(papers)))]
    lookup = CorpusLookup(corpus)
    wants_topk = not oracle and any(n in TOPK_METHODS for n in names)
    searches_itself = any(n in ("workflow", "agent") for n in names)
    wants_search = wants_topk or (not oracle and searches_itself and not request.dry_run)
    retriever = (build_retriever(retriever_kind, corpus, options.get("index"), options.get("profile"))
                 if wants_search else None)

    records: dict[str, list[dict[str, Any]]] = {}

    def records_for(name: str) -> list[dict[str, Any]]:
        mode = "oracle" if oracle and name != "direct" else ("topk" if name in TOPK_METHODS else "none")
        if mode not in records:
            records[mode] = prepare_records(papers, lookup, retriever if mode == "topk" else None, k,
                                            oracle=mode == "oracle", seed=request.seed,
                                            include_introduction=bool(options.get("query_with_introduction")),
                                            show_progress=mode == "topk")
        return records[mode]

    for name in names:
        if request.extractive:
            method: Any = ExtractiveRWGBench()
        else:
            method = make_method(name, retriever=retriever, corpus=lookup, retriever_name=retriever_kind, k=k,
                                 oracle=oracle, workflow_k=workflow_k, max_tool_calls=max_tool_calls)
        retriever_label = None if name == "direct" else ("oracle" if oracle else retriever_kind)
        # k: hits per query for Workflow (also over the oracle pool), the list length for the others (none with
        # --oracle, whose list is the gold set).
        run_k = None if name in ("direct", "agent") else (workflow_k if name == "workflow" else (None if oracle else k))
        meta = {"benchmark": "rwgbench", "split": split, "model": request.model, "method": method.name,
                "retriever": retriever_label, "seed": request.seed, "k": run_k, "oracle": oracle,
                **({"max_tool_calls": max_tool_calls} if name == "agent" else {})}
        out_path = output_path(request.out, request.model, split, method.name, oracle,
                               None if name == "direct" else retriever_kind)
        # the list prepared here (top-k, or the Oracle's gold set, Workflow's search pool under --oracle)
        listed = name != "direct" and (oracle or name in TOPK_METHODS)
        yield GenerationJob(records_for(name), method, out_path, meta, card={**meta, "dataset": f"rwgbench-{split}"},
                            notes=AGENT_NOTES if name == "agent" else (),
                            retrieved_field="candidate_docs" if listed else None)


__all__ = ["GENERATE_OPTIONS", "SPLITS", "load_split", "method_names", "output_path", "plan_generation"]
