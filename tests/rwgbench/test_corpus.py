"""Corpus assembly: SurGE/arXiv readers, deduplication with a report, title index, dataset export."""

from __future__ import annotations

import json

import pytest
from datasets import Dataset

from sciwrite.sources.bibliography import parse_authors, parse_year
from sciwrite.sources.corpus import (
    CORPUS_FEATURES,
    AssemblyReport,
    CorpusTitleIndex,
    arxiv_doc_id,
    assemble_corpus,
    read_arxiv_records,
    read_surge_corpus,
)

SURGE = [
    {"doc_id": 0, "Title": "Attention Is All You Need", "Authors": ["Ashish Vaswani", " Noam Shazeer "],
     "Year": 2017, "Date": "2017-06-12", "Abstract": "Transformers.", "Category": "cs.CL"},
    {"doc_id": "1", "Title": "BERT: Pre-training of Deep Bidirectional Transformers",
     "Authors": "Jacob Devlin, Ming-Wei Chang, Kenton Lee and Kristina Toutanova", "Year": "2019",
     "Abstract": "BERT.", "Category": "cs.CL"},
    {"doc_id": 2, "Title": "Adam: A Method for Stochastic Optimization", "Authors": "Diederik P. Kingma and Jimmy Ba",
     "Date": "2014-12-22", "Abstract": "", "Category": "cs.LG"},
    {"doc_id": 3, "Title": "", "Authors": [], "Year": 2020, "Abstract": "No title here."},
    {"doc_id": 4, "Title": "Deep Residual Learning", "Abstract": "ResNets."},
]


def _write_array(path, records):
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def _write_jsonl(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("writer", [_write_array, _write_jsonl], ids=["json-array", "jsonl"])
def test_read_surge_corpus_maps_fields(tmp_path, writer):
    rows = list(read_surge_corpus(writer(tmp_path / "corpus.json", SURGE)))
    assert len(rows) == 5
    assert rows[0] == {
        "doc_id": "0",
        "title": "Attention Is All You Need",
        "abstract": "Transformers.",
        "authors": ["Ashish Vaswani", "Noam Shazeer"],
        "year": 2017,
        "source": "surge",
    }
    assert rows[1]["doc_id"] == "1"
    assert rows[1]["authors"] == ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"]
    assert rows[1]["year"] == 2019
    assert rows[2]["authors"] == ["Diederik P. Kingma", "Jimmy Ba"]
    assert rows[2]["year"] == 2014  # from Date
    assert rows[4]["authors"] == [] and rows[4]["year"] is None
    assert all(set(r) == set(CORPUS_FEATURES) for r in rows)


def test_read_surge_corpus_rejects_garbage(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"doc_id": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.json:2"):
        list(read_surge_corpus(path))


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2019, 2019), ("2019", 2019), ("2019-05-12T00:00:00Z", 2019), (2019.0, 2019), (None, None),
     ("", None), ("n/a", None), (0, None), (True, None), (float("nan"), None)],
)
def test_parse_year(value, expected):
    assert parse_year(value) == expected


def test_parse_authors():
    assert parse_authors("A. One, B. Two, and C. Three") == ["A. One", "B. Two", "C. Three"]
    assert parse_authors("Alexander Anderson and Sandra Brand") == ["Alexander Anderson", "Sandra Brand"]
    assert parse_authors("Solo Author") == ["Solo Author"]
    assert parse_authors(["X", "", None, " Y "]) == ["X", "Y"]
    assert parse_authors(None) == [] and parse_authors("") == []


def test_read_arxiv_records(tmp_path):
    path = _write_jsonl(tmp_path / "arxiv.jsonl", [
        {"id": "2101.00001v2", "title": "A  New\nModel", "abstract": "We  propose.",
         "authors": "Ann Lee, Bo Chen", "published": "2021-01-04T10:00:00Z"},
        {"arxiv_id": "arXiv:1706.03762", "title": "Attention", "abstract": "x", "authors": ["V"], "year": "2017"},
        {"arxiv_id": "http://arxiv.org/abs/hep-th/9901001v1", "title": "Old", "year": 1999},
    ])
    rows = list(read_arxiv_records(path))
    assert rows[0] == {"doc_id": "arxiv:2101.00001", "title": "A New Model", "abstract": "We propose.",
                       "authors": ["Ann Lee", "Bo Chen"], "year": 2021, "source": "arxiv"}
    assert rows[1]["doc_id"] == "arxiv:1706.03762" and rows[1]["year"] == 2017 and rows[1]["authors"] == ["V"]
    assert rows[2]["doc_id"] == "arxiv:hep-th/9901001" and rows[2]["abstract"] == ""
    assert arxiv_doc_id(None) == ""


def test_assemble_counts_and_merges(tmp_path):
    surge = list(read_surge_corpus(_write_array(tmp_path / "c.json", SURGE)))
    surge.append({"doc_id": "1", "title": "Something else", "source": "surge"})  # duplicate doc_id
    arxiv = [
        # same normalised title as doc 4, which lacks authors and year: merged, fields filled
        {"doc_id": "arxiv:1512.03385", "title": "Deep residual learning.", "abstract": "Other.",
         "authors": ["Kaiming He"], "year": 2015, "source": "arxiv"},
        # same title as doc 2, whose empty abstract gets filled
        {"doc_id": "arxiv:1412.6980", "title": "ADAM: a method for stochastic optimization",
         "abstract": "Adam abstract.", "authors": ["K"], "year": 2015, "source": "arxiv"},
        {"doc_id": "arxiv:9999.0001", "title": "  ", "source": "arxiv"},  # no title
        {"doc_id": "", "title": "Orphan", "source": "arxiv"},  # no doc_id
        {"doc_id": "arxiv:2001.00001", "title": "Fresh Paper", "source": "arxiv"},
        "not a record",
    ]
    rows, report = assemble_corpus(surge, arxiv)
    assert isinstance(report, AssemblyReport)
    assert report.n_in == 12
    assert report.n_out == 5 == len(rows)
    assert report.counts == {"no-title": 2, "duplicate-doc_id": 1, "duplicate-title": 2, "no-doc_id": 1, "malformed": 1}
    assert report.n_in == report.n_out + sum(report.counts.values())
    assert report.examples["no-title"] == ["3", "arxiv:9999.0001"]
    assert report.examples["duplicate-doc_id"] == ["1"]
    assert report.examples["duplicate-title"] == ["arxiv:1512.03385", "arxiv:1412.6980"]
    assert report.examples["no-doc_id"] == ["Orphan"]
    assert report.redirects == {"arxiv:1512.03385": "4", "arxiv:1412.6980": "2"}
    by_id = {r["doc_id"]: r for r in rows}
    assert list(by_id) == ["0", "1", "2", "4", "arxiv:2001.00001"]
    assert by_id["1"]["title"].startswith("BERT")  # first kept
    assert by_id["4"] == {"doc_id": "4", "title": "Deep Residual Learning", "abstract": "ResNets.",
                          "authors": ["Kaiming He"], "year": 2015, "source": "surge"}
    assert by_id["2"]["abstract"] == "Adam abstract." and by_id["2"]["year"] == 2014  # kept year not overwritten
    summary = report.summary()
    assert "12 records in, 5 out" in summary and "duplicate-title: 2" in summary and "arxiv:9999.0001" in summary


def test_assemble_empty():
    rows, report = assemble_corpus()
    assert rows == [] and report.n_in == report.n_out == 0 and report.counts == {}


def test_title_index_alignment():
    rows = [
        {"doc_id": "a", "title": "Attention Is All You Need"},
        {"doc_id": "b", "title": "BERT: Pre-training of Deep Bidirectional Transformers"},
        {"doc_id": "c", "title": "Adam"},
    ]
    index = CorpusTitleIndex(rows)
    assert len(index) == 3 and index.n_ambiguous == 0
    assert index.lookup("attention is all you need.") == "a"
    assert index.lookup("Bert: pre-training of deep bidirectional transformers") == "b"
    assert index.lookup("Unknown") is None and index.lookup(None) is None and index.lookup("") is None
    alignment = index.align(["ADAM", "Attention is all you need", "Missing paper", "BERT -- pre-training of deep bidirectional transformers"])
    assert alignment.doc_ids == ["c", "a", None, "b"]
    assert alignment.coverage == 0.75
    assert alignment.unaligned == [2]
    assert index.align(["Adam", None]).coverage == 0.5
    assert index.align([]).coverage == 1.0


def test_title_index_from_dataset_counts_ambiguity():
    ds = Dataset.from_list([
        {"doc_id": "x1", "title": "Same Title", "abstract": "", "authors": [], "year": None, "source": "s"},
        {"doc_id": "x2", "title": "same title!", "abstract": "", "authors": [], "year": None, "source": "s"},
        {"doc_id": "x3", "title": "Other", "abstract": "", "authors": [], "year": None, "source": "s"},
        {"doc_id": "x4", "title": None, "abstract": "", "authors": [], "year": None, "source": "s"},
    ], features=CORPUS_FEATURES)
    index = CorpusTitleIndex(ds, batch_size=2)
    assert index.lookup("SAME TITLE") == "x1"
    assert index.n_ambiguous == 1 and index.ambiguous_examples == [("x1", "x2")]
    assert len(index) == 2
