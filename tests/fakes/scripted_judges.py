"""Two scripted judges for the fake OpenAI server (`fakes.openai_server.ChatServer`), for the judge check's tests and
its benchmark (``scripts/bench/judge_check.py``). Each reads a request as the benchmarks' judges build it
(RWGBench: the title and the section between tagged data blocks; SciIG: Table 6's prompts) and answers every score
either judge asks for (``score`` 1-5, and SciIG's named 0-1 scores):

- `FollowingJudge` knows each paper's reference section, and scores high exactly when the judged text is the
  reference of the paper the request is about (SciIG's narrative prompt names no paper: any reference scores high);
- `RandomJudge` answers at random, seeded by the request's content, so the same request gets the same answer.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping
from typing import Any

from sciwrite.sciig.metrics.judge import PROMPTS

_SECTION = re.compile(r"<section-(\w+)>\n(.*)\n</section-\1>", re.S)
_TITLE = re.compile(r"<title-(\w+)>\n(.*)\n</title-\1>", re.S)
_GENERATED = re.compile(r'Generated Introduction:\n"""\n(.*?)\n"""', re.S)
_ACTUAL = re.compile(r'Actual Introduction:\n"""\n(.*?)\n"""', re.S)
_METADATA_TITLE = re.compile(r'Metadata: \{\n "Title": ("(?:[^"\\]|\\.)*")')
SCIIG_KEYS = tuple(key for prompt in PROMPTS for key in prompt.keys)


def reply(score: int, unit: float | None = None) -> str:
    """A reply both benchmarks' judges read: RWGBench's 1-5 ``score`` and every SciIG score (`unit`, or the score
    mapped onto 0-1)."""
    unit = (score - 1) / 4 if unit is None else unit
    return json.dumps({"score": score, "rationale": "scripted", **{key: unit for key in SCIIG_KEYS}})


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
    (two decimals) for each SciIG score."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def __call__(self, body: dict[str, Any]) -> str:
        content = json.dumps(body["messages"], sort_keys=True)
        rng = random.Random(int(hashlib.sha256(f"{self.seed}\x00{content}".encode()).hexdigest()[:16], 16))
        score = rng.randint(1, 5)
        return json.dumps({"score": score, "rationale": "random",
                           **{key: round(rng.random(), 2) for key in SCIIG_KEYS}})


__all__ = ["FollowingJudge", "RandomJudge", "reply"]
