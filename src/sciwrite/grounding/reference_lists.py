"""Reference lists as users have them, read for the resolver: JSON Lines (a title per line, a reference object per
line, or `sciwrite generate` prediction lines whose ``references`` list what a Direct run cited) and BibTeX
(bibtexparser). Every reference keeps where it came from (``FILE:LINE``, the paper and its number); one that cannot
be read is kept with its problem, so a bad entry is named and the others are still checked."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.middlewares import LatexDecodingMiddleware
from bibtexparser.model import Block, ParsingFailedBlock

from sciwrite.core.jsonl import decoded_lines, iter_json_lines, line_ref
from sciwrite.grounding.resolver import Reference
from sciwrite.sources.identifiers import arxiv_id_of


@dataclass(frozen=True)
class ListedReference:
    """One entry of a reference list: where it is, and the reference or why it is none.

    Attributes:
        where: ``FILE:LINE`` (and, for a prediction line, the paper and the reference's number).
        reference: The reference; None when the entry cannot be read.
        problem: Why the entry cannot be read.
    """

    where: str
    reference: Reference | None
    problem: str | None = None


def read_reference_list(path: str | Path) -> list[ListedReference]:
    """Every entry of a reference list: a ``.bib`` file (bibtexparser) or a JSON Lines file.

    A JSON Lines line is a title, a reference object (``title``, optional ``authors`` and ``year``) or a
    `sciwrite generate` prediction line whose ``references`` list what a Direct run cited. An entry that cannot be
    read is kept with its problem, so a bad entry is named and the others are still checked.

    Raises:
        FileNotFoundError: There is no such file.
        ValueError: The file holds no entry.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no reference list {path}")
    entries = _bibtex(path) if path.suffix.lower() == ".bib" else _json_lines(path)
    if not entries:
        raise ValueError(f"{path}: no reference in it (a JSON Lines file of titles or references, or a .bib file)")
    return entries


def _entry(where: str, item: Any) -> ListedReference:
    try:
        return ListedReference(where, Reference.from_record(item))
    except ValueError as err:
        return ListedReference(where, None, str(err))


def _json_lines(path: Path) -> list[ListedReference]:
    entries = []
    for number, _, value, problem in iter_json_lines(path):
        where = line_ref(path, number)
        if problem is not None:
            entries.append(ListedReference(where, None, problem))
        elif isinstance(value, dict) and "references" in value and "title" not in value:
            listed = value["references"]
            paper = f" (paper_id {value.get('paper_id')!r})" if value.get("paper_id") is not None else ""
            if not isinstance(listed, list):
                entries.append(ListedReference(where + paper, None, "field 'references' must be a list of references"))
                continue
            for k, item in enumerate(listed, start=1):
                n = item.get("n", k) if isinstance(item, dict) else k
                entries.append(_entry(f"{where}{paper} reference [{n}]", item))
        else:
            entries.append(_entry(where, value))
    return entries


@contextmanager
def _quiet_bibtexparser() -> Iterator[None]:
    """Silence bibtexparser's own warnings while it parses: each failed block is reported here instead, once, with
    1-based line numbers (its warnings count lines from 0 and span two lines)."""
    logger = logging.getLogger("bibtexparser")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _bibtex(path: Path) -> list[ListedReference]:
    # a byte that is not UTF-8 is named FILE:LINE with its offset; Windows line ends read as "\n", as text mode would
    text = "".join(decoded_lines(path)).replace("\r\n", "\n")
    with _quiet_bibtexparser():
        library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    entries = []
    for entry in library.entries:
        fields = {key.lower(): field.value for key, field in entry.fields_dict.items()}
        where = f"{_block_line(path, entry)} @{entry.entry_type}{{{entry.key}}}"
        if not fields.get("title"):
            entries.append(ListedReference(where, None, "no title field"))
            continue
        year = str(fields.get("year") or "").strip()[:4]  # "2019a", "2019--2020": the year it starts with
        entries.append(_entry(where, {"title": fields["title"], "authors": fields.get("author") or "",
                                      "year": int(year) if year.isdigit() else None,
                                      "venue": fields.get("booktitle") or fields.get("journal"),
                                      "doi": fields.get("doi"), "arxiv_id": _arxiv_eprint(fields),
                                      "entry_type": entry.entry_type.lower()}))
    entries.extend(_failed_block(path, text, block) for block in library.failed_blocks)
    return entries


def _arxiv_eprint(fields: dict[str, Any]) -> str | None:
    """The arXiv id an entry gives: its ``eprint`` when ``archiveprefix`` is arXiv (or absent and the eprint has an
    arXiv id's shape)."""
    eprint = str(fields.get("eprint") or "").strip()
    prefix = str(fields.get("archiveprefix") or fields.get("eprinttype") or "arxiv").strip().lower()
    return eprint if eprint and prefix == "arxiv" and arxiv_id_of(eprint)[0] else None


def _block_line(path: Path, block: Block) -> str:
    """``FILE:LINE`` of a parsed block (bibtexparser counts lines from 0); the file alone for a block without one
    (the parser numbers every block it reads: only a block built by hand has none)."""
    return str(path) if block.start_line is None else line_ref(path, block.start_line + 1)


def _failed_block(path: Path, text: str, block: ParsingFailedBlock) -> ListedReference:
    """A block bibtexparser could not read, named by its 1-based line (and key, when it has one), with the reason
    and where parsing of it stopped."""
    head = re.match(r"\s*@(\w+)\s*[{(]\s*([^,\s{}()]+)\s*,", block.raw or "")
    where = _block_line(path, block) + (f" @{head.group(1)}{{{head.group(2)}}}" if head else "")
    error = block.error
    reason = " ".join(str(getattr(error, "abort_reason", None) or error or "").split()) or type(error).__name__
    end = getattr(error, "end_index", None)
    stopped = ""
    if isinstance(end, int):  # the line of the character it stopped at (the end of the text: its last line)
        stopped = f" (parsing stopped at line {text.count(chr(10), 0, min(end, len(text.rstrip(chr(10))))) + 1})"
    return ListedReference(where, None, f"not a BibTeX entry: {reason[:160].rstrip(' .')}{stopped}; fix the entry")


__all__ = ["ListedReference", "read_reference_list"]
