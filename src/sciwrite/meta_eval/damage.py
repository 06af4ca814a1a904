"""Deterministic damage to a reference section, for the judge check (`sciwrite.meta_eval.judge_pairs`): each function
takes a text and gives its damaged copy, or None when the damage does not apply to it. Nothing here is random, so
the same text always gives the same copy.

- `contradict`: one claim negated by the first rule of `CONTRADICTION_RULES` that matches anywhere in the text,
  applied once, at its first match (see the rules for what each changes);
- `truncate_half`: the first half of the words, cut before word ``n // 2``;
- `remove_markers` / `remove_author_year`: every numeric marker ``[1, 2]`` / every author-year citation removed;
- `swap_author_year`: every author-year citation replaced by one of another text's;
- `word_overlap` / `least_similar`: the Jaccard overlap of two texts' word sets, and for each text the least
  similar other one (the off-topic section).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sciwrite.metrics.text import strip_markers
from sciwrite.sources.apa import find_citations


@dataclass(frozen=True)
class Rule:
    """One way of contradicting a claim: the words it looks for and what it writes instead."""

    name: str
    pattern: re.Pattern[str]
    rewrite: Callable[[re.Match[str]], str]
    example: str  # before -> after, for the card


def _swap(pairs: dict[str, str]) -> Callable[[re.Match[str]], str]:
    both = {**pairs, **{after: before for before, after in pairs.items()}}
    return lambda m: both[m.group(1)] + m.group(0)[len(m.group(1)):]


def _words(names: Sequence[str]) -> str:
    return "|".join(sorted(names, key=len, reverse=True))


_COMPARATIVES = {"better": "worse", "higher": "lower", "faster": "slower", "stronger": "weaker",
                 "larger": "smaller", "more": "less"}
_DIRECTIONS = {"increases": "decreases", "increased": "decreased"}
_QUALITIES = {"effective": "ineffective", "successful": "unsuccessful", "efficient": "inefficient",
              "useful": "useless", "accurate": "inaccurate"}

#: The contradiction rules, in the order they are tried; matches are case-sensitive (lower-case words), on word
#: boundaries. The first rule that matches anywhere in the text is applied once, at its first match.
CONTRADICTION_RULES: tuple[Rule, ...] = (
    Rule("outperform", re.compile(r"\bout(perform(?:s|ed|ing)?)\b"), lambda m: "under" + m.group(1),
         "outperforms -> underperforms"),
    Rule("improves", re.compile(r"\bimproves\b"), lambda m: "does not improve", "improves -> does not improve"),
    Rule("comparison", re.compile(rf"\b({_words([*_COMPARATIVES, *_COMPARATIVES.values()])}) than\b"),
         _swap(_COMPARATIVES), "better than -> worse than, higher than -> lower than, more than -> less than"),
    Rule("direction", re.compile(rf"\b({_words([*_DIRECTIONS, *_DIRECTIONS.values()])})\b"), _swap(_DIRECTIONS),
         "increases -> decreases"),
    Rule("quality", re.compile(rf"\b({_words(list(_QUALITIES))})\b"), lambda m: _QUALITIES[m.group(1)],
         "effective -> ineffective, useful -> useless"),
    Rule("can", re.compile(r"\b(can(?:not)?)\b(?! not\b)"), lambda m: "can" if m.group(1) == "cannot" else "cannot",
         "can -> cannot, cannot -> can"),
    Rule("copula", re.compile(r"\b(is|are|was|were)\b(?! not\b)"), lambda m: f"{m.group(1)} not",
         "is -> is not, were -> were not"),
)


def contradict(text: str) -> tuple[str, str] | None:
    """(the text with one claim negated, the rule's name), or None when no rule matches."""
    for rule in CONTRADICTION_RULES:
        match = rule.pattern.search(text)
        if match:
            return text[:match.start()] + rule.rewrite(match) + text[match.end():], rule.name
    return None


def truncate_half(text: str) -> str | None:
    """The text up to its middle word (the first ``n // 2`` of its ``n`` words, layout kept); None under 2 words."""
    words = [m.start() for m in re.finditer(r"\S+", text)]
    if len(words) < 2:
        return None
    return text[:words[len(words) // 2]].rstrip()


def _tidy(text: str) -> str:
    """What removed citations leave: '( ; )' and '()' gone, no space before punctuation, single spaces."""
    text = re.sub(r"\(\s*(?:[;,]\s*)*\)", "", text)
    text = re.sub(r"\(\s*[;,]\s*", "(", text)
    text = re.sub(r"\s*[;,]\s*\)", ")", text)
    text = re.sub(r"[ \t]+([.,;:!?)])", r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def remove_author_year(text: str) -> str:
    """Every author-year citation ('(Li et al., 2020; Wu, 2021)', 'Li (2020)') removed."""
    for c in reversed(find_citations(text)):
        text = text[:c.start] + text[c.end:]
    return _tidy(text)


def remove_markers(text: str) -> str:
    """Every numeric marker removed, and any author-year citation left beside them."""
    return remove_author_year(strip_markers(text))


def _written(key: str, narrative: bool) -> str:
    """A citation key ('Li et al., 2020') as the text writes it: 'Li et al. (2020)' when narrative."""
    authors, _, year = key.rpartition(", ")
    return f"{authors} ({year})" if narrative and authors else key


def swap_author_year(text: str, other: str) -> str | None:
    """Each cited work of `text` (by first appearance) replaced by a work `other` cites and `text` does not, in
    `other`'s order, cycling when `other` has fewer; None when either cites nothing author-year."""
    cites = find_citations(text)
    own = list(dict.fromkeys(c.key for c in cites))
    theirs = [key for key in dict.fromkeys(c.key for c in find_citations(other)) if key not in set(own)]
    if not own or not theirs:
        return None
    new = {key: theirs[i % len(theirs)] for i, key in enumerate(own)}
    for c in reversed(cites):
        text = text[:c.start] + _written(new[c.key], c.text.rstrip().endswith(")")) + text[c.end:]
    return text


def _word_set(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z]{3,}", text.lower()))


def word_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two texts' sets of lower-cased words of three letters or more (0 when both have none)."""
    x, y = _word_set(a), _word_set(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def least_similar(texts: Sequence[str]) -> list[int | None]:
    """For each text, the index of the other text with the lowest `word_overlap` (the first on a tie); None when
    there is no other."""
    sets = [_word_set(t) for t in texts]
    out: list[int | None] = []
    for i, x in enumerate(sets):
        scores = [(len(x & y) / len(x | y) if x | y else 0.0, j) for j, y in enumerate(sets) if j != i]
        out.append(min(scores)[1] if scores else None)
    return out


__all__ = ["CONTRADICTION_RULES", "Rule", "contradict", "least_similar", "remove_author_year", "remove_markers",
           "swap_author_year", "truncate_half", "word_overlap"]
