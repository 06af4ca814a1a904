"""How ``sciwrite generate surge`` plans a run: its options, the methods, the surveys, their retrieved papers and the
output files (`sciwrite.generation.jobs`).

One output file per method: ``<out>/<model label>_<split>_<method>[_<retriever>].jsonl`` (default out
``outputs/generations/surge``; the retriever, ``bm25`` or ``dense``, names the file of every method that searches,
so that runs over both retrievers never resume into each other; ``naive`` searches nothing). Every line carries
``paper_id`` (the survey id), ``pred`` (the survey in Markdown, its reference list included), ``desc`` (the exact
prompt of the first request), the run's metadata (``benchmark``, ``dataset``, ``split``, ``model``, ``method``,
``retriever``, ``seed``, ``k``, ``topic``, and the outline's or the agent's settings) and what the method adds
(``candidates``: the cited doc_ids in marker order, ...). Beside it: the runner's failures, traces and usage files,
and the outline method's ``<stem>.sections.jsonl`` (finished steps of surveys in progress).

The surveys are the split's (``sample``: the offline sample, ``surveys``: SurGE's 205), their corpus the split's
corpus config, from ``--source`` (``--corpus-source`` for the corpus). What a method is given of a survey is its
topic (`sciwrite.surge.generation.records.survey_inputs`): the title (``--topic title``, SurGE's task and the
default) or the title and abstract (``--topic title-abstract``); never its text, tree or citations. The retriever
(a saved one, ``--index``, or one built here over the corpus: BM25, or dense with the ``--profile``'s encoder) is
built once, when a method that searches is asked for (not for a dry run of the agent alone), and the topic's top-k
papers of every survey the run can reach are searched in one call, for rag and outline alike.

``--model extractive`` runs the extractive floor (no model): ``rag`` (the default) and ``outline`` run offline;
``naive`` and ``agent`` need a model, and are skipped with a warning among others (alone: an error).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.commands import Option
from sciwrite.generation.agent import MAX_TOOL_CALLS
from sciwrite.generation.jobs import GenerationJob, GenerationRequest, file_label
from sciwrite.models.registry import PROFILES
from sciwrite.retrieval.build import RETRIEVERS, build_retriever
from sciwrite.surge.data.configs import SCORED_SPLITS, config_info
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.generation.agent import SurveyAgent
from sciwrite.surge.generation.extractive import ExtractiveRAG, ExtractiveWriter
from sciwrite.surge.generation.methods import (
    DEFAULT_K,
    METHODS,
    OFFLINE_METHODS,
    RAG,
    TOPK_METHODS,
    Naive,
    resolve_methods,
)
from sciwrite.surge.generation.outline import (
    SECTION_K,
    SECTION_MAX_TOKENS,
    SECTIONS,
    ModelWriter,
    OutlineSurvey,
)
from sciwrite.surge.generation.prompts import TITLE, TOPICS
from sciwrite.surge.generation.records import SurveySearch, survey_inputs
from sciwrite.surge.generation.section_cache import SectionCache, sections_path_for

logger = logging.getLogger(__name__)

#: What the command says before a run with a model: the prompts are ours.
PROMPT_NOTE = ("SurGE publishes its baselines' outputs, not their prompts: the prompts are sciwrite's "
               "(src/sciwrite/surge/generation/templates/); the topic is the survey's {topic}, nothing of the expert "
               "survey's text, sections or citations")
OUTLINE_NOTE = ("AutoSurvey-style (outline, then one search and one request per section); finished sections "
                "are kept in <output stem>.sections.jsonl until the survey is written, so a rerun re-sends only the "
                "missing ones; each survey's outline and searches go to <output stem>.traces.jsonl")
AGENT_NOTE = ("sciwrite's own baseline, not one of SurGE's: RWGBench's search/read tool agent over the corpus, "
              "never showing the survey itself or a paper published after it; the tool calls go to "
              "<output stem>.traces.jsonl")
EXTRACTIVE_NOTE = ("the extractive floor: no language model is called; its surveys copy the retrieved papers' first "
                   "sentences, a lower bound, never a model's score")


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError(f"expected an integer >= 1, got {value}")
    return number


GENERATE_OPTIONS: tuple[Option, ...] = (
    Option("split", "SurGE survey config: 'sample' (offline: ACL papers laid out as surveys), 'surveys' (SurGE's "
                    "205) or 'arxiv' (a fresh split `sciwrite build surge --from-arxiv` wrote; give --corpus-source)",
           choices=SCORED_SPLITS, default="sample"),
    Option("source", "local dataset folder or Hub repo id of the surveys (default: the sample folder for 'sample', "
                     "the Hub repo otherwise)"),
    Option("corpus_source", "folder or Hub repo id of the corpus (default: --source)"),
    Option("method", f"one or several of {', '.join(METHODS)}, or 'all'; with --model extractive: "
                     f"{' or '.join(OFFLINE_METHODS)} (default rag)", many=True, metavar="METHOD"),
    Option("retriever", "the retriever of rag, outline and agent (default bm25)", choices=RETRIEVERS, default="bm25"),
    Option("index", "folder of a saved retriever (sciwrite index build); else one is built from the corpus"),
    Option("profile", "model profile of the dense encoder built here (default: $SCIWRITE_PROFILE or paper)",
           choices=PROFILES),
    Option("k", f"papers retrieved for the topic: rag's list and the outline request's (default {DEFAULT_K})",
           type=_positive, default=DEFAULT_K),
    Option("sections", f"sections of the outline method at most (default {SECTIONS})", type=_positive,
           default=SECTIONS),
    Option("section_k", f"papers retrieved per section by the outline method (default {SECTION_K})", type=_positive,
           default=SECTION_K),
    Option("section_max_tokens", f"completion tokens of one section's request (default {SECTION_MAX_TOKENS}); "
                                 "--max-tokens bounds the other requests", type=_positive, default=SECTION_MAX_TOKENS),
    Option("max_tool_calls", f"tool calls per survey of the agent before it must write (default {MAX_TOOL_CALLS}); "
                             "--max-cost bounds its spend on top", type=_positive, default=MAX_TOOL_CALLS),
    Option("topic", "what a method is told of the survey: its title (SurGE's task, the default) or its title and "
                    "abstract", choices=TOPICS, default=TITLE),
)


def output_path(out: str | Path, model: str, split: str, method: str, retriever: str | None) -> Path:
    """``<out>/<file_label(model)>_<split>_<method>[_<retriever>].jsonl``."""
    return Path(out) / f"{file_label(model)}_{split}_{method}{f'_{retriever}' if retriever else ''}.jsonl"


def load_surveys(split: str, source: str | None) -> list[dict[str, Any]]:
    """The split's surveys (none is an error)."""
    if split not in SCORED_SPLITS:
        raise ValueError(f"unknown SurGE split {split!r}; choose one of {', '.join(SCORED_SPLITS)}")
    surveys = load_surge(split, source=source).to_list()
    if not surveys:
        raise ValueError(f"the SurGE split {split!r} ({source or 'default source'}) has no surveys")
    return surveys


def load_corpus(split: str, source: str | None) -> Any:
    """The corpus config of survey config `split`."""
    corpus = config_info(split).corpus
    if corpus is None:
        raise ValueError(f"the SurGE split {split!r} has no corpus config")
    return load_surge(corpus, source=source)


def method_names(request: GenerationRequest) -> list[str]:
    """The methods to run, in order: --method (required with a model), or with the extractive floor those of it that
    run offline (rag when none is named)."""
    asked = request.options.get("method")
    if not request.extractive:
        return resolve_methods(asked)
    names = resolve_methods(asked) if asked else ["rag"]
    offline = [n for n in names if n in OFFLINE_METHODS]
    skipped = [n for n in names if n not in OFFLINE_METHODS]
    if not offline:
        raise ValueError(f"--model extractive runs {' and '.join(OFFLINE_METHODS)} only; {', '.join(skipped)} "
                         "need(s) a language model (--model)")
    if skipped:
        logger.warning("--model extractive: skipping %s, which need(s) a language model", ", ".join(skipped))
    return offline


def run_meta(request: GenerationRequest, name: str) -> dict[str, Any]:
    """The metadata every line of method `name`'s file carries."""
    options = request.options
    split = options.get("split", "sample")
    meta: dict[str, Any] = {"benchmark": "surge", "dataset": split, "split": split, "model": request.model,
                            "method": name, "retriever": None if name == "naive" else options.get("retriever", "bm25"),
                            "seed": request.seed, "k": options.get("k", DEFAULT_K) if name in TOPK_METHODS else None,
                            "topic": options.get("topic", TITLE)}
    if name == "outline":
        meta.update(sections=options.get("sections", SECTIONS), section_k=options.get("section_k", SECTION_K),
                    section_max_tokens=options.get("section_max_tokens", SECTION_MAX_TOKENS))
    if name == "agent":
        meta["max_tool_calls"] = options.get("max_tool_calls", MAX_TOOL_CALLS)
    return meta


def make_method(name: str, request: GenerationRequest, search: SurveySearch | None, out_path: Path,
                meta: Mapping[str, Any]) -> Any:
    """Method `name` configured for the run (the extractive floor's with ``--model extractive``)."""
    options = request.options
    topic, kind, k = options.get("topic", TITLE), options.get("retriever", "bm25"), options.get("k", DEFAULT_K)
    if name == "naive":
        return Naive(topic)
    if name == "rag":
        return ExtractiveRAG(kind, k) if request.extractive else RAG(kind, k, topic)
    if name == "agent":
        retriever, lookup = (search.tools.retriever, search.lookup) if search is not None else (None, None)
        return SurveyAgent(retriever, lookup, retriever_name=kind, topic=topic,
                           max_tool_calls=options.get("max_tool_calls", MAX_TOOL_CALLS))
    writer: Any = ExtractiveWriter() if request.extractive else ModelWriter(topic)
    settings = {**meta, "index": options.get("index"), "profile": options.get("profile")}
    return OutlineSurvey(search, writer, cache=SectionCache(sections_path_for(out_path), settings),
                         retriever_name=kind, k=k, sections=meta["sections"], section_k=meta["section_k"],
                         section_max_tokens=meta["section_max_tokens"])


def plan_generation(request: GenerationRequest) -> Iterator[GenerationJob]:
    """One job per method, each prepared when the command reaches it (the retriever and the topic search once)."""
    options = request.options
    names = method_names(request)
    split, topic = options.get("split", "sample"), options.get("topic", TITLE)
    if topic not in TOPICS:
        raise ValueError(f"unknown --topic {topic!r}; choose one of {', '.join(TOPICS)}")
    source = options.get("source")
    surveys = load_surveys(split, source)
    # Only the surveys the run can reach are searched: the first --limit (one for a plain dry run).
    if request.reach is not None and not request.retry_failed:
        surveys = surveys[: request.reach]
    records = [survey_inputs(s, topic) for s in surveys]
    wants_search = any(n in TOPK_METHODS for n in names) or ("agent" in names and not request.dry_run)
    search = None
    if wants_search:
        corpus = load_corpus(split, options.get("corpus_source") or source)
        retriever = build_retriever(options.get("retriever", "bm25"), corpus, options.get("index"),
                                    options.get("profile"))
        search = SurveySearch(retriever, corpus)
    retrieved: list[dict[str, Any]] | None = None

    def records_for(name: str) -> list[dict[str, Any]]:
        nonlocal retrieved
        if name not in TOPK_METHODS:
            return records
        if retrieved is None:
            assert search is not None
            found = search.topic_docs(records, options.get("k", DEFAULT_K), topic, show_progress=True)
            retrieved = [{**record, "candidate_docs": docs} for record, docs in zip(records, found)]
        return retrieved

    for name in names:
        meta = run_meta(request, name)
        out_path = (request.out / request.file_name if request.file_name is not None
                    else output_path(request.out, request.model, split, name, meta["retriever"]))
        method = make_method(name, request, search, out_path, meta)
        if request.extractive:
            notes: tuple[str, ...] = (EXTRACTIVE_NOTE,)
        else:
            notes = (PROMPT_NOTE.format(topic="title" if topic == TITLE else "title and abstract"),
                     *({"outline": (OUTLINE_NOTE,), "agent": (AGENT_NOTE,)}.get(name, ())))
        yield GenerationJob(records_for(name), method, out_path, meta, card={**meta, "dataset": f"surge-{split}"},
                            notes=notes, retrieved_field="candidate_docs" if name in TOPK_METHODS else None)


__all__ = ["GENERATE_OPTIONS", "METHODS", "load_corpus", "load_surveys", "make_method", "method_names",
           "output_path", "plan_generation", "run_meta"]
