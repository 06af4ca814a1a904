"""The SciIG builder: linking citations (with and without cite_spans), skip reasons, the LLM mapping and
Semantic Scholar steps against local servers, the aclsum sample, load_sciig and the cards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from sciwrite.core.datasets import card_configs
from sciwrite.core.schema import SchemaError
from sciwrite.llm.client import ChatClient
from sciwrite.sciig import SCIIG_FEATURES, load_sciig
from sciwrite.sciig.data.build_commands import import_release_folder
from sciwrite.sciig.data.builder import (
    build_sciig_records,
    is_holdout,
    split_records,
)
from sciwrite.sciig.data.configs import SCIIG_CONFIGS, card_configs_block
from sciwrite.sciig.data.links import link_paragraphs, match_by_author_year
from sciwrite.sciig.data.llm_map import TABLE8_TASK, parse_table8_neighbors, table8_messages
from sciwrite.sources.aclsum import aclsum_paper_dir
from sciwrite.sources.apa import find_citations
from sciwrite.sources.grobid import Paragraph
from sciwrite.sources.semantic_scholar import SemanticScholarClient
from tests.fakes.openai_server import ChatServer
from tests.fakes.semantic_scholar import SemanticScholarServer

REPO = Path(__file__).resolve().parents[2]


def entry(title: str, authors: list[str], year: int | None) -> dict[str, Any]:
    return {"title": title, "year": year,
            "authors": [{"first": n.split()[0], "middle": [], "last": n.split()[-1], "suffix": ""} for n in authors]}


BIBS = {
    "BIBREF0": entry("Graph parsing at scale", ["Ann Li", "Bo Wu", "Cy Zhao"], 2022),
    "BIBREF1": entry("Neural chunking", ["Dan Chen", "Eve Wu"], 2021),
    "BIBREF2": entry("Neural chunking revisited", ["Dan Chen", "Eve Wu"], 2021),
    "BIBREF3": entry("Tagging words", ["Fay Smith"], 2020),
    "BIBREF4": entry("Variational inference for topics", ["Zoubin Ghahramani", "Gil Zhu"], 2011),
}


def para(text: str, spans: list[tuple[str, str | None]] = (), section: str = "Introduction", sec_num: str = "1") -> dict:
    cite_spans = []
    for piece, ref_id in spans:
        start = text.index(piece)
        cite_spans.append({"start": start, "end": start + len(piece), "text": piece, "ref_id": ref_id})
    return {"text": text, "cite_spans": cite_spans, "ref_spans": [], "section": section, "sec_num": sec_num}


INTRO = [
    para("Parsing matters (Li et al., 2022; Chen and Wu, 2021a). Tagging was studied by Smith (2020).",
         [("Li et al., 2022;", "BIBREF0"), ("Chen and Wu, 2021a)", "BIBREF1")]),
    para("Chen and Wu (2021b) revisited chunking, and topic models followed Ghahra-(2011); others disagree "
         "(Zhang et al., 2019).", [("Ghahra-(2011)", "BIBREF4")]),
]


def paper(title="A paper", abstract="We study parsing.", body=None, bibs=None) -> dict:
    body = INTRO if body is None else body
    return {"paper_id": "x", "title": title, "abstract": abstract, "year": 2023,
            "pdf_parse": {"body_text": [*body, para("Later work (Li et al., 2022).", [("Li et al., 2022", "BIBREF0")],
                                                    section="Related Work", sec_num="2")],
                          "bib_entries": BIBS if bibs is None else bibs}}


def write_papers(folder: Path, papers: dict[str, dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in papers.items():
        (folder / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def paragraphs(doc: dict) -> list[Paragraph]:
    return [Paragraph(p["text"], p["section"], p["sec_num"], p["cite_spans"]) for p in doc["pdf_parse"]["body_text"][:2]]


def test_linking_with_cite_spans_author_year_and_suffixes():
    result = link_paragraphs(paragraphs(paper()), BIBS)
    got = [(lk.key, lk.ref_id, lk.method) for lk in result.links]
    assert got == [
        ("Li et al., 2022", "BIBREF0", "cite_span"),
        ("Chen and Wu, 2021a", "BIBREF1", "cite_span"),
        ("Smith, 2020", "BIBREF3", "author_year"),
        ("Chen and Wu, 2021b", "BIBREF2", "author_year"),   # the suffix picks the second Chen & Wu 2021 entry
        ("Ghahramani and Zhu, 2011", "BIBREF4", "cite_span"),  # unparseable span text: keyed from the entry
    ]
    assert [c.key for c in result.unresolved] == ["Zhang et al., 2019"]


def test_linking_without_cite_spans_uses_surname_and_year():
    bare = [Paragraph(p.text, p.section, p.sec_num, []) for p in paragraphs(paper())]
    result = link_paragraphs(bare, BIBS)
    assert {(lk.key, lk.ref_id) for lk in result.links} >= {("Li et al., 2022", "BIBREF0"), ("Chen and Wu, 2021a", "BIBREF1"),
                                                             ("Chen and Wu, 2021b", "BIBREF2"), ("Smith, 2020", "BIBREF3")}
    assert all(lk.method == "author_year" for lk in result.links)


def test_author_year_match_needs_a_unique_fit():
    (cite,) = find_citations("(Chen and Wu, 2021)")  # two Chen & Wu 2021 entries and no suffix: ambiguous
    assert match_by_author_year(cite, BIBS) is None
    (cite,) = find_citations("(Gasic et al., 2013)")
    assert match_by_author_year(cite, {"B": entry("Dialogue", ["M Gašić", "F Jurčíček", "S Young"], 2013)}) == "B"


@pytest.fixture
def tiny_papers(tmp_path) -> Path:
    no_title_bib = {**BIBS, "BIBREF0": {**BIBS["BIBREF0"], "title": ""}}
    no_author_bib = {"BIBREF9": {"title": "Anonymous work", "year": 2020, "authors": []}}
    return write_papers(tmp_path / "papers", {
        "good": paper(),
        "no-intro": paper(body=[para("Text.", section="Method", sec_num="3")]),
        "no-abstract": paper(abstract=""),
        "no-cites": paper(body=[para("An introduction without citations.")]),
        "untitled-cited": paper(bibs=no_title_bib),
        "authorless-cited": paper(body=[para("As shown (Anon, 2020).", [("Anon, 2020)", "BIBREF9")])], bibs=no_author_bib),
    })


def test_builder_counts_skips_per_reason(tiny_papers):
    records, report = build_sciig_records(tiny_papers, show_progress=False)
    assert records == []
    counts = report.as_dict()["skipped_counts"]
    assert counts == {"no-introduction": 1, "no-abstract": 1, "no-linked-citation": 1, "cited-work-missing-title": 1,
                      "cited-work-missing-authors": 1, "cited-work-missing-abstract": 1}
    assert report.skipped["cited-work-missing-abstract"] == ["good"]
    assert report.llm_mapping == {"skipped": 2}  # "Zhang et al., 2019" in "good" and "untitled-cited"


def test_builder_record_with_missing_abstracts_allowed(tiny_papers):
    records, report = build_sciig_records(tiny_papers, allow_missing_abstracts=True, show_progress=False)
    assert [r["paper_id"] for r in records] == ["good"]
    (record,) = records
    assert record["introduction"].startswith("Parsing matters") and "Later work" not in record["introduction"]
    assert [n["key"] for n in record["neighbors"]] == ["Li et al., 2022", "Chen and Wu, 2021a", "Smith, 2020",
                                                       "Chen and Wu, 2021b", "Ghahramani and Zhu, 2011"]
    assert record["neighbors"][0] == {"key": "Li et al., 2022", "title": "Graph parsing at scale",
                                      "authors": ["Ann Li", "Bo Wu", "Cy Zhao"], "abstract": ""}
    assert record["year"] == 2023 and report.citations["linked-by-cite_span"] >= 3


def test_builder_with_llm_mapping_and_semantic_scholar(tmp_path, monkeypatch):
    """Both optional steps against local servers: the LLM links the unresolved citation, S2 fills abstracts."""
    bibs = {**BIBS, "BIBREF5": entry("Older parsing", ["Hu Zhang", "Ivy Qi", "Jo Ma"], 2018)}  # cited as 2019
    folder = write_papers(tmp_path / "papers", {"good": paper(bibs=bibs), "other": paper(title="Other", bibs=bibs)})

    def answer(body: dict) -> str:
        [message] = body["messages"]
        user = message["content"]
        assert user.startswith("Objective: Extract citations from paper introductions using LLaMA 4-Maverick")
        assert "- Citation BIBREF5:\n- Title: Older parsing\n- Authors: Hu Zhang, Ivy Qi, Jo Ma" in user
        assert "5. Do not emit bare arrays, Markdown, comments, or additional text—only the JSON object." in user
        # the paper's output format: an array of one-key objects; a wrong title for another citation is ignored
        return ('```json\n{"neighbors": [{"Zhang et al., 2019": {"title": "Older Parsing.", "reason": "Not included '
                'in the high-confidence list but cited in Introduction as (Zhang et al., 2019)"}}, '
                '{"Nobody et al., 2001": {"title": "Unknown", "reason": "x"}}]}\n```')

    titles = [e["title"] for e in bibs.values()]
    s2_papers = {t.lower(): {"paperId": f"p{i}", "title": t, "abstract": f"Abstract of {t}.",
                             "authors": [{"name": "Some One"}]} for i, t in enumerate(titles)}
    with ChatServer(answer) as llm, SemanticScholarServer(s2_papers) as s2:
        client = ChatClient("mapper", base_url=llm.base_url, api_key="EMPTY", max_retries=0)
        s2_client = SemanticScholarClient(base_url=f"{s2.url}/graph/v1", cache_path=tmp_path / "s2.json", min_interval=0)
        records, report = build_sciig_records(folder, llm_client=client, s2_client=s2_client, show_progress=False)
    assert [r["paper_id"] for r in records] == ["good", "other"]
    assert report.llm_mapping == {"mapped": 2} and len(llm.requests) == 2  # one Table 8 request per paper
    assert report.citations["linked-by-llm"] == 2
    keys = [n["key"] for n in records[0]["neighbors"]]
    assert keys.index("Zhang et al., 2019") == keys.index("Ghahramani and Zhu, 2011") + 1  # in order of citation
    assert all(n["abstract"] == f"Abstract of {n['title']}." for n in records[0]["neighbors"])
    assert report.enrichment == {"enriched": 12}
    assert len(s2.requests) == 6  # one title search per distinct cited work: the second paper is served by the cache


def test_llm_step_skipped_without_endpoint(tmp_path, monkeypatch):
    from sciwrite.sciig.data.build_commands import _llm_client

    assert _llm_client("some-model", None, None, tmp_path) is None  # no key configured: warned and skipped
    assert _llm_client(None, None, None, tmp_path) is None
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "EMPTY")
    client = _llm_client("some-model", "http://127.0.0.1:9/v1", None, tmp_path)
    assert client.ledger.path == tmp_path / "usage.jsonl" and client.purpose == "llm_map"  # the mapping's spend


def test_split_is_deterministic_and_never_empty():
    records = [{"paper_id": f"p{i}"} for i in range(200)]
    splits = split_records(records)
    assert 5 <= len(splits["holdout"]) <= 40 and len(splits["test"]) + len(splits["holdout"]) == 200
    assert all(is_holdout(r["paper_id"]) for r in splits["holdout"])
    assert split_records(records) == splits
    tiny = split_records([{"paper_id": "a"}, {"paper_id": "b"}])
    assert len(tiny["test"]) == len(tiny["holdout"]) == 1
    with pytest.raises(ValueError, match="at least 2 records"):
        split_records([{"paper_id": "a"}])


@pytest.fixture(scope="module")
def aclsum_subset(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("aclsum_subset")
    for stem in ("2020.acl-main.47", "2020.acl-main.282", "P18-1001", "N18-3011"):
        source = aclsum_paper_dir() / f"{stem}.json"
        if source.exists():
            shutil.copy(source, folder / source.name)
    return folder


def test_builder_on_real_aclsum_papers(aclsum_subset):
    records, report = build_sciig_records(aclsum_subset, allow_missing_abstracts=True, show_progress=False)
    assert report.n_source_papers >= 2 and records
    for record in records:
        assert record["venue"] == "ACL" and record["year"] in (2018, 2020)
        assert record["neighbors"] and all(n["title"] and n["authors"] and not n["abstract"] for n in record["neighbors"])
        assert len({n["key"] for n in record["neighbors"]}) == len(record["neighbors"])
    icd = next(r for r in records if r["paper_id"] == "2020.acl-main.282")
    assert [n["key"] for n in icd["neighbors"][:2]] == ["Choi et al., 2016", "Avati et al., 2018"]


@pytest.fixture(scope="module")
def sample_dir(tmp_path_factory) -> Path:
    from sciwrite.sciig.data.builder import write_sciig_sample

    folder = tmp_path_factory.mktemp("sciig_sample")
    write_sciig_sample(folder)
    return folder


def test_sample_folder_loads_with_the_schema(sample_dir):
    test = load_sciig("sample", source=sample_dir)
    both = load_sciig("sample", source=sample_dir, split="all")
    assert test.features == SCIIG_FEATURES and set(both) == {"test", "holdout"}
    assert len(both["test"]) + len(both["holdout"]) == 239 and len(both["holdout"]) == 24
    assert not set(both["test"]["paper_id"]) & set(both["holdout"]["paper_id"])
    report = json.loads((sample_dir / "build_report.json").read_text())["sample"]
    assert report["statistics"]["citations_per_paper"]["max"] == 27 and report["skipped_counts"] == {"no-linked-citation": 11}
    card = (sample_dir / "README.md").read_text()
    assert "| papers (test / holdout) | 215 / 24 |" in card and "589.6 / 559 / 75–1935" in card


def test_load_sciig_builds_the_sample_on_first_use(sample_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_SCIIG_DIR", str(tmp_path / "sciig"))
    monkeypatch.setattr("sciwrite.sciig.data.loading.write_sciig_sample",
                        lambda folder: shutil.copytree(sample_dir, folder, dirs_exist_ok=True))
    assert len(load_sciig("sample", split="holdout")) == 24
    assert (tmp_path / "sciig" / "README.md").exists()


def test_load_sciig_errors_name_the_problem(sample_dir, tmp_path):
    with pytest.raises(ValueError, match="unknown SciIG config 'nope'"):
        load_sciig("nope", source=sample_dir)
    with pytest.raises(ValueError, match="unknown SciIG split 'train'"):
        load_sciig("sample", source=sample_dir, split="train")
    with pytest.raises(SchemaError, match="has no config 'naacl_2025'"):
        load_sciig("naacl_2025", source=sample_dir)
    bad = shutil.copytree(sample_dir, tmp_path / "bad")
    from datasets import Dataset

    for split in ("test", "holdout"):
        Dataset.from_list([{"paper_id": "x", "title": "t"}]).to_parquet(str(bad / "sample" / f"{split}-00000-of-00001.parquet"))
    with pytest.raises(SchemaError, match=r"does not match the SciIG schema: missing columns"):
        load_sciig("sample", source=bad)


def test_repository_card_lists_the_configs_and_files():
    """datasets/sciig/README.md: its YAML configs are exactly what the builder writes and the loader reads."""
    card = REPO / "datasets" / "sciig" / "README.md"
    meta = yaml.safe_load(card.read_text(encoding="utf-8").split("---", 2)[1])
    assert {"configs": meta["configs"]} == yaml.safe_load(card_configs_block(list(SCIIG_CONFIGS)))
    assert meta["license"] == "cc-by-4.0"
    text = card.read_text(encoding="utf-8")
    assert "arXiv:2508.14273" in text and "589.6 / 559 / 75–1,935" in text and "9.0 / 9 / 1–27" in text


def test_built_folder_card_matches_its_files(sample_dir, tmp_path):
    folder = shutil.copytree(sample_dir, tmp_path / "copy")
    configs = card_configs(folder)
    assert list(configs) == ["sample"]
    for item in configs["sample"]["data_files"]:
        assert [p.name for p in folder.glob(item["path"])] == [f"{item['split']}-00000-of-00001.parquet"]


def test_import_release_folder_adds_a_config(sample_dir, tmp_path):
    folder = shutil.copytree(sample_dir, tmp_path / "multi")
    release = tmp_path / "naacl.json"
    neighbors = {"Li et al., 2022": {"title": "T", "authors": ["A B"], "abstract": "Ab."}}
    release.write_text(json.dumps([{"title": f"P{i}", "abstract": "A.", "introduction": f"Intro {i} (Li et al., 2022).",
                                    "neighbors": neighbors} for i in range(12)]
                                  + [{"title": "Bad", "abstract": "A.", "introduction": "I.",
                                      "neighbors": {"X, 2020": {"title": "T", "authors": [], "abstract": "Ab."}}}]))
    stats = import_release_folder(release, folder, "naacl_2025", venue="NAACL", year=2025)
    assert sum(stats["papers"].values()) == 12
    assert set(card_configs(folder)) == {"naacl_2025", "sample"}
    ds = load_sciig("naacl_2025", source=folder, split="all")
    assert ds["test"][0]["venue"] == "NAACL" and ds["test"][0]["year"] == 2025
    report = json.loads((folder / "build_report.json").read_text())
    assert report["naacl_2025"]["skipped_counts"] == {"cited-work-missing-authors": 1} and "sample" in report


def test_cli_build_sciig(tmp_path, capsys):
    from sciwrite.cli import main

    papers = write_papers(tmp_path / "papers", {"a": paper(), "b": paper(title="B")})
    assert main(["build", "sciig", "--paper-dir", str(papers), "--out", str(tmp_path / "out")]) == 2
    assert "pass --allow-missing-abstracts" in capsys.readouterr().err
    assert main(["build", "sciig", "--paper-dir", str(papers), "--out", str(tmp_path / "out"),
                 "--allow-missing-abstracts", "--venue", "NAACL", "--year", "2025"]) == 0
    assert "SciIG config 'sample' written" in capsys.readouterr().out
    assert load_sciig("sample", source=tmp_path / "out", split="all")["holdout"][0]["venue"] == "NAACL"


def test_the_build_result_names_the_config_and_folder_then_the_statistics_and_counts(tmp_path):
    from sciwrite.sciig.data.build_commands import build_command_result

    papers = write_papers(tmp_path / "papers", {"a": paper(), "b": paper(title="B")})
    result = build_command_result({"paper_dir": str(papers), "out": str(tmp_path / "out"),
                                   "allow_missing_abstracts": True, "venue": "NAACL", "year": 2025})
    assert result.message == f"SciIG config 'sample' written to {tmp_path / 'out'}"
    statistics = list(result.statistics)
    assert statistics[:2] == ["papers", "introduction_words"] and statistics[-1] == "neighbors_missing"
    assert result.statistics["source_papers"] == 2 and "skipped" not in statistics  # the ids stay in the report


def test_table8_prompt_is_verbatim_and_its_answer_parses():
    [message] = table8_messages("T", "A.", ["Ann Li"], "Intro (Li et al., 2022).",
                                [{"paper_id": "BIBREF0", "title": "X", "authors": ["Ann Li"], "raw_text": "Li. X."}])
    text = " ".join(message["content"].split())
    assert text.startswith("Objective: Extract citations from paper introductions using LLaMA 4-Maverick, returning a "
                           "JSON object mapping citation identifiers to titles and reasons for inclusion. Respond only "
                           "with the JSON object, without extra text. Paper Metadata: - Title: T - Abstract: A. - "
                           "Authors: Ann Li Introduction Data: - Full introduction text. Intro (Li et al., 2022). - "
                           "Provided citation records: - Citation BIBREF0: - Title: X - Authors: Ann Li - Full "
                           "Reference: Li. X. Task: 1. Prioritize the high-confidence citation list")
    assert TABLE8_TASK.endswith('"reason": "Not included in the high-confidence list but cited in Introduction as '
                                '(Blitzer et al., 2006)" } } ] }')
    paper_form = '{"neighbors": [{"Li et al., 2022": {"title": "X", "reason": "r"}}]}'
    assert parse_table8_neighbors("Sure:\n" + paper_form) == [{"identifier": "Li et al., 2022", "title": "X",
                                                               "reason": "r"}]
    assert parse_table8_neighbors('{"neighbors": {"Li et al., 2022": {"title": "X"}}}')[0]["title"] == "X"
    assert parse_table8_neighbors('[{"Li et al., 2022": {"title": "X"}}]') is None  # a bare array
    assert parse_table8_neighbors("no json") is None
