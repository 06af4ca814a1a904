"""Splitting a related-work section into sentences and into ordered content blocks.

Sentences come from nltk's Punkt algorithm with fixed parameters and a list of abbreviations common in
scientific prose ("et al.", "e.g.", "Fig.", "Eq.", ...). Punkt's trained English model (`punkt_tab`) is a
download that cannot happen offline, and a fixed list keeps results identical on every machine.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from sciwrite.sources.markers import MARKER_GROUP

if TYPE_CHECKING:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

ABBREVIATIONS = frozenset(
    "et al e.g i.e etc cf vs fig figs eq eqs sec secs tab no nos dr prof approx resp ca viz ch pp vol".split()
)
# Sections with a single paragraph are cut into blocks of this many sentences.
SENTENCES_PER_BLOCK = 3


@lru_cache(maxsize=1)
def _punkt() -> PunktSentenceTokenizer:
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, paragraph by paragraph (a sentence never spans a blank line)."""
    return [s.strip() for para in paragraphs(text) for s in _punkt().tokenize(para) if s.strip()]


def paragraphs(text: str) -> list[str]:
    """Non-empty paragraphs, separated by blank lines."""
    return [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]


def content_blocks(text: str) -> list[str]:
    """Ordered content blocks for positioning-structure similarity, without citation markers.

    A block is a paragraph; a section written as one paragraph is cut into blocks of
    `SENTENCES_PER_BLOCK` sentences, so that its order of topics still shows.
    """
    paras = paragraphs(text)
    if len(paras) == 1:
        sentences = split_sentences(paras[0])
        paras = [" ".join(sentences[i:i + SENTENCES_PER_BLOCK]) for i in range(0, len(sentences), SENTENCES_PER_BLOCK)]
    blocks = [strip_markers(p) for p in paras]
    return [b for b in blocks if b]


def strip_markers(text: str) -> str:
    """The text without citation markers ('as in [1, 2].' -> 'as in.')."""
    text = MARKER_GROUP.sub("", text)
    return re.sub(r"[ \t]{2,}", " ", re.sub(r"[ \t]+([.,;:!?)])", r"\1", text)).strip()
