r"""A generated survey written the way SurGE reads it (`sciwrite.surge.survey_markdown`): Markdown headings, one
``[n]`` per bracket, and a final reference list, ``## References`` then one ``[n] Title`` line per cited work.

SurGE's evaluator (SurGE, Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE src/markdownParser.py ``parse_refs``,
src/informationFuncs.py ``extract_references``) reads a marker as ``\[(\d+)\]`` only, so a group such as
``[1, 2]`` is written ``[1][2]`` (`split_marker_groups`), and resolves a reference to the corpus by its exact title,
so a retrieval method lists each cited corpus paper's title verbatim (whitespace runs made one space, to keep it on
one line), never a title the model wrote. The layout (``# Title``, ``##`` sections, ``## References`` and one line per
reference) is that of SurGE's Autosurvey baseline outputs (baselines/Autosurvey/output/<id>/*.md).

A retrieval method's text cites its papers ``[i]`` -> ``docs[i-1]``; `cite` renumbers the markers by first appearance
(a number naming no paper is removed and counted) and appends the list, and `assemble` does it over sections written
separately, each citing its own list (the outline method): a paper two sections cite gets one number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.sources.markers import (
    MARKER_GROUP,
    expand_group,
    neutralize_markers,
    order_of_first_appearance,
    renumber_by_first_appearance,
    renumber_markers,
)
from sciwrite.surge.generation.prompts import one_line
from sciwrite.surge.survey_markdown import HEADER, reference_title

REFERENCES_HEADING = "## References"

_REFERENCES = re.compile(r"^\s*(?:#+\s*)?(?:\*\*)?\s*(?:\d+\.?\s*)?(?:references|bibliography|reference list|"
                         r"cited papers|works cited)\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$", re.IGNORECASE | re.MULTILINE)
_FENCED = re.compile(r"^```[\w-]*\s*\n(.*?)\n```\s*$", re.DOTALL)
_REFERENCE_LINE = re.compile(r"^\s*(?:[-*]\s*)?(?:\[(\d{1,6})\]|(\d{1,6})[.)])\s*(.+?)\s*$")


@dataclass(frozen=True)
class WrittenSection:
    """One section as written: its heading, its text citing ``[i]`` -> ``docs[i-1]``, and those papers."""

    heading: str
    text: str
    docs: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class Survey:
    """A finished survey: its Markdown (reference list included), the cited doc_ids in marker order (``[n]`` ->
    ``cited[n-1]``) and how many distinct marker numbers named no paper (removed)."""

    text: str
    cited: tuple[str, ...]
    unresolved: int


def split_marker_groups(text: str) -> str:
    """``[1, 2]``, ``[1-3]`` -> ``[1][2]``, ``[1][2][3]``: one number per bracket, as SurGE's marker pattern reads."""
    return MARKER_GROUP.sub(lambda m: "".join(f"[{n}]" for n in dict.fromkeys(expand_group(m.group(1)))), text)


def unwrap_fences(text: str) -> str:
    """A reply wrapped whole in a code fence (```markdown ... ```) without the fence; else stripped."""
    text = (text or "").strip()
    match = _FENCED.match(text)
    return match.group(1).strip() if match else text


def strip_reference_list(text: str) -> str:
    """The text before its last 'References' heading line (a reference list the model wrote), when text precedes it."""
    matches = list(_REFERENCES.finditer(text or ""))
    if matches and text[: matches[-1].start()].strip():
        return text[: matches[-1].start()].rstrip()
    return (text or "").rstrip()


def demote_headings(text: str, level: int = 3) -> str:
    """Every heading above `level` (fewer '#') written at `level`: a section's own subsections stay under it."""
    lines = []
    for line in text.splitlines():
        match = HEADER.match(line.rstrip())
        lines.append("#" * level + " " + match.group(2) if match and len(match.group(1)) < level else line)
    return "\n".join(lines)


def heading_text(value: Any) -> str:
    """A title or heading as one heading line's text: one line, no leading '#', no marker lookalike."""
    return neutralize_markers(one_line(value).lstrip("#").strip())


def titled(body: str, title: str) -> str:
    """`body` opening with a level-1 heading: its own first line when that is one, else ``# <title>`` added."""
    first = next((line for line in body.splitlines() if line.strip()), "")
    match = HEADER.match(first.rstrip())
    if match and len(match.group(1)) == 1:
        return body.strip()
    return f"# {heading_text(title)}\n\n{body.strip()}".strip()


def reference_list(titles: Sequence[str]) -> str:
    """``## References`` then ``[n] Title`` for each title, numbered from 1."""
    return "\n".join([REFERENCES_HEADING, "", *(f"[{n}] {one_line(title)}" for n, title in enumerate(titles, 1))])


def normalize_reference_lines(text: str) -> str:
    """A model's own reference list (after its last 'References' heading) as SurGE's ``[n] Title`` lines: ``1. A.
    Author. (2020). *Title*.`` -> ``[1] Title`` (`sciwrite.surge.survey_markdown.reference_title`); other lines kept."""
    matches = list(_REFERENCES.finditer(text or ""))
    if not matches:
        return text
    cut = matches[-1].end()
    lines = []
    for line in text[cut:].splitlines():
        match = _REFERENCE_LINE.match(line)
        title = reference_title(match.group(3)) if match else ""
        lines.append(f"[{match.group(1) or match.group(2)}] {title}" if match and title else line)
    return text[:cut] + "\n".join(lines)


def cite(body: str, docs: Sequence[Mapping[str, Any]]) -> Survey:
    """`body` (citing ``[i]`` -> ``docs[i-1]``) renumbered by first appearance, one number per bracket, with the
    reference list of the cited papers' titles (none when nothing is cited)."""
    unresolved = sum(not 1 <= n <= len(docs) for n in order_of_first_appearance(body))
    text, cited = renumber_by_first_appearance(body, [str(d["doc_id"]) for d in docs])
    titles = {str(d["doc_id"]): d.get("title") or "" for d in docs}
    text = split_marker_groups(text).strip()
    if cited:
        text = f"{text}\n\n{reference_list([titles[doc_id] for doc_id in cited])}"
    return Survey(text, tuple(cited), unresolved)


def assemble(title: str, sections: Sequence[WrittenSection]) -> Survey:
    """``# <title>`` and one ``## <heading>`` per section, each section's markers moved into one numbering over all
    the sections' papers, then `cite`: a number a section's list does not hold is removed (and counted)."""
    parts, docs = [f"# {heading_text(title)}"], list[Mapping[str, Any]]()
    unresolved = 0
    for section in sections:
        offset, n = len(docs), len(section.docs)
        numbers = order_of_first_appearance(section.text)
        unresolved += sum(not 1 <= k <= n for k in numbers)
        text = renumber_markers(section.text, {k: offset + k for k in numbers if 1 <= k <= n})
        docs.extend(section.docs)
        parts.append(f"## {heading_text(section.heading)}" + (f"\n\n{text.strip()}" if text.strip() else ""))
    survey = cite("\n\n".join(parts), docs)
    return Survey(survey.text, survey.cited, unresolved)


__all__ = ["REFERENCES_HEADING", "Survey", "WrittenSection", "assemble", "cite", "demote_headings", "heading_text",
           "normalize_reference_lines", "reference_list", "split_marker_groups", "strip_reference_list", "titled",
           "unwrap_fences"]
