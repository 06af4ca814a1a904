"""Bibliography entries written by hand as one block, and linking entries to the corpus by a title in their text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from sciwrite.rwgbench.data.builder import build_paper_candidates, build_rwgbench_folder
from sciwrite.sources.bib_links import LINK_METHODS, link_entry
from sciwrite.sources.corpus import MIN_TITLE_TOKENS_IN_TEXT, CorpusTitleIndex
from sciwrite.sources.latexml import BibEntry, parse_arxiv_html, parse_bib_entry


def one_block(text: str, n: int = 1) -> str:
    return (f'<li id="bib.bib{n}" class="ltx_bibitem"><span class="ltx_tag ltx_tag_bibitem">[{n}]</span>'
            f'<span class="ltx_bibblock">{text}</span></li>')


def _li(html: str):
    return BeautifulSoup(f'<ul class="ltx_biblist">{html}</ul>', "lxml").find("li")


# ------------------------------------------------------------------------------------------ single-block styles

STYLES = [
    pytest.param("A. Author, B. Author, and C. Author. A title of the work. Venue, 2020.",
                 "A title of the work", 2020, ["A. Author", "B. Author", "C. Author"], id="initials-first"),
    pytest.param("J.-P. van der Berg and C. D. Smith-Jones. Learning to rank with graphs. In Proc. ACL, 2021.",
                 "Learning to rank with graphs", 2021, ["J.-P. van der Berg", "C. D. Smith-Jones"],
                 id="initials-first-particles"),
    pytest.param("A. Author, B. Author, et al. A title of the work. Venue, 2020.",
                 "A title of the work", 2020, ["A. Author", "B. Author"], id="et-al"),
    pytest.param("Tom B. Brown, Benjamin Mann, Nick Ryder, et al. Language models are few-shot learners. "
                 "In NeurIPS, 2020.", "Language models are few-shot learners", 2020,
                 ["Tom B. Brown", "Benjamin Mann", "Nick Ryder"], id="full-names-et-al"),
    pytest.param("Ashish Vaswani, Noam Shazeer, Aidan N Gomez, Łukasz Kaiser, and Illia Polosukhin. "
                 "Attention is all you need. NeurIPS, 30, 2017.", "Attention is all you need", 2017,
                 ["Ashish Vaswani", "Noam Shazeer", "Aidan N Gomez", "Łukasz Kaiser", "Illia Polosukhin"],
                 id="full-names"),
    pytest.param("He, K., Zhang, X., Ren, S., Sun, J.: Deep residual learning for image recognition. In: CVPR (2016)",
                 "Deep residual learning for image recognition", 2016,
                 ["He, K", "Zhang, X", "Ren, S", "Sun, J"], id="springer-lncs"),
    pytest.param("Smith J, Doe AB, Lee C. Deep learning for radiology. Nature. 2020;5(3):1-9.",
                 "Deep learning for radiology", 2020, ["Smith J", "Doe AB", "Lee C"], id="vancouver"),
    pytest.param("Kingma DP, Ba J. Adam: A method for stochastic optimization. arXiv. 2014;",
                 "Adam: A method for stochastic optimization", 2014, ["Kingma DP", "Ba J"], id="vancouver-colon"),
    pytest.param("Smith J, Doe AB, et al. Deep learning for radiology. Nature. 2020;5(3):1-9.",
                 "Deep learning for radiology", 2020, ["Smith J", "Doe AB"], id="vancouver-et-al"),
    pytest.param("Smith and Jones (2020). Retrieval augmented generation. Venue.",
                 "Retrieval augmented generation", 2020, ["Smith", "Jones"], id="apa-like"),
    pytest.param("Smith, J., &amp; Doe, A. (2020). Retrieval augmented generation. Journal of AI.",
                 "Retrieval augmented generation", 2020, ["Smith, J", "Doe, A"], id="apa"),
    pytest.param("Smith et al. (2020). Why do models fail? arXiv preprint.",
                 "Why do models fail?", 2020, ["Smith"], id="apa-et-al-question"),
    pytest.param('J. Smith, A. Doe, "Attention is all you need," in NeurIPS, 2017.',
                 "Attention is all you need", 2017, ["J. Smith", "A. Doe"], id="ieee-quoted"),
    pytest.param("J. Smith, A. Doe, et al., “Graph attention networks,” in Proc. ICLR, 2018.",
                 "Graph attention networks", 2018, ["J. Smith", "A. Doe"], id="ieee-quoted-et-al"),
    pytest.param("Diederik P Kingma and Jimmy Ba. Adam: A method for stochastic optimization. "
                 "arXiv preprint arXiv:1412.6980, 2014.", "Adam: A method for stochastic optimization", 2014,
                 ["Diederik P Kingma", "Jimmy Ba"], id="surname-like-initial-not-swallowed"),
]


@pytest.mark.parametrize(("text", "title", "year", "authors"), STYLES)
def test_single_block_styles(text: str, title: str, year: int, authors: list[str]) -> None:
    entry = parse_bib_entry(_li(one_block(text)))
    assert entry.title == title
    assert entry.year == year
    assert entry.authors == authors
    assert entry.title_source == "single_block"


def test_entries_without_a_title_stay_untitled() -> None:
    for text in ("https://github.com/org/repo, 2021.", "Some Group. https://example.org/data, 2020."):
        entry = parse_bib_entry(_li(one_block(text)))
        assert entry.title is None and entry.title_source == ""


def test_multi_block_source_and_equality_ignores_source() -> None:
    entry = parse_bib_entry(_li('<li id="bib.bib1" class="ltx_bibitem"><span class="ltx_bibblock">A. B. 2019.</span>'
                                '<span class="ltx_bibblock">Some title here.</span></li>'))
    assert entry.title_source == "blocks"
    assert entry == BibEntry(key="bib.bib1", title="Some title here", authors=["A. B"], year=2019, raw=entry.raw)


@pytest.mark.timeout(60, method="thread")  # a regex backtracking blow-up hangs here: pytest-timeout ends it
@pytest.mark.parametrize("text", ["A. " * 3000 + "x", "Smith, J., " * 500 + "zzz", "Ab Cd Ef Gh, " * 1000 + "x"])
def test_pathological_author_text_is_parsed_as_no_entry(text: str) -> None:
    """Thousands of repeated author-like tokens, no title and no year: parsed (no catastrophic backtracking) into an
    untitled entry, not into thousands of authors or a title cut out of the repetition."""
    entry = parse_bib_entry(_li(one_block(text)))
    assert (entry.title, entry.year, entry.title_source) == (None, None, "")
    assert entry.authors == [] and " ".join(entry.raw.removeprefix("[1]").split()) == " ".join(text.split())


# ------------------------------------------------------------------------------------------ title in text

CORPUS = [
    {"doc_id": "long", "title": "Graph neural networks for citation recommendation in scholarly writing"},
    {"doc_id": "decoy", "title": "Graph neural networks for citation"},  # contained in the long title
    {"doc_id": "short", "title": "Layer normalization"},  # below the minimum length: never matched in text
    {"doc_id": "other", "title": "A survey of retrieval augmented generation"},
]


@pytest.fixture()
def index() -> CorpusTitleIndex:
    return CorpusTitleIndex(CORPUS)


def test_longest_contained_title_wins_over_decoy(index: CorpusTitleIndex) -> None:
    text = ("X. Yang, Z. Wu et al.; GRAPH NEURAL NETWORKS FOR CITATION RECOMMENDATION IN SCHOLARLY WRITING; "
            "Proc. of Something 2021")
    match = index.find_in_text(text)
    assert match is not None and match.doc_id == "long"
    assert match.n_tokens == 9
    assert index.title_in_text(text) == "graph neural networks for citation recommendation in scholarly writing"


def test_decoy_found_alone_and_token_boundaries(index: CorpusTitleIndex) -> None:
    assert index.find_in_text("Yang X — Graph neural networks for citation: a study — 2020").doc_id == "decoy"
    # "citations" is not "citation": containment is on whole tokens
    assert index.find_in_text("Yang X — Graph neural networks for citations — 2020") is None


def test_short_titles_are_refused(index: CorpusTitleIndex) -> None:
    assert MIN_TITLE_TOKENS_IN_TEXT == 4
    assert index.find_in_text("Ba, Kiros, Hinton — layer normalization — 2016") is None
    assert index.lookup("Layer normalization") == "short"  # exact title lookup is unaffected
    assert index.find_in_text("") is None and index.find_in_text(None) is None
    with pytest.raises(ValueError, match=r"min_tokens must be at least \d+, got 2"):
        CorpusTitleIndex(CORPUS, min_tokens=2)


def test_link_entry_methods(index: CorpusTitleIndex) -> None:
    def entry(title, source, raw):
        return BibEntry(key="k", title=title, raw=raw, title_source=source)

    assert link_entry(entry("A survey of retrieval augmented generation", "blocks", "..."), index) == ("other", "structured")
    assert link_entry(entry("A survey of retrieval augmented generation", "single_block", "..."), index) == (
        "other", "parsed_title")
    # a mis-parsed title that is not in the corpus: the corpus title inside the text links it
    wrong = entry("Yang, Graph neural networks for citation", "single_block",
                  "Yang, Graph neural networks for citation. 2020.")
    assert link_entry(wrong, index) == ("decoy", "title_in_text")
    assert link_entry(entry(None, "", "Nothing known here at all, 2020."), index) == (None, "unlinked")


# ------------------------------------------------------------------------------------------ parser hook and builder


def paper(bib_items: list[str], n_cites: int) -> str:
    cites = " ".join(f'W{i} <cite class="ltx_cite">[<a href="#bib.bib{i}" class="ltx_ref">{i}</a>]</cite>.'
                     for i in range(1, n_cites + 1))
    return f"""<html><body><article class="ltx_document"><h1 class="ltx_title ltx_title_document">P</h1>
<section id="S1" class="ltx_section"><h2 class="ltx_title ltx_title_section">Related Work</h2>
<div class="ltx_para"><p class="ltx_p">{cites}</p></div></section>
<section class="ltx_bibliography"><ul class="ltx_biblist">{"".join(bib_items)}</ul></section></article></body></html>"""


BIB = [
    # 1: multi-block, title block in the corpus -> structured
    '<li id="bib.bib1" class="ltx_bibitem"><span class="ltx_bibblock">Ann Author. 2020.</span>'
    '<span class="ltx_bibblock">A survey of retrieval augmented generation.</span></li>',
    # 2: one hand-written block, parsed title in the corpus -> parsed_title
    one_block("A. Author, B. Author, et al. Graph neural networks for citation. Venue, 2020.", 2),
    # 3: no parsable title (no author list, no year sentence); the corpus title is in the text -> title_in_text
    one_block("see: graph neural networks for citation recommendation in scholarly writing; online", 3),
    # 4: parsed, but not in the corpus -> unlinked
    one_block("A. Author. Something nobody indexed. Venue, 2020.", 4),
]


def test_parser_hook_resolves_untitled_entry(index: CorpusTitleIndex) -> None:
    without = parse_arxiv_html(paper(BIB, 4), "p")
    assert [u.reason for u in without.unresolved] == ["no-title"]
    parsed = parse_arxiv_html(paper(BIB, 4), "p", index.title_in_text)
    assert parsed.unresolved == [] and parsed.extraction_rate == 1.0
    assert [e.title_source for e in parsed.cited] == ["blocks", "single_block", "text_match", "single_block"]
    assert parsed.cited[2].title == "graph neural networks for citation recommendation in scholarly writing"


def test_builder_counts_link_methods(index: CorpusTitleIndex, tmp_path: Path) -> None:
    (tmp_path / "2101.00001.html").write_text(paper(BIB, 4))
    candidates, report = build_paper_candidates([tmp_path / "2101.00001.html"], index, show_progress=False)
    expected = {"structured": 1, "parsed_title": 1, "title_in_text": 1, "unlinked": 1}
    assert tuple(report.link_methods) == LINK_METHODS
    assert report.link_methods == expected
    assert candidates[0]["link_methods"] == expected
    assert candidates[0]["citations"] == ["other", "decoy", "long"]
    assert report.unaligned == [{"paper_id": "2101.00001", "bib_key": "bib.bib4", "title": "Something nobody indexed",
                                 "link_method": "unlinked"}]


def test_build_report_and_statistics_show_link_methods(tmp_path: Path) -> None:
    html = tmp_path / "html"
    html.mkdir()
    (html / "2101.00001.html").write_text(paper(BIB, 4))
    (html / "2102.00002.html").write_text(paper(BIB[:2], 2))
    surge = tmp_path / "corpus.json"
    surge.write_text(json.dumps([{"doc_id": r["doc_id"], "Title": r["title"], "Authors": [], "Year": 2020,
                                  "Abstract": "a"} for r in CORPUS]))
    stats = build_rwgbench_folder(html, surge, tmp_path / "out", show_progress=False)
    report = json.loads((tmp_path / "out" / "build_report.json").read_text())
    assert report["link_methods"] == {"structured": 2, "parsed_title": 2, "title_in_text": 1, "unlinked": 1}
    assert {r["paper_id"]: r["link_methods"]["structured"] for r in report["per_paper"]} == {
        "2101.00001": 1, "2102.00002": 1}
    assert stats["cited_entries_title_in_text"] == 1 and stats["cited_entries_unlinked"] == 1
    unresolved = [json.loads(x) for x in (tmp_path / "out" / "unresolved_citations.jsonl").read_text().splitlines()]
    assert [(u["stage"], u["link_method"]) for u in unresolved] == [("corpus-alignment", "unlinked")]
