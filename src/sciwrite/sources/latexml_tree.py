r"""A LaTeXML arXiv page as a section tree: each section's own text with its citations taken out, the bibliography
keys each section cites, and the whole bibliography. `sciwrite.sources.latexml` reduces a paper to one section (its
related work, its introduction); a survey benchmark needs all of them, in their tree (`parse_paper_tree`).

The tree's levels are LaTeXML's ``ltx_chapter``, ``ltx_section``, ``ltx_subsection`` and ``ltx_subsubsection``
(`TREE_CLASSES`); a ``\paragraph`` (``ltx_paragraph``) stays text of its section, its heading a line of it.
Appendices (``ltx_appendix``) and what they hold are left out: they are not the paper's body. Sections are numbered
1, 2, ... in document order, a parent before its children; 0 is the root, which holds the text before the first
section (none in most papers; the abstract is kept apart).

A section's text is rendered as `sciwrite.sources.latexml` renders prose (maths as LaTeX, footnotes, figures and tables
left out), one line per paragraph, with every ``<cite>`` removed whole (a textual "Lee et al. (2024)" too, as a
``\cite`` command is removed from LaTeX) and the brackets or separators left around it tidied away. Each removed
``<cite>`` gives its citations, in order: the bibliography key of each link (consecutive links to one key are one
citation), or None for a ``<cite>`` without a link. Citations in the parts not rendered (footnotes, floats) are not
counted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from bs4 import NavigableString, Tag

from sciwrite.sources.latexml import (
    BibEntry,
    LatexmlParseError,
    TitleInText,
    _abstract,
    _bibliography,
    _cite_tokens,
    _classes,
    _clean,
    _document_title,
    _heading_element,
    _is_section,
    _render,
    _section_blocks,
    _section_heading,
    _soup,
)

#: The LaTeXML section classes that are levels of the tree, outermost first.
TREE_CLASSES = ("ltx_chapter", "ltx_section", "ltx_subsection", "ltx_subsubsection")
ROOT = 0

# A removed <cite> stands in the text as a private-use sentinel holding its number until the text is tidied.
_OPEN, _CLOSE = "\ue000", "\ue001"
_SENTINEL = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
_CUT = "\x00"
# Tidying the holes the removed citations leave: a run of cites and the separators between them go as one, then
# brackets holding only cites, then the spaces before.
_CUT_RUN = re.compile(r"\x00(?:[ \t]*[;,]?[ \t]*\x00)+")
_CUT_BRACKETED = re.compile(r"\([ \t]*\x00[ \t]*\)|\[[ \t]*\x00[ \t]*\]")
_CUT_BEFORE_PUNCT = re.compile(r"[ \t]*\x00[ \t]*(?=[.,;:!?)\]]|$)")
_CUT_ELSEWHERE = re.compile(r"[ \t]*\x00")


class NoSectionsError(LatexmlParseError):
    """The page has no section (``ltx_section`` or ``ltx_chapter``) outside its appendices."""


class NoBibliographyError(LatexmlParseError):
    """The page has no bibliography item (``li.ltx_bibitem``): its citations cannot be resolved."""


@dataclass(frozen=True)
class TreeSection:
    """One section: its number (1, 2, ... in document order; 0 the root), its parent's number, its depth (1 for a
    top-level section, 0 the root), its heading (without its number), its own text (not its subsections') with the
    citations taken out, and the bibliography keys its text cites in order (None: a ``<cite>`` without a link)."""

    number: int
    parent: int
    depth: int
    heading: str
    text: str
    cites: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class PaperTree:
    """A paper as a section tree: `root` (number 0, the text before the first section), `sections` in document order,
    and the bibliography entries by key, in the bibliography's order."""

    paper_id: str
    title: str
    abstract: str
    root: TreeSection
    sections: tuple[TreeSection, ...]
    bibliography: Mapping[str, BibEntry] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        """The deepest section's depth (0 for a tree with no section)."""
        return max((s.depth for s in self.sections), default=0)

    def heading_path(self, number: int) -> list[str]:
        """The headings from the top-level section down to section `number` ([] for the root)."""
        by_number = {s.number: s for s in self.sections}
        path: list[str] = []
        while number != ROOT:
            section = by_number[number]
            path.append(section.heading)
            number = section.parent
        return path[::-1]


def cite_targets(cite: Tag) -> list[str | None]:
    """The citations of one ``<cite>``: the bibliography key of each link, consecutive links to one key counted once
    ("Lee et al. (<a>2024</a>)" written with two links), or one None when it has no link."""
    targets: list[str | None] = []
    for token in _cite_tokens(cite):
        if token.is_link and not (targets and token.target is not None and token.target == targets[-1]):
            targets.append(token.target)
    return targets or [None]


def _is_cite(tag: Tag) -> bool:
    return tag.name == "cite" or "ltx_cite" in _classes(tag)


class _Cites:
    """Each ``<cite>`` replaced by a numbered sentinel, its citations kept by number."""

    def __init__(self) -> None:
        self.targets: list[list[str | None]] = []

    def replace(self, node: Tag) -> None:
        """Replace every outermost ``<cite>`` under `node` by its sentinel."""
        for cite in node.find_all(_is_cite):
            if any(isinstance(p, Tag) and _is_cite(p) for p in cite.parents):
                continue  # inside a cite replaced already
            self.targets.append(cite_targets(cite))
            cite.replace_with(NavigableString(f"{_OPEN}{len(self.targets) - 1}{_CLOSE}"))

    def take_out(self, blocks: list[str]) -> tuple[str, tuple[str | None, ...]]:
        """The blocks as one text, a line each, their cites taken out and tidied; and the citations in order."""
        cited: list[str | None] = []
        lines = []
        for block in blocks:
            cited.extend(t for m in _SENTINEL.finditer(block) for t in self.targets[int(m.group(1))])
            line = tidy(_SENTINEL.sub(_CUT, block))
            if line:
                lines.append(line)
        return "\n".join(lines), tuple(cited)


def tidy(text: str) -> str:
    """A line with its removed cites (each a NUL) taken out: a run of them with its separators as one, brackets that
    held only cites, and the spaces before each ("as shown (NUL; NUL)." -> "as shown.")."""
    text = _CUT_RUN.sub(_CUT, text)
    text = _CUT_BRACKETED.sub(_CUT, text)
    text = _CUT_BEFORE_PUNCT.sub("", text)
    return " ".join(_CUT_ELSEWHERE.sub("", text).split())


def _tree_level(tag: Tag) -> bool:
    return bool(_classes(tag) & set(TREE_CLASSES))


def _enclosing_section(tag: Tag) -> Tag | None:
    return next((p for p in tag.parents if isinstance(p, Tag) and _is_section(p)), None)


def _children(node: Tag | None, scope: Tag) -> list[Tag]:
    """The tree-level sections directly under `node` (None: the top level of `scope`, outside any section)."""
    return [tag for tag in scope.find_all(_tree_level) if _enclosing_section(tag) is node]


def _heading(node: Tag) -> str:
    """The section's heading without its number; its number where it has no heading text; else "untitled"."""
    heading = _section_heading(node)
    if heading:
        return heading
    element = _heading_element(node)
    return (_clean(_render(element)) if element is not None else "") or "untitled"


def parse_paper_tree(html: str | bytes, paper_id: str, title_in_text: TitleInText | None = None) -> PaperTree:
    """Parse a LaTeXML page into its section tree and bibliography (see the module docstring). `title_in_text` is
    `sciwrite.sources.latexml.parse_arxiv_html`'s hook for bibliography entries without a parsable title.

    Raises:
        LatexmlParseError: The input is empty or not HTML.
        NoSectionsError: The page has no section outside its appendices.
        NoBibliographyError: The page has no bibliography item.
    """
    soup = _soup(html, paper_id)
    top = _children(None, soup)
    if not top:
        raise NoSectionsError("no LaTeXML section (section.ltx_section) outside the appendices", paper_id)
    if soup.find("li", class_="ltx_bibitem") is None:
        raise NoBibliographyError("no bibliography (li.ltx_bibitem): its citations cannot be resolved", paper_id)
    bibliography = _bibliography(soup, paper_id, title_in_text)
    title, abstract = _document_title(soup), _abstract(soup)
    cites = _Cites()
    document = soup.find(class_="ltx_document")
    preamble = [c for c in document.children if isinstance(c, Tag) and "ltx_para" in _classes(c)] \
        if isinstance(document, Tag) else []
    for para in preamble:
        cites.replace(para)
    text, cited = cites.take_out([_clean(_render(para)) for para in preamble])
    root = TreeSection(ROOT, ROOT, 0, "", text, cited)
    sections: list[TreeSection] = []

    def visit(node: Tag, parent: int, depth: int) -> None:
        children = _children(node, node)
        for child in children:
            child.extract()  # the node's own text is what is left
        heading = _heading(node)
        cites.replace(node)
        text, cited = cites.take_out(_section_blocks(node))
        number = len(sections) + 1
        sections.append(TreeSection(number, parent, depth, heading, text, cited))
        for child in children:
            visit(child, number, depth + 1)

    for node in top:
        visit(node, ROOT, 1)
    return PaperTree(paper_id, title, abstract, root, tuple(sections), bibliography)


__all__ = ["ROOT", "TREE_CLASSES", "NoBibliographyError", "NoSectionsError", "PaperTree", "TreeSection",
           "cite_targets", "parse_paper_tree", "tidy"]
