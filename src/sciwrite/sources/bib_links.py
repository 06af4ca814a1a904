"""Linking a parsed bibliography entry to a corpus paper, by title: what every builder of a split from arXiv pages
does with the works a paper cites (`sciwrite.sources.latexml.BibEntry` against a `sciwrite.sources.corpus.CorpusTitleIndex`)."""

from __future__ import annotations

from sciwrite.sources.corpus import CorpusTitleIndex
from sciwrite.sources.latexml import BibEntry

# How a cited bibliography entry was linked to the corpus (counted in `PapersReport.link_methods`):
#   structured    the title block of a multi-block entry equals a corpus title (normalised)
#   parsed_title  the title parsed out of a single-block entry equals a corpus title
#   title_in_text a corpus title (>= MIN_TITLE_TOKENS_IN_TEXT tokens, the longest) occurs in the entry text
#   unlinked      none of these
LINK_METHODS = ("structured", "parsed_title", "title_in_text", "unlinked")


def link_entry(entry: BibEntry, index: CorpusTitleIndex) -> tuple[str | None, str]:
    """(corpus doc_id or None, link method) for one cited bibliography entry.

    The entry's own title is tried first (exact normalised match; "structured" for a multi-block entry,
    "parsed_title" for one parsed out of a single block); failing that, the longest corpus title
    contained in the entry's text ("title_in_text", see `CorpusTitleIndex.find_in_text`).
    """
    if entry.title_source != "text_match":
        doc_id = index.lookup(entry.title)
        if doc_id is not None:
            return doc_id, "structured" if entry.title_source == "blocks" else "parsed_title"
    match = index.find_in_text(entry.raw)
    if match is not None:
        return match.doc_id, "title_in_text"
    return None, "unlinked"


__all__ = ["LINK_METHODS", "link_entry"]
