"""`sciwrite build surge --from-arxiv`: a fresh SurGE split from a folder laid out as `sciwrite fetch arxiv` writes
it, with LaTeXML survey pages written by hand. Every tree, cite list and dropped count below is worked out by reading
the pages (the comments say how); then `sciwrite evaluate surge --split arxiv` scores a prediction against the
folder, its corpus read from where the build recorded it."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from html import escape
from pathlib import Path

import pytest
from datasets import Dataset

from sciwrite.cli import main
from sciwrite.core.errors import InputError
from sciwrite.sources.arxiv import ArxivPaper
from sciwrite.sources.arxiv_fetch import HTML_DIR, MANIFEST_FILE, PAPERS_FILE, fetched_papers
from sciwrite.sources.corpus import CORPUS_FEATURES
from sciwrite.sources.licences import LicenceRule
from sciwrite.surge.data.arxiv_build import build_surge_from_arxiv, survey_match
from sciwrite.surge.data.configs import card_configs_yaml, corpus_location, write_dataset_folder
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.data.sample import QUERY_TEMPLATE, ROOT_PATH
from tests.cli.error_line import error_line

CC_BY = "http://creativecommons.org/licenses/by/4.0/"
CC_BY_SA = "http://creativecommons.org/licenses/by-sa/4.0/"
ARXIV_ONLY = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
#: The corpus: doc_id c1..c8 and its title.
TITLES = {f"c{i}": title for i, title in enumerate([
    "Retrieval augmented generation for knowledge intensive tasks",
    "Survey of hallucination in natural language generation",
    "The probabilistic relevance framework beyond BM25",
    "Efficient passage search via contextualized late interaction",
    "Neural message passing for quantum chemistry",
    "Footnoted work on sparse indexes for retrieval",
    "Appendix work on index compression methods",
    "Graph attention networks for molecular property prediction"], start=1)}
ABSENT = ["A study nowhere in the corpus at all", "Another made up study of nothing much", "Yet one more absent paper"]


# ------------------------------------------------------------------------------------------------- LaTeXML pages


def bib_item(n: int, title: str) -> str:
    """A natbib entry as LaTeXML writes it: tag, authors and year, title, venue (each a bibblock)."""
    return (f'<li id="bib.bib{n}" class="ltx_bibitem"><span class="ltx_tag ltx_role_refnum ltx_tag_bibitem">Author '
            f'et al. (20{10 + n})</span><span class="ltx_bibblock">Ann Author, Bob Writer. 20{10 + n}.</span>'
            f'<span class="ltx_bibblock">{escape(title)}.</span><span class="ltx_bibblock">In <em>Proceedings</em>.'
            '</span></li>')


def ieee_item(n: int, text: str) -> str:
    """A numeric entry written as one block (IEEE: the title in quotes)."""
    return (f'<li id="bib.bib{n}" class="ltx_bibitem"><span class="ltx_tag ltx_tag_bibitem">[{n}]</span>'
            f'<span class="ltx_bibblock">{text}</span></li>')


def cite(*keys: int, text: str = "Author et al.") -> str:
    """A natbib \\citep of the entries `keys`: '(Author et al., <a>2011</a>; ...)'."""
    inner = "; ".join(f'{text}, <a href="#bib.bib{k}" title="" class="ltx_ref">20{10 + k}</a>' for k in keys)
    return f'<cite class="ltx_cite ltx_citemacro_citep">({inner})</cite>'


def numeric(*keys: int, sep: str = ", ") -> str:
    links = sep.join(f'<a href="#bib.bib{k}" title="" class="ltx_ref">{k}</a>' for k in keys)
    return f'<cite class="ltx_cite ltx_citemacro_cite">[{links}]</cite>'


def para(text: str) -> str:
    return f'<div class="ltx_para"><p class="ltx_p">{text}</p></div>'


def section(level: str, number: str, heading: str, body: str) -> str:
    tag = {"section": "h2", "subsection": "h3", "subsubsection": "h4", "appendix": "h2"}[level]
    return (f'<section id="S{number}" class="ltx_{level}"><{tag} class="ltx_title ltx_title_{level}"><span '
            f'class="ltx_tag ltx_tag_{level}">{number} </span>{heading}</{tag}>{body}</section>')


def page(title: str, body: str, bibliography: str) -> str:
    return f"""<!DOCTYPE html><html lang="en"><head><title>{escape(title)}</title>
<!--Generated on Mon Jul  6 10:00:00 2026 by LaTeXML (version 0.8.8) http://dlmf.nist.gov/LaTeXML/.--></head>
<body><div class="ltx_page_main"><div class="ltx_page_content"><article class="ltx_document">
<h1 class="ltx_title ltx_title_document">{escape(title)}</h1>
<div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6><p class="ltx_p">Abstract.</p></div>
{body}
<section id="bib" class="ltx_bibliography"><h2 class="ltx_title ltx_title_bibliography">References</h2>
<ul class="ltx_biblist">{bibliography}</ul></section></article></div></div></body></html>"""


#: Survey A (natbib): a cite before the first section (the root's), a section with two subsections, one of them with
#: a subsubsection, a cite in a footnote, a cite to a missing entry and one without a link, an appendix.
SURVEY_A = page(
    "Retrieval-Augmented Generation: A Survey",
    para(f"Retrieval helps {cite(1)}.")
    + section("section", "1", "Introduction",
              para(f"Language models hallucinate {cite(2, 1)}. Retrieval grounds them."))
    + section("section", "2", "Retrievers",
              para(f'Sparse retrievers came first {numeric(3)}. The interval <math alttext="[0,1]" '
                   'class="ltx_Math"><mi>x</mi></math> is used.')
              + section("subsection", "2.1", "Dense retrievers",
                        para(f'Dense ones {numeric(4, 5)} followed.<span class="ltx_note ltx_role_footnote"><sup '
                             'class="ltx_note_mark">1</sup><span class="ltx_note_outer"><span '
                             f'class="ltx_note_content">See {numeric(6)}.</span></span></span>')
                        + section("subsubsection", "2.1.1", "Late interaction",
                                  para('As <cite class="ltx_cite ltx_citemacro_citet">Khattab and Zaharia (<a '
                                       'href="#bib.bib4" class="ltx_ref">2020</a>)</cite> show, tokens interact '
                                       'late.')))
              + section("subsection", "2.2", "Hybrid retrievers", para("No citation here.")))
    + section("section", "3", "Conclusion",
              para('We conclude <cite class="ltx_cite">(Gone, <a href="#bib.bib99" class="ltx_ref">2020</a>)</cite>. '
                   'More work <cite class="ltx_cite">(Someone, 2021)</cite> is needed.'))
    + section("appendix", "A", "Extra", para(f"Appendix text {numeric(7)}.")),
    "".join(bib_item(n, t) for n, t in enumerate([TITLES["c1"], TITLES["c2"], TITLES["c3"], TITLES["c4"], ABSENT[0],
                                                  TITLES["c6"], TITLES["c7"]], start=1)))

#: Survey B (numeric, IEEE entries): a survey by its abstract only; a \paragraph inside a section; an entry that is
#: only a URL (no title).
SURVEY_B = page(
    "Graph neural networks for molecules",
    section("section", "1", "Introduction",
            para(f"Molecules are graphs {numeric(1, 2)}.")
            + '<section class="ltx_paragraph"><h4 class="ltx_title ltx_title_paragraph">Scope.</h4>'
            + para(f"We cover message passing {numeric(3)}.") + "</section>")
    + section("section", "2", "Message passing",
              para(f"Messages flow along bonds {numeric(2, 4, sep='; ')}.")
              + section("subsection", "2.1", "Attention", para("Attention weighs neighbours."))),
    ieee_item(1, f"A. Author, “{TITLES['c5']},” in <em>Proc. ICML</em>, 2017.")
    + ieee_item(2, f"B. Writer, “{TITLES['c8']},” in <em>Proc. ICLR</em>, 2018.")
    + ieee_item(3, f"C. Coder, “{ABSENT[1]},” <em>arXiv</em>, 2019.")
    + ieee_item(4, "https://example.org/a-tool"))


def flat_survey(title: str, cited: list[str]) -> str:
    """One section citing every entry of its bibliography (`cited`: titles)."""
    body = section("section", "1", "Body", para(f"Everything {numeric(*range(1, len(cited) + 1))}."))
    return page(title, body, "".join(bib_item(n, t) for n, t in enumerate(cited, start=1)))


NO_SECTIONS = page("Tools: A Survey", para(f"Only a preamble {cite(1)}."), bib_item(1, TITLES["c1"]))


# ------------------------------------------------------------------------------------------------- fetched folder


def arxiv_paper(n: int, title: str, abstract: str, licence: str = CC_BY) -> ArxivPaper:
    return ArxivPaper(arxiv_id=f"2607.{n:05d}", version=1, published=f"2026-07-{n:02d}", updated=f"2026-07-{n:02d}",
                      title=title, abstract=abstract, authors=["Ada Lovelace", "Alan Turing"],
                      categories=["cs.CL", "cs.IR"], primary_category="cs.CL", licence=licence)


def write_fetched(folder: Path, papers: list[tuple[ArxivPaper, str | None]]) -> None:
    """The folder `sciwrite fetch arxiv` writes (`sciwrite.sources.arxiv_fetch`): ``html/<id>v<version>.html``, one
    ``papers.jsonl`` line per paper (status ``fetched``, its metadata) and ``manifest.json``; a page given as None is
    listed but not there (deleted since)."""
    (folder / HTML_DIR).mkdir(parents=True)
    lines = []
    for paper, html in papers:
        path = f"{HTML_DIR}/{paper.versioned_id}.html"
        if html is not None:
            (folder / path).write_text(html, encoding="utf-8")
        lines.append({"arxiv_id": paper.arxiv_id, "version": paper.version, "status": "fetched", "reason": "",
                      "html": path, "replaces_version": None, "metadata": paper.as_dict(),
                      "handled_at": datetime(2026, 7, 31, tzinfo=timezone.utc).isoformat(timespec="seconds")})
    (folder / PAPERS_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    (folder / MANIFEST_FILE).write_text(json.dumps({
        "query": "(cat:cs.CL) AND submittedDate:[202607010000 TO 202607312359]", "categories": ["cs.CL"],
        "since": "2026-07-01", "until": "2026-07-31", "papers": {"fetched": len(papers)}}), encoding="utf-8")


@pytest.fixture()
def fetched(tmp_path: Path) -> dict[str, Path]:
    papers = [
        (arxiv_paper(1, "Retrieval-Augmented Generation: A Survey", "Retrieval for language models."), SURVEY_A),
        (arxiv_paper(2, "Graph neural networks for molecules", "In this survey, we organise graph neural networks "
                     "for chemistry.", CC_BY_SA), SURVEY_B),
        (arxiv_paper(3, "A Review of Tiny Things", "Small things."),
         flat_survey("A Review of Tiny Things", [TITLES["c1"], ABSENT[0], ABSENT[1]])),
        (arxiv_paper(4, "Faster retrieval with hashing", "We propose a method."),
         flat_survey("Faster retrieval with hashing", [TITLES["c1"], TITLES["c2"]])),
        (arxiv_paper(5, "A Survey of Closed Things", "Closed.", ARXIV_ONLY),
         flat_survey("A Survey of Closed Things", [TITLES["c1"], TITLES["c2"]])),
        (arxiv_paper(6, "Tools: A Survey", "Tools."), NO_SECTIONS),
        (arxiv_paper(7, "A survey of lost pages", "Lost."), None),
        (arxiv_paper(8, "Yet another survey", "Empty page."), ""),
        (arxiv_paper(9, "An Overview of Many Things", "Many things."),
         flat_survey("An Overview of Many Things", [TITLES["c2"], TITLES["c3"], *ABSENT])),
    ]
    folder = tmp_path / "arxiv"
    write_fetched(folder, papers)
    assert [p.arxiv_id for p, _ in fetched_papers(folder)] == [f"2607.{n:05d}" for n in range(1, 10)]
    corpus = tmp_path / "corpus"
    rows = [{"doc_id": d, "title": t, "abstract": f"About {t.lower()}.", "authors": ["X Y"], "year": 2020,
             "source": "surge"} for d, t in TITLES.items()]
    write_dataset_folder(corpus, {"corpus": Dataset.from_list(rows, features=CORPUS_FEATURES)},
                         f"---\n{card_configs_yaml(['corpus'])}---\n# corpus\n")
    return {"folder": folder, "corpus": corpus, "out": tmp_path / "fresh"}


def build(fetched, **options) -> dict:
    return build_surge_from_arxiv(fetched["folder"], fetched["corpus"], fetched["out"], min_cites=2,
                                  show_progress=False, **options)


def query(paper_id: str, title: str, section_id: str, path: list[str], cites: list[str]) -> dict:
    where = " > ".join(f"'{t}'" for t in path) or ROOT_PATH
    return {"query_id": f"{paper_id}-{section_id}", "section_id": section_id, "prefix_titles": [title, *path],
            "query": QUERY_TEMPLATE.format(title=title, path=where), "cites": cites}


# ------------------------------------------------------------------------------------------------- tests


def test_the_survey_rule():
    assert survey_match("Retrieval-Augmented Generation: A Survey", "") == "title"
    assert survey_match("Video models: a comprehensive review", "") == "title"
    assert survey_match("An Overview of Many Things", "") == "title"
    assert survey_match("Systematic literature review on code smells", "") == "title"
    assert survey_match("Graph neural networks for molecules", "In this survey, we organise ...") == "abstract"
    assert survey_match("Agents", "This paper reviews recent agents.") == "abstract"
    assert survey_match("Agents", "We present a systematic review of agents.") == "abstract"
    # review as the topic, not the genre; a method paper
    assert survey_match("Code review comments with LLMs", "We propose a model that writes review comments.") is None
    assert survey_match("Faster retrieval with hashing", "We propose a method.") is None


def test_the_trees_cites_and_queries_are_the_hand_worked_ones(fetched):
    stats = build(fetched)
    surveys = {s["paper_id"]: s for s in load_surge("arxiv", source=fetched["out"])}
    assert sorted(surveys) == ["2607.00001", "2607.00002"]
    a = surveys["2607.00001"]
    title_a = "Retrieval-Augmented Generation: A Survey"
    assert (a["title"], a["date"], a["published"], a["year"], a["category"], a["licence"], a["arxiv_version"]) == (
        title_a, "2026-07-01", "2026-07-01", 2026, "cs.CL", "cc-by-4.0", 1)
    # the root holds the paragraph before section 1; every <cite> goes whole (the textual "Khattab and Zaharia
    # (2020)" too, as \citet leaves LaTeX), the footnote and the appendix are left out, maths stays as its LaTeX
    assert a["structure"] == [
        {"id": "0", "parent_id": "", "title": "root", "content": "Retrieval helps."},
        {"id": "s1", "parent_id": "0", "title": "Introduction",
         "content": "Language models hallucinate. Retrieval grounds them."},
        {"id": "s2", "parent_id": "0", "title": "Retrievers",
         "content": "Sparse retrievers came first. The interval [0,1] is used."},
        {"id": "s3", "parent_id": "s2", "title": "Dense retrievers", "content": "Dense ones followed."},
        {"id": "s4", "parent_id": "s3", "title": "Late interaction", "content": "As show, tokens interact late."},
        {"id": "s5", "parent_id": "s2", "title": "Hybrid retrievers", "content": "No citation here."},
        {"id": "s6", "parent_id": "0", "title": "Conclusion", "content": "We conclude. More work is needed."}]
    # the bibliography in order: bib1-4 -> c1-c4, bib5 absent, bib6 (cited in a footnote) -> c6, bib7 (in the
    # appendix) -> c7: six of seven entries resolve
    assert a["all_cites"] == ["c1", "c2", "c3", "c4", "c6", "c7"]
    # a query per section whose own cites resolve: root [bib1], s1 [bib2, bib1], s2 [bib3], s3 [bib4, bib5 absent],
    # s4 [bib4]; s5 cites nothing, s6 cites a missing entry and a cite without a link
    assert a["queries"] == [
        query("2607.00001", title_a, "0", [], ["c1"]),
        query("2607.00001", title_a, "s1", ["Introduction"], ["c2", "c1"]),
        query("2607.00001", title_a, "s2", ["Retrievers"], ["c3"]),
        query("2607.00001", title_a, "s3", ["Retrievers", "Dense retrievers"], ["c4"]),
        query("2607.00001", title_a, "s4", ["Retrievers", "Dense retrievers", "Late interaction"], ["c4"])]
    # the text a system is compared with: headings by depth, each section's cites at its end, the reference list
    assert a["text"].startswith(f"# {title_a}\n\nRetrieval helps [1].\n\n## Introduction\n\n"
                                "Language models hallucinate. Retrieval grounds them [2][1].")
    assert "#### Late interaction\n\nAs show, tokens interact late [4]." in a["text"]
    assert a["text"].endswith(f"[5] {TITLES['c6']}\n[6] {TITLES['c7']}\n")

    b = surveys["2607.00002"]
    title_b = "Graph neural networks for molecules"
    # a \paragraph stays text of its section, its heading a line; the [2; 4] cite counts both links
    assert b["structure"] == [
        {"id": "0", "parent_id": "", "title": "root", "content": ""},
        {"id": "s1", "parent_id": "0", "title": "Introduction",
         "content": "Molecules are graphs.\nScope.\nWe cover message passing."},
        {"id": "s2", "parent_id": "0", "title": "Message passing", "content": "Messages flow along bonds."},
        {"id": "s3", "parent_id": "s2", "title": "Attention", "content": "Attention weighs neighbours."}]
    assert b["all_cites"] == ["c5", "c8"]  # bib3 absent, bib4 a URL without a title: 2 of 4 resolve
    assert b["queries"] == [query("2607.00002", title_b, "s1", ["Introduction"], ["c5", "c8"]),
                            query("2607.00002", title_b, "s2", ["Message passing"], ["c8"])]
    assert b["licence"] == "cc-by-sa-4.0"

    report = json.loads((fetched["out"] / "build_report.json").read_text())
    assert report["corpus"] == {"source": str(fetched["corpus"].resolve()), "config": "corpus"}
    # 9 fetched: 4 is no survey, 5 is arXiv-only, 6 has no section, 7's page is gone and 8's is empty, 3 resolves one
    # work (c1) of three, 9 resolves two (c2, c3) of five: 40 % < 50 %
    assert report["skipped"] == {"not-a-survey": ["2607.00004"], "licence-not-redistributable": ["2607.00005"],
                                 "no-sections": ["2607.00006"], "unreadable": ["2607.00007", "2607.00008"],
                                 "too-few-cites-in-corpus": ["2607.00003"],
                                 "resolved-share-too-low": ["2607.00009"]}
    assert "2607.00007v1.html" in report["why"]["2607.00007"] and "empty document" in report["why"]["2607.00008"]
    assert [(r["step"], r["papers"]) for r in report["filters"]] == [
        ("fetched papers", 9), ("surveys (title or abstract)", 8), ("redistributable licence", 7),
        ("readable, with sections and a bibliography", 4), ("enough cites in the corpus", 3),
        ("enough of the bibliography in the corpus", 2)]
    shares = {r["paper_id"]: (r["resolved_entries"], r["bibliography_entries"], r["resolved_share"], r["kept"])
              for r in report["per_survey"]}
    assert shares == {"2607.00001": (6, 7, round(6 / 7, 4), True), "2607.00002": (2, 4, 0.5, True),
                      "2607.00003": (1, 3, round(1 / 3, 4), False), "2607.00009": (2, 5, 0.4, False)}
    per_a = next(r for r in report["per_survey"] if r["paper_id"] == "2607.00001")
    # cites in the tree's text: root 1, s1 2, s2 1, s3 2, s4 1, s6 2 = 9; to the corpus 1 + 2 + 1 + 1 + 1 = 6
    assert (per_a["citations_in_text"], per_a["citations_to_corpus"], per_a["sections"], per_a["depth"]) == (9, 6, 6, 3)
    assert per_a["matched_by"] == "title" and report["per_survey"][1]["matched_by"] == "abstract"
    assert stats["surveys"] == 2 and stats["skipped"]["unreadable"] == 2 and stats["queries"] == 7
    card = (fetched["out"] / "README.md").read_text()
    assert "license: cc-by-sa-4.0" in card and "first submitted 2026-07-01 to 2026-07-31" in card
    assert str(fetched["corpus"].resolve()) in card and "survey or overview" in card
    assert "| enough of the bibliography in the corpus | 2 | 22.2% |" in card
    assert [p.name for p in fetched["out"].iterdir() if p.is_dir()] == ["arxiv"]  # no corpus copied


def test_licences_and_thresholds_as_asked(fetched):
    build(fetched, licences=LicenceRule(keep_all=True), min_resolved_share=0.4)
    kept = sorted(load_surge("arxiv", source=fetched["out"])["paper_id"])
    # 5 (arXiv-only, resolves c1 and c2 of two) is kept with every licence, 9 (40 %) at a 40 % share
    assert kept == ["2607.00001", "2607.00002", "2607.00005", "2607.00009"]
    assert "license: other" in (fetched["out"] / "README.md").read_text()
    with pytest.raises(InputError, match=r"no survey kept of 9 fetched papers.*too-few-cites-in-corpus: 2607\.00001"):
        build_surge_from_arxiv(fetched["folder"], fetched["corpus"], fetched["out"], min_cites=50,
                               show_progress=False)
    with pytest.raises(ValueError, match="is a survey config"):
        build(fetched, corpus_config="sample")


def test_the_command_line_builds_it_and_evaluate_reads_the_recorded_corpus(fetched, tmp_path, capsys):
    out = fetched["out"]
    assert main(["build", "surge", "--from-arxiv", str(fetched["folder"]), "--corpus-source", str(fetched["corpus"]),
                 "--min-cites", "2", "--out", str(out)]) == 0
    assert "fresh SurGE split (config 'arxiv') written to" in capsys.readouterr().out
    location = corpus_location("arxiv", out)
    assert (location.config, location.source) == ("corpus", str(fetched["corpus"].resolve()))
    # survey A cites c1, c2, c3 of its six and an invented work: Coverage 3/6; survey B cites c5 of its two: 1/2
    predictions = tmp_path / "run.jsonl"
    texts = {"2607.00001": [TITLES["c1"], TITLES["c2"], TITLES["c3"], "A Theory of Everything Nobody Wrote"],
             "2607.00002": [TITLES["c5"]]}
    body = "# A survey\n\n## Body\n\nRetrieval and graphs are studied widely in many recent works [1].\n\n"
    predictions.write_text("".join(json.dumps({"survey_id": sid, "text": body + "## References\n\n" + "\n".join(
        f"[{i}] {t}" for i, t in enumerate(refs, 1)) + "\n"}) + "\n" for sid, refs in texts.items()), encoding="utf-8")
    evaluation = tmp_path / "eval"
    assert main(["evaluate", "surge", "--split", "arxiv", "--source", str(out), "--predictions", str(predictions),
                 "--profile", "lite", "--metrics", "reference_coverage", "--bootstrap", "0",
                 "--cutoff", "2026-07-01", "--out", str(evaluation)]) == 0
    summary = json.loads((evaluation / "run" / "summary.json").read_text())
    assert summary["split"] == "arxiv" and summary["n_papers"] == 2
    assert summary["reference_coverage"] == pytest.approx((3 / 6 + 1 / 2) / 2)
    # survey A was published on the cutoff day (before), B the day after
    assert (summary["cutoff"]["n_before"], summary["cutoff"]["n_after"]) == (1, 1)


def test_bad_inputs_are_one_line(fetched, tmp_path, capsys):
    folder, corpus = str(fetched["folder"]), str(fetched["corpus"])
    line = error_line(["build", "surge", "--from-arxiv", folder, "--out", str(tmp_path / "o")], capsys)
    assert "--from-arxiv needs --corpus-source" in line
    line = error_line(["build", "surge", "--from-arxiv", folder, "--corpus-source", corpus, "--min-resolved-share",
                       "1.5", "--out", str(tmp_path / "o")], capsys)
    assert "min_resolved_share in [0, 1]" in line
    line = error_line(["build", "surge", "--from-arxiv", str(tmp_path), "--corpus-source", corpus, "--out",
                       str(tmp_path / "o")], capsys)
    assert "papers.jsonl" in line
    predictions = tmp_path / "run.jsonl"
    predictions.write_text(json.dumps({"survey_id": "2607.00001", "text": "# A survey\n"}) + "\n", encoding="utf-8")
    evaluate = ["evaluate", "surge", "--split", "arxiv", "--predictions", str(predictions), "--bootstrap", "0",
                "--out", str(tmp_path / "e")]
    # a folder that records no corpus (the corpus folder itself), and no folder at all
    line = error_line([*evaluate, "--source", corpus], capsys)
    assert f"{Path(corpus) / 'build_report.json'} not found" in line
    assert "give that folder as --source" in error_line(evaluate, capsys)
    (fetched["out"]).mkdir()
    (fetched["out"] / "build_report.json").write_text("{}", encoding="utf-8")
    line = error_line([*evaluate, "--source", str(fetched["out"])], capsys)
    assert "no corpus recorded" in line
