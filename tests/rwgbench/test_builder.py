"""The full RWGBench build: arXiv HTML pages + a SurGE corpus + accepted titles -> papers / test / corpus."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

from sciwrite.core.schema import SchemaError
from sciwrite.rwgbench.data.builder import arxiv_year, build_rwgbench_folder
from sciwrite.rwgbench.data.loading import load_rwgbench

TITLES = [f"Cited work number {i} on topic {chr(97 + i % 26)}" for i in range(14)]


def page(title: str, n_related: int, extra_missing: int = 0, no_title_bib: bool = False) -> str:
    """A LaTeXML page whose related-work section cites bib 1..n_related (+ dangling links), intro cites bib 13."""
    cites = " ".join(
        f'Work {i} <cite class="ltx_cite ltx_citemacro_cite">A (<a href="#bib.bib{i}" class="ltx_ref">2020</a>)</cite>.'
        for i in range(1, n_related + 1)
    )
    cites += " ".join(
        f' Lost <cite class="ltx_cite ltx_citemacro_cite">B (<a href="#bib.bib{90 + j}" class="ltx_ref">2020</a>)</cite>.'
        for j in range(extra_missing)
    )
    bib = "".join(
        f'<li id="bib.bib{i}" class="ltx_bibitem"><span class="ltx_tag ltx_tag_bibitem">A ({2000 + i})</span>'
        f'<span class="ltx_bibblock">Ann Author. {2000 + i}.</span>'
        f'<span class="ltx_bibblock">{"" if (no_title_bib and i == 1) else TITLES[i - 1] + "."}</span>'
        f'<span class="ltx_bibblock">In <em>Venue</em>.</span></li>'
        for i in range(1, 15)
    )
    return f"""<html><body><article class="ltx_document">
<h1 class="ltx_title ltx_title_document">{title}</h1>
<div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6><p class="ltx_p">Abstract of {title}.</p></div>
<section id="S1" class="ltx_section"><h2 class="ltx_title ltx_title_section"><span class="ltx_tag ltx_tag_section">1 </span>Introduction</h2>
<div id="S1.p1" class="ltx_para"><p class="ltx_p">Intro <cite class="ltx_cite">C (<a href="#bib.bib13" class="ltx_ref">2013</a>)</cite>.</p></div></section>
<section id="S2" class="ltx_section"><h2 class="ltx_title ltx_title_section"><span class="ltx_tag ltx_tag_section">2 </span>Related Work</h2>
<div id="S2.p1" class="ltx_para"><p class="ltx_p">{cites}</p></div></section>
<section id="bib" class="ltx_bibliography"><h2 class="ltx_title ltx_title_bibliography">References</h2><ul class="ltx_biblist">{bib}</ul></section>
</article></body></html>"""


@pytest.fixture()
def inputs(tmp_path: Path) -> dict[str, Path]:
    html = tmp_path / "html"
    html.mkdir()
    # 2101.00001: 12 citations, all in the corpus, accepted -> test
    (html / "2101.00001.html").write_text(page("Accepted Paper One", 12))
    # 2102.00002: 12 resolved + 1 dangling link -> extraction 12/13 = 0.923 < 0.95 -> not in test
    (html / "2102.00002.html").write_text(page("Accepted Paper Two", 12, extra_missing=1))
    # 2103.00003: cites work 12, which is missing from the corpus -> coverage 11/12, marker removed
    (html / "2103.00003.html").write_text(page("Accepted Paper Three", 12))
    # 2104.00004: no related-work section
    (html / "2104.00004.html").write_text(page("No RW", 3).replace("Related Work", "Experiments"))
    # 2105.00005: not HTML at all
    (html / "2105.00005.html").write_text("%PDF-1.5 binary junk")
    corpus = [{"doc_id": 1000 + i, "Title": t, "Authors": ["Ann Author"], "Year": 2000 + i, "Date": "",
               "Abstract": f"Abstract {i}", "Category": "cs.CL"} for i, t in enumerate(TITLES[:11])]
    corpus.append({"doc_id": 2000, "Title": "", "Authors": [], "Year": 2020, "Abstract": "no title", "Category": ""})
    corpus.append({"doc_id": 1000, "Title": "Duplicate id", "Authors": [], "Year": 2020, "Abstract": "", "Category": ""})
    surge = tmp_path / "corpus.json"
    surge.write_text(json.dumps(corpus))
    arxiv = tmp_path / "arxiv.jsonl"
    arxiv.write_text(json.dumps({"id": "2001.11111v2", "title": TITLES[11], "abstract": "from arXiv",
                                 "authors": "Ann Author and Bob Writer", "published": "2020-01-30"}) + "\n")
    accepted = tmp_path / "accepted.csv"
    accepted.write_text("title,venue\nAccepted paper one,ICLR 2021\nAccepted Paper Two,NeurIPS 2021\n"
                        "Accepted Paper Three,ICML 2021\n")
    return {"html": html, "surge": surge, "arxiv": arxiv, "accepted": accepted, "out": tmp_path / "rwgbench"}


def test_arxiv_year() -> None:
    assert arxiv_year("2004.14974") == 2020
    assert arxiv_year("2310.01234v3") == 2023
    assert arxiv_year("hep-th/9901001") is None


def test_full_build(inputs: dict[str, Path]) -> None:
    stats = build_rwgbench_folder(inputs["html"], inputs["surge"], inputs["out"], arxiv_records=inputs["arxiv"],
                                  accepted_titles=inputs["accepted"], show_progress=False)
    out = inputs["out"]
    corpus = load_rwgbench("corpus", source=out)
    papers = load_rwgbench("papers", source=out)
    test = load_rwgbench("test", source=out)

    # corpus: 11 SurGE + 1 arXiv record; the no-title and duplicate-id records are skipped
    assert len(corpus) == 12 and stats["corpus_documents"] == 12
    assert "arxiv:2001.11111" in corpus["doc_id"]
    arxiv_row = corpus[corpus["doc_id"].index("arxiv:2001.11111")]
    assert arxiv_row["authors"] == ["Ann Author", "Bob Writer"] and arxiv_row["year"] == 2020

    by_id = {p["paper_id"]: p for p in papers}
    assert sorted(by_id) == ["2101.00001", "2102.00002", "2103.00003"]
    one = by_id["2101.00001"]
    assert one["citations"] == [str(1000 + i) for i in range(11)] + ["arxiv:2001.11111"]
    assert one["related_work"].startswith("Work 1 [1]. Work 2 [2].")
    assert one["year"] == 2021 and one["title"] == "Accepted Paper One"
    assert "Intro" in one["introduction"]
    # the introduction's citation of bib 13 does not count toward the related-work citations
    assert len(one["citations"]) == 12

    # papers one and three pass every rule; two fails the extraction rate
    report = json.loads((out / "build_report.json").read_text())
    per_paper = {r["paper_id"]: r for r in report["per_paper"]}
    assert per_paper["2102.00002"]["extraction_rate"] == pytest.approx(12 / 13)
    assert report["skipped_pages"] == {"no-related-work": ["2104.00004"], "unparseable": ["2105.00005"]}
    assert report["corpus_assembly"]["counts"] == {"no-title": 1, "duplicate-doc_id": 1}
    assert sorted(test["paper_id"]) == ["2101.00001", "2103.00003"]
    assert dict(zip(test["paper_id"], test["venue"]))["2101.00001"] == "ICLR 2021"
    assert {k: v for k, v in report["test_selection"]["rejected"].items() if v} == {"extraction-rate": 1}

    unresolved = [json.loads(line) for line in (out / "unresolved_citations.jsonl").read_text().splitlines()]
    assert {(u["paper_id"], u["stage"], u["reason"]) for u in unresolved} == {("2102.00002", "bibliography", "missing-bib-entry")}


def test_uncovered_citation_is_removed_and_blocks_test(inputs: dict[str, Path]) -> None:
    """Without the arXiv records, work 12 is missing: its marker goes, coverage 11/12, no paper enters test."""
    build_rwgbench_folder(inputs["html"], inputs["surge"], inputs["out"], accepted_titles=inputs["accepted"],
                          show_progress=False)
    papers = {p["paper_id"]: p for p in load_rwgbench("papers", source=inputs["out"])}
    one = papers["2101.00001"]
    assert len(one["citations"]) == 11
    assert "Work 12." in one["related_work"] and "[12]" not in one["related_work"]
    report = json.loads((inputs["out"] / "build_report.json").read_text())
    assert {r["paper_id"]: r["coverage"] for r in report["per_paper"]}["2101.00001"] == pytest.approx(11 / 12)
    with pytest.raises(SchemaError, match="has no config 'test'"):
        load_rwgbench("test", source=inputs["out"])
    assert json.loads((inputs["out"] / "build_report.json").read_text())["test_selection"]["rejected"]["citation-coverage"] == 2
    unaligned = [json.loads(x) for x in (inputs["out"] / "unresolved_citations.jsonl").read_text().splitlines()
                 if json.loads(x)["stage"] == "corpus-alignment"]
    assert {u["title"] for u in unaligned} == {TITLES[11]}


def test_build_without_html_is_a_clear_error(inputs: dict[str, Path], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no arXiv HTML pages"):
        build_rwgbench_folder(empty, inputs["surge"], inputs["out"], show_progress=False)


def test_push_script_dry_run(inputs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    build_rwgbench_folder(inputs["html"], inputs["surge"], inputs["out"], arxiv_records=inputs["arxiv"],
                          accepted_titles=inputs["accepted"], show_progress=False)
    script = Path(__file__).resolve().parents[2] / "scripts" / "push_rwgbench.py"
    monkeypatch.setattr(sys, "argv", ["push_rwgbench.py", "--folder", str(inputs["out"]), "--push-to-hub", "me/rwg", "--dry-run"])
    runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "papers: 3 rows -> me/rwg (config 'papers', split 'train')" in out
    assert "test: 2 rows" in out and "corpus: 12 rows" in out
    assert "datasets/rwgbench/eval.yaml -> me/rwg:eval.yaml" in out
