"""Scripted judges for the fake OpenAI server (`fakes.openai_server.ChatServer`), for the judge check's tests and
its benchmark (``scripts/bench/judge_check.py``). Each reads a request as the benchmarks' judges build it
(RWGBench: the title and the section between tagged data blocks; SciIG: Table 6's prompts; SurGE: its Structure
Quality and Logic prompts) and answers every score the judge asks for (RWGBench's ``score`` 1-5 and SciIG's named
0-1 scores in one JSON object; SurGE's single digit 0-5):

- `FollowingJudge` (RWGBench, SciIG) knows each paper's reference section, and scores high exactly when the judged
  text is the reference of the paper the request is about (SciIG's narrative prompt names no paper: any reference
  scores high);
- `CitationBlindJudge` (SurGE) follows the damage as SurGE's judges can see it: the outline and the passages, not
  the citations;
- `RandomJudge` (all three) answers at random, seeded by the request's content, so the same request gets the
  same answer;
- `LengthJudge` (all three) reads nothing but the judged text's number of words, and scores the longer text higher
  (in steps: RWGBench's and SciIG's one point per 100 words in half points, 1-5, the stand-in of
  docs/guides/judges.md; SurGE's one point per 25 words, 0-5).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping
from typing import Any

from sciwrite.sciig.metrics.judge import PROMPTS
from sciwrite.sources.markers import MARKER_GROUP
from sciwrite.surge.metrics.judge_prompts import target_outline
from sciwrite.surge.survey_markdown import parse_survey

_SECTION = re.compile(r"<section-(\w+)>\n(.*)\n</section-\1>", re.S)
_TITLE = re.compile(r"<title-(\w+)>\n(.*)\n</title-\1>", re.S)
_GENERATED = re.compile(r'Generated Introduction:\n"""\n(.*?)\n"""', re.S)
_ACTUAL = re.compile(r'Actual Introduction:\n"""\n(.*?)\n"""', re.S)
_METADATA_TITLE = re.compile(r'Metadata: \{\n "Title": ("(?:[^"\\]|\\.)*")')
SCIIG_KEYS = tuple(key for prompt in PROMPTS for key in prompt.keys)
_SURGE_TITLES = "### Generated Titles:\n"


def reply(score: int, unit: float | None = None) -> str:
    """A reply both benchmarks' judges read: RWGBench's 1-5 ``score`` and every SciIG score (`unit`, or the score
    mapped onto 0-1)."""
    unit = (score - 1) / 4 if unit is None else unit
    return json.dumps({"score": score, "rationale": "scripted", **{key: unit for key in SCIIG_KEYS}})


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def surge_judged(prompt: str) -> tuple[str, str] | None:
    """("outline", the generated titles) or ("paragraph", the passage) of a SurGE judge prompt; None for another's."""
    if _SURGE_TITLES in prompt:
        return "outline", _between(prompt, _SURGE_TITLES, "\n\n## **Scoring Criteria:**")
    if "### **Paragraph:**  \n" in prompt:
        return "paragraph", _between(prompt, "### **Paragraph:**  \n", "  \n\n### **Output Format:**")
    return None


def judged_text(content: str) -> str:
    """The text a RWGBench or SciIG judge request asks about: the section, or the generated introduction."""
    section = _SECTION.search(content) or _GENERATED.search(content)
    if section is None:
        raise ValueError(f"not a judge request: {content[:200]!r}")
    return section.group(section.lastindex or 0)


def _passage(text: str) -> str:
    """A passage without its markers: what a judge blind to citations compares."""
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", MARKER_GROUP.sub("", text))).strip()


class FollowingJudge:
    """High (5, 1.0) when the judged text is the reference of the request's paper, else low (1, 0.0)."""

    def __init__(self, references: Mapping[str, str]) -> None:
        self.references = {" ".join(title.split()): text for title, text in references.items()}  # title -> reference
        self.texts = set(references.values())

    def is_good(self, content: str) -> bool:
        section = _SECTION.search(content)
        if section:  # RWGBench: the section, with its paper's title
            title = _TITLE.search(content)
            return title is not None and self.references.get(title.group(2)) == section.group(2)
        generated = _GENERATED.search(content)
        if generated is None:
            raise ValueError(f"not a judge request: {content[:200]!r}")
        actual, metadata = _ACTUAL.search(content), _METADATA_TITLE.search(content)
        if actual:  # SciIG's reference prompt: against the actual introduction
            return generated.group(1) == actual.group(1)
        if metadata:  # SciIG's metadata prompt: the paper named by its title
            return self.references.get(json.loads(metadata.group(1))) == generated.group(1)
        return generated.group(1) in self.texts  # the narrative prompt names no paper

    def __call__(self, body: dict[str, Any]) -> str:
        return reply(5) if self.is_good(body["messages"][-1]["content"]) else reply(1)


class RandomJudge:
    """A score drawn from a generator seeded by the request's content (and `seed`): uniform 1-5, and uniform 0-1
    (two decimals) for each SciIG score; SurGE's, uniform 0-5."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def __call__(self, body: dict[str, Any]) -> str:
        content = json.dumps(body["messages"], sort_keys=True)
        rng = random.Random(int(hashlib.sha256(f"{self.seed}\x00{content}".encode()).hexdigest()[:16], 16))
        if surge_judged(body["messages"][-1]["content"]) is not None:
            return str(rng.randint(0, 5))
        score = rng.randint(1, 5)
        return json.dumps({"score": score, "rationale": "random",
                           **{key: round(rng.random(), 2) for key in SCIIG_KEYS}})


class CitationBlindJudge:
    """Answers SurGE's prompts as a judge that follows the damage but not citations: Structure Quality 5 when the
    generated outline, without a "References" heading, is the expert's outline for that target (else 1); Logic 5
    when the paragraph, without markers, is part of an expert survey's passage (else 1)."""

    def __init__(self, surveys: list[dict]) -> None:
        self.outlines = {target_outline(s["structure"]): self._outline(parse_survey(s["text"]).outline())
                         for s in surveys}
        self.passages = [_passage(p) for s in surveys for p in parse_survey(s["text"]).paragraphs()]

    @staticmethod
    def _outline(outline: str) -> str:
        return "".join(line + "\n" for line in outline.splitlines() if line.lstrip("#").strip() != "References")

    def __call__(self, body: dict) -> str:
        prompt = body["messages"][1]["content"]
        found = surge_judged(prompt)
        if found is None:
            raise ValueError(f"not a SurGE judge request: {prompt[:200]!r}")
        if found[0] == "outline":
            target = _between(prompt, "### Target Titles:\n", "\n\n" + _SURGE_TITLES)
            return "5" if self.outlines.get(target) == self._outline(found[1]) else "1"
        paragraph = _passage(found[1])
        return "5" if any(paragraph in passage for passage in self.passages) else "1"


class LengthJudge:
    """Reads only the judged text's number of words: RWGBench and SciIG ``1 + round(words / 50) / 2`` capped at 5
    (every SciIG score that mapped onto 0-1), SurGE ``min(5, words // 25)``. Longer never scores lower."""

    def __call__(self, body: dict[str, Any]) -> str:
        content = body["messages"][-1]["content"]
        surge = surge_judged(content)
        if surge is not None:
            return str(min(5, len(surge[1].split()) // 25))
        score = min(5.0, 1 + round(len(judged_text(content).split()) / 50) / 2)
        return json.dumps({"score": score, "rationale": "length", **{key: (score - 1) / 4 for key in SCIIG_KEYS}})


__all__ = ["CitationBlindJudge", "FollowingJudge", "LengthJudge", "RandomJudge", "judged_text", "reply",
           "surge_judged"]
