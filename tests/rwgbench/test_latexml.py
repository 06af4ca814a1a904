"""Tests for the LaTeXML (arxiv.org/html) related-work parser, on small hand-written pages."""

from __future__ import annotations

import pickle

import pytest
from bs4 import BeautifulSoup

from sciwrite.sources.latexml import (
    RELATED_WORK_HEADINGS,
    BibEntry,
    LatexmlParseError,
    MissingRelatedWorkError,
    ParsedArxivPaper,
    UnresolvedCitation,
    is_related_work_heading,
    parse_arxiv_html,
    parse_arxiv_html_file,
    parse_bib_entry,
)

# --------------------------------------------------------------------------------------------------
# Page builders (mirroring LaTeXML 0.8 output as served on arxiv.org/html)
# --------------------------------------------------------------------------------------------------


def cite(*pairs: tuple[str, str], paren: bool = False) -> str:
    """<cite> with one (author, bib-number) pair per citation: 'Author (<a>year</a>)' style."""
    if paren:
        inner = "; ".join(f'{a}, <a href="#bib.bib{n}" title="" class="ltx_ref">20{n:0>2}</a>' for a, n in pairs)
        return f'<cite class="ltx_cite ltx_citemacro_citep">({inner})</cite>'
    inner = "; ".join(f'{a} (<a href="#bib.bib{n}" title="" class="ltx_ref">20{n:0>2}</a>)' for a, n in pairs)
    return f'<cite class="ltx_cite ltx_citemacro_cite">{inner}</cite>'


def section(sid: str, number: str, heading: str, body: str, level: str = "section") -> str:
    h = {"section": "h2", "subsection": "h3", "subsubsection": "h4"}[level]
    tag = f'<span class="ltx_tag ltx_tag_{level}">{number} </span>' if number else ""
    return (
        f'<section id="{sid}" class="ltx_{level}">\n'
        f'<{h} class="ltx_title ltx_title_{level}">\n{tag}{heading}</{h}>\n{body}\n</section>\n'
    )


def para(pid: str, text: str) -> str:
    return f'<div id="{pid}" class="ltx_para">\n<p class="ltx_p">{text}</p>\n</div>\n'


def bibitem(n: int, tag: str, *blocks: str) -> str:
    spans = "".join(f'<span class="ltx_bibblock">\n{b}\n</span>\n' for b in blocks)
    return (
        f'<li id="bib.bib{n}" class="ltx_bibitem">\n'
        f'<span class="ltx_tag ltx_role_refnum ltx_tag_bibitem">{tag}</span>\n{spans}</li>\n'
    )


BIBLIOGRAPHY = (
    '<section id="bib" class="ltx_bibliography">\n'
    '<h2 class="ltx_title ltx_title_bibliography">References</h2>\n<ul class="ltx_biblist">\n'
    + bibitem(1, "Vlachos and Riedel (2014)", "Andreas Vlachos and Sebastian Riedel. 2014.",
              "Fact checking: Task definition and dataset construction.",
              'In <em class="ltx_emph ltx_font_italic">Proceedings of the ACL 2014 Workshop</em>.')
    + bibitem(2, "Thorne et al. (2018)", "James Thorne, Andreas Vlachos, Christos\nChristodoulopoulos, and Arpit Mittal. 2018.",
              "Fever: a large-scale dataset for fact extraction and\nverification.",
              'In <em class="ltx_emph ltx_font_italic">NAACL</em>.')
    + bibitem(3, "Wang (2017)", "William Yang Wang. 2017.",
              "“liar, liar pants on fire”: A new benchmark dataset for fake news detection.",
              'In <em class="ltx_emph ltx_font_italic">ACL</em>.')
    + bibitem(4, "Cohan et al. (2015)", "Arman Cohan, Luca Soldaini, and Nazli Goharian. 2015.",
              '<a href="https://doi.org/10.1/x" class="ltx_ref ltx_href">Matching citation text and cited spans in biomedical literature</a>.',
              'In <em class="ltx_emph ltx_font_italic">NAACL</em>.')
    # No title: the second block is only a URL.
    + bibitem(5, "Cohen et al. (2014)", "Kevin Bretonnel Cohen and Hoa Trang Dang. 2014.",
              '<a href="https://tac.nist.gov/2014/BiomedSumm/" class="ltx_ref ltx_url">https://tac.nist.gov/2014/BiomedSumm/</a>.')
    + "</ul>\n</section>\n"
)


def page(body: str, bibliography: str = BIBLIOGRAPHY, title: str = "Verifying Claims") -> str:
    return (
        '<!DOCTYPE html><html lang="en">\n<head>\n<title>'
        + title
        + '</title>\n</head>\n<body>\n<div class="ltx_page_main">\n<div class="ltx_page_content">\n'
        '<article class="ltx_document">\n'
        f'<h1 class="ltx_title ltx_title_document">{title}<span class="ltx_note ltx_role_thanks">'
        '<sup class="ltx_note_mark">1</sup><span class="ltx_note_outer"><span class="ltx_note_content">'
        "Work done at home.</span></span></span></h1>\n"
        '<div class="ltx_abstract">\n<h6 class="ltx_title ltx_title_abstract">Abstract</h6>\n'
        '<p class="ltx_p">We study <span class="ltx_text ltx_font_smallcaps">claims</span>.</p>\n</div>\n'
        + body
        + bibliography
        + "</article>\n</div>\n</div>\n</body>\n</html>\n"
    )


INTRO = section("S1", "1", "Introduction", para("S1.p1", "Claims matter " + cite(("Cohan et al.", 4)) + "."))

RELATED = section(
    "S2",
    "2",
    "Related Work",
    para("S2.p1", "We review two lines of work.")
    + section(
        "S2.SS1",
        "2.1",
        "Fact checking",
        para(
            "S2.SS1.p1",
            "Early work " + cite(("Vlachos and Riedel", 1)) + " defined the task.\n"
            "Datasets include FEVER " + cite(("Thorne et al.", 2), ("Wang", 3), paren=True)
            + ' with <math id="m1" class="ltx_Math" alttext="10^{5}" display="inline"><msup><mn>10</mn>'
            "<mn>5</mn></msup></math> claims"
            '<span id="footnote2" class="ltx_note ltx_role_footnote"><sup class="ltx_note_mark">2</sup>'
            '<span class="ltx_note_outer"><span class="ltx_note_content">See also '
            + cite(("Cohen et al.", 5))
            + "</span></span></span>.",
        ),
        level="subsection",
    )
    + section(
        "S2.SS2",
        "2.2",
        "Scientific NLP",
        para(
            "S2.SS2.p1",
            "Citation summaries " + cite(("Cohan et al.", 4)) + " were studied, as were tracks "
            + cite(("Cohen et al.", 5)) + " and " + cite(("Ghost et al.", 9)) + ".",
        )
        + '<figure id="S2.F1" class="ltx_figure"><figcaption class="ltx_caption">Figure 1: From '
        + cite(("Wang", 3))
        + ".</figcaption></figure>\n",
        level="subsection",
    ),
)

METHOD = section(
    "S3",
    "3",
    "Method",
    para("S3.p1", "We fine-tune " + cite(("Thorne et al.", 2)) + " and " + cite(("Ghost et al.", 9)) + "."),
)

PAPER = page(INTRO + RELATED + METHOD)


@pytest.fixture(scope="module")
def parsed() -> ParsedArxivPaper:
    return parse_arxiv_html(PAPER, "2401.00001")


# --------------------------------------------------------------------------------------------------
# The full paper
# --------------------------------------------------------------------------------------------------


def test_related_work_text_has_markers_and_merged_group(parsed: ParsedArxivPaper) -> None:
    assert parsed.related_work_heading == "Related Work"
    assert parsed.related_work == (
        "We review two lines of work.\n\n"
        "Fact checking\n\n"
        "Early work [1] defined the task. Datasets include FEVER [2, 3] with 10^{5} claims.\n\n"
        "Scientific NLP\n\n"
        "Citation summaries [4] were studied, as were tracks Cohen et al. (2005) and Ghost et al. (2009)."
    )


def test_cited_entries_in_order_of_first_appearance(parsed: ParsedArxivPaper) -> None:
    assert [e.key for e in parsed.cited] == ["bib.bib1", "bib.bib2", "bib.bib3", "bib.bib4"]
    assert [e.title for e in parsed.cited] == [
        "Fact checking: Task definition and dataset construction",
        "Fever: a large-scale dataset for fact extraction and verification",
        "“liar, liar pants on fire”: A new benchmark dataset for fake news detection",
        "Matching citation text and cited spans in biomedical literature",
    ]
    assert [e.year for e in parsed.cited] == [2014, 2018, 2017, 2015]
    assert parsed.cited[1].authors == ["James Thorne", "Andreas Vlachos", "Christos Christodoulopoulos", "Arpit Mittal"]


def test_counts_rate_and_unresolved(parsed: ParsedArxivPaper) -> None:
    # bib1, bib2, bib3, bib4 resolve; bib5 has no title; bib9 is not in the bibliography. The cites
    # in the footnote, the figure caption, the Introduction and the Method section do not count.
    assert parsed.n_citations == 6
    assert parsed.extraction_rate == pytest.approx(4 / 6)
    assert parsed.unresolved == [
        UnresolvedCitation(text="Cohen et al. (2005)", target="bib.bib5", reason="no-title"),
        UnresolvedCitation(text="Ghost et al. (2009)", target="bib.bib9", reason="missing-bib-entry"),
    ]


def test_other_fields(parsed: ParsedArxivPaper) -> None:
    assert parsed.paper_id == "2401.00001"
    assert parsed.title == "Verifying Claims"
    assert parsed.abstract == "We study claims."
    assert parsed.introduction == "Claims matter Cohan et al. (2004)."
    assert [h for h, _ in parsed.sections] == ["Introduction", "Related Work", "Method"]
    assert parsed.sections[2] == ("Method", "We fine-tune Thorne et al. (2002) and Ghost et al. (2009).")
    assert parsed.sections[1][1].startswith("We review two lines of work.\n\nFact checking\n\nEarly work Vlachos")


def test_file_entry_point_uses_stem_as_id(tmp_path) -> None:
    path = tmp_path / "2401.00001.html"
    path.write_text(PAPER, encoding="utf-8")
    parsed = parse_arxiv_html_file(path)
    assert parsed.paper_id == "2401.00001"
    assert parsed.n_citations == 6


# --------------------------------------------------------------------------------------------------
# Finding the related-work section
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "heading",
    [
        "Related Work",
        "Related Works",
        "related work",
        "2 Related Work",
        "II. Related Work",
        "2.1 Related work",
        "A Related Work",
        "Literature Review",
        "Background and Related Work",
        "Related Work and Background",
        "Background & Related Work",
        "Prior Work",
        "Previous Work",
        "Related Literature",
        "Relevant Work",
        "Related Research",
        "Connections to prior work",
        "Additional Related Work",
        "Related Work on Claim Verification",
        "Related Work:",
        "State of the Art",
    ],
)
def test_related_work_headings_match(heading: str) -> None:
    assert is_related_work_heading(heading)


@pytest.mark.parametrize(
    "heading",
    [
        "Background",
        "2 Background",
        "Preliminaries",
        "Relation extraction",
        "Comparison with related systems",
        "Related Tasks Benchmark",
        "Introduction",
        "Work Plan",
        "Experiments and comparison with prior work",
        "",
    ],
)
def test_other_headings_do_not_match(heading: str) -> None:
    assert not is_related_work_heading(heading)


def test_heading_patterns_are_exposed() -> None:
    assert RELATED_WORK_HEADINGS and all(isinstance(p, str) for p in RELATED_WORK_HEADINGS)


def _numbered_paper(headings: list[str]) -> str:
    body = "".join(
        section(f"S{i}", str(i), h, para(f"S{i}.p1", f"Text of {h} " + cite(("Wang", 3)) + "."))
        for i, h in enumerate(headings, 1)
    )
    return page(body)


def test_heading_found_by_name_not_number() -> None:
    parsed = parse_arxiv_html(_numbered_paper(["Introduction", "Background", "Method", "Experiments", "Prior Work"]), "p5")
    assert parsed.related_work_heading == "Prior Work"
    assert parsed.related_work == "Text of Prior Work [1]."
    assert [e.key for e in parsed.cited] == ["bib.bib3"]
    assert parsed.extraction_rate == 1.0


def test_subsection_accepted_when_no_top_level_heading() -> None:
    background = section(
        "S2", "2", "Background",
        para("S2.p1", "Setup " + cite(("Wang", 3)) + ".")
        + section("S2.SS1", "2.1", "Related work", para("S2.SS1.p1", "See " + cite(("Vlachos and Riedel", 1)) + "."),
                  level="subsection"),
    )
    parsed = parse_arxiv_html(page(INTRO + background), "sub")
    assert parsed.related_work_heading == "Related work"
    assert parsed.related_work == "See [1]."
    assert parsed.n_citations == 1


def test_top_level_section_preferred_over_subsection() -> None:
    background = section(
        "S2", "2", "Background",
        section("S2.SS1", "2.1", "Related work", para("S2.SS1.p1", "Sub."), level="subsection"),
    )
    top = section("S3", "3", "Literature Review", para("S3.p1", "Top " + cite(("Wang", 3)) + "."))
    parsed = parse_arxiv_html(page(background + top), "pref")
    assert parsed.related_work_heading == "Literature Review"
    assert parsed.related_work == "Top [1]."


def test_background_alone_is_not_related_work() -> None:
    with pytest.raises(MissingRelatedWorkError) as info:
        parse_arxiv_html(_numbered_paper(["Introduction", "Background", "Relation extraction"]), "2401.99999")
    message = str(info.value)
    assert "2401.99999" in message
    assert "Background" in message and "Relation extraction" in message
    assert info.value.headings == ["Introduction", "Background", "Relation extraction"]
    assert info.value.paper_id == "2401.99999"


# --------------------------------------------------------------------------------------------------
# Citation forms
# --------------------------------------------------------------------------------------------------


def _rw_paper(paragraph_html: str) -> ParsedArxivPaper:
    return parse_arxiv_html(page(section("S2", "2", "Related Work", para("S2.p1", paragraph_html))), "cites")


def test_partially_resolved_cite_keeps_visible_text_of_unresolved_part() -> None:
    parsed = _rw_paper("Datasets " + cite(("Thorne et al.", 2), ("Ghost", 9), paren=True) + " exist.")
    assert parsed.related_work == "Datasets ([1]; Ghost, 2009) exist."
    assert parsed.n_citations == 2
    assert parsed.unresolved == [UnresolvedCitation("Ghost, 2009", "bib.bib9", "missing-bib-entry")]


def test_cite_without_link_counts_once_as_unresolved() -> None:
    parsed = _rw_paper('Work <cite class="ltx_cite ltx_citemacro_cite">[?]</cite> and ' + cite(("Wang", 3)) + ".")
    assert parsed.related_work == "Work [?] and [1]."
    assert parsed.n_citations == 2
    assert parsed.unresolved == [UnresolvedCitation("[?]", None, "no-link")]
    assert parsed.extraction_rate == 0.5


def test_numeric_cite_and_adjacent_cites_merge() -> None:
    numeric = (
        '<cite class="ltx_cite ltx_citemacro_cite">[<a href="#bib.bib1" class="ltx_ref">1</a>, '
        '<a href="#bib.bib2" class="ltx_ref">2</a>]</cite>'
    )
    parsed = _rw_paper("A " + numeric + ", B " + cite(("Wang", 3)) + "; " + cite(("Cohan et al.", 4)) + ".")
    assert parsed.related_work == "A [1, 2], B [3, 4]."
    assert parsed.n_citations == 4


def test_absolute_href_and_author_year_both_linked_count_once() -> None:
    href = "https://arxiv.org/html/2401.00001v1#bib.bib2"
    both = (
        f'<cite class="ltx_cite ltx_citemacro_citet"><a class="ltx_ref" href="{href}">Thorne et al.</a> '
        f'(<a class="ltx_ref" href="{href}">2018</a>)</cite>'
    )
    parsed = _rw_paper(both + " built FEVER; so did " + both + ".")
    assert parsed.related_work == "[1] built FEVER; so did [1]."
    assert parsed.n_citations == 2
    assert [e.key for e in parsed.cited] == ["bib.bib2"]


# --------------------------------------------------------------------------------------------------
# Bibliography entries
# --------------------------------------------------------------------------------------------------


def _li(html: str):
    return BeautifulSoup(f'<ul class="ltx_biblist">{html}</ul>', "lxml").find("li")


def test_bib_entry_from_blocks() -> None:
    entry = parse_bib_entry(_li(bibitem(2, "Thorne et al. (2018)", "James Thorne and Arpit Mittal. 2018.",
                                        "Fever: a dataset.", "In <em>NAACL</em>.")))
    assert entry == BibEntry(
        key="bib.bib2",
        title="Fever: a dataset",
        authors=["James Thorne", "Arpit Mittal"],
        year=2018,
        raw="Thorne et al. (2018) James Thorne and Arpit Mittal. 2018. Fever: a dataset. In NAACL.",
    )


def test_bib_entry_accepts_html_string_and_url_only_has_no_title() -> None:
    entry = parse_bib_entry(bibitem(7, "(7)", "Some Group.", "https://example.org/data."))
    assert entry.key == "bib.bib7"
    assert entry.title is None
    assert entry.year is None


def test_bib_entry_single_block_heuristics() -> None:
    author_year = parse_bib_entry(_li(bibitem(1, "Smith (2019)", "Smith, J. and Doe, A. 2019. Learning to cite. In ACL.")))
    assert author_year.title == "Learning to cite"
    assert author_year.year == 2019
    assert author_year.authors == ["Smith, J", "Doe, A"]

    ieee = parse_bib_entry(_li(bibitem(2, "[2]", "J. Smith, “Deep citation models,” in Proc. CVPR, 2020, pp. 1–9.")))
    assert ieee.title == "Deep citation models"
    assert ieee.year == 2020

    url_only = parse_bib_entry(_li(bibitem(3, "[3]", "https://github.com/org/repo, 2021.")))
    assert url_only.title is None

    no_blocks = parse_bib_entry(_li('<li id="bib.bib4" class="ltx_bibitem">Lee. 2018. Graph nets. arXiv.</li>'))
    assert no_blocks.title == "Graph nets"


def test_bib_year_from_tag_and_not_from_arxiv_ids() -> None:
    entry = parse_bib_entry(_li(bibitem(5, "Beltagy et al. (2020)", "Iz Beltagy and Arman Cohan.",
                                        "Longformer: The long-document transformer.", "ArXiv, abs/2004.05150.")))
    assert entry.year == 2020
    entry = parse_bib_entry(_li(bibitem(6, "(6)", "Iz Beltagy.", "SciBERT.", "ArXiv, abs/1903.10676.")))
    assert entry.year is None


# --------------------------------------------------------------------------------------------------
# Malformed input
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        "",
        "   \n",
        "this is not html at all",
        '{"paper": "json"}',
        "<html><body><h1>Hello</h1><p>Plain page, no LaTeXML sections.</p></body></html>",
    ],
)
def test_malformed_input_raises_with_paper_id(html: str) -> None:
    with pytest.raises(LatexmlParseError, match="bad-0001"):
        parse_arxiv_html(html, "bad-0001")


def test_non_string_input_raises() -> None:
    with pytest.raises(LatexmlParseError, match="bad-0002"):
        parse_arxiv_html(None, "bad-0002")  # type: ignore[arg-type]


def test_document_without_bibliography_raises() -> None:
    html = page(INTRO + RELATED, bibliography="")
    with pytest.raises(LatexmlParseError, match="2401.00003.*bibliography"):
        parse_arxiv_html(html, "2401.00003")


def test_missing_related_work_is_a_parse_error_and_pickles() -> None:
    with pytest.raises(LatexmlParseError) as info:
        parse_arxiv_html(page(INTRO + METHOD), "2401.00004")
    assert isinstance(info.value, MissingRelatedWorkError)
    clone = pickle.loads(pickle.dumps(info.value))
    assert str(clone) == str(info.value)
    assert clone.paper_id == "2401.00004" and clone.headings == ["Introduction", "Method"]


def test_non_bibitem_html_raises_parse_error() -> None:
    with pytest.raises(LatexmlParseError):
        parse_bib_entry("<p>nothing here</p>")
