"""Parse arXiv HTML pages produced by LaTeXML (arxiv.org/html): into a related-work record for RWGBench
(`parse_arxiv_html`), or into an introduction and the works it cites for SciIG (`parse_arxiv_introduction`).

The related-work section is located by its heading (never by its number), its text is rendered as
plain text, and every citation in it is resolved to the bibliography entry it links to and replaced
by a numeric marker ``[k]`` (1-based into ``ParsedArxivPaper.cited``). Citations that cannot be
resolved (no link, link to a missing bib item, bib item without a parsable title) keep their visible
text and are reported in ``ParsedArxivPaper.unresolved``, so that the extraction rate is honest.

Structure relied upon (LaTeXML 0.8.x, as served on arxiv.org/html):

* top-level sections ``<section class="ltx_section">`` with a heading ``h2.ltx_title`` whose number
  sits in ``span.ltx_tag``; nested ``ltx_subsection`` / ``ltx_subsubsection`` / ``ltx_paragraph``;
  appendices ``ltx_appendix``;
* paragraphs ``div.ltx_para > p.ltx_p``; maths ``<math alttext=...>``; footnotes ``.ltx_note``;
* citations ``<cite class="ltx_cite">`` holding one or more ``<a href="#bib.bibN">`` (the href may
  be absolute, e.g. ``https://arxiv.org/html/2401.00001v1#bib.bib3``);
* bibliography ``li.ltx_bibitem#bib.bibN`` with ``span.ltx_tag_bibitem`` and ``span.ltx_bibblock``s
  (natbib / plain styles: authors [+ year], title, venue), or a single block written by hand
  (IEEE quoted titles, initials-first, full-name, LNCS, APA and Vancouver author lists, "et al.").
  An entry with no parsable title can still resolve through a ``title_in_text`` hook (a corpus title
  found inside its text, see ``parse_arxiv_html``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import CData, Comment, Declaration, Doctype, ProcessingInstruction

from sciwrite.sources.headings import RELATED_WORK_HEADINGS, is_introduction_heading, is_related_work_heading
from sciwrite.sources.markers import merge_adjacent_markers, neutralize_markers

__all__ = [
    "RELATED_WORK_HEADINGS",
    "BibEntry",
    "LatexmlParseError",
    "MissingIntroductionError",
    "MissingRelatedWorkError",
    "ParsedArxivPaper",
    "ParsedIntroduction",
    "UnresolvedCitation",
    "is_related_work_heading",
    "parse_arxiv_html",
    "parse_arxiv_html_file",
    "parse_arxiv_introduction",
    "parse_bib_entry",
]


# --------------------------------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------------------------------


@dataclass
class BibEntry:
    """One bibliography item (``li.ltx_bibitem``) with its best-effort parsed fields.

    `title_source` says where the title came from: "blocks" (the title block of a multi-block entry),
    "single_block" (parsed out of an entry written as one block), "text_match" (no title could be
    parsed; a corpus title was found inside the entry's text, see `parse_arxiv_html`) or "" (no title).
    """

    key: str
    title: str | None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    raw: str = ""
    title_source: str = field(default="", compare=False)
    label: str = field(default="", compare=False)  # the entry's tag as the paper prints it: "Li et al. (2022)"


@dataclass
class UnresolvedCitation:
    """A citation in the related-work section that could not be mapped to a titled bib entry.

    reason: "no-link" (the cite has no bibliography link), "missing-bib-entry" (the link points to
    an id that is not in the bibliography) or "no-title" (the bib entry has no parsable title).
    """

    text: str
    target: str | None
    reason: str


@dataclass
class ParsedArxivPaper:
    """A LaTeXML paper reduced to what a related-work generation benchmark needs."""

    paper_id: str
    title: str
    abstract: str
    introduction: str
    sections: list[tuple[str, str]]
    related_work_heading: str
    related_work: str
    cited: list[BibEntry]
    n_citations: int
    unresolved: list[UnresolvedCitation]

    @property
    def extraction_rate(self) -> float:
        """Share of related-work citations resolved to a titled bib entry (1.0 when there are none)."""
        if self.n_citations == 0:
            return 1.0
        return (self.n_citations - len(self.unresolved)) / self.n_citations


class LatexmlParseError(ValueError):
    """The input is not usable LaTeXML HTML (empty, not HTML, no sections, no bibliography)."""

    def __init__(self, message: str, paper_id: str = "") -> None:
        self.paper_id = paper_id
        self.detail = message
        super().__init__(f"{paper_id}: {message}" if paper_id else message)

    def __reduce__(self):  # keep paper_id (and subclass fields) when pickled across processes
        return (self.__class__, (self.detail, self.paper_id))


class MissingRelatedWorkError(LatexmlParseError):
    """No section or subsection heading of the paper looks like a related-work heading."""

    def __init__(self, message: str, paper_id: str = "", headings: Iterable[str] = ()) -> None:
        self.headings = list(headings)
        super().__init__(message, paper_id)

    def __reduce__(self):
        return (self.__class__, (self.detail, self.paper_id, self.headings))


# --------------------------------------------------------------------------------------------------
# Plain-text rendering
# --------------------------------------------------------------------------------------------------

_SKIP_CLASSES = frozenset(
    {
        "ltx_note",  # footnotes, their marks and contents
        "ltx_figure",
        "ltx_table",
        "ltx_float",
        "ltx_flex_figure",
        "ltx_tabular",
        "ltx_ERROR",  # undefined-macro leftovers such as "\aclfinalcopy"
        "ltx_tag_equation",
        "ltx_pagination",
        "ltx_page_footer",
    }
)
_SKIP_TAGS = frozenset({"figure", "script", "style", "noscript", "svg", "img", "head", "template"})
_EQUATION_CLASSES = frozenset({"ltx_equation", "ltx_equationgroup", "ltx_eqn_table"})
_BLOCK_TAGS = frozenset({"p", "div", "li", "ul", "ol", "dl", "dd", "dt", "td", "th", "tr", "table",
                         "tbody", "thead", "section", "article", "blockquote", "h1", "h2", "h3",
                         "h4", "h5", "h6", "caption", "figcaption"})
_SECTION_CLASSES = frozenset({"ltx_section", "ltx_subsection", "ltx_subsubsection", "ltx_paragraph",
                              "ltx_subparagraph", "ltx_appendix", "ltx_chapter"})
_SUBSECTION_CLASSES = ["ltx_subsection", "ltx_subsubsection", "ltx_paragraph", "ltx_subparagraph"]
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_IGNORED_STRINGS = (Comment, CData, ProcessingInstruction, Declaration, Doctype)

CiteHook = Callable[[Tag], str]
# Given a bibliography entry's text, a title found inside it (or None).
TitleInText = Callable[[str], str | None]


def _classes(tag: Tag) -> set[str]:
    value = tag.get("class")
    if not value:
        return set()
    return set(value.split() if isinstance(value, str) else value)


def _is_skipped(tag: Tag, extra_skip: frozenset[str] = frozenset()) -> bool:
    """Elements whose text never belongs to running prose: footnotes, floats, tables, scripts."""
    if tag.name in _SKIP_TAGS:
        return True
    classes = _classes(tag)
    if tag.name == "table" and not classes & _EQUATION_CLASSES:
        return True
    return bool(classes & _SKIP_CLASSES or classes & extra_skip)


def _math_text(tag: Tag) -> str:
    """A <math> element as its LaTeX source (alttext), or nothing when no source is given."""
    alt = tag.get("alttext")
    if isinstance(alt, str) and alt.strip():
        return alt.strip()
    annotation = tag.find("annotation", attrs={"encoding": "application/x-tex"})
    return annotation.get_text().strip() if annotation is not None else ""


def _render(node: Tag | NavigableString, cite_hook: CiteHook | None = None,
            extra_skip: frozenset[str] = frozenset()) -> str:
    """Concatenated visible text of `node` (not whitespace-collapsed); iterative to survive deep trees.

    Maths become their alttext, footnotes / floats / tables are dropped, and each <cite> is handed
    to `cite_hook` when one is given (so the related-work renderer can substitute markers); the other
    text then has its bracketed numbers neutralised, so that only the hook's markers read as markers.
    """
    keep = neutralize_markers if cite_hook is not None else str
    out: list[str] = []
    stack: list[tuple[bool, object]] = [(False, node)]  # (is_literal, item)
    while stack:
        literal, item = stack.pop()
        if literal:
            out.append(item)  # type: ignore[arg-type]
            continue
        if isinstance(item, NavigableString):
            if not isinstance(item, _IGNORED_STRINGS):
                out.append(keep(str(item)))
            continue
        if not isinstance(item, Tag) or _is_skipped(item, extra_skip):
            continue
        if item.name == "math":
            out.append(keep(_math_text(item)))
            continue
        if item.name == "br":
            out.append(" ")
            continue
        if cite_hook is not None and (item.name == "cite" or "ltx_cite" in _classes(item)):
            out.append(cite_hook(item))
            continue
        block = item.name in _BLOCK_TAGS
        if block:
            stack.append((True, " "))
        stack.extend((False, child) for child in reversed(item.contents))
        if block:
            stack.append((True, " "))
    return "".join(out)


_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])(?=\s|$)")


def _clean(text: str) -> str:
    """Collapse whitespace and drop spaces left in front of punctuation by removed elements."""
    text = " ".join(text.split())
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text)


def _heading_element(section: Tag) -> Tag | None:
    for child in section.children:
        if isinstance(child, Tag) and (child.name in _HEADING_TAGS or "ltx_title" in _classes(child)):
            return child
    return None


_TAGLESS_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.(?:\d+(?:\.\d+)*\.?)?|[A-Z](?:\.\d+)+\.?)\s+")


def _section_heading(section: Tag) -> str:
    """The section's heading text without its number tag ('7 Related work' -> 'Related work')."""
    heading = _heading_element(section)
    if heading is None:
        return ""
    has_tag = heading.find(class_="ltx_tag") is not None
    text = _clean(_render(heading, extra_skip=frozenset({"ltx_tag"})))
    if not has_tag:
        text = _TAGLESS_NUMBER.sub("", text)
    return text.strip()


def _is_section(tag: Tag) -> bool:
    return bool(_classes(tag) & _SECTION_CLASSES)


def _section_blocks(root: Tag, cite_hook: CiteHook | None = None) -> list[str]:
    """Paragraph texts of `root` in document order; nested section headings become their own block.

    The root's own heading is left out. Each block is whitespace-collapsed and, when markers were
    substituted, has adjacent markers merged ("[1] [2]" -> "[1, 2]").
    """
    blocks: list[str] = []

    def emit(text: str) -> None:
        text = _clean(text)
        if cite_hook is not None:
            text = merge_adjacent_markers(text)
        if text:
            blocks.append(text)

    def walk(container: Tag) -> None:
        for child in container.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, _IGNORED_STRINGS):
                    emit(str(child))
                continue
            if not isinstance(child, Tag) or _is_skipped(child):
                continue
            classes = _classes(child)
            if child.name in _HEADING_TAGS or "ltx_title" in classes:
                continue  # the container's own heading; nested headings are emitted below
            if _is_section(child):
                emit(_section_heading(child))
                walk(child)
            elif "ltx_para" in classes or child.name == "p" or (
                child.find(class_="ltx_para") is None and child.find(class_=list(_SECTION_CLASSES)) is None
            ):
                emit(_render(child, cite_hook))
            else:
                walk(child)

    walk(root)
    return blocks


def _section_text(root: Tag, cite_hook: CiteHook | None = None) -> str:
    return "\n\n".join(_section_blocks(root, cite_hook))


# --------------------------------------------------------------------------------------------------
# Bibliography entries
# --------------------------------------------------------------------------------------------------

# A publication year: 19xx/20xx, optionally with a disambiguation letter (2020a), not part of an
# identifier such as "abs/2004.05150", a DOI or a URL.
_YEAR = re.compile(r"(?<![\w./:-])((?:19|20)\d{2})[a-z]?(?![\w/]|\.\d)")
# "... 2019. Title ..." / "... (2019). Title ..." in a single-block entry.
_YEAR_THEN_TITLE = re.compile(r"(?<![\w./:-])((?:19|20)\d{2})[a-z]?\)?[.,:]\s+")
_QUOTED_TITLE = re.compile(r"[“\"«]\s*(.{6,}?)\s*[”\"»]")
_TITLE_END = re.compile(r"[?!](?=\s|$)|(?<!\b[A-Z])\.(?=\s|$)")
_INITIALS = re.compile(r"(?:[A-Z]\.?[\s-]*)+")
_NOT_TITLE = re.compile(
    r"^(?:https?://|www\.|doi:|doi\.org|arxiv:\s*\d|url\b|isbn\b|available\b|retrieved\b|accessed\b"
    r"|in (?:proc\b|proceedings\b|advances in\b)|(?:arxiv )?preprint\b|technical report\b)",
    re.IGNORECASE,
)
_QUOTES = "“”\"‘’'«»"


def _clean_title(text: str) -> str:
    """Strip whitespace, trailing periods/commas and enclosing quotes from a title candidate."""
    title = " ".join(text.split())
    for _ in range(3):
        title = title.strip().rstrip(".,;:").strip()
        if len(title) > 1 and title[0] in _QUOTES and title[-1] in _QUOTES and not any(
            q in title[1:-1] for q in _QUOTES if q != "'"
        ):
            title = title[1:-1]
    return title.strip()


def _looks_like_title(title: str | None) -> bool:
    """Reject URLs, DOIs, arXiv ids, venue lines and fragments too short to be a title."""
    if not title:
        return False
    if sum(ch.isalpha() for ch in title) < 4:
        return False
    if "://" in title or _NOT_TITLE.match(title):
        return False
    return not re.fullmatch(r"(?:arxiv:?\s*)?(?:abs/)?[\d.]+(?:v\d+)?", title, re.IGNORECASE)


def _years(text: str) -> list[int]:
    return [int(m.group(1)) for m in _YEAR.finditer(text)]


def _split_authors(text: str) -> list[str]:
    """Best-effort author names from an author block ('A B, C D, and E F. 2018.')."""
    match = _YEAR.search(text)
    if match:
        text = text[: match.start()]
    text = re.sub(r"\bet al\b\.?", "", text)
    text = re.sub(r"[“”\"«»]", "", text)
    text = text.strip().rstrip("(.,;: ").strip()
    if not text:
        return []
    parts = [p.strip(" .,;") for p in re.split(r",?\s+and\s+|\s*&\s*|;\s*|,\s*", text)]
    authors: list[str] = []
    for part in parts:
        if not part:
            continue
        # "Smith, J." written surname-first: the initials piece belongs to the previous surname.
        if authors and _INITIALS.fullmatch(part) and " " not in authors[-1] and not _INITIALS.fullmatch(
            authors[-1]
        ):
            authors[-1] = f"{authors[-1]}, {part}"
        else:
            authors.append(part)
    return authors


# Author lists of single-block entries. A list is names of one style joined by ", ", " and ", " & ",
# optionally closed by "et al.", and must be followed by "." or ":" (possibly after a year), or itself
# end with a period (a final initial, "et al."). Styles:
#   initials first   "A. Author, J.-P. van der Berg, and C. D. Author."
#   full names       "Ramy Baly, Karen A. Robinson and Aidan N Gomez." / APA-like "Smith and Jones (2020)."
#   surname, initials "Smith, J., Doe, A.:" (Springer/LNCS), "Smith, J. and Doe, A. 2019." / "& Doe, A. (2020)."
#   Vancouver        "Smith J, Doe AB."
_UP = r"[A-ZÀ-ÖØ-ÞĆČĐŁŃŚŠŹŻŽ]"
_NAME_END = r"(?![\w'’-])"
_WORD = rf"{_UP}[a-zà-ÿ'’-][\w'’-]*{_NAME_END}"  # a capitalised name word: "Smith", "O'Neil", not "DP"
_PARTICLE = r"(?:van|von|der|den|de|del|della|da|di|du|la|le|dos|das|ten|ter|bin|ibn|al|el)"
_SURNAME = rf"(?:{_PARTICLE}\s+)*{_WORD}"
_INITIAL = rf"{_UP}h?\."  # "J.", "Ch.", "Th." (not "Ba.", "Li.": surnames end author lists)
_INITIAL_RUN = rf"{_INITIAL}(?:[\s-]*{_INITIAL})*"  # one quantifier between initials: no backtracking blow-up
_NAME_STYLES = {
    "initials_first": rf"{_INITIAL_RUN}\s*{_SURNAME}(?:\s+{_WORD})?",
    "surname_initials": rf"{_SURNAME},\s*{_INITIAL_RUN}",
    "vancouver": rf"{_SURNAME}(?:\s+{_WORD})?\s+{_UP}{{1,3}}(?![\w'’-])",
    "full_names": rf"{_WORD}(?:\s+(?:{_INITIAL}|{_UP}(?=\s+{_UP})|{_PARTICLE}{_NAME_END}|{_WORD})){{0,3}}",
}
_AUTHOR_SEP = r"(?:\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*)"
_ET_AL = r"(?:,?\s*et\s+al\.?)"
_AUTHOR_LISTS = {
    style: re.compile(rf"\s*(?:{name})(?:{_AUTHOR_SEP}(?:{name}))*{_ET_AL}?") for style, name in _NAME_STYLES.items()
}
# What may follow the author list before the title: an optional year, then "." or ":" (needed unless
# the list ends with a period), then an optional "2019." sentence.
_AFTER_AUTHORS = re.compile(
    r"\s*(?:,?\s*\(?(?P<year>(?:19|20)\d{2})[a-z]?\)?)?\s*(?P<sep>[.:])?\s+"
    r"(?:\(?(?P<year2>(?:19|20)\d{2})[a-z]?\)?[.,:]\s+)?"
)


def _title_after_authors(text: str) -> tuple[str, int | None, str] | None:
    """(title, year or None, author text) when `text` opens with an author list of a known style.

    The longest author list of any style that is properly closed wins; the title is the sentence
    after it (up to ". ", or including a closing "?" / "!").
    """
    found: list[tuple[int, str]] = []
    for style, pattern in _AUTHOR_LISTS.items():
        match = pattern.match(text)
        if match:
            found.append((match.end(), style))
    for end, _style in sorted(found, key=lambda f: -f[0]):
        tail = _AFTER_AUTHORS.match(text, end)
        if tail is None or not (tail.group("sep") or text[:end].endswith(".")):
            continue
        rest = text[tail.end():]
        stop = _TITLE_END.search(rest)
        if stop is None:
            candidate = rest
        else:
            candidate = rest[: stop.end() if stop.group(0) in "?!" else stop.start()]
        title = _clean_title(candidate)
        if _looks_like_title(title):
            year_text = tail.group("year") or tail.group("year2")
            year = int(year_text) if year_text else next(iter(_years(rest[len(candidate):])[-1:]), None)
            return title, year, text[:end]
    return None


def _title_from_single_block(text: str) -> tuple[str | None, int | None, str]:
    """(title, year, author text) from an entry whose blocks are not separated.

    A quoted title (IEEE style) wins; then the sentence after an author list of a known style
    (`_title_after_authors`); then the text after "YEAR." up to the next sentence end (author-year
    style). No title is returned rather than a guess.
    """
    quoted = _QUOTED_TITLE.search(text)
    if quoted:
        title = _clean_title(quoted.group(1))
        if _looks_like_title(title):
            years = _years(text[: quoted.start()] + " " + text[quoted.end():])
            return title, (years[-1] if years else None), text[: quoted.start()]
    after_authors = _title_after_authors(text)
    if after_authors is not None:
        return after_authors
    year_match = _YEAR_THEN_TITLE.search(text)
    if year_match:
        rest = text[year_match.end():]
        end = _TITLE_END.search(rest)
        candidate = rest[: end.end() if end and end.group(0) in "?!" else (end.start() if end else len(rest))]
        title = _clean_title(candidate)
        return (title if _looks_like_title(title) else None), int(year_match.group(1)), text[: year_match.start()]
    years = _years(text)
    return None, (years[-1] if years else None), ""


def parse_bib_entry(li_element_or_html: Tag | str) -> BibEntry:
    """Parse one ``li.ltx_bibitem`` (a bs4 Tag, or HTML holding one) into a BibEntry.

    Multi-block entries: block 1 = authors (+ year), block 2 = title. Single-block entries use a
    text heuristic. The title is None when no plausible title is present (e.g. a URL-only entry).
    """
    li: Tag | None
    if isinstance(li_element_or_html, Tag):
        li = li_element_or_html
    elif isinstance(li_element_or_html, (str, bytes)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            soup = BeautifulSoup(li_element_or_html, "lxml")
        li = soup.find("li", class_="ltx_bibitem") or soup.find(class_="ltx_bibitem")
    else:
        raise LatexmlParseError(f"expected a bs4 Tag or HTML string, got {type(li_element_or_html).__name__}")
    if li is None:
        raise LatexmlParseError("no li.ltx_bibitem element in the given HTML")

    id_value = li.get("id")
    key = id_value if isinstance(id_value, str) else ""
    tag_el = li.find(class_="ltx_tag_bibitem")
    tag_text = _clean(_render(tag_el)) if tag_el is not None else ""
    raw = _clean(_render(li))
    blocks = [b for b in (_clean(_render(el)) for el in li.find_all(class_="ltx_bibblock")) if b]
    if not blocks:
        body = _clean(_render(li, extra_skip=frozenset({"ltx_tag_bibitem"})))
        blocks = [body] if body else []

    title: str | None = None
    year: int | None = None
    authors: list[str] = []
    source = ""
    if len(blocks) >= 2:
        candidate = _clean_title(blocks[1])
        title = candidate if _looks_like_title(candidate) else None
        authors = _split_authors(blocks[0])
        years = _years(blocks[0]) or _years(tag_text) or _years(" ".join(blocks[2:]))
        year = years[-1] if years else None
        source = "blocks"
    elif blocks:
        title, year, author_text = _title_from_single_block(blocks[0])
        authors = _split_authors(author_text) if author_text else []
        if year is None:
            years = _years(tag_text)
            year = years[-1] if years else None
        source = "single_block"
    return BibEntry(key=key, title=title, authors=authors, year=year, raw=raw,
                    title_source=source if title is not None else "", label=tag_text)


# --------------------------------------------------------------------------------------------------
# Citations
# --------------------------------------------------------------------------------------------------


def _bib_target(href: object) -> str | None:
    """'#bib.bib3' or 'https://arxiv.org/html/x#bib.bib3' -> 'bib.bib3'; other links -> None."""
    if not isinstance(href, str) or "#" not in href:
        return None
    fragment = unquote(href.split("#", 1)[1]).strip()
    return fragment if fragment.startswith("bib") else None


@dataclass
class _CiteToken:
    text: str
    is_link: bool = False
    target: str | None = None


def _cite_tokens(cite: Tag) -> list[_CiteToken]:
    """Flatten a <cite> into text pieces and citation links (bib anchors or href-less ltx_ref anchors)."""
    tokens: list[_CiteToken] = []

    def visit(node: Tag) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, _IGNORED_STRINGS):
                    tokens.append(_CiteToken(str(child)))
            elif isinstance(child, Tag) and not _is_skipped(child):
                if child.name == "a":
                    href = child.get("href")
                    target = _bib_target(href)
                    if target is not None or href is None:
                        tokens.append(_CiteToken(_render(child), True, target))
                    else:
                        tokens.append(_CiteToken(_render(child)))
                elif child.name == "math":
                    tokens.append(_CiteToken(_math_text(child)))
                else:
                    visit(child)

    visit(cite)
    return tokens


_OPEN_CLOSE = {"(": ")", "[": "]"}


class _CitationResolver:
    """Cite hook that numbers resolved citations by first appearance and records the rest."""

    def __init__(self, bib: dict[str, BibEntry]) -> None:
        self.bib = bib
        self.number_of: dict[str, int] = {}
        self.cited: list[BibEntry] = []
        self.n_citations = 0
        self.unresolved: list[UnresolvedCitation] = []

    def _resolve(self, target: str | None, text: str) -> int | None:
        self.n_citations += 1
        if target is None:
            self.unresolved.append(UnresolvedCitation(text, None, "no-link"))
            return None
        entry = self.bib.get(target)
        if entry is None:
            self.unresolved.append(UnresolvedCitation(text, target, "missing-bib-entry"))
            return None
        if entry.title is None:
            self.unresolved.append(UnresolvedCitation(text, target, "no-title"))
            return None
        if target not in self.number_of:
            self.cited.append(entry)
            self.number_of[target] = len(self.cited)
        return self.number_of[target]

    def __call__(self, cite: Tag) -> str:
        """Render one <cite>: all citations resolved -> '[k]; [m]' (merged later), else visible text."""
        tokens = _cite_tokens(cite)
        text = ""
        links: list[tuple[int, int, str | None]] = []
        for token in tokens:
            start = len(text)
            text += token.text
            if token.is_link:
                links.append((start, len(text), token.target))
        if not links:
            visible = neutralize_markers(_clean(text))
            self._resolve(None, visible)
            return visible

        # Consecutive anchors to the same target are one citation ("Smith et al. (<a>2020</a>)" in
        # some LaTeXML versions links both the names and the year).
        groups: list[list[tuple[int, int, str | None]]] = [[links[0]]]
        for link in links[1:]:
            prev = groups[-1][-1]
            if link[2] is not None and link[2] == prev[2] and ";" not in text[prev[1]: link[0]]:
                groups[-1].append(link)
            else:
                groups.append([link])

        # Cut the cite text between groups at the last ';' (else ',') found between them.
        cuts: list[tuple[int, int, str]] = []  # (end of previous segment, start of next, separator)
        for before, after in zip(groups, groups[1:]):
            lo, hi = before[-1][1], after[0][0]
            between = text[lo:hi]
            pos = between.rfind(";") if ";" in between else between.rfind(",")
            cuts.append((lo + pos, lo + pos + 1, between[pos]) if pos >= 0 else (hi, hi, ""))
        starts = [0] + [c[1] for c in cuts]
        ends = [c[0] for c in cuts] + [len(text)]
        segments = [_clean(text[s:e]) for s, e in zip(starts, ends)]

        prefix = suffix = ""
        if segments and segments[0][:1] in _OPEN_CLOSE and segments[-1][-1:] == _OPEN_CLOSE[segments[0][0]]:
            if len(segments) > 1 or len(segments[0]) > 1:
                prefix, suffix = segments[0][0], segments[-1][-1]
                segments[0] = segments[0][1:].strip()
                segments[-1] = segments[-1][:-1].strip()

        rendered: list[str] = []
        all_resolved = True
        for segment, group in zip(segments, groups):
            number = self._resolve(group[0][2], segment)
            if number is None:
                all_resolved = False
                rendered.append(neutralize_markers(segment))
            else:
                rendered.append(f"[{number}]")
        separators = [c[2] for c in cuts]
        if all_resolved:
            return " ".join(rendered)
        out = rendered[0]
        for sep, piece in zip(separators, rendered[1:]):
            out += f"{sep} {piece}" if sep else f" {piece}"
        return f"{prefix}{out}{suffix}"


# --------------------------------------------------------------------------------------------------
# Whole documents
# --------------------------------------------------------------------------------------------------


def _top_level(soup: BeautifulSoup, cls: str) -> list[Tag]:
    """Elements of class `cls` not nested inside another section-like element."""
    found = []
    for tag in soup.find_all(class_=cls):
        if not any(_is_section(parent) for parent in tag.parents if isinstance(parent, Tag)):
            found.append(tag)
    return found


def _find_related_work(sections: list[Tag], appendices: list[Tag]) -> Tag | None:
    """First related-work section by heading: top level, then subsections, then appendices.

    Main-text subsections ("2.1 Related work" under "Background") are accepted only when no
    top-level section qualifies; appendices are the last resort.
    """
    for group in (sections, appendices):
        for section in group:
            if is_related_work_heading(_section_heading(section)):
                return section
        for section in group:
            for sub in section.find_all(class_=_SUBSECTION_CLASSES):
                if is_related_work_heading(_section_heading(sub)):
                    return sub
    return None


def _all_headings(roots: list[Tag]) -> list[str]:
    headings: list[str] = []
    for root in roots:
        headings.append(_section_heading(root))
        headings.extend(_section_heading(sub) for sub in root.find_all(class_=_SUBSECTION_CLASSES))
    return [h for h in headings if h]


def _document_title(soup: BeautifulSoup) -> str:
    heading = soup.find(class_="ltx_title_document")
    if heading is not None:
        return _clean(_render(heading))
    title = soup.find("title")
    return _clean(title.get_text()) if title is not None else ""


def _abstract(soup: BeautifulSoup) -> str:
    abstract = soup.find(class_="ltx_abstract")
    return _section_text(abstract) if abstract is not None else ""


def _soup(html: str | bytes, paper_id: str) -> BeautifulSoup:
    if isinstance(html, bytes):
        html = html.decode("utf-8", errors="replace")
    if not isinstance(html, str):
        raise LatexmlParseError(f"expected HTML text, got {type(html).__name__}", paper_id)
    if not html.strip():
        raise LatexmlParseError("empty document", paper_id)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return BeautifulSoup(html, "lxml")
    except Exception as exc:  # lxml rejects some binary garbage outright
        raise LatexmlParseError(f"not parseable as HTML ({exc})", paper_id) from exc


def _bibliography(soup: BeautifulSoup, paper_id: str, title_in_text: TitleInText | None) -> dict[str, BibEntry]:
    """The bibliography entries by id; raises `LatexmlParseError` when there is none."""
    items = soup.find_all("li", class_="ltx_bibitem")
    if not items:
        raise LatexmlParseError("no bibliography (li.ltx_bibitem) found, citations cannot be resolved", paper_id)
    bib: dict[str, BibEntry] = {}
    for item in items:
        entry = parse_bib_entry(item)
        if entry.title is None and title_in_text is not None:
            found = title_in_text(entry.raw)
            if found:
                entry.title, entry.title_source = found, "text_match"
        if entry.key and entry.key not in bib:
            bib[entry.key] = entry
    return bib


def parse_arxiv_html(html: str, paper_id: str, title_in_text: TitleInText | None = None) -> ParsedArxivPaper:
    """Parse a LaTeXML arXiv page into title, abstract, introduction, sections and related work.

    `title_in_text`, when given, is asked for a title found inside the text of every bibliography entry
    that has no parsable title (e.g. `CorpusTitleIndex.title_in_text`, which returns a normalised corpus
    title); such an entry gets that title with `title_source="text_match"` and its citations resolve.

    Raises LatexmlParseError for input that is not LaTeXML HTML or has no bibliography, and
    MissingRelatedWorkError when no heading looks like a related-work heading.
    """
    soup = _soup(html, paper_id)

    sections = _top_level(soup, "ltx_section")
    appendices = _top_level(soup, "ltx_appendix")
    if not sections and not appendices:
        raise LatexmlParseError(
            "no LaTeXML sections (section.ltx_section) found; not an arXiv/LaTeXML HTML page?", paper_id
        )

    related = _find_related_work(sections, appendices)
    if related is None:
        headings = _all_headings(sections + appendices)
        raise MissingRelatedWorkError(
            f"no related-work section (e.g. 'Related Work', 'Prior Work', 'Literature Review'); "
            f"headings found: {headings}",
            paper_id,
            headings,
        )

    bib = _bibliography(soup, paper_id, title_in_text)
    resolver = _CitationResolver(bib)
    related_text = _section_text(related, resolver)

    section_texts = [(_section_heading(s), _section_text(s)) for s in sections]
    introduction = next(
        (text for heading, text in section_texts if is_introduction_heading(heading)), ""
    )
    return ParsedArxivPaper(
        paper_id=paper_id,
        title=_document_title(soup),
        abstract=_abstract(soup),
        introduction=introduction,
        sections=section_texts,
        related_work_heading=_section_heading(related),
        related_work=related_text,
        cited=resolver.cited,
        n_citations=resolver.n_citations,
        unresolved=resolver.unresolved,
    )


class MissingIntroductionError(LatexmlParseError):
    """No top-level section of the paper is headed Introduction."""


@dataclass
class ParsedIntroduction:
    """A LaTeXML paper reduced to what introduction generation (SciIG) needs: the introduction as printed, its
    author-year citations kept, and the works it cites in order of first citation."""

    paper_id: str
    title: str
    abstract: str
    introduction: str  # paragraphs separated by blank lines
    cited: list[BibEntry]
    n_citations: int
    unresolved: list[UnresolvedCitation]

    @property
    def extraction_rate(self) -> float:
        """Share of the introduction's citations resolved to a titled bib entry (1.0 when there are none)."""
        return 1.0 if self.n_citations == 0 else (self.n_citations - len(self.unresolved)) / self.n_citations


def parse_arxiv_introduction(html: str | bytes, paper_id: str) -> ParsedIntroduction:
    """Parse a LaTeXML arXiv page into title, abstract, introduction and the introduction's cited works.

    Raises `LatexmlParseError` for input that is not LaTeXML HTML or has no bibliography, and
    `MissingIntroductionError` when no section is headed Introduction."""
    soup = _soup(html, paper_id)
    sections = _top_level(soup, "ltx_section")
    if not sections:
        raise LatexmlParseError("no LaTeXML sections (section.ltx_section) found; not an arXiv/LaTeXML HTML page?",
                                paper_id)
    intro = next((s for s in sections if is_introduction_heading(_section_heading(s))), None)
    if intro is None:
        raise MissingIntroductionError(f"no Introduction section; headings found: {_all_headings(sections)}",
                                       paper_id)
    resolver = _CitationResolver(_bibliography(soup, paper_id, None))
    _section_text(intro, resolver)  # numbers the cited entries in order of first citation
    return ParsedIntroduction(paper_id=paper_id, title=_document_title(soup), abstract=_abstract(soup),
                              introduction=_section_text(intro), cited=resolver.cited,
                              n_citations=resolver.n_citations, unresolved=resolver.unresolved)


def parse_arxiv_html_file(path: str | Path, title_in_text: TitleInText | None = None,
                          paper_id: str | None = None) -> ParsedArxivPaper:
    """Parse a saved LaTeXML page; the paper id is `paper_id`, else the file stem ('2004.14974.html' ->
    '2004.14974')."""
    path = Path(path)
    paper_id = paper_id or path.stem
    try:
        html = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise LatexmlParseError(f"cannot read {path}: {exc}", paper_id) from exc
    return parse_arxiv_html(html, paper_id, title_in_text)
