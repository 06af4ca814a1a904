"""Reading grobid2json / S2ORC papers: sections by heading, bibliography entries, citation spans.

The structure (``pdf_parse.body_text`` paragraphs with ``section``, ``sec_num`` and ``cite_spans``
linked to ``bib_entries``) is what GROBID + s2orc-doc2json produce and what the ``aclsum`` package ships.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Paragraph:
    """One body paragraph with its section heading, number and citation spans."""

    text: str
    section: str
    sec_num: str | None
    cite_spans: list[dict[str, Any]]


def load_grobid_json(path: str | Path) -> dict[str, Any]:
    """Read a grobid2json file, with a clear error naming the file when it is not one."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a readable JSON file ({err})") from err
    if not isinstance(doc, dict) or "pdf_parse" not in doc and "body_text" not in doc:
        raise ValueError(f"{path}: not a grobid2json/S2ORC paper (no 'pdf_parse' or 'body_text')")
    return doc


def _parse(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    return doc.get("pdf_parse") or doc


def paragraphs(doc: Mapping[str, Any]) -> list[Paragraph]:
    """Body paragraphs in document order."""
    return [Paragraph(p.get("text") or "", (p.get("section") or "").strip(), p.get("sec_num"), p.get("cite_spans") or [])
            for p in _parse(doc).get("body_text") or []]


def bib_entries(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Bibliography entries keyed by their ref_id (``BIBREF3``)."""
    return dict(_parse(doc).get("bib_entries") or {})


def bib_title(entry: dict[str, Any] | None) -> str:
    """A bibliography entry's title, stripped ("" for an entry without one, or no entry)."""
    return ((entry or {}).get("title") or "").strip()


def section_paragraphs(doc: Mapping[str, Any], is_heading: Callable[[str], bool]) -> tuple[str, list[Paragraph]]:
    """The first section whose heading satisfies `is_heading`, with its numbered subsections.

    A numbered section "2" runs on through paragraphs numbered "2.x"; an unnumbered one through the
    contiguous paragraphs with the same heading. Returns ("", []) when no heading matches.
    """
    paras = paragraphs(doc)
    for start, para in enumerate(paras):
        if para.section and is_heading(para.section):
            break
    else:
        return "", []
    heading, number = paras[start].section, (paras[start].sec_num or "").rstrip(".")
    taken = []
    for para in paras[start:]:
        own_number = (para.sec_num or "").rstrip(".")
        if para.section == heading and (own_number == number or not own_number):
            taken.append(para)
        elif number and own_number.startswith(number + "."):
            taken.append(para)
        else:
            break
    return heading, taken


def author_names(authors: list[Mapping[str, Any]] | None) -> list[str]:
    """'First Middle Last Suffix' for each author record."""
    names = []
    for a in authors or []:
        parts = [a.get("first") or "", *(a.get("middle") or []), a.get("last") or "", a.get("suffix") or ""]
        name = " ".join(p.strip() for p in parts if p and p.strip())
        if name:
            names.append(name)
    return names


def replace_cite_spans(para: Paragraph, marker_for: Callable[[str | None], str | None],
                       keep: Callable[[str], str] = str) -> str:
    """The paragraph text with each citation span replaced by ``marker_for(ref_id)``.

    Spans for which `marker_for` returns None keep their original text; every piece of original text
    passes through `keep` (e.g. `neutralize_markers`, so that it cannot be mistaken for a marker).
    """
    out, cursor = [], 0
    for span in sorted(para.cite_spans, key=lambda s: s["start"]):
        start, end = span["start"], span["end"]
        if start < cursor or end > len(para.text):
            continue  # overlapping or out-of-range span: leave the text as it is
        marker = marker_for(span.get("ref_id"))
        if marker is None:
            continue
        out.append(keep(para.text[cursor:start]))
        out.append(marker)
        cursor = end
    out.append(keep(para.text[cursor:]))
    return "".join(out)
