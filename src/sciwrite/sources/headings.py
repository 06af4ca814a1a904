"""Section headings that name a related-work section or an introduction, in any numbering style.

Shared by the LaTeXML (arXiv HTML) and GROBID (grobid2json) readers so both find the same sections.
"""

from __future__ import annotations

import re
import unicodedata

# Headings are normalised before matching (see `_normalize_heading`): lower-cased, "&" -> "and",
# punctuation -> space, section numbers / tags ("2", "2.1", "II.", "A", "Appendix B") removed.
_RW_CORE = (
    r"(?:related (?:work|works|literature|research|studies|approaches|efforts)"
    r"|relevant (?:work|works|literature|research|studies)"
    r"|(?:prior|previous|existing|earlier|past) (?:work|works|research|literature|studies|approaches|art)"
    r"|literature (?:review|survey|overview)"
    r"|review of (?:the )?(?:related |relevant |existing |prior |previous )?(?:literature|work|works|research)"
    r"|(?:connection|connections|relation|relations|relationship) (?:to|with) (?:the )?"
    r"(?:prior|previous|related|existing|other) (?:work|works|literature|research))"
)
_RW_MODIFIER = (
    r"(?:(?:a )?(?:brief |short |detailed )?(?:extended|additional|further|other|more|broader|selected)? ?)"
)
_RW_TOPIC = r"(?: (?:on|in|for|about|of|to) .+)?"
_RW_COMPANION = r"(?:background|preliminaries|motivation|discussion|context|overview)"

#: Regular expressions, each matched in full against the normalised heading. In words: "Related
#: Work(s)/Literature/Research/Studies", "Relevant Work", "Prior/Previous/Existing Work", "Literature
#: Review/Survey", "Review of the Literature", "Connections/Relation to Prior Work", optionally with a
#: modifier ("Additional", "Extended", "Other", "Brief") and a topic ("Related Work on Fact
#: Checking"); the same joined with Background / Preliminaries / Motivation / Discussion ("Background
#: and Related Work", "Related Work & Background"); and "State of the Art".
#: "Background" (or "Preliminaries") alone is deliberately NOT a related-work heading: such sections
#: usually define the task and notation rather than survey prior work, so a paper whose only candidate
#: is "Background" raises MissingRelatedWorkError instead of yielding a wrong target text. Headings
#: that merely contain "relat..." ("Relation Extraction", "Comparison with Related Systems") do not
#: match.
RELATED_WORK_HEADINGS: tuple[str, ...] = (
    rf"{_RW_MODIFIER}{_RW_CORE}{_RW_TOPIC}",
    rf"{_RW_COMPANION} (?:and )?{_RW_MODIFIER}{_RW_CORE}{_RW_TOPIC}",
    rf"{_RW_MODIFIER}{_RW_CORE} (?:and )?{_RW_COMPANION}",
    r"state of the art",
    rf"{_RW_COMPANION} (?:and )?state of the art",
)
_RW_PATTERNS = tuple(re.compile(p) for p in RELATED_WORK_HEADINGS)
_LEADING_NUMBER = re.compile(
    r"^(?:(?:section|appendix|chapter)\s+)?(?:\d+|[ivxlc]+|[a-z])(?:\s+\d+)*\s+(?=\S)"
)


def _normalize_heading(heading: str) -> str:
    """Lower-case, '&' -> 'and', punctuation -> spaces, single spaces."""
    text = unicodedata.normalize("NFKC", heading).lower().replace("&", " and ")
    text = re.sub(r"[^\w\s]|_", " ", text)
    return " ".join(text.split())


def is_related_work_heading(heading: str) -> bool:
    """True when `heading` (with or without its section number) names a related-work section."""
    if not heading:
        return False
    norm = _normalize_heading(heading)
    candidates = {norm, _LEADING_NUMBER.sub("", norm)}
    return any(p.fullmatch(c) for c in candidates if c for p in _RW_PATTERNS)


_INTRODUCTION = re.compile(r"^(?:introduction|introduction and \w+)$")


def is_introduction_heading(heading: str) -> bool:
    """'Introduction', '1 Introduction', 'I. INTRODUCTION', 'Introduction and Motivation'."""
    if not heading:
        return False
    norm = _normalize_heading(heading)
    return any(_INTRODUCTION.match(c) for c in {norm, _LEADING_NUMBER.sub("", norm)} if c)
