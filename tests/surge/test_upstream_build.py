"""`sciwrite build surge`: SurGE's released surveys.json, queries.json and corpus.json (in the shapes its README
documents, oneal2000/SurGE README.md) as a dataset folder `load_surge` reads; every problem of the files named on
one line (file, record, field), all of them listed, and nothing written then."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sciwrite.cli import main
from sciwrite.core.errors import InputError
from sciwrite.surge.data.configs import SURGE_CONFIGS, config_info, write_dataset_folder
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.data.upstream import REPORT_FILE, build_surge_folder
from tests.cli.error_line import error_line


def corpus_record(doc_id: Any, title: str, abstract: str = "", year: str = "2020") -> dict[str, Any]:
    """One entry of SurGE's corpus.json (its README's example: Title, Authors, Year, Date, Abstract, Category,
    doc_id as an int)."""
    return {"Title": title, "Authors": ["Ann Lee", "Bo Chen"], "Year": year, "Date": f"{year}-06-07T23:42:54Z",
            "Abstract": abstract, "Category": "cs.LG", "doc_id": doc_id}


def section(section_id: str, parent: Any, title: str, content: str = "Some text.") -> dict[str, Any]:
    return {"id": section_id, "parent_id": parent, "title": title, "content": content}


def survey_record(survey_id: Any = 7, cites: list[Any] | None = None, **overrides: Any) -> dict[str, Any]:
    """One entry of SurGE's surveys.json, every field its README lists; section ids ``<survey_id>-root``,
    ``<survey_id>-1`` and ``<survey_id>-1-1`` (SurGE's are uuids, unique over all surveys)."""
    s = str(survey_id)
    record = {
        "authors": ["Ann Lee"], "survey_title": "A Survey of Graph Learning", "year": "2021",
        "date": "2021-03-01T10:00:00Z", "category": "cs.LG", "abstract": "We survey graph learning.",
        "structure": [section(f"{s}-root", -1, "root", "Intro text."),
                      section(f"{s}-1", f"{s}-root", "Background", "Graphs are everywhere."),
                      section(f"{s}-1-1", f"{s}-1", "Message passing", "Neighbours talk.")],
        "survey_id": survey_id, "all_cites": [1, 2, 3] if cites is None else cites, "Bertopic_CD": 0.42,
    }
    record.update(overrides)
    return record


def query_record(section_id: str, cites: list[Any], query_id: Any = 486) -> dict[str, Any]:
    """One entry of SurGE's queries.json (its README's example)."""
    return {"original_id": section_id, "query_id": query_id, "date": "2021-03-01T10:00:00Z", "year": "2021",
            "category": "cs.LG", "content": "}\n{\nNeighbours talk.",
            "prefix_titles": [["title", "A Survey of Graph Learning"], ["section", "Background"],
                              ["subsection", "Message passing"]],
            "prefix_titles_query": "How do graph networks pass messages?", "cites": cites,
            "cite_extract_rate": 0.8333333333333334, "origin_cites_number": 6}


CORPUS = [corpus_record(1, "Graph Convolutional Networks", "GCN."),
          corpus_record(2, "Graph Attention Networks"),
          corpus_record(3, "Neural Message Passing for Quantum Chemistry"),
          # the same paper as doc 2 (title differs only in case and punctuation): merged into 2, its abstract kept
          corpus_record(4, "Graph attention networks.", "GAT attends over neighbours.")]


def write_files(folder: Path, surveys: Any, queries: Any = None, corpus: Any = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in (("surveys.json", surveys), ("queries.json", queries), ("corpus.json", corpus or CORPUS)):
        if data is None:
            continue
        (folder / name).write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return folder


def build(folder: Path, out: Path) -> dict[str, Any]:
    queries = folder / "queries.json"
    return build_surge_folder(folder / "surveys.json", queries if queries.exists() else None,
                              folder / "corpus.json", out, show_progress=False)


def test_the_folder_loads_with_ids_as_text_queries_under_their_survey_and_merges_followed(tmp_path):
    # survey 7 cites doc 4, which the corpus merges into doc 2; its query cites 4 too
    data = write_files(tmp_path / "data", [survey_record(7, [1, 4, 3]), survey_record(8, [2])],
                       [query_record("7-1-1", [4, 1]), query_record("8-1", [3], query_id=487),
                        query_record("7-root", [], query_id=488)])
    out = tmp_path / "out"
    figures = build(data, out)
    assert figures["surveys"] == 2 and figures["queries"] == 3
    assert figures["corpus_records_read"] == 4 and figures["corpus_documents"] == 3
    assert figures["corpus_skipped"] == {"duplicate-title": 1}

    surveys = load_surge("surveys", source=out)
    corpus = load_surge("corpus", source=out)
    assert corpus["doc_id"] == ["1", "2", "3"]  # ints in corpus.json, text in the dataset
    merged = corpus[1]
    assert merged["title"] == "Graph Attention Networks" and merged["abstract"] == "GAT attends over neighbours."
    assert merged["authors"] == ["Ann Lee", "Bo Chen"] and merged["year"] == 2020 and merged["source"] == "surge"

    first, second = surveys[0], surveys[1]
    assert (first["paper_id"], second["paper_id"]) == ("7", "8")
    assert first["title"] == "A Survey of Graph Learning" and first["year"] == 2021
    assert first["date"] == "2021-03-01T10:00:00Z" and first["category"] == "cs.LG"
    assert first["abstract"] == "We survey graph learning." and first["authors"] == ["Ann Lee"]
    assert first["all_cites"] == ["1", "2", "3"]  # doc 4 became the kept doc 2
    assert [(s["id"], s["parent_id"], s["title"]) for s in first["structure"]] == [
        ("7-root", "", "root"), ("7-1", "7-root", "Background"), ("7-1-1", "7-1", "Message passing")]
    assert first["structure"][1]["content"] == "Graphs are everywhere."
    # each query under the survey its section belongs to, in the file's order
    assert [q["query_id"] for q in first["queries"]] == ["486", "488"]
    assert [(q["query_id"], q["section_id"], q["cites"]) for q in second["queries"]] == [("487", "8-1", ["3"])]
    query = first["queries"][0]
    assert query["section_id"] == "7-1-1" and query["cites"] == ["2", "1"]
    assert query["prefix_titles"] == ["A Survey of Graph Learning", "Background", "Message passing"]
    assert query["query"] == "How do graph networks pass messages?"

    report = json.loads((out / REPORT_FILE).read_text())
    assert report["redirects"] == {"4": "2"}
    assert (out / "README.md").is_file()


def test_queries_json_is_optional_through_the_cli(tmp_path, capsys):
    data = write_files(tmp_path / "data", [survey_record(7, [1])])
    out = tmp_path / "out"
    assert main(["build", "surge", "--data-dir", str(data), "--out", str(out)]) == 0
    assert "SurGE written to" in capsys.readouterr().out
    [survey] = load_surge("surveys", source=out)
    assert survey["queries"] == [] and survey["all_cites"] == ["1"]


def problems(err: pytest.ExceptionInfo[InputError]) -> list[str]:
    """The problem lines of the build's error (after its header line)."""
    header, *lines = str(err.value).split("\n")
    assert header.startswith(f"{len(lines)} problem(s) in SurGE's files; nothing was written"), header
    return [line.strip() for line in lines]


def test_every_problem_is_one_line_naming_file_record_and_field_and_nothing_is_written(tmp_path):
    bad_parent = survey_record(9, [1], structure=[section("r", -1, "root"), section("a", "nowhere", "Intro")])
    no_title = survey_record(10)
    del no_title["survey_title"]
    data = write_files(tmp_path / "data", [
        survey_record(7, [1, 99]),  # 99 is no corpus doc
        survey_record(8, [1], structure="root > intro"),  # not a list
        bad_parent, no_title,
    ], [query_record("7-1", [1, 77])])
    out = tmp_path / "out"
    with pytest.raises(InputError) as err:
        build(data, out)
    surveys, queries = str(data / "surveys.json"), str(data / "queries.json")
    assert problems(err) == [
        f"{surveys}, record 'survey_id=7', field 'all_cites[1]': doc_id '99' is not in the corpus",
        f"{surveys}, record 'survey_id=8', field 'structure': expected a list of sections, found str",
        f"{surveys}, record 'survey_id=9', field 'structure[1].parent_id': 'nowhere' names no section of this survey",
        f"{surveys}, record 'survey_id=10', field 'survey_title': missing",
        f"{queries}, record 'query_id=486', field 'cites[1]': doc_id '77' is not in the corpus",
    ]
    assert not (out / "README.md").exists() and not (out / REPORT_FILE).exists()


def test_a_section_without_content_and_a_query_of_no_section(tmp_path):
    partial = survey_record(7, [1], structure=[section("r", -1, "root"), {"id": "a", "parent_id": "r",
                                                                           "title": "Intro"}])
    data = write_files(tmp_path / "data", [partial], [query_record("zzz", [1])])
    with pytest.raises(InputError) as err:
        build(data, tmp_path / "out")
    assert problems(err) == [
        f"{data / 'surveys.json'}, record 'survey_id=7', field 'structure[1]': missing content",
        f"{data / 'queries.json'}, record 'query_id=486', field 'original_id': 'zzz' is no section of any survey",
    ]


def test_invalid_json_names_the_file_and_line(tmp_path):
    data = write_files(tmp_path / "data", '[\n{"survey_id": 7,\n "survey_title": }\n]')
    out = tmp_path / "out"
    with pytest.raises(InputError) as err:
        build(data, out)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{data / 'surveys.json'}:3: not valid JSON (Expecting value at line 3, column 18)")
    assert not out.exists() or not any(out.iterdir())


def test_a_json_object_instead_of_an_array_is_refused(tmp_path):
    data = write_files(tmp_path / "data", {"surveys": []})
    with pytest.raises(InputError, match="expected a JSON array of records, found a JSON dict"):
        build(data, tmp_path / "out")


def test_the_cli_error_is_one_line_exit_2_without_a_traceback(tmp_path, capsys):
    data = write_files(tmp_path / "data", "[{]")
    out = tmp_path / "out"
    line = error_line(["build", "surge", "--data-dir", str(data), "--out", str(out)], capsys)
    assert str(data / "surveys.json") in line and "not valid JSON" in line
    assert not (out / "README.md").exists()


def test_the_cli_lists_every_problem_and_writes_nothing(tmp_path, capsys):
    data = write_files(tmp_path / "data", [survey_record(7, [1, 99]), survey_record(8, [98])])
    out = tmp_path / "out"
    assert main(["build", "surge", "--data-dir", str(data), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "2 problem(s) in SurGE's files; nothing was written" in err
    assert "record 'survey_id=7', field 'all_cites[1]'" in err and "record 'survey_id=8', field 'all_cites[0]'" in err
    assert not (out / "README.md").exists()


def test_an_empty_surveys_or_corpus_file_is_named_and_nothing_is_written(tmp_path, capsys):
    data = write_files(tmp_path / "data", [])
    out = tmp_path / "out"
    main(["build", "surge", "--data-dir", str(data), "--out", str(out)])
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{data / 'surveys.json'}: no usable record" in err
    empty_corpus = write_files(tmp_path / "data2", [survey_record(7, [])], corpus=[{"doc_id": 1, "Title": ""}])
    with pytest.raises(InputError) as found:
        build(empty_corpus, out)
    assert problems(found) == [f"{empty_corpus / 'corpus.json'}: no usable record"]
    assert not (out / "README.md").exists()


def test_a_missing_file_names_it_and_where_to_get_it(tmp_path, capsys):
    data = tmp_path / "empty"
    data.mkdir()
    line = error_line(["build", "surge", "--data-dir", str(data), "--out", str(tmp_path / "out")], capsys)
    assert "surveys.json" in line and "no such file" in line and "drive.google.com" in line


def test_configs_and_an_empty_config_is_refused(tmp_path):
    assert {c: (i.kind, i.split, i.corpus) for c, i in SURGE_CONFIGS.items()} == {
        "surveys": ("survey", "test", "corpus"), "corpus": ("corpus", "train", None),
        "sample": ("survey", "test", "sample_corpus"), "sample_corpus": ("corpus", "train", None)}
    with pytest.raises(ValueError, match="unknown SurGE config 'papers'.*'sample_corpus'"):
        config_info("papers")
    with pytest.raises(ValueError, match="unknown SurGE config"):
        load_surge("papers", source=tmp_path)
    from datasets import Dataset

    from sciwrite.surge.data.schema import CORPUS_FEATURES

    with pytest.raises(ValueError, match=r"configs \['corpus'\] have no rows"):
        write_dataset_folder(tmp_path / "x", {"corpus": Dataset.from_dict({k: [] for k in CORPUS_FEATURES},
                                                                         features=CORPUS_FEATURES)}, "card")
    assert not (tmp_path / "x").exists()
