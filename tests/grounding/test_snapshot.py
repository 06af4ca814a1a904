"""Local bibliographic snapshots (HALLMARK JSON Lines, flat JSON Lines, BibTeX, DBLP XML, gzipped) read into
BibRecords, bad input named by file, line, key and field, and the pickle cache reused until the file changes."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from sciwrite.grounding import snapshot as snapshot_module
from sciwrite.grounding.snapshot import Snapshot, load_snapshot, read_snapshot
from sciwrite.sources.bib_record import BibRecord

HALLMARK_LINES = [
    {"bibtex_key": "Wen2021unified", "bibtex_type": "inproceedings",
     "fields": {"title": "Unified Tensor Framework", "author": "Jie Wen 0001 and Zheng Zhang 0006 and Lunke Fei",
                "year": "2021", "doi": "10.1609/AAAI.V35I11.17231", "url": "https://dblp.org/rec/conf/aaai/WenZF21",
                "booktitle": "AAAI"}, "label": "VALID"},
    {"bibtex_key": "Chen2026unit:", "bibtex_type": "misc",
     "fields": {"title": "UniT: Unified Multimodal Chain-of-Thought", "author": "Leon Chen and Haoyu Ma",
                "year": "2026", "doi": "10.48550/arXiv.2602.12279v1", "url": "http://arxiv.org/abs/2602.12279v1",
                "note": "arXiv preprint, cs.CV"}, "label": "VALID"},
    {"bibtex_key": "Fake2024", "bibtex_type": "article", "fields": {"title": "A Paper That Is Not", "year": "2024"},
     "label": "HALLUCINATED"},
]

DBLP_XML = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE dblp SYSTEM "dblp.dtd">
<dblp>
<inproceedings key="conf/nips/MullerW21" mdate="2022-01-01">
<author>J&ouml;rg M&uuml;ller</author>
<author orcid="0000-0001-0000-0000">Wei Wang 0001</author>
<title>On <i>H</i><sub>2</sub> Estimation &amp; Caf&eacute; Queues.</title>
<pages>1-10</pages>
<year>2021</year>
<booktitle>NeurIPS</booktitle>
<ee type="oa">https://doi.org/10.5555/ABC.123</ee>
<url>db/conf/nips/nips2021.html#MullerW21</url>
</inproceedings>
<www key="homepages/01/1" mdate="2020-01-01">
<author>Wei Wang 0001</author>
<title>Home Page</title>
</www>
<proceedings key="conf/nips/2021" mdate="2022-01-01">
<editor>Some Editor</editor>
<title>Advances in Neural Information Processing Systems 34.</title>
<year>2021</year>
</proceedings>
<article key="journals/corr/abs-2101-00001" mdate="2021-01-05" publtype="informal">
<author>Ana Lima</author>
<title>A Preprint Title?</title>
<journal>CoRR</journal>
<volume>abs/2101.00001</volume>
<year>2021</year>
<ee type="oa">https://arxiv.org/abs/2101.00001</ee>
<url>db/journals/corr/corr2101.html#abs-2101-00001</url>
</article>
<article key="journals/jmlr/Lima20" mdate="2020-05-05">
<author>Ana Lima</author>
<title>A Journal Title.</title>
<journal>J. Mach. Learn. Res.</journal>
<year>2020</year>
</article>
</dblp>
"""


def _jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _by_id(snapshot: Snapshot) -> dict[str, BibRecord]:
    return {record.id: record for record in snapshot.records}


def test_hallmark_lines_are_cleaned_and_hallucinated_ones_skipped(tmp_path):
    path = _jsonl(tmp_path / "hallmark.jsonl", HALLMARK_LINES)
    snapshot = read_snapshot(path)
    assert (snapshot.format, snapshot.path, snapshot.skipped) == ("jsonl", path, {"label HALLUCINATED": 1})
    records = _by_id(snapshot)
    assert records["Wen2021unified"] == BibRecord(
        source="snapshot:hallmark.jsonl", id="Wen2021unified", title="Unified Tensor Framework",
        authors=("Jie Wen", "Zheng Zhang", "Lunke Fei"), year=2021, url="https://dblp.org/rec/conf/aaai/WenZF21",
        venue="AAAI", doi="10.1609/aaai.v35i11.17231", arxiv_id=None, entry_type="inproceedings")
    preprint = records["Chen2026unit:"]
    assert (preprint.venue, preprint.arxiv_id, preprint.doi) == ("", "2602.12279", "10.48550/arxiv.2602.12279")


def test_flat_lines_and_gzip(tmp_path):
    lines = [{"id": "p1", "title": "Attention Is All You Need.", "authors": ["Ashish Vaswani", "Noam Shazeer"],
              "year": 2017, "venue": "NeurIPS", "doi": "https://doi.org/10.5555/XYZ"},
             {"key": "p2", "title": "BERT", "authors": "Jacob Devlin and Kenton Lee and others", "year": "2019a",
              "journal": "arXiv preprint arXiv:1810.04805", "arxiv_id": "1810.04805v2"},
             {"title": "No Id Here", "eprint": "hep-th/9901001v3", "booktitle": "Some Workshop"}]
    path = tmp_path / "flat.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(line) for line in lines) + "\n")
    records = _by_id(read_snapshot(path))
    assert records["p1"].title == "Attention Is All You Need"
    assert records["p1"].authors == ("Ashish Vaswani", "Noam Shazeer")
    assert (records["p1"].year, records["p1"].venue, records["p1"].doi) == (2017, "NeurIPS", "10.5555/xyz")
    assert records["p2"].authors == ("Jacob Devlin", "Kenton Lee")
    assert (records["p2"].year, records["p2"].venue, records["p2"].arxiv_id) == (2019, "", "1810.04805")
    assert records["flat.jsonl.gz:3"].arxiv_id == "hep-th/9901001"
    assert records["flat.jsonl.gz:3"].venue == "Some Workshop"


def test_bibtex_with_latex_and_links(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(r"""@inproceedings{devlin2019,
  Title = {{BERT}: Pre-training of Deep Bidirectional Transformers},
  author = {J{\"o}rg M{\"u}ller and Lee, Kenton},
  year = 2019,
  booktitle = {NAACL},
  doi = {https://doi.org/10.18653/V1/N19-1423},
}
@article{preprint,
  title = {Some Preprint},
  journal = {CoRR},
  url = {https://arxiv.org/abs/2001.01234v3},
  year = {2020},
}
""", encoding="utf-8")
    snapshot = read_snapshot(path)
    assert snapshot.format == "bibtex"
    records = _by_id(snapshot)
    bert = records["devlin2019"]
    assert bert.title == "BERT: Pre-training of Deep Bidirectional Transformers"
    assert bert.authors == ("Jörg Müller", "Lee, Kenton")
    assert (bert.year, bert.venue, bert.doi, bert.entry_type) == (2019, "NAACL", "10.18653/v1/n19-1423",
                                                                  "inproceedings")
    assert (records["preprint"].venue, records["preprint"].arxiv_id) == ("", "2001.01234")


@pytest.mark.parametrize("packed", [False, True])
def test_dblp_xml_entities_markup_homonyms_corr_and_skips(tmp_path, packed):
    data = DBLP_XML.encode("iso-8859-1")
    path = tmp_path / ("dblp.xml.gz" if packed else "dblp.xml")
    path.write_bytes(gzip.compress(data) if packed else data)
    snapshot = read_snapshot(path)
    assert snapshot.format == "dblp-xml"
    assert snapshot.skipped == {"www": 1, "proceedings": 1}
    assert [r.id for r in snapshot.records] == ["conf/nips/MullerW21", "journals/corr/abs-2101-00001",
                                                "journals/jmlr/Lima20"]
    paper, corr, journal = snapshot.records
    assert paper == BibRecord(source=f"snapshot:{path.name}", id="conf/nips/MullerW21",
                              title="On H2 Estimation & Café Queues", authors=("Jörg Müller", "Wei Wang"),
                              year=2021, url="https://dblp.org/rec/conf/nips/MullerW21", venue="NeurIPS",
                              doi="10.5555/abc.123", arxiv_id=None, entry_type="inproceedings")
    assert (corr.title, corr.venue, corr.arxiv_id, corr.doi) == ("A Preprint Title?", "", "2101.00001", None)
    assert (journal.title, journal.venue, journal.entry_type) == ("A Journal Title", "J. Mach. Learn. Res.",
                                                                  "article")


def test_all_bad_jsonl_lines_are_named_at_once(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "ok", "title": "Fine"}\n{not json\n[1, 2]\n\n{"id": "k4", "year": 2020}\n'
                    '{"id": "k6", "title": "T", "authors": 7}\n', encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_snapshot(path)
    message = str(info.value)
    assert message.splitlines()[0] == f"{path}: 4 records cannot be read; fix them and read the snapshot again:"
    assert f"{path}:2: not valid JSON" in message
    assert f"{path}:3: not a JSON object" in message
    assert f"{path}:5 (key k4): field 'title' is missing or empty" in message
    assert f"{path}:6 (key k6): field 'author' must be text" in message


def test_one_bad_line_is_one_line_and_many_are_capped(tmp_path):
    one = _jsonl(tmp_path / "one.jsonl", [{"bibtex_key": "K", "fields": {"author": "A B"}}])
    with pytest.raises(ValueError, match=r"^\S+one\.jsonl:1 \(key K\): field 'title' is missing or empty$"):
        read_snapshot(one)
    many = _jsonl(tmp_path / "many.jsonl", [{"id": f"k{i}"} for i in range(25)])
    with pytest.raises(ValueError) as info:
        read_snapshot(many)
    lines = str(info.value).splitlines()
    assert len(lines) == 1 + 20 + 1 and lines[-1] == "  ... and 5 more"
    assert lines[20] == f"  {many}:20 (key k19): field 'title' is missing or empty"


def test_broken_bibtex_names_line_and_key(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text("@article{good,\n  title = {Fine},\n}\n\n@article{open,\n  title = {Never closed},\n\n"
                    "@misc{notitle, year = 2020}\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_snapshot(path)
    message = str(info.value)
    assert f"{path}:5 (key open): not a BibTeX entry (" in message
    assert f"{path}:8 (key notitle): field 'title' is missing or empty" in message


def test_malformed_xml_names_file_line_and_column(tmp_path):
    path = tmp_path / "dblp.xml"
    path.write_text(DBLP_XML.replace("</www>", "</wwx>"), encoding="iso-8859-1")
    with pytest.raises(ValueError, match=r"dblp\.xml:17:\d+: not well-formed XML \(Opening and ending tag mismatch"):
        read_snapshot(path)
    no_doctype = tmp_path / "extract.xml"
    no_doctype.write_text(DBLP_XML.replace('<!DOCTYPE dblp SYSTEM "dblp.dtd">\n', ""), encoding="iso-8859-1")
    with pytest.raises(ValueError, match=r"extract\.xml:4:\d+: not well-formed XML \(Entity 'ouml' not defined.*DOCTYPE"):
        read_snapshot(no_doctype)


def test_empty_unknown_missing_and_not_gzip(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"empty\.jsonl: no records in the snapshot$"):
        read_snapshot(empty)
    only_www = tmp_path / "people.xml"
    only_www.write_text('<?xml version="1.0"?>\n<dblp><www key="h/1"><title>Home Page</title></www></dblp>\n')
    with pytest.raises(ValueError, match=r"no records in the snapshot \(www: 1 skipped\)"):
        read_snapshot(only_www)
    with pytest.raises(ValueError, match=r"refs\.csv: not a snapshot format .*accepted: \.jsonl, .*\.bib, \.xml"):
        read_snapshot(tmp_path / "refs.csv")
    with pytest.raises(FileNotFoundError):
        read_snapshot(tmp_path / "gone.jsonl")
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_text('{"title": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"fake\.jsonl\.gz: not a whole gzip file"):
        read_snapshot(fake)


def _fail(*args, **kwargs):
    raise AssertionError("the snapshot was parsed again")


def test_cache_is_reused_and_invalidated_on_change(tmp_path, monkeypatch):
    path = _jsonl(tmp_path / "hallmark.jsonl", HALLMARK_LINES)
    cache = tmp_path / "cache"
    first = load_snapshot(path, cache_dir=cache)
    assert len(list(cache.glob("*.pickle"))) == 1 and not list(cache.glob("*.tmp"))
    with monkeypatch.context() as patch:
        patch.setattr(snapshot_module, "read_snapshot", _fail)
        again = load_snapshot(str(path), cache_dir=cache)
    assert again == first and again.path == path
    _jsonl(path, HALLMARK_LINES[:1])  # a new size, and a new mtime
    os.utime(path, ns=(1, 2))
    changed = load_snapshot(path, cache_dir=cache)
    assert [r.id for r in changed.records] == ["Wen2021unified"] and changed.skipped == {}
    assert len(list(cache.glob("*.pickle"))) == 2


def test_corrupt_cache_is_ignored_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_CACHE_DIR", str(tmp_path / "root"))
    path = _jsonl(tmp_path / "hallmark.jsonl", HALLMARK_LINES)
    first = load_snapshot(path)
    [cached] = (tmp_path / "root" / "snapshots").glob("*.pickle")
    cached.write_bytes(b"\x80\x05 not a pickle")
    assert load_snapshot(path) == first
    with monkeypatch.context() as patch:
        patch.setattr(snapshot_module, "read_snapshot", _fail)
        assert load_snapshot(path) == first  # the rewritten copy is read
