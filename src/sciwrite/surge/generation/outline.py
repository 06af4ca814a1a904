"""The outline method (``--method outline``): an AutoSurvey-style pipeline (Wang et al. 2024, arXiv 2406.10252), SurGE's
strongest baseline family (SurGE, Su et al. 2025, arXiv 2508.15658; its outputs: oneal2000/SurGE
baselines/Autosurvey/output).

On one survey:

1. the top-k papers retrieved for the topic (the plan's one batched search, ``candidate_docs``) go into one request
   for the outline: at most ``--sections`` sections, each a heading and a one-sentence description (JSON; a reply
   without usable JSON is read line by line, `parse_outline`);
2. per section, one search with the section's heading and description as the query (``--section-k`` papers, never
   the survey itself) and one request that writes the section citing its own papers ``[1]``...``[m]`` (at most
   ``--section-max-tokens`` tokens), the sections one after another;
3. the sections merged under ``# <title>``, their citations renumbered over the whole survey (a paper two sections
   cite gets one number) and the reference list written from the cited papers' corpus titles
   (`sciwrite.surge.generation.survey_text.assemble`).

Resumable by section: the outline and each finished section are kept beside the output
(`sciwrite.surge.generation.section_cache`), so a rerun after a failure re-sends only the sections not yet written.
Each survey's trace (the outline, each section's query and retrieved doc_ids, whether it came from the cache) goes to
``<output stem>.traces.jsonl`` (`sciwrite.generation.runner.TRACE`); a survey that fails has its steps so far there.

The writer is a language model (`ModelWriter`) or, with ``--model extractive``, the extractive floor
(`sciwrite.surge.generation.extractive.ExtractiveWriter`), which runs the same pipeline offline.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from sciwrite.generation.json_reply import parse_json_reply
from sciwrite.generation.runner import TRACE, Generated, prompt_text, traced
from sciwrite.llm.types import GenerationError
from sciwrite.surge.generation.prompts import TITLE, fill, one_line, papers_block, topic_block, user
from sciwrite.surge.generation.records import SurveySearch, require_docs
from sciwrite.surge.generation.section_cache import SectionCache
from sciwrite.surge.generation.survey_text import (
    WrittenSection,
    assemble,
    demote_headings,
    strip_reference_list,
    unwrap_fences,
)
from sciwrite.surge.survey_markdown import HEADER

#: Sections of the outline at most (AutoSurvey's README example: ``--section_num 7``).
SECTIONS = 7
#: Papers retrieved per section (AutoSurvey's README example: ``--rag_num 60``).
SECTION_K = 60
#: The completion limit of one section's request (``--section-max-tokens``).
SECTION_MAX_TOKENS = 2048
#: The length a section is asked for, in words (AutoSurvey's README example: ``--subsection_len 700``).
SECTION_WORDS = 700

_NUMBERING = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?\s*(?:section\s+\d+\s*[:.-]\s*|\d+(?:\.\d+)*[.)]?\s+)?", re.IGNORECASE)
#: Headings an outline may list that the survey writes itself (its reference list) or has none of.
_NOT_A_SECTION = re.compile(r"^(?:references|bibliography|reference list)\W*$", re.IGNORECASE)
_DESCRIPTION = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*)?description(?:\s+\d+)?\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*)$",
                          re.IGNORECASE)


@dataclass(frozen=True)
class SectionPlan:
    """One section of an outline: its heading and a one-sentence description (the section's search query)."""

    heading: str
    description: str = ""

    @property
    def query(self) -> str:
        """What the section's papers are searched with: its heading and description."""
        return "\n".join(part for part in (self.heading, self.description) if part)


def _numbered(line: str) -> bool:
    match = _NUMBERING.match(line)
    return bool(match and match.group(0).strip())


def _heading(text: str) -> str:
    return one_line(_NUMBERING.sub("", one_line(text), count=1)).strip("*_# ").strip()


def parse_outline(reply: str, max_sections: int = SECTIONS) -> list[SectionPlan]:
    """The sections of an outline reply: ``{"sections": [{"heading", "description"}]}`` (or a bare list), else one
    section per heading-like line (``## X``, ``Section 1: X``, ``1. X``) with the ``Description: ...`` line after
    it; numbering removed, repeated headings and a 'References' section (the survey writes its own) dropped, at most
    `max_sections`."""
    value = parse_json_reply(reply)
    items = value.get("sections") if isinstance(value, dict) else value
    plans: list[SectionPlan] = []
    if isinstance(items, list):
        for item in items:
            if isinstance(item, str):
                plans.append(SectionPlan(_heading(item)))
            elif isinstance(item, Mapping):
                name = item.get("heading") or item.get("title") or item.get("name") or ""
                about = item.get("description") or item.get("summary") or ""
                plans.append(SectionPlan(_heading(str(name)), one_line(str(about))))
    else:
        for line in (reply or "").splitlines():
            described = _DESCRIPTION.match(line)
            if described and plans:
                plans[-1] = SectionPlan(plans[-1].heading, one_line(described.group(1)))
            elif line.strip() and not described and (HEADER.match(line) or _numbered(line)):
                plans.append(SectionPlan(_heading(line)))
    kept: dict[str, SectionPlan] = {}
    for plan in plans:
        if plan.heading and plan.heading.lower() not in kept and not _NOT_A_SECTION.match(plan.heading):
            kept[plan.heading.lower()] = plan
    return list(kept.values())[:max_sections]


def clean_section_reply(reply: str) -> str:
    """A section's reply as its body: no code fence, no reference list, no leading heading (the section's own, which
    the survey writes), and its subsection headings at level 3 or below."""
    lines = strip_reference_list(unwrap_fences(reply)).strip().splitlines()
    while lines and (not lines[0].strip() or HEADER.match(lines[0].rstrip())):
        lines.pop(0)
    return demote_headings("\n".join(lines).strip())


class SectionWriter(Protocol):
    """What writes the outline and the sections: a language model (`ModelWriter`) or the extractive floor."""

    name: str

    def outline_messages(self, record: Mapping[str, Any], docs: Sequence[Mapping[str, Any]],
                         n_sections: int) -> list[dict[str, str]]: ...

    async def outline(self, record: Mapping[str, Any], docs: Sequence[Mapping[str, Any]], n_sections: int,
                      llm: Any) -> tuple[list[SectionPlan], str | None]: ...

    async def section(self, record: Mapping[str, Any], plans: Sequence[SectionPlan], index: int,
                      docs: Sequence[Mapping[str, Any]], llm: Any, max_tokens: int) -> str: ...


class ModelWriter:
    """The outline and the sections written by the run's language model (``templates/outline.txt``, ``section.txt``)."""

    name = "model"

    def __init__(self, topic: str = TITLE, section_words: int = SECTION_WORDS) -> None:
        self.topic, self.section_words = topic, section_words

    def outline_messages(self, record: Mapping[str, Any], docs: Sequence[Mapping[str, Any]],
                         n_sections: int) -> list[dict[str, str]]:
        return user(fill("outline", topic=topic_block(record, self.topic), n_papers=len(docs), papers=papers_block(docs),
                         n_sections=n_sections))

    def section_messages(self, record: Mapping[str, Any], plans: Sequence[SectionPlan], index: int,
                         docs: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
        outline = "\n".join(f"{i}. {p.heading}" + (f": {p.description}" if p.description else "")
                            for i, p in enumerate(plans, 1))
        plan = plans[index]
        return user(fill("section", topic=topic_block(record, self.topic), outline=outline, heading=plan.heading,
                         description=plan.description or "(none)", n_papers=len(docs), papers=papers_block(docs),
                         section_words=self.section_words))

    async def outline(self, record: Mapping[str, Any], docs: Sequence[Mapping[str, Any]], n_sections: int,
                      llm: Any) -> tuple[list[SectionPlan], str | None]:
        reply = await llm(self.outline_messages(record, docs, n_sections))
        plans = parse_outline(reply, n_sections)
        if not plans:
            raise GenerationError(f"the outline reply held no section (reply: {(reply or '')[:200]!r})")
        return plans, reply

    async def section(self, record: Mapping[str, Any], plans: Sequence[SectionPlan], index: int,
                      docs: Sequence[Mapping[str, Any]], llm: Any, max_tokens: int) -> str:
        reply = await llm(self.section_messages(record, plans, index, docs), max_tokens=max_tokens)
        body = clean_section_reply(reply)
        if not body:
            raise GenerationError(f"section {index + 1} ({plans[index].heading!r}): the model answered with nothing")
        return body


def _ids(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(d["doc_id"]) for d in docs]


class OutlineSurvey:
    """Outline, then one search and one request per section, merged and renumbered (see the module docstring).

    `search` serves the section searches (None only for a dry run, which searches nothing); `cache` keeps finished
    steps beside the output (None: nothing is kept, a failed survey starts afresh)."""

    name = "outline"

    def __init__(self, search: SurveySearch | None, writer: SectionWriter, *, cache: SectionCache | None = None,
                 retriever_name: str | None = None, k: int | None = None, sections: int = SECTIONS,
                 section_k: int = SECTION_K, section_max_tokens: int = SECTION_MAX_TOKENS) -> None:
        for flag, value in (("--sections", sections), ("--section-k", section_k),
                            ("--section-max-tokens", section_max_tokens)):
            if value < 1:
                raise ValueError(f"{flag} must be >= 1, got {value}")
        self.search, self.writer, self.cache = search, writer, cache
        self.retriever_name, self.k = retriever_name, k
        self.sections, self.section_k, self.section_max_tokens = sections, section_k, section_max_tokens

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """The outline request (the first one)."""
        return self.writer.outline_messages(record, list(record.get("candidate_docs") or []), self.sections)

    async def run(self, record: Mapping[str, Any], llm: Any) -> Generated:
        if self.search is None:
            raise ValueError("the outline method searches the corpus for each section: it needs the run's retriever")
        with traced([]) as trace:  # a survey that fails keeps its steps so far (the runner writes them)
            return await self.write(record, llm, trace)

    async def _plans(self, record: Mapping[str, Any], docs: list[dict[str, Any]], llm: Any,
                     trace: list[dict[str, Any]]) -> list[SectionPlan]:
        paper_id = record["paper_id"]
        cached = self.cache.outline(paper_id) if self.cache is not None else None
        if cached is not None:
            plans = [SectionPlan(**s) for s in cached["sections"]]
            trace.append({"step": "outline", "cached": True, "retrieved": _ids(docs),
                          "sections": [asdict(p) for p in plans]})
            return plans
        plans, reply = await self.writer.outline(record, docs, self.sections, llm)
        step = {"step": "outline", "sections": [asdict(p) for p in plans]}
        trace.append({**step, "cached": False, "retrieved": _ids(docs), "reply": reply})
        if self.cache is not None:
            self.cache.add(paper_id, step)
        return plans

    async def write(self, record: Mapping[str, Any], llm: Any, trace: list[dict[str, Any]]) -> Generated:
        """The whole survey for `record`, each step appended to `trace` as it happens."""
        assert self.search is not None
        paper_id = record["paper_id"]
        docs = require_docs(record, self.name)
        plans = await self._plans(record, docs, llm, trace)
        done = self.cache.sections(paper_id) if self.cache is not None else {}
        written: list[WrittenSection] = []
        reused = 0
        for index, plan in enumerate(plans):
            entry = done.get(index)
            cached = entry is not None and entry.get("heading") == plan.heading
            if entry is not None and cached:
                reused += 1
                found = [dict(d) for d in entry["docs"]]
                text = entry["text"]
            else:
                found = await asyncio.to_thread(self.search.hits, record, plan.query, self.section_k)
                text = await self.writer.section(record, plans, index, found, llm, self.section_max_tokens)
                found = [{"doc_id": d["doc_id"], "title": d.get("title") or ""} for d in found]
                if self.cache is not None:
                    self.cache.add(paper_id, {"step": "section", "index": index, "heading": plan.heading,
                                              "query": plan.query, "docs": found, "text": text})
            trace.append({"step": "section", "index": index, "heading": plan.heading, "query": plan.query,
                          "retrieved": _ids(found), "cached": cached})
            written.append(WrittenSection(plan.heading, text, tuple(found)))
        survey = assemble(record.get("title") or "", written)
        if self.cache is not None:
            self.cache.drop(paper_id)
        extra = {"candidates": list(survey.cited), "retriever": self.retriever_name, "k": self.k,
                 "outline": [p.heading for p in plans], "section_k": self.section_k, "cached_sections": reused,
                 "unresolved_markers": survey.unresolved, "writer": self.writer.name, TRACE: trace}
        return Generated(survey.text, prompt_text(self.prompt(record)), extra)


__all__ = ["SECTIONS", "SECTION_K", "SECTION_MAX_TOKENS", "SECTION_WORDS", "ModelWriter", "OutlineSurvey",
           "SectionPlan", "SectionWriter", "clean_section_reply", "parse_outline"]
