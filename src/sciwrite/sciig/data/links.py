"""Linking the in-text citations of a paper's Introduction to its bibliography (SciIG build, steps 1-2).

Each author–year citation found by `sciwrite.sources.apa` is linked to a bibliography entry:

1. through GROBID's ``cite_spans``: a span with a ``ref_id`` that overlaps the citation links it (a linked span
   whose text does not parse, e.g. a hyphenated line break, still yields a citation, keyed from the entry);
2. else by first-author surname + year: the one entry with that surname (accents, case and hyphens
   ignored) and year; among several, the suffix letter picks the n-th in bibliography order ("2021b" the
   second), else the author form ("et al." / "X and Y") must single one out.

What neither resolves is returned as unresolved, for the optional LLM step (`sciwrite.sciig.data.llm_map`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sciwrite.sources.apa import Citation, find_citations, fold
from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.grobid import Paragraph, author_names


@dataclass(frozen=True)
class Link:
    """A citation linked to a bibliography entry, and how ("cite_span", "author_year" or "llm")."""

    key: str
    ref_id: str
    method: str
    position: tuple[int, int] = (0, 0)  # (paragraph index, character offset): orders the neighbors


@dataclass
class LinkResult:
    """The links of one introduction (in order of appearance) and the citations left unresolved."""

    links: list[Link] = field(default_factory=list)
    unresolved: list[Citation] = field(default_factory=list)
    contexts: dict[Citation, str] = field(default_factory=dict)
    positions: dict[Citation, tuple[int, int]] = field(default_factory=dict)


def entry_surnames(entry: Mapping[str, Any]) -> list[str]:
    """Folded last names of a bibliography entry's authors, in order."""
    return [fold(a.get("last") or "") for a in entry.get("authors") or [] if (a.get("last") or "").strip()]


def _form_fits(citation: Citation, surnames: list[str]) -> bool:
    if citation.et_al:
        return len(surnames) >= 3
    if citation.second:
        return len(surnames) == 2 and surnames[1] == fold(citation.second)
    return len(surnames) == 1


def match_by_author_year(citation: Citation, bibs: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The ref_id of the one entry that fits `citation` by first-author surname, year (and suffix or author form)."""
    candidates = [ref for ref, entry in bibs.items()
                  if (s := entry_surnames(entry)) and s[0] == fold(citation.first)
                  and parse_year(entry.get("year")) == citation.year]
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1 and citation.suffix:
        index = ord(citation.suffix) - ord("a")
        return candidates[index] if index < len(candidates) else None
    fitting = [ref for ref in candidates if _form_fits(citation, entry_surnames(bibs[ref]))]
    return fitting[0] if len(fitting) == 1 else None


def _span_citation(span: Mapping[str, Any], entry: Mapping[str, Any]) -> Citation | None:
    """A citation for a linked span whose text is not a parseable author–year form."""
    key_names = [(a.get("last") or "").strip() for a in entry.get("authors") or [] if (a.get("last") or "").strip()]
    year = parse_year(entry.get("year"))
    if not key_names or not year:
        return None
    return Citation(key_names[0], key_names[1] if len(key_names) == 2 else None, len(key_names) > 2, year, "",
                    span["start"], span["end"], span.get("text") or "")


def link_paragraphs(paragraphs: list[Paragraph], bibs: Mapping[str, Mapping[str, Any]]) -> LinkResult:
    """Link every citation of `paragraphs` (see the module docstring); one `Link` per citation occurrence."""
    result = LinkResult()
    for number, para in enumerate(paragraphs):
        citations = find_citations(para.text)
        linked: dict[Citation, tuple[str, str]] = {}
        for span in para.cite_spans:
            ref_id = span.get("ref_id")
            if not isinstance(ref_id, str) or ref_id not in bibs:
                continue
            inside = [c for c in citations if c.start < span["end"] and span["start"] < c.end and c not in linked]
            if len(inside) > 1:  # a span over several citations: keep the one naming the entry's first author
                first = (entry_surnames(bibs[ref_id]) or [""])[0]
                inside = [c for c in inside if fold(c.first) == first][:1]
            if inside:
                linked[inside[0]] = (ref_id, "cite_span")
            elif (made := _span_citation(span, bibs[ref_id])) is not None:
                citations.append(made)
                linked[made] = (ref_id, "cite_span")
        for citation in sorted(citations, key=lambda c: c.start):
            if citation in linked:
                ref_id, method = linked[citation]
            elif (ref_id := match_by_author_year(citation, bibs)) is not None:
                method = "author_year"
            else:
                result.unresolved.append(citation)
                result.contexts[citation] = para.text
                result.positions[citation] = (number, citation.start)
                continue
            result.links.append(Link(citation.key, ref_id, method, (number, citation.start)))
    return result


def neighbor_record(key: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """A `neighbors` item from a bibliography entry (GROBID entries carry no abstract: it starts empty)."""
    return {"key": key, "title": (entry.get("title") or "").strip(), "authors": author_names(entry.get("authors")),
            "abstract": (entry.get("abstract") or "").strip()}


def neighbors_from_links(links: list[Link], bibs: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One neighbor per distinct linked entry, in order of first citation; keys made unique (a second entry
    that would get an existing key gets the next free suffix letter)."""
    out: list[dict[str, Any]] = []
    seen_refs: set[str] = set()
    used_keys: set[str] = set()
    for link in sorted(links, key=lambda lk: lk.position):
        if link.ref_id in seen_refs:
            continue
        seen_refs.add(link.ref_id)
        key = link.key
        if key in used_keys:
            key = next(f"{key}{c}" for c in "abcdefghijklmnopqrstuvwxyz" if f"{key}{c}" not in used_keys)
        used_keys.add(key)
        out.append(neighbor_record(key, bibs[link.ref_id]))
    return out
