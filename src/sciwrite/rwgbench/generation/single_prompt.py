"""The one-request RWGBench methods (§5.2): Direct, RAG, ALCE and TAG, each with the Oracle list too.

Each sends one user message, its template (``templates/<name>.txt``) filled with the target paper and its
numbered candidates, and reads the reply back (`parse`):

- ``direct`` — no candidate list: the model cites from its own knowledge, numbering the works it cites and
  listing their titles after a ``References`` line. Its candidate list is empty (no marker resolves to the
  corpus); the titles it gave are kept in ``extra["references"]``.
- ``rag`` — the top-k retrieved papers (default k = 50), numbered ``[1]`` … ``[k]``, each with title and abstract.
- ``alce`` — ALCE's prompt-based VANILLA setting (Gao et al., 2023): the candidates' full abstracts as numbered
  passages (``Document [i] (Title: …): abstract``) and explicit grounding rules (use only the documents, some of
  which may be irrelevant; every statement about prior work cites at least one and at most three supporting
  documents; cite a minimal sufficient subset).
- ``tag`` — target-aware (after TAG, Chen et al., 2022, as a prompt): the model first names the target's
  keyphrases, organises the section around them, and states for every cited paper how the target relates to it
  (builds on, extends, differs from, addresses a limitation of, compares against); ``extra["keyphrases"]``
  keeps the keyphrases it named.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from sciwrite.generation.runner import Generated, PaperLLM, prompt_text
from sciwrite.rwgbench.generation.prompts import (
    ALCE_MARKER_INSTRUCTION,
    MARKER_INSTRUCTION,
    OUTPUT_INSTRUCTION,
    alce_documents_block,
    clean_section,
    fill,
    rag_candidates_block,
    target_block,
    user,
)
from sciwrite.rwgbench.generation.records import CandidatesMethod, require_candidates


class SinglePrompt(CandidatesMethod, ABC):
    """A method that is one request over the record's candidates."""

    needs_candidates = True

    @abstractmethod
    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """The one request's messages for `record`."""

    def parse(self, reply: str) -> tuple[str, dict[str, Any]]:
        return clean_section(reply), {}

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        docs = require_candidates(record, self.name) if self.needs_candidates else []
        messages = self.prompt(record)
        pred, more = self.parse(await llm(messages))
        return Generated(pred, prompt_text(messages), self._extra(docs, **more))


_REFERENCES = re.compile(r"^\s*(?:#+\s*|\*\*)?\s*(?:references|bibliography|reference list)\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$",
                         re.IGNORECASE | re.MULTILINE)
_REFERENCE_LINE = re.compile(r"^\s*[-*]?\s*\[(\d+)\]\s*[:.-]?\s*(.+?)\s*$")


class Direct(SinglePrompt):
    """No candidates: the model cites from memory and lists the titles it cites after a 'References' line."""

    name = "direct"
    needs_candidates = False

    def __init__(self, retriever: str | None = None, k: int | None = None) -> None:
        super().__init__(None, None)

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        return user(fill("direct", target=target_block(record)))

    def parse(self, reply: str) -> tuple[str, dict[str, Any]]:
        matches = list(_REFERENCES.finditer(reply or ""))
        if not matches:
            return clean_section(reply), {"references": []}
        cut = matches[-1]
        references = []
        for line in reply[cut.end():].splitlines():
            m = _REFERENCE_LINE.match(line)
            if m:
                references.append({"n": int(m.group(1)), "title": m.group(2).strip().strip('"*')})
        return clean_section(reply[: cut.start()]), {"references": references}


class RAG(SinglePrompt):
    """The top-k retrieved papers, title and abstract, numbered [1] … [k]."""

    name = "rag"

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        docs = list(record.get("candidate_docs") or [])
        return user(fill("rag", target=target_block(record), n_candidates=len(docs),
                         candidates=rag_candidates_block(docs), marker_instruction=MARKER_INSTRUCTION,
                         output_instruction=OUTPUT_INSTRUCTION))


class ALCE(SinglePrompt):
    """ALCE VANILLA: full abstracts as numbered documents and explicit grounding instructions."""

    name = "alce"

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        docs = list(record.get("candidate_docs") or [])
        return user(fill("alce", target=target_block(record), n_candidates=len(docs),
                         documents=alce_documents_block(docs), marker_instruction=ALCE_MARKER_INSTRUCTION,
                         output_instruction=OUTPUT_INSTRUCTION))


_MARKUP = r"\s*(?:#+\s*)?[*_]*\s*"
_KEYPHRASES_LINE = re.compile(rf"^{_MARKUP}key\s*-?\s*phrases{_MARKUP}(?::[*_]*\s*(?P<rest>.*))?$", re.IGNORECASE)
_RELATED_LINE = re.compile(rf"^{_MARKUP}related\s+work(?:\s+section)?[*_]*\s*(?::[*_]*\s*(?P<rest>.*)|[*_]*\s*)$",
                           re.IGNORECASE)


class TAG(SinglePrompt):
    """Target-aware: keyphrase-guided organisation and how the target relates to each cited paper."""

    name = "tag"

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        docs = list(record.get("candidate_docs") or [])
        return user(fill("tag", target=target_block(record), n_candidates=len(docs),
                         candidates=rag_candidates_block(docs), marker_instruction=MARKER_INSTRUCTION))

    def parse(self, reply: str) -> tuple[str, dict[str, Any]]:
        """'KEYPHRASES:' lines, then 'RELATED WORK:' and the section; a reply without the second header is
        taken whole as the section."""
        lines = (reply or "").splitlines()
        at = next((i for i, line in enumerate(lines) if _RELATED_LINE.match(line)), None)
        if at is None:
            return clean_section(reply), {"keyphrases": []}
        rest = _RELATED_LINE.match(lines[at]).group("rest") or ""  # type: ignore[union-attr]
        body = "\n".join([rest, *lines[at + 1:]])
        keyphrases: list[str] = []
        start = next((i for i, line in enumerate(lines[:at]) if _KEYPHRASES_LINE.match(line)), None)
        if start is not None:
            first = _KEYPHRASES_LINE.match(lines[start]).group("rest") or ""  # type: ignore[union-attr]
            for line in [first, *lines[start + 1: at]]:
                line = re.sub(r"^\s*(?:[-*\u2022]|\d+[.)])\s*", "", line).strip().strip("*_").strip()
                parts = line.split(",") if "," in line and not line.endswith(".") else [line]
                keyphrases.extend(p.strip() for p in parts if p.strip())
        return clean_section(body), {"keyphrases": keyphrases}


__all__ = ["ALCE", "RAG", "TAG", "Direct", "SinglePrompt"]
