"""The judge check's pairs: for each paper of the offline sample, its reference section (the good side) against a
copy damaged in one known way (the damaged side), so that a judge that can be trusted scores the good side higher.
The set is documented in ``sciwrite/resources/judge_check/README.md``.

A benchmark declares its part as a `JudgeCheck` (`Benchmark.studies.judge_check`): how one of its texts is judged
(a `JudgedText`: the text and the prediction fields scored with it), how its citations are removed and swapped, and
its own judge, scoring sides through the benchmark's judge code. `build_pairs` is the same for every benchmark.
Nothing is drawn at random: the same papers give the same pairs (`pairs_digest`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sciwrite.meta_eval.damage import (
    contradict,
    dissimilar_order,
    replace_sentence,
    reverse_sentences,
    same_length,
    sentence_shapes,
    truncate_half,
)

#: The pair set's card: how it is built, its kinds, its counts and digests on the offline samples.
CARD = Path(__file__).resolve().parents[1] / "resources" / "judge_check" / "README.md"

#: The kinds of damage, in report order, each with what it does to the reference section.
KINDS: dict[str, str] = {
    "citations_swapped": "the reference's citations replaced by those of the next paper of the sample that has any",
    "claim_contradicted": "one claim negated by the first contradiction rule that applies (papers with none: no pair)",
    "truncated_half": "the first half of its words",
    "abstract": "replaced by its paper's abstract",
    "citations_removed": "every citation removed",
    "off_topic": "the reference section of the sample's paper least similar to it by word overlap (Jaccard)",
    "sentences_reversed": "every paragraph's sentences in reverse order (same characters and words)",
    "sentence_off_topic": "its first sentence that can be replaced by one of exactly as many characters and words "
                          "from the less similar half of the sample's papers (least similar first), replaced so",
}
#: The kinds whose damaged side keeps the good side's length exactly: as many characters and as many words
#: (`sciwrite.meta_eval.damage.same_length`), so a judge that reads only length ties on every such pair.
LENGTH_MATCHED = ("sentences_reversed", "sentence_off_topic")


@dataclass(frozen=True)
class JudgedText:
    """One side of a pair: the text the judge reads and the prediction fields scored with it (RWGBench's
    ``candidates``: the cited documents its markers resolve to)."""

    text: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def key(self) -> str:
        """The side as canonical JSON: equal keys are the same side, judged once per paper."""
        return json.dumps({"text": self.text, "fields": dict(self.fields)}, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class JudgePair:
    """One constructed pair: the paper, the kind of damage, the good and the damaged side, and what was done
    (the rule applied, the paper whose section or citations were taken)."""

    paper_id: str
    kind: str
    good: JudgedText
    damaged: JudgedText
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "good": {"text": self.good.text, "fields": dict(self.good.fields)},
                "damaged": {"text": self.damaged.text, "fields": dict(self.damaged.fields)}}


@dataclass(frozen=True)
class Judgement:
    """What a benchmark's judge gave one side: each of its criteria's scores (None where none could be read) and
    why not, when a request failed."""

    scores: Mapping[str, float | None]
    error: str | None = None

    @property
    def overall(self) -> float | None:
        """The mean of the criteria's scores; None when any is missing."""
        values = list(self.scores.values())
        numbers = [v for v in values if v is not None]
        return None if not values or len(numbers) < len(values) else sum(numbers) / len(numbers)


@dataclass(frozen=True)
class JudgeCheck:
    """A benchmark's part of the judge check (see the module docstring)."""

    #: side(paper, text) -> a text judged as this paper's (RWGBench: with the paper's gold citations as candidates)
    side: Callable[[Mapping[str, Any], str], JudgedText]
    #: remove_citations(side) -> the side with every citation removed
    remove_citations: Callable[[JudgedText], JudgedText]
    #: swap_citations(side, other paper's side) -> the side citing the other paper's works; None: not possible
    swap_citations: Callable[[JudgedText, JudgedText], JudgedText | None]
    #: score(sides, papers, client, show_progress=...) -> the benchmark's own judge on each side, judged as its
    #: paper's (same order); every request through the client
    score: Callable[..., list[Judgement]]
    criteria: tuple[str, ...]  # the judge's scores, averaged into the one a pair compares
    #: kinds this judge's rubric does not ask it to see -> why (reported, and left out of the verdict)
    outside_rubric: Mapping[str, str] = field(default_factory=dict)
    abstract_field: str = "abstract"


def _partner(i: int, n: int, works: Callable[[int], bool]) -> int | None:
    """The next index after `i` (cyclically) for which `works` holds; None when none does."""
    return next((j % n for j in range(i + 1, i + n) if works(j % n)), None)


def build_pairs(papers: Sequence[Mapping[str, Any]], reference_field: str, check: JudgeCheck,
                kinds: Sequence[str] = tuple(KINDS)) -> list[JudgePair]:
    """Every pair of `kinds` for `papers` (those with an empty reference section are left out), paper by paper in
    order, kinds in `KINDS` order. A pair whose damaged side equals its good side is never made. Partners (the
    off-topic section, the swapped citations) come from all of `papers`, so the pairs of the first N papers do not
    depend on how many follow."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown kind(s) of damage {unknown}; choose from {list(KINDS)}")
    papers = [p for p in papers if (p.get(reference_field) or "").strip()]
    goods = [check.side(p, p[reference_field]) for p in papers]
    orders = dissimilar_order([g.text for g in goods])
    off_topic = [order[0] if order else None for order in orders]  # `least_similar`
    shapes = [sentence_shapes(g.text) for g in goods] if "sentence_off_topic" in kinds else []
    pairs: list[JudgePair] = []
    for i, (paper, good) in enumerate(zip(papers, goods)):
        damaged: dict[str, tuple[JudgedText | None, str]] = {}
        if "citations_swapped" in kinds:
            j = _partner(i, len(papers), lambda j: check.swap_citations(good, goods[j]) not in (None, good))
            damaged["citations_swapped"] = ((check.swap_citations(good, goods[j]), f"citations of {papers[j]['paper_id']}")
                                            if j is not None else (None, ""))
        if "claim_contradicted" in kinds:
            found = contradict(good.text)
            damaged["claim_contradicted"] = ((check.side(paper, found[0]), f"rule {found[1]}") if found
                                             else (None, ""))
        if "truncated_half" in kinds:
            half = truncate_half(good.text)
            damaged["truncated_half"] = (check.side(paper, half) if half else None, "")
        if "abstract" in kinds:
            abstract = (paper.get(check.abstract_field) or "").strip()
            damaged["abstract"] = (check.side(paper, abstract) if abstract else None, "")
        if "citations_removed" in kinds:
            damaged["citations_removed"] = (check.remove_citations(good), "")
        if "off_topic" in kinds and off_topic[i] is not None:
            other = papers[off_topic[i]]  # type: ignore[index]
            damaged["off_topic"] = (goods[off_topic[i]], f"section of {other['paper_id']}")  # type: ignore[index]
        if "sentences_reversed" in kinds:
            reversed_ = reverse_sentences(good.text)
            damaged["sentences_reversed"] = (check.side(paper, reversed_) if reversed_ else None, "")
        if "sentence_off_topic" in kinds:
            partners = orders[i][:max(1, len(orders[i]) // 2)]  # the less similar half, least similar first
            replaced = replace_sentence(good.text, [shapes[j] for j in partners])
            damaged["sentence_off_topic"] = ((check.side(paper, replaced[0]),
                                              f"sentence of {papers[partners[replaced[1]]]['paper_id']}")
                                             if replaced else (None, ""))
        for kind in KINDS:
            side, note = damaged.get(kind, (None, ""))
            if side is not None and side.key() != good.key():
                pair = JudgePair(str(paper["paper_id"]), kind, good, side, note)
                check_length(pair)
                pairs.append(pair)
    return pairs


def check_length(pair: JudgePair) -> None:
    """Raise when a pair of a `LENGTH_MATCHED` kind does not keep the good side's characters and words exactly."""
    good, damaged = pair.good.text, pair.damaged.text
    if pair.kind in LENGTH_MATCHED and not same_length(good, damaged):
        raise ValueError(f"judge check: paper {pair.paper_id}, kind {pair.kind}: the damaged side has {len(damaged)} "
                         f"characters and {len(damaged.split())} words, the reference {len(good)} and "
                         f"{len(good.split())}; a length-matched kind must keep both exactly")


def pairs_digest(pairs: Sequence[JudgePair]) -> str:
    """SHA-256 of the pairs as canonical JSON lines: the same papers and kinds always give the same digest."""
    digest = hashlib.sha256()
    for pair in pairs:
        digest.update((json.dumps(pair.as_dict(), sort_keys=True, ensure_ascii=False) + "\n").encode())
    return digest.hexdigest()


__all__ = ["CARD", "KINDS", "LENGTH_MATCHED", "JudgeCheck", "JudgePair", "JudgedText", "Judgement", "build_pairs",
           "check_length", "pairs_digest"]
