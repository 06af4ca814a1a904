r"""SurGE's reading of a generated Markdown survey: its heading tree, its `[n]` citation markers (with their sentence
and heading) and its numbered reference list, as SurGE's evaluator reads them, with typed results.

Upstream: SurGE, Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE src/markdownParser.py (``parse_markdown``,
``parse_refs``), src/informationFuncs.py (``extract_references``, ``extract_cites_with_subtitle_and_sentence``,
``get_content_list``), src/structureFuncs.py (``get_title_list``, ``get_generate_title_structure``) and
src/rougeBleuFuncs.py (``get_content_list``, the same as informationFuncs'). Each method of `SurveyDocument` names
the function it mirrors; the tree is built exactly as ``parse_markdown`` builds it.

Where this reader differs from SurGE, and why:

* `Reference.title` is the cited work's real title: the text between ``*...*`` when there is one, else the part
  after ``(year).`` in ``[n] Authors. (year). Title.``, else all the text after ``[n]``, with trailing periods
  removed. SurGE's ``parse_refs`` keeps what its pattern (`UPSTREAM_REFERENCE`) captures: the last run of the
  characters ``[\w\s:,.-]`` on the line. A title with any other character ('?', '(', "'", '/', '&', '$', '+') is
  cut to what follows that character, or the line is dropped when it ends in one (``... Models (LLMs)``); a line
  that ends ``*Title*.`` gives "." (the Naive baseline's format). `Reference.upstream_title` keeps SurGE's value
  (None where its pattern does not match) and `SurveyDocument.upstream_references` rebuilds ``parse_refs``'s dict,
  so SurGE's numbers can be reproduced.
* `SurveyDocument.markers` with ``upstream=True`` is SurGE's ``[n]`` reading: one marker per ``[digits]``, the
  numbered lines of a reference list included (they lie in a heading's content), and no marker in any heading whose
  title contains "root" (SurGE's test for the root is a substring test, so "Root Causes" loses its markers too).
  ``upstream=False`` also reads grouped markers (``[1, 2]``, ``[1; 2]``, ``[1-3]``, ``[1, 3-5]``, which SurGE's
  ``\[(\d+)\]`` does not see), leaves out the reference list's own ``[n]`` lines and excludes only the document
  root.
* Nothing raises: a marker or reference number of over 4,300 digits (Python's int() refuses it, where SurGE
  raises) is skipped, deep nesting is walked without recursion (SurGE's recursive functions stop near 1,000
  levels), and sentences are found by bisection over the periods, so a dense text stays linear.

Lines are split as SurGE's ``open(..., encoding='utf-8').readlines()`` splits them: at "\n", "\r\n" and "\r", a
final newline ending the last line rather than opening an empty one. A byte-order mark is kept, as SurGE keeps it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from sciwrite.sources.markers import MARKER_GROUP, group_spans

#: A heading line (after trailing whitespace is removed): level = the number of '#'. SurGE's ``header_pattern``
#: (oneal2000/SurGE src/markdownParser.py, ``parse_markdown``), verbatim.
HEADER = re.compile(r"^(#+)\s+(.*)")

#: SurGE's reference-line pattern (oneal2000/SurGE src/markdownParser.py, ``parse_refs``), verbatim, applied to a
#: stripped line that starts with '['. Kept as the definition `upstream_reference_title` computes: run directly it
#: backtracks quadratically on a long line, so the reader uses the linear equivalent (tests check they agree).
UPSTREAM_REFERENCE = re.compile(r"^\[(\d+)\]\s*(?:.*?\*?([\w\s:,.-]+)\*?$|([\w\s:,.-]+)$)")

#: SurGE's marker pattern (oneal2000/SurGE src/informationFuncs.py, ``extract_references``), verbatim.
UPSTREAM_MARKER = re.compile(r"\[(\d+)\]")

#: SurGE's exclusions by title (``"root" not in title and "Abstract:" not in title``), as substrings.
UPSTREAM_EXCLUDED = ("root", "Abstract:")

#: ``get_title_list`` keeps each title's first 512 characters.
TITLE_CHARS = 512

#: ``get_content_list`` keeps a node's content from 100 characters on.
MIN_PARAGRAPH_CHARS = 100

_REFERENCE_START = re.compile(r"\[(\d+)\]\s*")
_TITLE_RUN = re.compile(r"[\w\s:,.-]*")  # the characters SurGE's reference pattern allows in a title
_EMPHASIS = re.compile(r"\*+([^*]+)\*+")
_QUOTED = re.compile(r"[,.:;]\s+[\"\u201c]([^\"\u201c\u201d]+)[\"\u201d]")
#: A quoted span after the authors' punctuation (``Lin et al., "Title,"``, ``Chen and Li. "Title."``) is the title,
#: from this many characters and two words on; a quoted phrase inside a title (``Using "annotator rationales" to
#: ...``) follows no such punctuation and is not.
MIN_QUOTED_TITLE = 10
_YEAR = re.compile(r"\((?:\d{4}[a-z]?|n\.\s?d\.?)\)\.?\s*")
_PERIOD = re.compile(r"\.")


@dataclass(frozen=True)
class Heading:
    """One node of the heading tree: its title and level (the number of '#'; the root is level 0, titled "root"),
    its content lines (every non-heading line up to the next heading, trailing whitespace removed) and its children
    in document order."""

    title: str
    level: int
    content: tuple[str, ...] = ()
    children: tuple[Heading, ...] = ()

    @property
    def text(self) -> str:
        r"""The content lines joined by "\n", as SurGE joins them."""
        return "\n".join(self.content)


@dataclass(frozen=True)
class CitationMarker:
    """A citation marker: its number, the sentence around it (from the previous '.' to the next, stripped, as
    SurGE's ``extract_references`` cuts it) and the title of the heading it stands under."""

    number: int
    sentence: str
    heading: str


@dataclass(frozen=True)
class Reference:
    """A numbered reference line: ``number``, the cited work's ``title`` as this reader reads it, ``raw`` (the
    stripped line), ``upstream_title`` (what SurGE's ``parse_refs`` keeps, or None where its pattern does not
    match) and ``line`` (1-based line number in the survey)."""

    number: int
    title: str
    raw: str
    upstream_title: str | None
    line: int


@dataclass(frozen=True)
class SurveyDocument:
    """A parsed survey: the heading tree under `root`, the numbered reference lines in document order
    (`reference_entries`) and by number (`references`; a number written twice keeps its last line, as SurGE's dict
    does). Markers are read from the tree by `markers`, SurGE's way or with grouped markers."""

    root: Heading
    reference_entries: tuple[Reference, ...] = ()
    references: Mapping[int, Reference] = field(default_factory=lambda: MappingProxyType({}))

    def walk(self) -> Iterator[tuple[Heading, int]]:
        """Every node with its depth (root 0, its children 1...), in pre-order: the order of SurGE's recursions."""
        stack = [(self.root, 0)]
        while stack:
            node, depth = stack.pop()
            yield node, depth
            stack.extend((child, depth + 1) for child in reversed(node.children))

    def headings(self) -> tuple[Heading, ...]:
        """Every heading but the root, in document order."""
        return tuple(node for node, depth in self.walk() if depth)

    def heading_titles(self) -> list[str]:
        """The headings' titles in document order, each cut to 512 characters, without the root and any title
        containing "root" or "Abstract:": SurGE's ``get_title_list`` (src/structureFuncs.py)."""
        return [node.title[:TITLE_CHARS] for node, _ in self.walk() if not _upstream_excluded(node.title)]

    def outline(self, root_level: int = 1) -> str:
        """The heading outline SurGE's structure judge reads: a line ``'#' * level + ' ' + title`` per heading, the
        root at `root_level` (SurGE passes 1, so the root's children are written ``##``), each level below one
        more, whatever its own '#' count; the same exclusions as `heading_titles`, whose children still count the
        level. SurGE's ``get_generate_title_structure(root, 1)`` (src/structureFuncs.py)."""
        return "".join("#" * (root_level + depth) + " " + node.title + "\n"
                       for node, depth in self.walk() if not _upstream_excluded(node.title))

    def paragraphs(self, min_chars: int = MIN_PARAGRAPH_CHARS) -> list[str]:
        r"""Each node's content joined by "\n" (the root's and the "Abstract:" headings' included), kept from
        `min_chars` characters on, in pre-order: SurGE's ``get_content_list`` (src/rougeBleuFuncs.py and
        src/informationFuncs.py), the passages ROUGE/BLEU and the logic judge read."""
        return [text for node, _ in self.walk() if len(text := node.text) >= min_chars]

    def markers(self, upstream: bool = True) -> list[CitationMarker]:
        """The citation markers in document order.

        ``upstream=True`` is SurGE's ``extract_cites_with_subtitle_and_sentence`` (src/informationFuncs.py): every
        ``[digits]`` in the joined content of each node whose title contains neither "root" nor "Abstract:", the
        numbered lines of a reference list included. ``upstream=False`` reads ``[1, 2]``, ``[1; 2]``, ``[1-3]`` too
        (a range wider than 100, or descending, gives its two ends), skips the lines of the reference list
        (stripped lines opening with ``[n]``) and excludes only the root and "Abstract:" headings. Either way a
        marker's sentence runs from the '.' before it to the '.' after it."""
        found: list[CitationMarker] = []
        for node, depth in self.walk():
            if _upstream_excluded(node.title) if upstream else (depth == 0 or "Abstract:" in node.title):
                continue
            text = node.text
            if "[" in text:
                found.extend(_upstream_markers(text, node.title) if upstream else _grouped_markers(node, text))
        return found

    def cited_numbers(self, upstream: bool = True) -> list[int]:
        """The distinct numbers of `markers` (same `upstream` switch), in order of first appearance."""
        return list(dict.fromkeys(marker.number for marker in self.markers(upstream)))

    def upstream_references(self) -> dict[int, str]:
        """Reference number -> title as SurGE's ``parse_refs`` (src/markdownParser.py) returns it: only lines its
        pattern matches, a number written twice keeping its last such line."""
        return {ref.number: ref.upstream_title for ref in self.reference_entries if ref.upstream_title is not None}


def _upstream_excluded(title: str) -> bool:
    return any(word in title for word in UPSTREAM_EXCLUDED)


class _Sentences:
    """SurGE's sentence around a position: ``text[text.rfind('.', 0, pos) + 1 : text.find('.', pos)].strip()``
    (the end is the text's end when no '.' follows), by bisection over the periods; one string per span, shared by
    the markers in it, so that a text without periods and with many markers stays linear in memory."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.periods = [m.start() for m in _PERIOD.finditer(text)]
        self.cache: dict[int, str] = {}

    def at(self, pos: int) -> str:
        i = bisect_left(self.periods, pos)  # periods[:i] lie before pos
        if i not in self.cache:
            start = self.periods[i - 1] + 1 if i else 0
            end = self.periods[i] if i < len(self.periods) else len(self.text)
            self.cache[i] = self.text[start:end].strip()
        return self.cache[i]


def _upstream_markers(text: str, title: str) -> Iterator[CitationMarker]:
    """SurGE's ``extract_references`` on one node's text, its markers labelled with `title`."""
    sentences = _Sentences(text)
    for match in UPSTREAM_MARKER.finditer(text):
        try:
            number = int(match.group(1))
        except ValueError:  # over 4,300 digits: Python refuses the int (SurGE raises)
            continue
        yield CitationMarker(number, sentences.at(match.start()), title)


def _grouped_markers(node: Heading, text: str) -> Iterator[CitationMarker]:
    """Markers with groups and ranges expanded (`sciwrite.sources.markers`), outside the reference-list lines."""
    sentences = _Sentences(text)
    skipped: list[tuple[int, int]] = []  # (start, end) offsets of the reference-list lines in `text`
    offset = 0
    for line in node.content:
        if _REFERENCE_START.match(line.strip()):
            skipped.append((offset, offset + len(line)))
        offset += len(line) + 1
    starts = [start for start, _ in skipped]
    for match in MARKER_GROUP.finditer(text):
        i = bisect_right(starts, match.start()) - 1
        if i >= 0 and match.start() < skipped[i][1]:
            continue
        sentence = sentences.at(match.start())
        for lo, hi in group_spans(match.group(1)):
            for number in range(lo, hi + 1):
                yield CitationMarker(number, sentence, node.title)


def upstream_reference_title(line: str) -> str | None:
    r"""What SurGE's ``parse_refs`` keeps for `line` (one line, stripped as parse_refs strips it): group 2 (or 3) of `UPSTREAM_REFERENCE`, stripped,
    or None where the pattern does not match.

    Computed in linear time. The pattern's first branch, ``.*?\*?([\w\s:,.-]+)\*?$``, matches once the line,
    less one final '*', ends in a non-empty run of allowed characters; the lazy prefix makes the capture that whole
    run. The second branch matches only where the first already has, so it never captures.
    """
    head = UPSTREAM_MARKER.match(line)  # "[digits]" at the start; the spaces after it may end the capture
    if head is None:
        return None
    rest = line[head.end():]
    body = rest[:-1] if rest.endswith("*") else rest
    run = _TITLE_RUN.match(body[::-1])
    length = run.end() if run else 0
    return body[len(body) - length:].strip() if length else None


def reference_title(rest: str) -> str:
    """The cited work's title in what follows ``[n]`` on a reference line: the first double-quoted span that follows
    the authors' punctuation (IEEE style, ``Authors, "Title," *Journal*``: the italics there are the venue), else the first ``*...*`` span (APA,
    ``Authors. (year). *Title*``), else the part after ``(year).`` (or ``(n.d.).``), else the whole; stripped,
    trailing periods and commas removed."""
    quoted = _QUOTED.search(rest)
    emphasis = _EMPHASIS.search(rest)
    if quoted and " " in quoted.group(1).strip(" ,.") and len(quoted.group(1)) >= MIN_QUOTED_TITLE:
        title = quoted.group(1)
    elif emphasis and emphasis.group(1).strip():
        title = emphasis.group(1)
    else:
        year = _YEAR.search(rest)
        title = rest[year.end():] if year and rest[year.end():].strip() else rest
    return title.strip().rstrip(".,").strip()


def _reference(stripped: str, line: int) -> Reference | None:
    head = _REFERENCE_START.match(stripped)
    if head is None:
        return None
    try:
        number = int(head.group(1))
    except ValueError:  # over 4,300 digits
        return None
    return Reference(number, reference_title(stripped[head.end():]), stripped, upstream_reference_title(stripped),
                     line)


def split_lines(text: str) -> list[str]:
    """`text`'s lines as ``readlines()`` in text mode gives them (universal newlines), without their newline."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":  # a final newline ends the last line; an empty text has no line
        lines.pop()
    return lines


class _Node:
    __slots__ = ("title", "level", "content", "children")

    def __init__(self, title: str, level: int) -> None:
        self.title, self.level = title, level
        self.content: list[str] = []
        self.children: list[_Node] = []


def parse_survey(text: str) -> SurveyDocument:
    r"""Parse a generated survey as SurGE's ``parse_markdown`` and ``parse_refs`` read it.

    A line matching ``^(#+)\s+(.*)`` (after trailing whitespace is removed) opens a heading of level = its number
    of '#', under the nearest open heading of a lower level; any other line (reference lines included) is content of
    the heading open above it, the root's before the first heading. A stripped line opening with ``[n]`` is also a
    reference. Never raises; an empty text gives a root with no content and no references.
    """
    root = _Node("root", 0)
    order = [root]  # creation order is pre-order: a heading's subtree is contiguous and follows it
    stack = [root]
    current = root
    entries: list[Reference] = []
    for number, raw in enumerate(split_lines(text), start=1):
        line = raw.rstrip()
        match = HEADER.match(line)
        if match:
            level = len(match.group(1))
            node = _Node(match.group(2), level)
            while stack and stack[-1].level >= level:  # the root (level 0) is never popped
                stack.pop()
            stack[-1].children.append(node)
            stack.append(node)
            order.append(node)
            current = node
        else:
            current.content.append(line)
        stripped = raw.strip()
        if stripped.startswith("[") and (reference := _reference(stripped, number)) is not None:
            entries.append(reference)
    return SurveyDocument(_freeze(order), tuple(entries),
                          MappingProxyType({reference.number: reference for reference in entries}))


def _freeze(order: list[_Node]) -> Heading:
    """The frozen tree, built bottom-up without recursion (`order` is pre-order, so children follow parents)."""
    frozen: dict[int, Heading] = {}
    for node in reversed(order):
        frozen[id(node)] = Heading(node.title, node.level, tuple(node.content),
                                   tuple(frozen[id(child)] for child in node.children))
    return frozen[id(order[0])]


__all__ = ["CitationMarker", "HEADER", "Heading", "MIN_PARAGRAPH_CHARS", "parse_survey", "Reference",
           "reference_title", "split_lines", "SurveyDocument", "TITLE_CHARS", "UPSTREAM_EXCLUDED", "UPSTREAM_MARKER",
           "UPSTREAM_REFERENCE", "upstream_reference_title"]
