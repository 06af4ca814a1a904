"""SurGE's survey-generation methods by name.

SurGE (Su et al. 2025, arXiv 2508.15658) names its baselines; sciwrite runs them with prompts of its own (SurGE
publishes none, `sciwrite.surge.generation.prompts`):

- ``naive`` — one request: the model writes the whole survey from its topic alone and lists its references by title
  from memory (SurGE's Naive baseline). Its reference list is the model's, each line normalised to ``[n] Title``;
  ``references`` keeps what it listed;
- ``rag`` — the top-k corpus papers retrieved for the topic (the plan's one batched search), then one request
  writes the survey citing them by number; the method, not the model, writes the reference list from the cited
  papers' corpus titles;
- ``outline`` — the AutoSurvey-style pipeline (SurGE's AutoSurvey baseline): outline, per-section retrieval and
  writing, merged and renumbered, resumable by section (`sciwrite.surge.generation.outline`);
- ``agent`` — sciwrite's own baseline: the shared tool agent (`sciwrite.generation.agent`, RWGBench's too)
  searching and reading the corpus, never past the survey's date (`sciwrite.surge.generation.agent`).

With ``--model extractive`` no model is called: ``rag`` and ``outline`` run as the extractive floor
(`sciwrite.surge.generation.extractive`); ``naive`` and ``agent`` need a model. Every line's ``candidates`` are the
cited corpus doc_ids in marker order (``[n]`` -> ``candidates[n-1]``; none for ``naive``, whose references are titles).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.generation.runner import Generated, PaperLLM, prompt_text
from sciwrite.llm.types import GenerationError
from sciwrite.surge.generation.prompts import TITLE, fill, papers_block, topic_block, user
from sciwrite.surge.generation.records import require_docs
from sciwrite.surge.generation.survey_text import (
    cite,
    normalize_reference_lines,
    strip_reference_list,
    titled,
    unwrap_fences,
)
from sciwrite.surge.survey_markdown import parse_survey

#: The method names, in the order ``all`` runs them (what `sciwrite.benchmark.BenchmarkGeneration.prompts` lists).
METHODS: tuple[str, ...] = ("naive", "rag", "outline", "agent")
#: The methods that run with ``--model extractive`` (as the extractive floor).
OFFLINE_METHODS: tuple[str, ...] = ("rag", "outline")
#: The methods that read the topic's retrieved papers (``candidate_docs``, one batched search before any request).
TOPK_METHODS: tuple[str, ...] = ("rag", "outline")
#: Papers retrieved for the topic (rag's list, the outline request's list).
DEFAULT_K = 50


def resolve_methods(names: Sequence[str] | str | None) -> list[str]:
    """Method names from the command line ('all' = every method; commas split), in `METHODS` order, each once."""
    names = [names] if isinstance(names, str) else list(names or [])
    if not names:
        raise ValueError(f"choose a method: {', '.join(METHODS)}, several of them, or 'all'")
    wanted: set[str] = set()
    for name in names:
        for part in str(name).split(","):
            part = part.strip().lower()
            if part == "all":
                wanted.update(METHODS)
            elif part in METHODS:
                wanted.add(part)
            elif part:
                raise ValueError(f"unknown SurGE method {part!r}; choose from {', '.join(METHODS)}, or 'all'")
    return [m for m in METHODS if m in wanted]


def _reply(reply: Any, method: str) -> str:
    if not isinstance(reply, str) or not reply.strip():
        raise GenerationError(f"{method}: the model answered with nothing")
    return unwrap_fences(reply)


class Naive:
    """The whole survey from the topic alone, references by title from memory (``templates/naive.txt``)."""

    name = "naive"

    def __init__(self, topic: str = TITLE) -> None:
        self.topic = topic

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        return user(fill("naive", topic=topic_block(record, self.topic)))

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        messages = self.prompt(record)
        text = normalize_reference_lines(titled(_reply(await llm(messages), self.name), record.get("title") or ""))
        references = [{"n": ref.number, "title": ref.title} for ref in parse_survey(text).reference_entries]
        return Generated(text, prompt_text(messages), {"candidates": [], "retriever": None, "k": None,
                                                       "references": references})


class RAG:
    """The top-k retrieved papers, numbered, in one request; the reference list written from their corpus titles
    (``templates/rag.txt``)."""

    name = "rag"

    def __init__(self, retriever_name: str | None = None, k: int | None = DEFAULT_K, topic: str = TITLE) -> None:
        self.retriever_name, self.k, self.topic = retriever_name, k, topic

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        docs = list(record.get("candidate_docs") or [])
        return user(fill("rag", topic=topic_block(record, self.topic), n_papers=len(docs), papers=papers_block(docs)))

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        docs = require_docs(record, self.name)
        messages = self.prompt(record)
        body = titled(strip_reference_list(_reply(await llm(messages), self.name)), record.get("title") or "")
        survey = cite(body, docs)
        return Generated(survey.text, prompt_text(messages),
                         {"candidates": list(survey.cited), "retriever": self.retriever_name, "k": self.k,
                          "retrieved": [d["doc_id"] for d in docs], "unresolved_markers": survey.unresolved})


__all__ = ["DEFAULT_K", "METHODS", "OFFLINE_METHODS", "RAG", "TOPK_METHODS", "Naive", "resolve_methods"]
