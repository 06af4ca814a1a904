"""The offline SurGE sample: survey-shaped targets from grobid2json papers (two hand-made ones and the real aclsum 250)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from datasets import Dataset

from sciwrite.core.errors import InputError
from sciwrite.rwgbench.data.sample import build_sample
from sciwrite.sources.aclsum import aclsum_paper_dir, anthology_year
from sciwrite.sources.corpus import CORPUS_FEATURES
from sciwrite.sources.grobid import Paragraph, load_grobid_json, paragraphs
from sciwrite.sources.titles import normalize_title, title_doc_id
from sciwrite.surge.data.sample import (
    MIN_CITATIONS,
    MIN_SECTIONS,
    ROOT_ID,
    build_surge_sample,
    remove_citation_spans,
)
from sciwrite.surge.data.schema import SURVEY_FEATURES

# ---------------------------------------------------------------- hand-made grobid2json papers


def para(text, section, sec_num=None, cites=()):
    """A body_text paragraph; `cites` are (span text, ref_id) pairs located left to right in `text`."""
    spans, cursor = [], 0
    for span_text, ref_id in cites:
        start = text.index(span_text, cursor)
        cursor = start + len(span_text)
        spans.append({"start": start, "end": cursor, "text": span_text, "ref_id": ref_id})
    return {"text": text, "cite_spans": spans, "section": section, "sec_num": sec_num}


def paper(title, body, bibs, abstract="", year=""):
    return {"title": title, "abstract": abstract, "year": year,
            "authors": [{"first": "Ann", "middle": ["B."], "last": "Lee", "suffix": ""}],
            "pdf_parse": {"body_text": body, "bib_entries": {k: {"title": t, "authors": [], "year": 2010}
                                                             for k, t in bibs.items()}}}


def write_papers(folder, papers):
    folder.mkdir(parents=True, exist_ok=True)
    for stem, doc in papers.items():
        (folder / f"{stem}.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


A_ID, B_ID = "2020.acl-main.1", "P19-1000"
A_TITLE, B_TITLE = "Graph-Based Summarization of Scientific Papers", "Summarization of Papers by Graphs"
SMITH, JONES, RANK, VASWANI = ("Graph-based ranking for summarization", "Neural sentence extraction",
                               "Sentence ranking with graphs", "Attention is all you need")

# Sections numbered 1, 2, 2.1, 3, with a paragraph before the first heading (root text), section 2 resumed after
# 2.1, a footnote at the end, and every kind of citation span: linked, unlinked, to a missing or untitled entry,
# to the paper itself and to paper B (by a differently written title).
PAPER_A = paper(A_TITLE, [
    para("Preface text (Smith, 2010).", "", None, [("(Smith, 2010)", "BIBREF0")]),
    para("Summaries help readers (Smith, 2010; Jones, 2011) .", "Introduction", "1",
         [("(Smith, 2010;", "BIBREF0"), ("Jones, 2011)", "BIBREF1")]),
    para("Early systems ranked sentences, as Doe (2012) did, and [3] [4] followed.", "Related Work", "2",
         [("Doe (2012)", None), ("[3]", "BIBREF2"), ("[4]", "BIBREF2")]),
    para("Transformers (Vaswani et al., 2017) dominate (see Brown, 2020).", "Neural models", "2.1",
         [("Vaswani et al., 2017", "BIBREF3"), ("Brown, 2020", "BIBREF4")]),
    para("Back to the overview: graphs [9].", "Related Work", "2", [("[9]", "BIBREF5")]),
    para("Our method extends an earlier version (this paper) [7] [8].", "Method", "3.",
         [("[7]", "BIBREF6"), ("[8]", "BIBREF9")]),
    para("https://example.org/code", "", None),
], {"BIBREF0": SMITH, "BIBREF1": JONES, "BIBREF2": RANK, "BIBREF3": VASWANI, "BIBREF4": "",
    "BIBREF5": "summarization of papers by graphs.", "BIBREF6": A_TITLE}, abstract="We summarise papers.")

# Unnumbered sections (under root), an orphan "4.2" (no section 4 has text) and its child "4.2.1".
PAPER_B = paper(B_TITLE, [
    para("As in [1], graphs help [2, 3].", "Introduction", None, [("[1]", "BIBREF0"), ("[2,", "BIBREF1"), ("3]", "BIBREF2")]),
    para("Ranking [4] and attention [5].", "Background", None, [("[4]", "BIBREF3"), ("[5]", "BIBREF4")]),
    para("Ablations.", "Ablation", "4.2"),
    para("Details.", "Details", "4.2.1"),
], {"BIBREF0": "Graph-based summarization of scientific papers", "BIBREF1": SMITH, "BIBREF2": JONES,
    "BIBREF3": RANK, "BIBREF4": "Attention Is All You Need!"}, year="2019")

S, J, R, V = (title_doc_id(t, "aclbib") for t in (SMITH, JONES, RANK, VASWANI))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = write_papers(tmp_path_factory.mktemp("surge_papers"), {A_ID: PAPER_A, B_ID: PAPER_B})
    surveys, corpus, report = build_surge_sample(folder, show_progress=False)
    return {s["paper_id"]: s for s in surveys}, corpus, report


def test_tiny_tree_follows_the_section_numbers_and_strips_citation_spans(tiny):
    surveys, _, _ = tiny
    # worked out by hand from PAPER_A: "2" resumed after "2.1" joins the first "2"; the footnote is left out
    assert surveys[A_ID]["structure"] == [
        {"id": "0", "parent_id": "", "title": "root", "content": "Preface text."},
        {"id": "s1", "parent_id": "0", "title": "Introduction", "content": "Summaries help readers."},
        {"id": "s2", "parent_id": "0", "title": "Related Work",
         "content": "Early systems ranked sentences, as did, and followed.\nBack to the overview: graphs."},
        {"id": "s3", "parent_id": "s2", "title": "Neural models", "content": "Transformers dominate (see)."},
        {"id": "s4", "parent_id": "0", "title": "Method", "content": "Our method extends an earlier version (this paper)."},
    ]
    assert [(s["id"], s["parent_id"], s["title"]) for s in surveys[B_ID]["structure"]] == [
        ("0", "", "root"), ("s1", "0", "Introduction"), ("s2", "0", "Background"), ("s3", "0", "Ablation"),
        ("s4", "s3", "Details")]
    assert [s["content"] for s in surveys[B_ID]["structure"]][1:3] == ["As in, graphs help.", "Ranking and attention."]


def test_tiny_citations_and_queries(tiny):
    surveys, _, _ = tiny
    a, b = surveys[A_ID], surveys[B_ID]
    # document order: root (S), 1 (S, J), 2 (R), 2.1 (V), 2 again (paper B); not section order, which puts B before V
    assert a["all_cites"] == [S, J, R, V, B_ID]
    assert b["all_cites"] == [A_ID, S, J, R, V]
    assert [(q["section_id"], q["cites"]) for q in a["queries"]] == [
        ("0", [S]), ("s1", [S, J]), ("s2", [R, B_ID]), ("s3", [V])]  # s4 cites only itself and a missing entry
    q = a["queries"][3]
    assert q["query_id"] == f"{A_ID}-s3"
    assert q["prefix_titles"] == [A_TITLE, "Related Work", "Neural models"]
    assert q["query"] == f"What does the survey '{A_TITLE}' cover under 'Related Work' > 'Neural models'?"
    assert a["queries"][0]["prefix_titles"] == [A_TITLE]
    assert (a["year"], b["year"], a["date"], a["category"], a["authors"]) == (2020, 2019, "", "cs.CL", ["Ann B. Lee"])


def test_tiny_corpus_and_report(tiny):
    surveys, corpus, report = tiny
    # targets first; each cited title once; A's and B's citations of each other merge into the targets' records
    assert [(d["doc_id"], d["source"]) for d in corpus] == [
        (A_ID, "aclsum"), (B_ID, "aclsum"), (S, "aclsum-bibliography"), (J, "aclsum-bibliography"),
        (R, "aclsum-bibliography"), (V, "aclsum-bibliography")]
    assert corpus[0]["abstract"] == "We summarise papers." and all(d["abstract"] == "" for d in corpus[2:])
    assert report.skipped == {}
    # A: spans root 1 + intro 2 + sec 2 3 + 2.1 2 + sec 2 again 1 + method 2 = 11, of which Doe (no link), Brown
    # (untitled entry), [7] (the paper itself) and [8] (no BIBREF9) do not resolve
    fig = {f.paper_id: f for f in report.per_survey}
    a = fig[A_ID]
    assert (a.sections, a.depth, a.orphan_sections, a.footnotes_dropped) == (4, 2, 0, 1)
    assert (a.citation_spans, a.resolved_spans, a.citations, a.queries) == (11, 7, 5, 4)
    assert a.resolved_share == pytest.approx(7 / 11)
    assert (fig[B_ID].sections, fig[B_ID].depth, fig[B_ID].orphan_sections) == (4, 2, 1)
    assert report.unresolved_citations == Counter({"no-link": 1, "no-title": 1, "self-citation": 1,
                                                   "missing-bib-entry": 1})
    stats = report.statistics(list(surveys.values()), corpus)
    assert (stats["surveys"], stats["corpus_documents"], stats["corpus_documents_with_abstract"]) == (2, 6, 1)
    assert (stats["mean_sections"], stats["mean_citations"], stats["queries"]) == (4, 5, 6)


def test_remove_citation_spans_tidies_the_text_around_them():
    def strip(text, *spans):
        raw = para(text, "S", None, [(span, "BIBREF0") for span in spans])
        return remove_citation_spans(Paragraph(raw["text"], raw["section"], raw["sec_num"], raw["cite_spans"]))

    # worked by hand: a run of spans with its separators goes as one, with the spaces before it

    assert strip("Known [1], [2]; and [3] [4].", "[1]", "[2]", "[3]", "[4]") == "Known; and."
    assert strip("[1] showed it.", "[1]") == "showed it."
    assert strip("Models (A, 2010) (B, 2011) work.", "A, 2010", "B, 2011") == "Models work."
    assert strip("No citations here.") == "No citations here."


def test_build_skips_are_counted_and_an_empty_build_names_them(tmp_path):
    few_sections = paper("Two sections", [para(f"Cites [{i}].", "Intro" if i < 3 else "Outro", None, [(f"[{i}]", f"B{i}")])
                                          for i in range(6)], {f"B{i}": f"Work number {i}" for i in range(6)})
    few_cites = paper("Few cites", [para("Cites [1] [2] [3] [4] [4].", f"Part {i}", None,
                                         [(f"[{k}]", f"B{k}") for k in (1, 2, 3, 4, 4)]) for i in range(3)],
                      {f"B{k}": f"Work number {k}" for k in range(1, 5)})
    folder = write_papers(tmp_path / "papers", {"P01-1001": few_sections, "P01-1002": few_cites,
                                                "P01-1003": paper("", [], {})})
    (folder / "P01-1004.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError) as err:
        build_surge_sample(folder, show_progress=False)
    message = str(err.value)
    assert str(folder) in message and "4 skipped" in message
    for reason, paper_id in [("too-few-sections", "P01-1001"), ("too-few-citations", "P01-1002"),
                             ("no-title", "P01-1003"), ("unreadable", "P01-1004.json")]:
        assert f"{reason}: " in message and paper_id in message
    assert (MIN_SECTIONS, MIN_CITATIONS) == (3, 5)  # the counts the papers above sit just below
    with pytest.raises(FileNotFoundError):
        build_surge_sample(tmp_path / "empty", show_progress=False)


# ---------------------------------------------------------------- the real aclsum sample


@pytest.fixture(scope="module")
def real():
    return build_surge_sample(show_progress=False)


def test_real_sample_validates_and_cites_only_corpus_documents(real):
    surveys, corpus, report = real
    Dataset.from_list(surveys, features=SURVEY_FEATURES)
    Dataset.from_list(corpus, features=CORPUS_FEATURES)
    assert len(surveys) > 200 and sum(len(v) for v in report.skipped.values()) == 250 - len(surveys)
    known = {d["doc_id"] for d in corpus}
    assert len(known) == len(corpus)
    for s in surveys:
        assert s["paper_id"] in known
        assert len(s["all_cites"]) >= MIN_CITATIONS and len(set(s["all_cites"])) == len(s["all_cites"])
        assert set(s["all_cites"]) <= known
        assert s["paper_id"] not in s["all_cites"]
        for q in s["queries"]:
            assert q["cites"] and set(q["cites"]) <= set(s["all_cites"]), q["query_id"]
        # every cited work is cited from some section, so the queries' cites cover all_cites
        assert {c for q in s["queries"] for c in q["cites"]} == set(s["all_cites"])
        assert s["year"] == anthology_year(s["paper_id"]) and s["year"] is not None


def test_real_sample_trees_are_well_formed(real):
    surveys, _, _ = real
    for s in surveys:
        ids = [sec["id"] for sec in s["structure"]]
        assert len(ids) == len(set(ids)) and len(ids) - 1 >= MIN_SECTIONS
        roots = [sec for sec in s["structure"] if sec["parent_id"] == ""]
        assert [(r["id"], r["title"]) for r in roots] == [(ROOT_ID, "root")], s["paper_id"]
        parent = {sec["id"]: sec["parent_id"] for sec in s["structure"]}
        for sid in ids:  # every chain of parents reaches the root without a cycle
            seen = set()
            while sid != ROOT_ID:
                assert sid not in seen and parent[sid] in parent, (s["paper_id"], sid)
                seen.add(sid)
                sid = parent[sid]
        assert {q["section_id"] for q in s["queries"]} <= set(ids)


def test_real_sample_content_keeps_no_citation_span(real):
    surveys, _, _ = real
    for s in surveys:
        paras = paragraphs(load_grobid_json(aclsum_paper_dir() / f"{s['paper_id']}.json"))
        content = "\n".join(sec["content"] for sec in s["structure"])
        raw = "\n".join(p.text for p in paras)
        spans = Counter(span["text"] for p in paras for span in p.cite_spans)
        for text, n in spans.items():
            if len(text) >= 8:  # an author-year marker (short ones, "[3]" or "1", also occur as plain text)
                # removed wherever it was a span: what is left are the occurrences GROBID did not mark
                assert content.count(text) <= raw.count(text) - n, (s["paper_id"], text)
        assert "\x00" not in content


def test_real_sample_cited_works_have_the_doc_ids_of_the_rwgbench_sample(real):
    _, corpus, _ = real
    _, rwg_corpus, _ = build_sample(show_progress=False)
    rwg = {normalize_title(d["title"]): d for d in rwg_corpus}
    shared = [(d, rwg[normalize_title(d["title"])]) for d in corpus if normalize_title(d["title"]) in rwg]
    assert len(shared) > 3000
    # a work that is a target paper in one sample only has its Anthology id there and a title id in the other
    differ = [(ours["doc_id"], theirs["doc_id"]) for ours, theirs in shared if ours["doc_id"] != theirs["doc_id"]]
    assert all("aclsum" in (o["source"], t["source"]) for o, t in shared if o["doc_id"] != t["doc_id"]), differ[:5]
    assert len(differ) < 20
    assert sum(1 for d in corpus if d["source"] == "aclsum-bibliography" and d["abstract"]) == 0
