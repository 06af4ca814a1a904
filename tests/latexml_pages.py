"""LaTeXML pages written the way arXiv's HTML papers are (natbib author-year citations, ``li.ltx_bibitem`` entries
with a tag and blocks for authors, title and venue; see ``../shared/reference/latexml/`` for a real one), for the
tests of the builders that read fetched arXiv papers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape


@dataclass(frozen=True)
class Work:
    """A cited work: its bibliography entry."""

    title: str
    authors: tuple[str, ...] = ("Ann Author", "Bob Writer", "Cy Coder")
    year: int = 2024

    @property
    def label(self) -> str:
        last = [a.split()[-1] for a in self.authors]
        names = last[0] if len(last) == 1 else f"{last[0]} and {last[1]}" if len(last) == 2 else f"{last[0]} et al."
        return f"{names} ({self.year})"


@dataclass
class Page:
    """One paper: the works its introduction and its related-work section cite (by index into `works`), and
    citations whose link points nowhere (`dangling` in the related work, `intro_dangling` in the introduction)."""

    title: str
    abstract: str
    works: Sequence[Work]
    intro_cites: Sequence[int] = ()
    related_cites: Sequence[int] = ()
    dangling: int = 0
    intro_dangling: int = 0
    intro_text: str = "Large language models write fluent text"
    sections: Sequence[str] = field(default_factory=lambda: ("Introduction", "Related Work", "Method"))

    def cite(self, i: int) -> str:
        work = self.works[i]
        names = escape(work.label.rsplit(" (", 1)[0])
        return (f'<cite class="ltx_cite ltx_citemacro_citep">({names}, <a href="#bib.bib{i + 1}" title="" '
                f'class="ltx_ref">{work.year}</a>)</cite>')

    def html(self) -> str:
        intro = " ".join(f"{self.intro_text} number {n} {self.cite(i)}." for n, i in enumerate(self.intro_cites))
        intro += "".join(f' A lost one <cite class="ltx_cite">(Gone, <a href="#bib.bib{800 + j}" '
                         f'class="ltx_ref">2020</a>)</cite>.' for j in range(self.intro_dangling))
        related = " ".join(f"Prior study {n} {self.cite(i)}." for n, i in enumerate(self.related_cites))
        related += "".join(f' A lost one <cite class="ltx_cite">(Gone, <a href="#bib.bib{900 + j}" '
                           f'class="ltx_ref">2020</a>)</cite>.' for j in range(self.dangling))
        bodies = {"Introduction": intro or f"{self.intro_text}.", "Related Work": related or "Nothing.",
                  "Method": "We propose a method."}
        sections = "".join(
            f'<section id="S{k}" class="ltx_section"><h2 class="ltx_title ltx_title_section"><span class="ltx_tag '
            f'ltx_tag_section">{k} </span>{name}</h2><div id="S{k}.p1" class="ltx_para"><p class="ltx_p">'
            f'{bodies.get(name, "Text.")}</p></div></section>' for k, name in enumerate(self.sections, start=1))
        bib = "".join(
            f'<li id="bib.bib{i + 1}" class="ltx_bibitem"><span class="ltx_tag ltx_role_refnum ltx_tag_bibitem">'
            f'{escape(w.label)}</span><span class="ltx_bibblock">{escape(", ".join(w.authors))}. {w.year}.</span>'
            f'<span class="ltx_bibblock">{escape(w.title)}.</span><span class="ltx_bibblock">In <em>Proceedings'
            f'</em>.</span></li>' for i, w in enumerate(self.works))
        return f"""<!DOCTYPE html><html lang="en"><head><title>{escape(self.title)}</title>
<!--Generated on Mon Jul  6 10:00:00 2026 by LaTeXML (version 0.8.8) http://dlmf.nist.gov/LaTeXML/.--></head>
<body><div class="ltx_page_main"><div class="ltx_page_content"><article class="ltx_document ltx_authors_1line">
<h1 class="ltx_title ltx_title_document">{escape(self.title)}</h1>
<div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6><p class="ltx_p">{escape(self.abstract)}</p></div>
{sections}
<section id="bib" class="ltx_bibliography"><h2 class="ltx_title ltx_title_bibliography">References</h2>
<ul class="ltx_biblist">{bib}</ul></section></article></div></div></body></html>"""
