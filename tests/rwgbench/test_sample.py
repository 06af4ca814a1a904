"""grobid2json reading and the offline RWGBench sample built from it (synthetic papers and the real aclsum 250)."""

from __future__ import annotations

import json
import logging

import pyarrow.parquet as pq
import pytest
import yaml

from sciwrite.rwgbench.data.sample import build_sample, is_introduction_heading
from sciwrite.rwgbench.data.sample_folder import REPORT_FILE, write_sample_folder
from sciwrite.sources.aclsum import anthology_venue, anthology_year
from sciwrite.sources.grobid import (
    Paragraph,
    author_names,
    load_grobid_json,
    paragraphs,
    replace_cite_spans,
    section_paragraphs,
)
from sciwrite.sources.latexml import is_related_work_heading
from sciwrite.sources.markers import marker_numbers, order_of_first_appearance
from sciwrite.sources.titles import title_doc_id

# ---------------------------------------------------------------- helpers writing grobid2json papers


def para(text, section, sec_num=None, cites=()):
    """A body_text paragraph; `cites` are (span text, ref_id) pairs located left to right in `text`."""
    spans, cursor = [], 0
    for span_text, ref_id in cites:
        start = text.index(span_text, cursor)
        cursor = start + len(span_text)
        spans.append({"start": start, "end": cursor, "text": span_text, "ref_id": ref_id})
    return {"text": text, "cite_spans": spans, "section": section, "sec_num": sec_num}


def author(first, last, middle=()):
    return {"first": first, "middle": list(middle), "last": last, "suffix": ""}


def bib(title, year=None, authors=()):
    return {"title": title, "authors": list(authors), "year": year}


def paper(title, body, bibs, abstract="", year=2020, authors=()):
    return {"title": title, "abstract": abstract, "authors": list(authors), "year": year,
            "pdf_parse": {"body_text": body, "bib_entries": bibs}}


def write_papers(folder, papers):
    folder.mkdir(parents=True, exist_ok=True)
    for stem, doc in papers.items():
        (folder / f"{stem}.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


# ---------------------------------------------------------------- grobid reading

NUMBERED = paper("Numbered", [
    para("We start.", "Introduction", "1"),
    para("Overview of prior work.", "Related Work", "2"),
    para("Graph methods.", "Graph-based methods", "2.1"),
    para("Deeper still.", "Ranking", "2.1.1"),
    para("Back to the top level.", "Related Work", None),
    para("Our method.", "Method", "3"),
    para("More related work, much later.", "Related Work", "5"),
], {})


def test_section_paragraphs_numbered_section_runs_through_subsections_and_stops_at_next():
    heading, paras = section_paragraphs(NUMBERED, is_related_work_heading)
    assert heading == "Related Work"
    assert [p.text for p in paras] == ["Overview of prior work.", "Graph methods.", "Deeper still.",
                                       "Back to the top level."]
    assert [p.sec_num for p in paras] == ["2", "2.1", "2.1.1", None]


def test_section_paragraphs_numbered_section_does_not_take_section_with_same_prefix():
    doc = paper("T", [para("RW.", "Related Work", "2."), para("Twenty.", "Other", "20"),
                      para("Sub.", "Sub", "2.1")], {})
    heading, paras = section_paragraphs(doc, is_related_work_heading)
    assert heading == "Related Work"
    assert [p.text for p in paras] == ["RW."]


def test_section_paragraphs_unnumbered_section_takes_contiguous_paragraphs():
    doc = paper("T", [
        para("Intro.", "Introduction"),
        para("First.", "Background and Related Work"),
        para("Second.", "Background and Related Work"),
        para("Method.", "Approach"),
        para("Third, not contiguous.", "Background and Related Work"),
    ], {})
    heading, paras = section_paragraphs(doc, is_related_work_heading)
    assert heading == "Background and Related Work"
    assert [p.text for p in paras] == ["First.", "Second."]


def test_section_paragraphs_no_match_and_introduction():
    doc = paper("T", [para("Intro.", "1 Introduction", "1"), para("Method.", "Method", "2")], {})
    assert section_paragraphs(doc, is_related_work_heading) == ("", [])
    heading, paras = section_paragraphs(doc, is_introduction_heading)
    assert (heading, [p.text for p in paras]) == ("1 Introduction", ["Intro."])


def test_paragraphs_accept_top_level_body_text_and_missing_fields():
    doc = {"body_text": [{"text": None, "section": None}, {"text": "x", "section": " S ", "sec_num": "1"}]}
    assert paragraphs(doc) == [Paragraph("", "", None, []), Paragraph("x", "S", "1", [])]


def test_replace_cite_spans():
    text = "A (Smith, 2010) and B [7] and C."
    assert (text.index("(Smith"), text.index("[7]")) == (2, 22)
    p = Paragraph(text, "RW", None, [
        {"start": 22, "end": 25, "text": "[7]", "ref_id": "BIBREF1"},  # out of order on purpose
        {"start": 2, "end": 15, "text": "(Smith, 2010)", "ref_id": "BIBREF0"},
    ])
    markers = {"BIBREF0": "[1]", "BIBREF1": "[2]"}
    assert replace_cite_spans(p, markers.get) == "A [1] and B [2] and C."
    # a span the callback declines keeps its text
    assert replace_cite_spans(p, {"BIBREF1": "[9]"}.get) == "A (Smith, 2010) and B [9] and C."


def test_replace_cite_spans_skips_overlapping_and_out_of_range_spans():
    p = Paragraph("abc def", "RW", None, [
        {"start": 0, "end": 3, "ref_id": "a"},
        {"start": 2, "end": 5, "ref_id": "b"},  # overlaps the first
        {"start": 4, "end": 99, "ref_id": "c"},  # past the end
    ])
    seen = []
    assert replace_cite_spans(p, lambda r: seen.append(r) or f"<{r}>") == "<a> def"
    assert seen == ["a"]


def test_author_names():
    assert author_names([author("Ann", "Lee", ["B."]), {"first": "", "middle": [], "last": "Solo", "suffix": "Jr."},
                         {"first": " ", "last": ""}]) == ["Ann B. Lee", "Solo Jr."]
    assert author_names(None) == []


def test_load_grobid_json_reads_a_paper(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(NUMBERED), encoding="utf-8")
    assert load_grobid_json(path)["title"] == "Numbered"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not a readable JSON file"),
        ("[1, 2, 3]", "not a grobid2json/S2ORC paper"),
        ('{"title": "no body"}', "not a grobid2json/S2ORC paper"),
        ("null", "not a grobid2json/S2ORC paper"),
    ],
)
def test_load_grobid_json_errors_name_the_file(tmp_path, content, needle):
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=needle) as err:
        load_grobid_json(path)
    assert str(path) in str(err.value)


def test_load_grobid_json_missing_file_names_it(tmp_path):
    with pytest.raises(ValueError, match="missing.json"):
        load_grobid_json(tmp_path / "missing.json")


def test_load_grobid_json_binary_file_names_it(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00\x81 not text")
    with pytest.raises(ValueError, match="binary.json"):
        load_grobid_json(path)


# ---------------------------------------------------------------- the sample on three synthetic papers

GRAPH_ID = "2020.acl-main.1"  # target paper with numbered related work, an unlinked span and an untitled bib entry
CITES_ID = "2021.emnlp-main.2"  # target paper citing GRAPH_ID's paper by (differently written) title
NORW_ID = "P19-1000"  # no related-work section

GRAPH = paper(
    "Graph-Based Summarization of Scientific Papers",
    [
        para("Summaries help readers.", "Introduction", "1"),
        para("Early systems (Smith, 2010; Jones, 2011) ranked sentences. Later work by Doe (2012) and Roe (2013) "
             "used neural models.", "Related Work", "2",
             [("Smith, 2010", "BIBREF0"), ("Jones, 2011", "BIBREF1"), ("(2012)", None), ("(2013)", "BIBREF2")]),
        para("Transformers (Jones, 2011) dominate; see also Vaswani et al. (2017).", "Neural models", "2.1",
             [("Jones, 2011", "BIBREF1"), ("(2017)", "BIBREF3")]),
        para("Our method builds on (Smith, 2010).", "Method", "3", [("Smith, 2010", "BIBREF0")]),
    ],
    {
        "BIBREF0": bib("Graph-based ranking for summarization", 2010, [author("Ann", "Smith")]),
        "BIBREF1": bib("Neural sentence extraction", "2011", [author("Bo", "Jones", ["K."])]),
        "BIBREF2": bib("", 2013, [author("Cy", "Roe")]),
        "BIBREF3": bib("Attention is all you need", 2017),
        "BIBREF4": bib("An uncited work", 2001),
    },
    abstract="We summarise papers with graphs.",
    year=2020,
    authors=[author("Ann", "Lee", ["B."])],
)

CITES = paper(
    "Citation Recommendation with Transformers",
    [
        para("Transformers [5] changed the field, after graph methods [3].", "Related work", None,
             [("[5]", "BIBREF1"), ("[3]", "BIBREF0")]),
        para("Both [3] [5] are compared.", "Related work", None, [("[3]", "BIBREF0"), ("[5]", "BIBREF1")]),
        para("We conclude.", "Conclusion", None),
    ],
    {
        "BIBREF0": bib("graph based summarization of scientific papers.", 2020),
        "BIBREF1": bib("Attention Is All You Need!", 2017, [author("Ashish", "Vaswani")]),
    },
    abstract="We recommend citations.",
    year="2021",
)

NORW = paper("A Paper Without Related Work", [para("Intro.", "Introduction", "1"), para("M.", "Method", "2")],
             {"BIBREF0": bib("Only cited by a skipped paper", 1999)}, abstract="No related work here.")

B0, B1, B3, B4 = (title_doc_id(t, "aclbib") for t in ("Graph-based ranking for summarization", "Neural sentence extraction",
                                                      "Attention is all you need", "An uncited work"))


@pytest.fixture(scope="module")
def synthetic_build(tmp_path_factory):
    folder = write_papers(tmp_path_factory.mktemp("synthetic_papers"), {GRAPH_ID: GRAPH, CITES_ID: CITES, NORW_ID: NORW})
    return build_sample(folder, show_progress=False)


def test_synthetic_sample_papers(synthetic_build):
    papers, _, _ = synthetic_build
    assert [p["paper_id"] for p in papers] == [GRAPH_ID, CITES_ID]
    graph, cites = papers
    assert graph["related_work"] == (
        "Early systems [1, 2] ranked sentences. Later work by Doe (2012) and Roe (2013) used neural models."
        "\n\nTransformers [2] dominate; see also Vaswani et al. [3]."
    )
    assert graph["citations"] == [B0, B1, B3]
    assert graph["introduction"] == "Summaries help readers."
    assert (graph["title"], graph["abstract"], graph["venue"], graph["year"]) == (
        "Graph-Based Summarization of Scientific Papers", "We summarise papers with graphs.", "ACL", 2020)
    # the cited "graph based summarization ..." is the target paper GRAPH_ID itself; Attention is shared with GRAPH
    assert cites["related_work"] == "Transformers [1] changed the field, after graph methods [2].\n\nBoth [2, 1] are compared."
    assert cites["citations"] == [B3, GRAPH_ID]
    assert (cites["introduction"], cites["venue"], cites["year"]) == ("", "EMNLP", 2021)
    assert set(graph) == {"paper_id", "title", "abstract", "introduction", "related_work", "citations", "venue", "year"}


def test_synthetic_sample_corpus_dedupes_into_target(synthetic_build):
    _, corpus, report = synthetic_build
    assert [d["doc_id"] for d in corpus] == [GRAPH_ID, CITES_ID, B0, B1, B3, B4]
    by_id = {d["doc_id"]: d for d in corpus}
    assert by_id[GRAPH_ID] == {"doc_id": GRAPH_ID, "title": "Graph-Based Summarization of Scientific Papers",
                               "abstract": "We summarise papers with graphs.", "authors": ["Ann B. Lee"],
                               "year": 2020, "source": "aclsum"}
    assert by_id[B1] == {"doc_id": B1, "title": "Neural sentence extraction", "abstract": "",
                         "authors": ["Bo K. Jones"], "year": 2011, "source": "aclsum-bibliography"}
    # "Attention Is All You Need!" has the same normalised title, hence the same doc_id: it is skipped as a
    # duplicate doc_id (not merged), so the first record keeps its spelling and its empty authors.
    assert by_id[B3]["title"] == "Attention is all you need"
    assert by_id[B3]["authors"] == []
    # the skipped paper's bibliography and the untitled entry never reach the corpus
    assert not any(d["title"] in ("Only cited by a skipped paper", "") for d in corpus)
    assert report.corpus_report.counts == {"duplicate-title": 1, "duplicate-doc_id": 1}
    assert report.corpus_report.redirects == {title_doc_id("graph based summarization of scientific papers.", "aclbib"): GRAPH_ID}


def test_synthetic_sample_report(synthetic_build):
    papers, corpus, report = synthetic_build
    assert report.skipped == {"no-related-work": [NORW_ID]}
    assert dict(report.unresolved_citations) == {"no-link": 1, "no-title": 1}
    per_paper = {r["paper_id"]: r for r in report.per_paper}
    assert per_paper[GRAPH_ID]["n_citation_spans"] == 6
    assert per_paper[GRAPH_ID]["extraction_rate"] == pytest.approx(4 / 6)
    assert per_paper[GRAPH_ID]["heading"] == "Related Work"
    assert per_paper[GRAPH_ID]["n_citations"] == 3
    assert per_paper[CITES_ID]["extraction_rate"] == 1.0
    assert per_paper[CITES_ID]["coverage"] == 1.0
    stats = report.statistics(papers, corpus)
    assert stats == {
        "source_papers": 3, "target_papers": 2, "skipped_papers": {"no-related-work": 1}, "corpus_documents": 6,
        "corpus_documents_with_abstract": 2, "mean_citations": 2.5, "min_citations": 2, "max_citations": 3,
        "mean_extraction_rate": round((4 / 6 + 1) / 2, 4), "mean_coverage": 1.0,
        "unresolved_citations": {"no-link": 1, "no-title": 1},
    }


def test_sample_skips_unreadable_untitled_and_citationless_papers(tmp_path, caplog):
    folder = write_papers(tmp_path / "papers", {
        "A00-0001": paper("", [para("RW [1].", "Related Work", "2", [("[1]", "BIBREF0")])], {"BIBREF0": bib("X")}),
        "A00-0002": paper("Unlinked only", [para("RW (Doe, 2001).", "Related Work", "2", [("(Doe, 2001)", None)])], {}),
        "A00-0003": GRAPH,
    })
    (folder / "A00-0000.json").write_text("{oops", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="sciwrite.rwgbench.data.sample"):
        papers, _, report = build_sample(folder, show_progress=False)
    assert [p["paper_id"] for p in papers] == ["A00-0003"]
    assert report.skipped == {"unreadable": ["A00-0000"], "no-title": ["A00-0001"],
                              "no-resolved-citation-in-related-work": ["A00-0002"]}
    assert "A00-0000.json" in caplog.text
    assert [r["paper_id"] for r in report.per_paper] == ["A00-0003"]  # figures of skipped papers dropped
    assert dict(report.unresolved_citations) == {"no-link": 2, "no-title": 1}  # A00-0002's span + GRAPH's two


def test_sample_empty_folder_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no grobid2json papers"):
        build_sample(tmp_path, show_progress=False)


def test_sample_bib_entry_with_null_title_counts_as_untitled(tmp_path):
    folder = write_papers(tmp_path / "papers", {"A00-0001": paper("T", [
        para("See A [1] and B [2].", "Related Work", "2", [("[1]", "BIBREF0"), ("[2]", "BIBREF1")])],
        {"BIBREF0": bib("Titled work"), "BIBREF1": bib(None)})})
    papers, _, report = build_sample(folder, show_progress=False)
    assert papers[0]["related_work"] == "See A [1] and B (2)."  # unresolved: neutralised, not a marker
    assert dict(report.unresolved_citations) == {"no-title": 1}


def test_sample_unlinked_numeric_citation_is_not_attributed_to_another_work(tmp_path):
    folder = write_papers(tmp_path / "papers", {"A00-0001": paper("T", [
        para("A [1] and B [2] and C [3].", "Related Work", "2",
             [("[1]", "BIBREF0"), ("[2]", None), ("[3]", "BIBREF2")])],
        {"BIBREF0": bib("First work"), "BIBREF2": bib("Second work")})})
    papers, _, _ = build_sample(folder, show_progress=False)
    # only A's and C's spans were linked: exactly two markers may remain
    assert marker_numbers(papers[0]["related_work"]) == [1, 2]


def test_anthology_venue():
    assert anthology_venue("2020.aacl-main.33") == "AACL"
    assert anthology_venue("P18-1001") == "ACL"
    assert anthology_venue("N01-1024") == "NAACL"
    assert anthology_venue("zzz") == "unknown"


@pytest.mark.parametrize(("paper_id", "year"), [
    ("2020.aacl-main.33", 2020), ("P18-1001", 2018), ("W99-0101", 1999), ("J60-1001", 1960), ("N59-1001", 2059),
    ("2403.01234", None), ("P18-1001a", None), ("zzz", None), ("", None),
])
def test_anthology_year(paper_id, year):
    # two-digit years: 19xx from 60 on (the old ids run 1965-2019), so 59 reads as 2059
    assert anthology_year(paper_id) == year


def test_sample_year_falls_back_to_the_anthology_id(tmp_path):
    body = [para("Prior work [1] matters.", "Related Work", "2", [("[1]", "BIBREF0")])]
    folder = write_papers(tmp_path / "papers", {"D19-1001": paper("No year", body, {"BIBREF0": bib("A work")}, year=""),
                                                "2021.acl-long.9": paper("Own year", body, {"BIBREF0": bib("A work")},
                                                                         year=2020)})
    papers, corpus, _ = build_sample(folder, show_progress=False)
    # the grobid year wins where there is one (2020, not the id's 2021); an empty one gives way to the id's
    assert {p["paper_id"]: p["year"] for p in papers} == {"D19-1001": 2019, "2021.acl-long.9": 2020}
    assert {d["doc_id"]: d["year"] for d in corpus if d["source"] == "aclsum"} == {"D19-1001": 2019,
                                                                                  "2021.acl-long.9": 2020}


# ---------------------------------------------------------------- the real aclsum sample


@pytest.fixture(scope="module")
def real_sample(sample_folder):
    papers = pq.read_table(sample_folder / "sample" / "test-00000-of-00001.parquet").to_pylist()
    corpus = pq.read_table(sample_folder / "sample_corpus" / "train-00000-of-00001.parquet").to_pylist()
    report = json.loads((sample_folder / REPORT_FILE).read_text(encoding="utf-8"))
    return papers, corpus, report


def test_real_sample_markers_and_citations_are_consistent(real_sample):
    papers, corpus, _ = real_sample
    assert len(papers) > 100
    doc_ids = [d["doc_id"] for d in corpus]
    assert len(doc_ids) == len(set(doc_ids))
    known = set(doc_ids)
    for p in papers:
        n = len(p["citations"])
        assert n >= 1, p["paper_id"]
        assert len(set(p["citations"])) == n, p["paper_id"]
        assert set(p["citations"]) <= known, p["paper_id"]
        assert all(1 <= k <= n for k in marker_numbers(p["related_work"])), p["paper_id"]
        # citations are numbered by first appearance: the distinct markers read 1, 2, ..., n in order
        assert order_of_first_appearance(p["related_work"]) == list(range(1, n + 1)), p["paper_id"]
    # every target paper is itself a corpus document with its abstract
    for p in papers:
        assert p["paper_id"] in known


def test_real_sample_papers_carry_years(real_sample):
    papers, corpus, _ = real_sample
    # aclsum's grobid2json leaves every paper's `year` empty: the years come from the Anthology ids
    years = {p["paper_id"]: p["year"] for p in papers}
    assert all(isinstance(y, int) and 1965 <= y <= 2022 for y in years.values()), years
    assert (years["2020.aacl-main.33"], years["D07-1016"]) == (2020, 2007)
    assert {d["doc_id"]: d["year"] for d in corpus if d["doc_id"] in years} == years


def test_real_sample_has_no_more_markers_than_linked_citation_spans(real_sample):
    papers, _, report = real_sample
    resolved = {r["paper_id"]: round(r["n_citation_spans"] * r["extraction_rate"]) for r in report["per_paper"]}
    too_many = [p["paper_id"] for p in papers if len(marker_numbers(p["related_work"])) > resolved[p["paper_id"]]]
    assert too_many == []


def test_real_sample_card_and_report(sample_folder, real_sample):
    papers, corpus, report = real_sample
    card = (sample_folder / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(card.split("---", 2)[1])
    assert [c["config_name"] for c in meta["configs"]] == ["sample", "sample_corpus"]
    assert meta["configs"][0]["data_files"] == [{"split": "test", "path": "sample/test-*.parquet"}]
    assert meta["configs"][1]["data_files"] == [{"split": "train", "path": "sample_corpus/train-*.parquet"}]
    stats = report["statistics"]
    assert stats["source_papers"] == 250
    assert stats["target_papers"] == len(papers)
    assert stats["corpus_documents"] == len(corpus)
    assert f"| target papers | {len(papers)} |" in card
    assert sum(stats["skipped_papers"].values()) == 250 - len(papers)
    assert [r["paper_id"] for r in report["per_paper"]] == [p["paper_id"] for p in papers]
    for row in report["per_paper"]:
        assert 0.0 <= row["extraction_rate"] <= 1.0
        assert row["n_citations"] >= 1
    assert report["corpus_assembly"]["n_out"] == len(corpus)


def test_write_sample_folder_returns_statistics(tmp_path):
    folder = write_papers(tmp_path / "papers", {GRAPH_ID: GRAPH, CITES_ID: CITES, NORW_ID: NORW})
    stats = write_sample_folder(tmp_path / "out", paper_dir=folder, show_progress=False)
    assert (stats["target_papers"], stats["corpus_documents"]) == (2, 6)
    rows = pq.read_table(tmp_path / "out" / "sample" / "test-00000-of-00001.parquet").to_pylist()
    assert rows[0]["related_work"].startswith("Early systems [1, 2] ranked")
    assert "no-related-work" in (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
