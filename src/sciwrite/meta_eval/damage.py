"""Deterministic damage to a reference section, for the judge check (`sciwrite.meta_eval.judge_pairs`): each function
takes a text and gives its damaged copy, or None when the damage does not apply to it. Nothing here is random, so
the same text always gives the same copy.

- `contradict`: one claim negated by the first rule of `CONTRADICTION_RULES` that matches anywhere in the text,
  applied once, at its first match (see the rules for what each changes);
- `truncate_half`: the first half of the words, cut before word ``n // 2``;
- `remove_markers` / `remove_author_year`: every numeric marker ``[1, 2]`` / every author-year citation removed;
- `swap_author_year`: every author-year citation replaced by one of another text's;
- `word_overlap` / `least_similar` / `dissimilar_order`: the Jaccard overlap of two texts' word sets, for each text
  the least similar other one (the off-topic section) and every other one, least similar first;
- `reverse_sentences` / `replace_sentence`: the length-matched damage, which keeps the number of characters and of
  words exactly (`same_length` says whether two texts do): every paragraph's sentences in reverse order, or one
  sentence replaced by a sentence of exactly the same shape from another text.

A paragraph is a block between blank lines; headings (``#``) and lists (every line opening with ``[n]``, ``-``,
``*`` or ``n.``) are not prose and are never touched. Sentences end at ``.``, ``!`` or ``?`` followed by white space
and a capital letter or ``[`` (not after "et al.", "e.g.", "i.e.", "cf.", "vs.", "Fig.", "Eq.", "Sec.", "No.").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
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


def dissimilar_order(texts: Sequence[str]) -> list[list[int]]:
    """For each text, the indices of the other texts by increasing `word_overlap` (by index on a tie)."""
    sets = [_word_set(t) for t in texts]
    overlap: dict[tuple[int, int], float] = {}
    for i, x in enumerate(sets):  # each pair once: the overlap is symmetric
        for j in range(i + 1, len(sets)):
            common = len(x & sets[j])
            union = len(x) + len(sets[j]) - common
            overlap[i, j] = overlap[j, i] = common / union if union else 0.0
    return [sorted((j for j in range(len(sets)) if j != i), key=lambda j: (overlap[i, j], j)) for i in range(len(sets))]


# --- length-matched damage ----------------------------------------------------------------------------------------

_BLOCK_BREAK = re.compile(r"\n[ \t]*\n\s*")
_LIST_LINE = re.compile(r"^\s*(?:\[\d+\]|[-*]|\d+\.)\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[])")
_ABBREVIATIONS = ("et al.", "e.g.", "i.e.", "cf.", "vs.", "Fig.", "Eq.", "Sec.", "No.")
#: The shortest sentence `replace_sentence` replaces (shorter pieces are headings' leftovers, list labels, numbers).
MIN_SENTENCE_CHARS = 40


def same_length(a: str, b: str) -> bool:
    """Whether the two texts have the same number of characters and of white-space separated words."""
    return len(a) == len(b) and len(a.split()) == len(b.split())


def _is_prose(block: str) -> bool:
    lines = [line for line in block.split("\n") if line.strip()]
    return bool(lines) and not lines[0].lstrip().startswith("#") and not (
        len(lines) > 1 and all(_LIST_LINE.match(line) for line in lines))


def _prose_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of each prose paragraph, its surrounding white space left out."""
    spans, start = [], 0
    for brk in [*_BLOCK_BREAK.finditer(text), None]:
        end = len(text) if brk is None else brk.start()
        block = text[start:end]
        lead = len(block) - len(block.lstrip())
        span = (start + lead, start + len(block.rstrip()))
        if span[0] < span[1] and _is_prose(text[span[0]:span[1]]):
            spans.append(span)
        if brk is not None:
            start = brk.end()
    return spans


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text[start:end]`` (a paragraph without surrounding white space)."""
    spans, begin = [], start
    for m in _SENTENCE_END.finditer(text, start, end):
        if text[begin:m.start()].endswith(_ABBREVIATIONS):
            continue
        spans.append((begin, m.start()))
        begin = m.end()
    spans.append((begin, end))
    return spans


def paragraph_sentences(text: str) -> list[list[tuple[int, int]]]:
    """Each prose paragraph's sentences, as (start, end) offsets into `text`."""
    return [_sentences(text, start, end) for start, end in _prose_blocks(text)]


def reverse_sentences(text: str) -> str | None:
    """Every prose paragraph's sentences in reverse order, the white space between them left in place (so the text
    keeps every character and word); None when no paragraph has two different sentences."""
    out, done, changed = [], 0, False
    for spans in paragraph_sentences(text):
        if len(spans) < 2:
            continue
        gaps = [text[a[1]:b[0]] for a, b in zip(spans, spans[1:])]
        parts = [text[a:b] for a, b in reversed(spans)]
        changed = changed or parts != [text[a:b] for a, b in spans]
        out += [text[done:spans[0][0]], *(p + g for p, g in zip(parts, [*gaps, ""]))]
        done = spans[-1][1]
    return "".join([*out, text[done:]]) if changed else None


def _shape(sentence: str) -> tuple[int, int]:
    return len(sentence), len(sentence.split())


def sentence_shapes(text: str) -> dict[tuple[int, int], str]:
    """The text's prose sentences of `MIN_SENTENCE_CHARS` or more by (characters, words): the first of each."""
    shapes: dict[tuple[int, int], str] = {}
    for spans in paragraph_sentences(text):
        for a, b in spans:
            if b - a >= MIN_SENTENCE_CHARS:
                shapes.setdefault(_shape(text[a:b]), text[a:b])
    return shapes


def replace_sentence(text: str, others: Sequence[Mapping[tuple[int, int], str]]) -> tuple[str, int] | None:
    """(the text with one sentence replaced, the index in `others` it came from), or None when none fits.

    `others` are other texts' `sentence_shapes`, in the order they are preferred (least similar first). The
    replaced sentence is the first of ours, in document order (of `MIN_SENTENCE_CHARS` or more, in a paragraph of
    two sentences or more), for which one of `others` has a sentence of the same characters and words not already in
    the text; the first such text in `others` gives it. Early sentences first, because judges may read only the
    start of a long passage (SurGE's Logic judge reads each section's first 1,000 characters)."""
    ours = [(a, b) for spans in paragraph_sentences(text) if len(spans) > 1 for a, b in spans
            if b - a >= MIN_SENTENCE_CHARS]
    for a, b in ours:
        for index, shapes in enumerate(others):
            found = shapes.get(_shape(text[a:b]))
            if found is not None and found not in text:
                return text[:a] + found + text[b:], index
    return None


__all__ = ["CONTRADICTION_RULES", "MIN_SENTENCE_CHARS", "Rule", "contradict", "dissimilar_order", "least_similar",
           "paragraph_sentences", "remove_author_year", "remove_markers", "replace_sentence", "reverse_sentences",
           "same_length", "sentence_shapes", "swap_author_year", "truncate_half", "word_overlap"]
