"""A DBLP XML dump (``dblp.xml`` or ``dblp.xml.gz``, about 4 GB unpacked), streamed record by record.

The dump is ``<dblp>`` holding one element per record (``article``, ``inproceedings``, ``book``, ...). Each record
is read with lxml's ``iterparse`` and cleared as soon as it is read, so memory holds one record at a time, not the
tree. Person pages (``www``), volume records (``proceedings``) and records without a title are counted, by reason,
and skipped. What is read is the record's fields as the dump writes them (`DblpEntry`); turning them into a
`BibRecord` (DOIs, arXiv ids, venues) is `sciwrite.grounding.snapshot`'s job.
"""

from __future__ import annotations

import html.entities
import io
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lxml import etree

#: The elements that are publications, read into entries.
PUBLICATION_TAGS = ("article", "inproceedings", "book", "incollection", "phdthesis", "mastersthesis")
#: Top-level elements that are not publications: skipped and counted under their tag.
OTHER_TAGS = ("www", "proceedings", "person", "data")
_READ = frozenset({"author", "title", "year", "booktitle", "journal", "ee"})  # the fields an entry keeps

# The dump's named entities (&ouml; &eacute; ...) are declared in dblp.dtd, which is not always next to the dump
# and which libxml2 will not fetch. Rather than rewriting the byte stream (an entity split across two read chunks,
# or an "&" inside a CDATA section, would need care), the parser is given a stand-in DTD whenever the document asks
# for an external one: every HTML 4 named entity (html.entities.name2codepoint, a superset of the ISO Latin-1 set
# dblp.dtd declares) as a character reference. libxml2 then expands them itself, line numbers in its errors stay
# those of the file, and nothing on disk or on the network is ever opened for the DTD.
_STAND_IN_DTD = "".join(f'<!ENTITY {name} "&#{code};">\n'
                        for name, code in sorted(html.entities.name2codepoint.items())).encode("ascii")


class _StandInDtd(etree.Resolver):
    """Answers any request for an external DTD or entity with `_STAND_IN_DTD`."""

    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        return self.resolve_string(_STAND_IN_DTD, context)


@dataclass(frozen=True)
class DblpEntry:
    """One publication record of the dump, its fields as written (markup dropped from the title).

    Attributes:
        key: The record's DBLP key (``conf/nips/AbbasS21``).
        tag: Its element: ``article``, ``inproceedings``, ...
        publtype: Its ``publtype`` attribute (``informal`` for CoRR preprints), or None.
        authors: Its ``<author>`` texts, in order, homonym numbers (``Wei Wang 0001``) kept.
        title: Its ``<title>`` text with markup (``<i>``, ``<sub>``) dropped, trailing period kept.
        year: Its ``<year>``, or None.
        booktitle: Its ``<booktitle>``, or None.
        journal: Its ``<journal>``, or None.
        ee: Its ``<ee>`` links (DOI links, arXiv links, publisher pages), in order.
    """

    key: str
    tag: str
    publtype: str | None
    authors: tuple[str, ...]
    title: str
    year: str | None
    booktitle: str | None
    journal: str | None
    ee: tuple[str, ...]


def iter_dblp_entries(stream: io.BufferedIOBase, skipped: Counter[str]) -> Iterator[DblpEntry]:
    """Each publication record of the DBLP XML read from `stream`, in order; what is skipped is counted in `skipped`
    under its tag (``www``, ``proceedings``, ...) or ``no title``.

    Raises:
        lxml.etree.XMLSyntaxError: The XML is not well-formed (its ``position`` says the line and column).
        ValueError: The document's root is not ``<dblp>``.
    """
    # Only top-level record tags raise events: their children are seen through the record, in C, and never one by one
    events = etree.iterparse(stream, events=("end",), tag=PUBLICATION_TAGS + OTHER_TAGS, load_dtd=True,
                             no_network=True, huge_tree=True, remove_comments=True, remove_pis=True)
    events.resolvers.add(_StandInDtd())
    for _, elem in events:
        parent = elem.getparent()
        if parent is None or parent.getparent() is not None:  # a record tag nested inside a record: part of it
            continue
        if parent.tag != "dblp":
            raise ValueError(f"not a DBLP dump: its root is <{parent.tag}>, not <dblp>")
        entry = _entry(elem)
        if entry is None:
            skipped[elem.tag if elem.tag in OTHER_TAGS else "no title"] += 1
        else:
            yield entry
        elem.clear(keep_tail=False)
        while (previous := elem.getprevious()) is not None:  # done records, and elements no event was raised for
            if previous.tag not in PUBLICATION_TAGS + OTHER_TAGS:
                skipped[str(previous.tag)] += 1
            del parent[0]


def _entry(elem: Any) -> DblpEntry | None:
    """The record `elem` as an entry; None for one that is not a publication or has no title."""
    if elem.tag not in PUBLICATION_TAGS:
        return None
    fields: dict[str, list[str]] = {}
    for child in elem:
        tag = child.tag
        if tag not in _READ:
            continue
        # only a title holds markup (<i>, <sub>, ...); the other fields' text is the element's own
        text = " ".join(("".join(child.itertext()) if tag == "title" else child.text or "").split())
        if text:
            fields.setdefault(tag, []).append(text)
    title = _first(fields, "title")
    if title is None:
        return None
    return DblpEntry(key=elem.get("key", ""), tag=elem.tag, publtype=elem.get("publtype"),
                     authors=tuple(fields.get("author", ())), title=title, year=_first(fields, "year"),
                     booktitle=_first(fields, "booktitle"), journal=_first(fields, "journal"),
                     ee=tuple(fields.get("ee", ())))


def _first(fields: dict[str, list[str]], name: str) -> str | None:
    values = fields.get(name)
    return values[0] if values else None


__all__ = ["OTHER_TAGS", "PUBLICATION_TAGS", "DblpEntry", "iter_dblp_entries"]
