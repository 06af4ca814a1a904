"""RWGBench generation methods by name: Direct, RAG, ALCE, TAG and Workflow (§5.2), each combinable with the
Oracle list (the gold citations in a seeded order, `records.prepare_records(oracle=True)`), and the agent
(sciwrite's own baseline: the model searches the corpus itself; not with the Oracle list, which would hand it the
answer).

`METHODS` maps a name to its class, `resolve_methods` reads names from the command line and `make_method`
configures one for a run. The parts live in small modules, one job each, and their names are importable from
here too:

- `sciwrite.rwgbench.generation.records` — the records a method reads (`prepare_records`, `oracle_order`): the
  paper without its answer, and its ordered candidates, marker ``[i]`` resolving to ``candidates[i-1]``;
- `sciwrite.rwgbench.generation.prompts` — the prompt templates (package data, ``templates/*.txt``, each with a
  ``#`` note on where its wording comes from: the paper prints none of them) and the blocks that fill them;
- `sciwrite.rwgbench.generation.single_prompt` — Direct, RAG, ALCE, TAG: one request each;
- `sciwrite.rwgbench.generation.workflow` — Workflow: planning, searches, draft, coverage checks, revisions;
- `sciwrite.rwgbench.generation.agent` — the agent: RWGBench's prompts over the shared loop
  (`sciwrite.generation.agent`): tool calls over the corpus (`sciwrite.generation.agent_tools`), never past the
  target's date (`sciwrite.generation.cutoff`), then the section citing the papers it chose.

What every benchmark shares is imported from its own place: the corpus read by doc_id
(`sciwrite.generation.corpus_lookup.CorpusLookup`), a model's JSON reply (`sciwrite.generation.json_reply`), the
agent's budget (`sciwrite.generation.agent.MAX_TOOL_CALLS`).

A paper without candidates (no query text, nothing retrieved, no gold citation in the corpus) fails with a
clear error and lands in the runner's failures file; it is never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sciwrite.generation.agent import MAX_TOOL_CALLS
from sciwrite.rwgbench.generation.agent import Agent
from sciwrite.rwgbench.generation.prompts import (
    MARKER_INSTRUCTION,
    OUTPUT_INSTRUCTION,
    alce_documents_block,
    clean_section,
    rag_candidates_block,
    target_block,
    titles_block,
    user,
)
from sciwrite.rwgbench.generation.records import (
    ANSWER_FIELDS,
    DEFAULT_K,
    oracle_order,
    paper_inputs,
    prepare_records,
)
from sciwrite.rwgbench.generation.single_prompt import ALCE, RAG, TAG, Direct
from sciwrite.rwgbench.generation.workflow import MAX_REFINEMENTS, WORKFLOW_K, Workflow

#: Method name -> class.
METHODS: dict[str, type] = {"direct": Direct, "rag": RAG, "alce": ALCE, "tag": TAG, "workflow": Workflow,
                             "agent": Agent}


def resolve_methods(names: Sequence[str] | str | None) -> list[str]:
    """Method names from the command line ('all' = every method), in `METHODS` order, without repeats."""
    names = [names] if isinstance(names, str) else list(names or [])
    if not names:
        raise ValueError(f"choose a method: {', '.join(METHODS)}, several of them, or 'all'")
    wanted: list[str] = []
    for name in names:
        for part in str(name).split(","):
            part = part.strip().lower()
            if not part:
                continue
            if part == "all":
                wanted.extend(METHODS)
            elif part in METHODS:
                wanted.append(part)
            else:
                raise ValueError(f"unknown RWGBench method {part!r}; choose from {', '.join(METHODS)}, or 'all'")
    return [m for m in METHODS if m in set(wanted)]


def make_method(name: str, *, retriever: Any = None, corpus: Any = None, retriever_name: str | None = None,
                k: int = DEFAULT_K, oracle: bool = False, workflow_k: int = WORKFLOW_K,
                max_refinements: int = MAX_REFINEMENTS, max_tool_calls: int = MAX_TOOL_CALLS) -> Any:
    """The method `name` configured for a run (only Workflow and the agent use `retriever` and `corpus`)."""
    if name not in METHODS:
        raise ValueError(f"unknown RWGBench method {name!r}; choose from {', '.join(METHODS)}, or 'all'")
    if name == "direct":
        return Direct()
    if name == "agent":
        if oracle:
            raise ValueError("the agent method searches the corpus itself; --oracle would hand it the answer: "
                             "choose another method")
        return Agent(retriever, corpus, retriever_name=retriever_name, max_tool_calls=max_tool_calls)
    if name == "workflow":
        return Workflow(retriever, corpus, retriever_name=retriever_name, k=workflow_k,
                        max_refinements=max_refinements, oracle=oracle)
    return METHODS[name]("oracle" if oracle else retriever_name, None if oracle else k)


__all__ = ["ALCE", "ANSWER_FIELDS", "DEFAULT_K", "MARKER_INSTRUCTION", "MAX_REFINEMENTS", "METHODS",
           "OUTPUT_INSTRUCTION", "RAG", "TAG", "WORKFLOW_K", "Agent", "Direct", "Workflow", "alce_documents_block",
           "clean_section", "make_method", "oracle_order", "paper_inputs", "prepare_records", "rag_candidates_block",
           "resolve_methods", "target_block", "titles_block", "user"]
