"""RWGBench's reference grounding: each verdict by hand, grounded precision and recall, the candidates of RAG-style
methods exact by construction, bad reference lists, and the Grounding table beside Table 2."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Summary
from sciwrite.grounding.resolver import lazy_resolver
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.evaluation import grounding_summary
from sciwrite.rwgbench.metrics.grounding import BY_CONSTRUCTION, score_reference_grounding
from sciwrite.rwgbench.metrics.report import format_grounding_table
from sciwrite.rwgbench.metrics.scorers import corpus_titles, score_citation_precision_recall

CORPUS = [
    {"doc_id": "d1", "title": "Attention Is All You Need", "authors": ["Ashish Vaswani"], "year": 2017},
    {"doc_id": "d2", "title": "Deep Residual Learning for Image Recognition", "authors": ["Kaiming He"], "year": 2016},
    {"doc_id": "d3", "title": "Neural Machine Translation by Jointly Learning to Align and Translate"},
    {"doc_id": "d4", "title": "Graph Attention Networks", "authors": ["Petar Velickovic"], "year": 2018},
    {"doc_id": "d5", "title": "Graph Attention Networks", "authors": ["Someone Else"], "year": 2018},
]


def ground(references, gold, texts=None, candidates=None, resolver=None):
    n = len(references)
    by_id = {r["doc_id"]: r for r in CORPUS}
    return score_reference_grounding(texts or [""] * n, candidates or [[]] * n, references, gold,
                                     [f"p{i}" for i in range(n)], lambda ids: corpus_titles(by_id, ids),
                                     resolver or lazy_resolver(CORPUS))


def test_every_verdict_by_hand():
    row, = ground([[{"n": 1, "title": "Attention is all you need. In Proceedings of NeurIPS, 2017"},
                    {"n": 2, "title": "Graph attention networks"},
                    {"n": 3, "title": "Quantum Llamas for Federated Syntax Parsing"},
                    {"n": 4, "title": "deep residual learning for image recognition", "year": 2016},
                    {"n": 5, "title": "Attention Is All You Need"}]], [["d1", "d4", "d3"]])
    verdicts = {e["n"]: e for e in row["grounding_references"]}
    assert verdicts[1]["verdict"] == "found" and verdicts[1]["doc_id"] == "d1" and verdicts[1]["gold"]
    assert verdicts[1]["corpus_title"] == "Attention Is All You Need"
    assert verdicts[2]["verdict"] == "ambiguous" and verdicts[2]["doc_id"] is None and "d4, d5" in verdicts[2]["why"]
    assert verdicts[3]["verdict"] == "not_found" and "best candidate scores" in verdicts[3]["why"]
    assert verdicts[4]["verdict"] == "found" and verdicts[4]["doc_id"] == "d2" and not verdicts[4]["gold"]
    assert "the year matches" in verdicts[4]["why"]
    # 5 readable references: 3 found (d1 twice, d2), 1 ambiguous, 1 not found
    assert row["grounding_n_found"] == 3 and row["grounding_found_rate"] == pytest.approx(3 / 5)
    assert row["grounding_hallucination_rate"] == pytest.approx(1 / 5)
    assert row["grounding_ambiguous_rate"] == pytest.approx(1 / 5)
    # distinct citations: d1, d2 and the two unresolved = 4; hits: d1 -> P 1/4, R 1/3
    assert row["grounded_precision"] == pytest.approx(1 / 4) and row["grounded_recall"] == pytest.approx(1 / 3)


def test_authors_tell_two_papers_of_one_title_apart():
    row, = ground([[{"title": "Graph Attention Networks", "authors": ["P. Velickovic"], "year": 2018}]], [["d4"]])
    entry, = row["grounding_references"]
    assert entry["verdict"] == "found" and entry["doc_id"] == "d4" and "an author surname matches" in entry["why"]


def test_candidates_are_found_by_construction_and_equal_table2():
    texts = ["Prior work [1] and [3], also [1] and [9]."]
    candidates = [["d1", "d2", "d3"]]
    built = []

    def resolver():
        built.append(True)
        return lazy_resolver(CORPUS)()

    row, = ground([None], [["d1", "d4"]], texts, candidates, resolver)
    assert not built  # no listed reference: the title index is never built
    assert row["grounding_source"] == "candidates"
    assert [(e["n"], e["doc_id"], e["verdict"], e["why"]) for e in row["grounding_references"]] == [
        (1, "d1", "found", BY_CONSTRUCTION), (3, "d3", "found", BY_CONSTRUCTION)]
    assert row["grounding_found_rate"] == 1.0 and row["grounding_hallucination_rate"] == 0.0
    # and, for the reference checker, verified without a lookup
    assert [(e["check"]["verdict"], e["check"]["matched"]["id"], e["check"]["why"])
            for e in row["grounding_references"]] == [("verified", "d1", BY_CONSTRUCTION), ("verified", "d3", BY_CONSTRUCTION)]
    assert (row["grounding_verdict_verified_rate"], row["grounding_verdict_fabricated_rate"]) == (1.0, 0.0)
    table2, = score_citation_precision_recall(texts, [["d1", "d4"]], candidates)
    assert row["grounded_precision"] == table2["precision"] and row["grounded_recall"] == table2["recall"]


def test_bad_reference_lists_are_named_and_the_others_still_scored(caplog):
    rows = ground([[{"n": 1, "title": ""}, {"n": 2, "title": "x" * 5000}, {"n": 3, "title": 7}, 42,
                    {"n": 5, "title": "Attention Is All You Need"}],
                   "not a list",
                   [],
                   [{"title": "Deep residual learning for image recognition"}]],
                  [["d1"], ["d1"], ["d1"], ["d2"]])
    first = {e["n"]: e for e in rows[0]["grounding_references"]}
    assert first[1]["verdict"] == "invalid" and first[1]["why"] == (
        "paper_id 'p0' reference [1]: field 'title' is empty (no title to look up)")
    assert first[2]["verdict"] == "not_found" and "cut at 500 characters" in first[2]["why"]
    assert first[2]["title"] == "x" * 5000  # nothing lost
    assert first[3]["verdict"] == "invalid" and "reference [3]: field 'title' must be a string" in first[3]["why"]
    assert first[4]["verdict"] == "invalid" and "paper_id 'p0' reference [4]" in first[4]["why"]
    assert first[5]["verdict"] == "found"
    assert rows[0]["grounding_n_invalid"] == 3 and rows[0]["grounding_n_references"] == 2
    assert rows[0]["grounding_found_rate"] == 0.5  # invalid entries are left out of the rates
    assert rows[1]["grounding_error"] == "paper_id 'p1': field 'references' must be a list of references, got str"
    assert rows[2]["grounding_found_rate"] is None and rows[2]["grounded_precision"] == 0.0  # lists nothing
    assert rows[3]["grounding_found_rate"] == 1.0 and rows[3]["grounded_recall"] == 1.0
    assert "paper_id 'p1': field 'references' must be a list" in caplog.text

    summary = grounding_summary(typed_rows({"paper_id": f"p{i}", **r} for i, r in enumerate(rows)), bootstrap=50,
                                seed=0)
    assert summary is not None and summary.n_invalid_lists == 1 and summary.counts["invalid"] == 3
    assert summary.metrics["grounding_found_rate"] == pytest.approx((0.5 + 1.0) / 2)  # papers listing a reference
    assert summary.metrics["grounded_precision"] == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    assert summary.lookup == "offline, corpus only" and summary.problems[0].startswith("paper_id 'p1'")
    assert Summary.from_json({"system": "direct", "grounding": summary.to_json()}).grounding == summary  # read back
    table = format_grounding_table([Summary(system="direct", grounding=summary)])
    assert "offline, corpus only" in table and "could not be read: 3 reference(s) and 1 reference list(s)" in table
    assert "Outside" not in table  # no online lookup: no outside-the-corpus column


def test_evaluate_prints_grounding_beside_an_unchanged_table2(mini_sample_folder, tmp_path, capsys):
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    corpus = load_rwgbench("sample_corpus", source=mini_sample_folder)
    titles = dict(zip(corpus["doc_id"], corpus["title"]))
    direct = [{"paper_id": p["paper_id"], "text": "As shown in [1] and [2].", "candidates": [], "model": "m",
               "method": "direct",
               "references": [{"n": 1, "title": titles[p["citations"][0]]},
                              {"n": 2, "title": "An Invented Survey of Hyperbolic Llama Parsing"}]} for p in papers]
    rag = [{"paper_id": p["paper_id"], "text": "As shown in [1].", "candidates": p["citations"], "model": "m",
            "method": "rag", "retriever": "bm25"} for p in papers]
    paths = []
    for name, records in (("direct", direct), ("rag", rag)):
        paths.append(tmp_path / f"{name}.jsonl")
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["evaluate", "rwgbench", "--predictions", *map(str, paths), "--source", str(mini_sample_folder),
                 "--profile", "lite", "--metrics", "precision", "recall", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    table2, grounding = printed.split("Grounding (beside Table 2")
    direct_row = next(line for line in table2.splitlines() if "Direct" in line)
    assert direct_row.split()[2:4] == ["0.000", "0.000"]  # Table 2 keeps the paper's Direct 0.000
    direct_line = next(line for line in grounding.splitlines() if line.startswith("direct "))
    assert "listed" in direct_line and "0.500 [" not in direct_line.split("listed")[0]
    assert direct_line.split()[3] == "0.500"  # Found: one of two titles per paper
    assert next(line for line in grounding.splitlines() if line.startswith("rag ")).split()[2:4] == ["candidates", "(exact)"]
    summary = json.loads((out / "direct" / "summary.json").read_text())
    assert summary["recall"] == 0.0 and summary["grounding"]["grounding_found_rate"] == 0.5
    assert summary["grounding"]["grounded_recall"] == pytest.approx(
        sum(1 / len(set(p["citations"])) for p in papers) / len(papers))
    rows = [json.loads(line) for line in (out / "direct" / "per_paper.jsonl").read_text().splitlines()]
    assert [e["verdict"] for e in rows[0]["grounding_references"]] == ["found", "not_found"]
    csv_header = (out / "direct" / "summary.csv").read_text().splitlines()[0]
    assert "Grounding Found" in csv_header and "Grounding G-Rec." in csv_header
