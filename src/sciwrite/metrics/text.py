"""Splitting a related-work section into sentences and into ordered content blocks.

Sentences come from nltk's Punkt algorithm with fixed parameters and a list of abbreviations common in
scientific prose ("et al.", "e.g.", "Fig.", "Eq.", ...). Punkt's trained English model (`punkt_tab`) is a
download that cannot happen offline, and a fixed list keeps results identical on every machine.

nltk runs every regular expression under a time limit (`nltk.redos`, 5 s a match), and a text far longer than any
section (a prediction of one line of megabytes) runs past it. Every nltk tokenizer a metric calls on a text goes
through `scanned`, which turns that timeout into a `ScanTimeoutError`: the text's size and beginning and what to do,
never nltk's advice to its own callers ("Pass timeout=None"); `ScanTimeoutError.located_in` names the prediction
file, line and paper that hold the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import iter_json_lines
from sciwrite.sources.markers import MARKER_GROUP

if TYPE_CHECKING:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

ABBREVIATIONS = frozenset(
    "et al e.g i.e etc cf vs fig figs eq eqs sec secs tab no nos dr prof approx resp ca viz ch pp vol".split()
)
# Sections with a single paragraph are cut into blocks of this many sentences.
SENTENCES_PER_BLOCK = 3
#: How much of a text an error quotes.
_QUOTED = 60

T = TypeVar("T")


class ScanTimeoutError(InputError):
    """nltk gave up on a text: one of its regular expressions ran past its time limit. The message gives the text's
    size and beginning and what to do; `located_in` adds the file, line and paper."""

    HINT = "a section is a few thousand words: shorten, regenerate or remove the prediction that holds it, then rerun"

    def __init__(self, text: str, what: str, where: Where | None = None) -> None:
        self.text, self.what = text, what
        head = text[:_QUOTED] + ("..." if len(text) > _QUOTED else "")
        super().__init__(f"a text of {len(text):,} characters ({head!r}) ran nltk's {what} past its time limit "
                         "(its regular expressions give up on text this long)", where, self.HINT)

    def located_in(self, origin: str | Path, paper_ids: Sequence[str], texts: Sequence[str],
                   field: str = "text") -> ScanTimeoutError:
        """This error naming the prediction that holds the text: the first of `texts` (one per paper of
        `paper_ids`) that contains it, and its line in `origin` when that is a JSON Lines file; itself when none
        holds it (a reference text, say)."""
        index = next((i for i, text in enumerate(texts) if self.text in text), None)
        if index is None:
            return self
        paper_id = paper_ids[index]
        where = Where(path=origin, line=line_of(origin, paper_id), record=paper_id, field=field)
        return ScanTimeoutError(self.text, self.what, where)


def line_of(origin: str | Path, paper_id: str) -> int | None:
    """The line of `paper_id`'s first record in the JSON Lines file `origin`, or None (not a file, or not there)."""
    if not Path(origin).is_file():
        return None
    return next((number for number, _, record, problem in iter_json_lines(origin)
                 if problem is None and isinstance(record, dict) and record.get("paper_id") == paper_id), None)


def scanned(what: str, scan: Callable[[str], T], text: str) -> T:
    """`scan(text)`, an nltk tokenizer (`what` names it); its regex timeout is a `ScanTimeoutError`."""
    try:
        return scan(text)
    except TimeoutError:  # a tokenizer does no I/O: its only timeout is nltk's regex limit
        raise ScanTimeoutError(text, what) from None


@lru_cache(maxsize=1)
def _punkt() -> PunktSentenceTokenizer:
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, paragraph by paragraph (a sentence never spans a blank line)."""
    return [s.strip() for para in paragraphs(text) for s in scanned("sentence splitter", _punkt().tokenize, para)
            if s.strip()]


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
