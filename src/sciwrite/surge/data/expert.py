"""The expert survey as text: a survey record's section tree, its sections' cite lists and the corpus titles of the
works they cite, rendered once as the Markdown a system is asked to write (the ``text`` field of a survey).

SurGE's release keeps each section's text with its citation markers stripped (``structure``) and lists apart which
works each section cites (``queries.json``). Where the markers stood is lost, so their places here are ours: each
section's cites, numbered over the whole survey by first appearance, are written at the end of its content (inside
its last sentence, before the closing period, so that SurGE's sentence reading finds a sentence around them), and a
``## References`` list closes the survey. The layout is the one SurGE's evaluator reads back
(`sciwrite.surge.survey_markdown.parse_survey`): ``# <title>`` and the root's content, then each section in tree
pre-order under ``'#' * (depth + 1)``, the root's children at depth 1.

`split_references` and `join_references` take such a text apart and put it back (the sensitivity analysis and the
judge check damage its citations).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sciwrite.sources.markers import neutralize_markers
from sciwrite.surge.survey_markdown import HEADER, UPSTREAM_MARKER

REFERENCES_TITLE = "References"
REFERENCES_HEADING = f"## {REFERENCES_TITLE}"
#: Written for a heading whose title is empty: ``##`` alone is no heading to SurGE's reader.
UNTITLED = "(untitled)"
ROOT_TITLE = "root"

_SPACE = re.compile(r"\s+")
_QUOTES = re.compile("[\"\u201c\u201d]")
_CLOSING = re.compile(r"[.!?]+$")
_REFERENCE_LINE = re.compile(r"^\[(\d+)\] (.*)$")


def _one_line(text: str) -> str:
    return _SPACE.sub(" ", text or "").strip()


def _plain(text: str) -> str:
    """Text in which nothing reads as a citation marker: a bracketed number of the content (an interval ``[0, 1]``,
    a leftover ``[9]``) is written in parentheses, so that the survey's only markers are the ones written here."""
    return UPSTREAM_MARKER.sub(lambda m: f"({m.group(1)})", neutralize_markers(text))


def _paragraphs(content: str) -> list[str]:
    r"""A section's content as paragraphs (its non-empty lines), none of them read as a heading (``\#``)."""
    lines = [_plain(line.strip()) for line in (content or "").splitlines() if line.strip()]
    return ["\\" + line if HEADER.match(line) else line for line in lines]


def _heading(level: int, title: str) -> str:
    return "#" * level + " " + (_plain(_one_line(title)) or UNTITLED)


def insert_before_closing(text: str, markers: str) -> str:
    """`text` with `markers` at its end, before its closing run of '.', '!' or '?' when it has one: inside its last
    sentence ("... works [1][2].")."""
    closing = _CLOSING.search(text)
    end = closing.start() if closing else len(text)
    return f"{text[:end].rstrip()} {markers}{text[end:]}" if text[:end].strip() else f"{markers}{text[end:]}"


def _with_markers(paragraphs: list[str], numbers: Sequence[int]) -> list[str]:
    """The markers ``[n][m]`` at the end of the last paragraph, before its closing punctuation."""
    if not numbers:
        return paragraphs
    markers = "".join(f"[{n}]" for n in numbers)
    if not paragraphs:
        return [markers]
    return [*paragraphs[:-1], insert_before_closing(paragraphs[-1], markers)]


def _pre_order(structure: Sequence[Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], int]]:
    """(section, depth) in tree pre-order from the root (the first section titled ``root``, else the first without a
    parent; depth 0), children in structure order. A section no root reaches (a cyclic parent chain) is left out."""
    if not structure:
        return []
    root = next((s for s in structure if s["title"] == ROOT_TITLE), None) or \
        next((s for s in structure if not s["parent_id"]), structure[0])
    children: dict[str, list[Mapping[str, Any]]] = {}
    for section in structure:
        if section is not root:
            children.setdefault(section["parent_id"] or root["id"], []).append(section)
    out: list[tuple[Mapping[str, Any], int]] = []
    seen: set[str] = set()
    stack = [(root, 0)]
    while stack:
        section, depth = stack.pop()
        if section["id"] in seen:
            continue
        seen.add(section["id"])
        out.append((section, depth))
        stack.extend((child, depth + 1) for child in reversed(children.get(section["id"], [])))
    return out


def expert_markdown(title: str, structure: Sequence[Mapping[str, Any]],
                    cites_by_section: Mapping[str, Sequence[str]] | None = None,
                    titles: Mapping[str, str] | None = None, all_cites: Sequence[str] = ()) -> str:
    """The expert survey as Markdown: ``# <title>`` and the root's content, each section in tree pre-order as
    ``'#' * (depth + 1) + ' ' + title`` and its content (one paragraph per line of it, blank lines between), then
    ``## References`` with a ``[n] <corpus title>`` line for every cited work.

    SurGE's release strips the markers from the content, so where they stand is ours: a section that cites works
    (`cites_by_section`: section id -> corpus doc_ids) gets their ``[n]`` at the end of its content, inside its last
    sentence. Works are numbered over the whole survey by first appearance; a work of `all_cites` no section cites
    is numbered after them and only listed. `titles` maps doc_id -> corpus title; a cite whose title is unknown (or
    empty) is left out, marker and reference alike. Titles are written on one line (`listed_title` in the reference
    list); a bracketed number in the content or a heading is written in parentheses and a content line that would
    read as a heading is escaped, so that the markers, the references and the heading tree are exactly the ones
    written here.
    """
    cites_by_section, titles = cites_by_section or {}, titles or {}
    numbers: dict[str, int] = {}

    def number(doc_id: str) -> int | None:
        if not listed_title(titles.get(doc_id, "")):
            return None
        return numbers.setdefault(doc_id, len(numbers) + 1)

    blocks: list[str] = []
    for section, depth in _pre_order(structure):
        cited = [n for doc_id in cites_by_section.get(section["id"], ()) if (n := number(doc_id)) is not None]
        blocks.append(_heading(1, title) if depth == 0 else _heading(depth + 1, section["title"]))
        blocks.extend(_with_markers(_paragraphs(section["content"]), list(dict.fromkeys(cited))))
    if not structure:
        blocks.append(_heading(1, title))
    for doc_id in all_cites:
        number(doc_id)
    return join_references("\n\n".join(blocks), [(n, titles[doc_id]) for doc_id, n in numbers.items()])


def survey_text(survey: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """`expert_markdown` of a survey record (its title, structure, queries' cites and all_cites)."""
    cites: dict[str, list[str]] = {}
    for query in survey.get("queries") or ():
        cites.setdefault(query["section_id"], []).extend(query["cites"])
    return expert_markdown(survey["title"], survey["structure"], cites, titles, survey.get("all_cites") or ())


def with_expert_texts(surveys: list[dict[str, Any]], corpus: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The survey records with their ``text`` set, the titles read from `corpus` (its records, ``doc_id`` and
    ``title``; only the cited ones are kept, so a corpus of a million papers is read once, not held)."""
    cited = {c for s in surveys for c in s.get("all_cites") or ()} | \
        {c for s in surveys for q in s.get("queries") or () for c in q["cites"]}
    titles = {str(doc["doc_id"]): str(doc["title"] or "") for doc in corpus if str(doc["doc_id"]) in cited}
    for survey in surveys:
        survey["text"] = survey_text(survey, titles)
    return surveys


def split_references(text: str) -> tuple[str, list[tuple[int, str]]]:
    """(the text before its last ``## References`` heading, the ``[n] title`` lines after it as (n, title)); the
    whole text and no reference when it has no such heading."""
    lines = text.split("\n")
    at = max((i for i, line in enumerate(lines) if line.rstrip() == REFERENCES_HEADING), default=None)
    if at is None:
        return text, []
    refs = [(int(m.group(1)), m.group(2)) for line in lines[at + 1:] if (m := _REFERENCE_LINE.match(line.strip()))]
    return "\n".join(lines[:at]).rstrip(), refs


def listed_title(title: str) -> str:
    """A title as a reference line writes it: on one line, its double quotes as single ones and its asterisks left
    out, so that a reader taking a quoted or an emphasised span for the title (IEEE's ``"Title,"``, APA's
    ``*Title*``) reads it whole. SurGE resolves a title by its ASCII letters, which stay."""
    return _one_line(_QUOTES.sub("'", title).replace("*", " "))


def join_references(body: str, references: Sequence[tuple[int, str]]) -> str:
    """`body`, then ``## References`` and one ``[n] title`` line per reference (`listed_title`; nothing when there is
    none)."""
    if not references:
        return body.rstrip() + "\n"
    listed = "\n".join(f"[{n}] {listed_title(title)}" for n, title in references)
    return f"{body.rstrip()}\n\n{REFERENCES_HEADING}\n\n{listed}\n"


__all__ = ["REFERENCES_HEADING", "REFERENCES_TITLE", "UNTITLED", "expert_markdown", "insert_before_closing",
           "join_references", "listed_title", "split_references", "survey_text", "with_expert_texts"]
