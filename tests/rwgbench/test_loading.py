"""The RWGBench schema checks and loading configs from local folders (errors, build on first use, FAISS index)."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datasets import Dataset, DatasetDict, Features, Value

from sciwrite.core.schema import SchemaError
from sciwrite.retrieval import DenseRetriever
from sciwrite.rwgbench.data.configs import (
    card_configs_yaml,
    default_rwgbench_dir,
    rwgbench_repo_id,
    write_dataset_folder,
)
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.schema import PAPER_FEATURES, validate_dataset
from sciwrite.sources.corpus import CORPUS_FEATURES

PAPER_ROW = {"paper_id": "p1", "title": "T", "abstract": "A", "introduction": "I", "related_work": "RW [1].",
             "citations": ["d1"], "venue": "ACL", "year": 2020}
CORPUS_ROWS = [
    {"doc_id": "d1", "title": "Doc one", "abstract": "", "authors": ["Ann Lee"], "year": 2019, "source": "x"},
    {"doc_id": "d2", "title": "Doc two", "abstract": "Two.", "authors": [], "year": None, "source": "x"},
]


def paper_dataset(**overrides):
    row = {**PAPER_ROW, **overrides}
    return Dataset.from_dict({k: [v] for k, v in row.items()})


def card(configs):
    return "---\n" + card_configs_yaml(configs) + "---\n\n# test card\n"


def small_folder(path, configs=("sample", "sample_corpus")):
    """A two-config folder; `path` must have a name no other folder in the session has (the datasets cache)."""
    tables = {"sample": Dataset.from_list([PAPER_ROW], features=PAPER_FEATURES),
              "sample_corpus": Dataset.from_list(CORPUS_ROWS, features=CORPUS_FEATURES)}
    return write_dataset_folder(path, {c: tables[c] for c in configs}, card(list(configs)))


# ---------------------------------------------------------------- validate_dataset


def test_validate_dataset_accepts_int64_year_and_casts_to_exact_features():
    ds = paper_dataset()
    assert ds.features["year"] == Value("int64")
    out = validate_dataset(ds, "paper")
    assert out.features == PAPER_FEATURES
    assert out.features["year"] == Value("int32")
    assert out[0] == PAPER_ROW


def test_validate_dataset_accepts_large_string():
    features = Features({**CORPUS_FEATURES, "title": Value("large_string")})
    ds = Dataset.from_list(CORPUS_ROWS, features=features)
    assert validate_dataset(ds, "corpus").features == CORPUS_FEATURES


def test_validate_dataset_names_missing_and_extra_columns():
    ds = paper_dataset().remove_columns(["venue", "year"]).add_column("journal", ["ACL"])
    with pytest.raises(SchemaError) as err:
        validate_dataset(ds, "paper", where="my table")
    msg = str(err.value)
    assert msg.startswith("my table does not match the RWGBench paper schema")
    assert "missing columns ['venue', 'year']" in msg
    assert "unexpected columns ['journal']" in msg
    assert "Expected columns: paper_id: string" in msg


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        ({"year": "2020"}, "column 'year' has type string, expected int32"),
        ({"citations": "d1"}, "column 'citations' has type string, expected list<string>"),
        ({"title": 3}, "column 'title' has type int64, expected string"),
        ({"citations": [1]}, "column 'citations' has type list<int64>, expected list<string>"),
    ],
)
def test_validate_dataset_names_wrong_types(overrides, needle):
    with pytest.raises(SchemaError, match="paper schema") as err:
        validate_dataset(paper_dataset(**overrides), "paper")
    assert needle in str(err.value)


def test_validate_dataset_dict_names_the_split():
    dd = DatasetDict({"test": paper_dataset(), "bad": paper_dataset(year="x")})
    with pytest.raises(SchemaError, match=r"dataset \(split 'bad'\)"):
        validate_dataset(dd, "paper")
    out = validate_dataset(DatasetDict({"test": paper_dataset()}), "paper")
    assert out["test"].features == PAPER_FEATURES


# ---------------------------------------------------------------- loading local folders


def test_load_sample_configs_from_folder(mini_sample_folder):
    papers = load_rwgbench("sample", source=mini_sample_folder)
    corpus = load_rwgbench("sample_corpus", source=str(mini_sample_folder))
    assert isinstance(papers, Dataset) and isinstance(corpus, Dataset)
    assert papers.features == PAPER_FEATURES
    assert corpus.features == CORPUS_FEATURES
    assert papers.split == "test" and corpus.split == "train"
    assert papers["paper_id"] == ["E06-1051", "P06-1112"]
    assert papers["citations"][0][0] == "aclbib-4254b5c1f2a58d83"
    assert len(corpus) == 26
    assert set(papers["paper_id"]) <= set(corpus["doc_id"])


def test_load_split_all_gives_dataset_dict(tmp_path):
    folder = small_folder(tmp_path)
    dd = load_rwgbench("sample_corpus", source=folder, split="all")
    assert isinstance(dd, DatasetDict)
    assert list(dd) == ["train"]
    assert dd["train"].features == CORPUS_FEATURES
    assert dd["train"]["doc_id"] == ["d1", "d2"]
    assert dd["train"][1]["year"] is None


def test_folder_without_readme(tmp_path):
    folder = small_folder(tmp_path)
    (folder / "README.md").unlink()
    with pytest.raises(SchemaError, match="needs a README.md .* found no README.md"):
        load_rwgbench("sample", source=folder)


@pytest.mark.parametrize("text", ["# just a title\n", "---\nlicense: mit\n---\n# no configs\n"])
def test_readme_without_configs(tmp_path, text):
    folder = small_folder(tmp_path)
    (folder / "README.md").write_text(text, encoding="utf-8")
    with pytest.raises(SchemaError, match="is not an RWGBench dataset folder.*found none"):
        load_rwgbench("sample", source=folder)


def test_readme_with_broken_yaml(tmp_path):
    folder = small_folder(tmp_path)
    (folder / "README.md").write_text("---\nconfigs: [unclosed\n---\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="YAML header cannot be parsed"):
        load_rwgbench("sample", source=folder)


def test_config_not_in_card(tmp_path):
    folder = small_folder(tmp_path, configs=("sample",))
    with pytest.raises(SchemaError, match=r"has no config 'sample_corpus'; its card lists \['sample'\]"):
        load_rwgbench("sample_corpus", source=folder)


def test_card_lists_missing_files(tmp_path):
    folder = small_folder(tmp_path)
    shutil.rmtree(folder / "sample_corpus")
    with pytest.raises(SchemaError, match=r"config 'sample_corpus' lists data files 'sample_corpus/train-\*.parquet' but none exist"):
        load_rwgbench("sample_corpus", source=folder)


def test_parquet_with_wrong_column(tmp_path):
    folder = small_folder(tmp_path)
    target = folder / "sample" / "test-00000-of-00001.parquet"
    table = pq.read_table(target)
    pq.write_table(table.rename_columns(["journal" if c == "venue" else c for c in table.column_names]), target)
    with pytest.raises(SchemaError) as err:
        load_rwgbench("sample", source=folder)
    msg = str(err.value)
    assert f"RWGBench config 'sample' from {folder}" in msg
    assert "missing columns ['venue']" in msg and "unexpected columns ['journal']" in msg


def test_parquet_with_wrong_type(tmp_path):
    folder = small_folder(tmp_path)
    target = folder / "sample_corpus" / "train-00000-of-00001.parquet"
    table = pq.read_table(target)
    table = table.set_column(table.column_names.index("authors"), "authors", pa.array(["Ann Lee", ""]))
    pq.write_table(table, target)
    with pytest.raises(SchemaError, match="column 'authors' has type string, expected list<string>"):
        load_rwgbench("sample_corpus", source=folder)


def test_load_after_rewriting_folder_in_place_sees_new_rows(tmp_path):
    folder = small_folder(tmp_path)
    assert load_rwgbench("sample_corpus", source=folder)["doc_id"] == ["d1", "d2"]
    write_dataset_folder(folder, {"sample": Dataset.from_list([PAPER_ROW], features=PAPER_FEATURES),
                                  "sample_corpus": Dataset.from_list(CORPUS_ROWS[:1], features=CORPUS_FEATURES)},
                         card(["sample", "sample_corpus"]))
    parquet = folder / "sample_corpus" / "train-00000-of-00001.parquet"
    os.utime(parquet, (parquet.stat().st_atime + 10, parquet.stat().st_mtime + 10))
    assert pq.read_table(parquet).num_rows == 1
    assert load_rwgbench("sample_corpus", source=folder)["doc_id"] == ["d1"]


def test_missing_folder_and_unknown_config(tmp_path):
    with pytest.raises(FileNotFoundError, match="is not a directory"):
        load_rwgbench("sample", source=tmp_path / "nowhere")
    with pytest.raises(ValueError, match=r"unknown RWGBench config 'nope'; choose one of \['corpus', 'papers', 'sample'"):
        load_rwgbench("nope", source=tmp_path)


def test_load_sample_builds_it_on_first_use(tmp_path, monkeypatch):
    data_dir = tmp_path / "data"
    monkeypatch.setenv("SCIWRITE_DATA_DIR", str(data_dir))
    assert default_rwgbench_dir() == data_dir
    papers = load_rwgbench("sample")
    assert (data_dir / "README.md").exists()
    assert (data_dir / "build_report.json").exists()
    assert len(papers) > 100
    assert papers.features == PAPER_FEATURES
    # second call reads the folder that is now there
    assert len(load_rwgbench("sample_corpus")) > len(papers)


def test_load_sample_without_building(tmp_path, monkeypatch):
    data_dir = tmp_path / "empty"
    data_dir.mkdir()
    monkeypatch.setenv("SCIWRITE_DATA_DIR", str(data_dir))
    with pytest.raises(SchemaError, match="found no README.md"):
        load_rwgbench("sample", build_if_missing=False)
    assert list(data_dir.iterdir()) == []


def test_hub_repo_id(monkeypatch):
    assert rwgbench_repo_id() == "sciwrite/rwgbench"
    monkeypatch.setenv("SCIWRITE_HUB_NAMESPACE", "my-lab")
    assert rwgbench_repo_id() == "my-lab/rwgbench"
    assert rwgbench_repo_id("other") == "other/rwgbench"


# ---------------------------------------------------------------- the dense index attached as a FAISS index


def test_faiss_index_attached_matches_dense_search(mini_sample_copy, patch_encoder):
    folder = mini_sample_copy
    corpus = load_rwgbench("sample_corpus", source=folder)
    retriever = DenseRetriever.from_corpus(corpus, profile="lite", batch_size=8, show_progress=False)
    retriever.save(folder / "faiss" / "sample_corpus")

    ds = load_rwgbench("sample_corpus", source=folder, faiss_index=True)
    assert ds.list_indexes() == ["embeddings"]
    queries = ["kernels for extracting interactions between genes",
               "answer extraction with dependency paths for question answering",
               "shortest path dependency kernel"]
    vectors = retriever.encode([retriever.query_instruction + q for q in queries], show_progress=False)
    for vector, hits in zip(vectors, retriever.search(queries, k=3, show_progress=False)):
        scores, examples = ds.get_nearest_examples("embeddings", vector, k=3)
        assert examples["doc_id"][0] == hits.doc_ids[0]
        assert examples["doc_id"] == hits.doc_ids
        assert list(scores) == pytest.approx(hits.scores, abs=1e-5)


def test_faiss_index_errors(mini_sample_copy):
    folder = mini_sample_copy
    with pytest.raises(FileNotFoundError, match="has no dense index for 'sample_corpus'"):
        load_rwgbench("sample_corpus", source=folder, faiss_index=True)
    with pytest.raises(ValueError, match="applies to a single split of a corpus config"):
        load_rwgbench("sample", source=folder, faiss_index=True)
    # an index over the same documents in another order does not fit the rows
    doc_ids = load_rwgbench("sample_corpus", source=folder)["doc_id"]
    vectors = np.eye(len(doc_ids), 128, dtype=np.float32)
    DenseRetriever(profile="lite").index_embeddings(doc_ids[::-1], vectors, show_progress=False).save(
        folder / "faiss" / "sample_corpus")
    with pytest.raises(SchemaError, match=r"built over other documents or another row order \(26 ids vs 26 rows\)"):
        load_rwgbench("sample_corpus", source=folder, faiss_index=True)
