"""Importing the upstream RWGBench release through the explicit column mapping."""

from __future__ import annotations

import pytest
from datasets import Dataset, DatasetDict

from sciwrite.core.schema import SchemaError
from sciwrite.rwgbench.data.schema import PAPER_FEATURES
from sciwrite.rwgbench.data.upstream import UPSTREAM_COLUMN_ALIASES, import_upstream, resolve_columns
from sciwrite.sources.corpus import CORPUS_FEATURES


def upstream_papers(**overrides):
    columns = {
        "id": ["p1", "p2"],
        "title": ["Paper One", "Paper Two"],
        "abstract": ["a1", "a2"],
        "introduction": ["i1", "i2"],
        "related_work_section": ["Early work [1], later [2, 3].", "See [1-2]."],
        "cited_ids": [["d1", "d2", "d3"], ["d4", "d5"]],
        "year": ["2024", "2023-10-01"],
    }
    columns.update(overrides)
    return Dataset.from_dict({k: v for k, v in columns.items() if v is not None})


def test_paper_import_with_aliases():
    ds = import_upstream(upstream_papers(), "paper")
    assert ds.features == PAPER_FEATURES
    assert ds[0] == {
        "paper_id": "p1", "title": "Paper One", "abstract": "a1", "introduction": "i1",
        "related_work": "Early work [1], later [2, 3].", "citations": ["d1", "d2", "d3"],
        "venue": "unknown", "year": 2024,
    }
    assert ds[1]["year"] == 2023 and ds[1]["citations"] == ["d4", "d5"]


def test_paper_import_converts_ids_and_string_citations():
    ds = import_upstream(
        upstream_papers(id=[11, 12], cited_ids=['["d1", "d2", "d3"]', "d4, d5"], venue=["ICLR 2024", None]),
        "paper",
    )
    assert ds["paper_id"] == ["11", "12"]
    assert ds["citations"] == [["d1", "d2", "d3"], ["d4", "d5"]]
    assert ds["venue"] == ["ICLR 2024", "unknown"]


def test_unknown_columns_raise_naming_them():
    with pytest.raises(SchemaError) as err:
        import_upstream(upstream_papers(categories=["cs", "cs"], rw_raw=["x", "y"]), "paper")
    message = str(err.value)
    assert "['categories', 'rw_raw']" in message
    assert "'related_work_section': 'related_work'" in message and "'id': 'paper_id'" in message
    assert "column_map=" in message


def test_non_strict_drops_unknown_columns():
    ds = import_upstream(upstream_papers(categories=["cs", "cs"]), "paper", strict=False)
    assert ds.column_names == list(PAPER_FEATURES)


def test_column_map_override_and_drop():
    ds = upstream_papers(related_work_section=None, body_rw=["[1] and [3].", "[2]."], categories=["cs", "cs"])
    ds = import_upstream(ds, "paper", column_map={"body_rw": "related_work", "categories": None})
    assert ds["related_work"] == ["[1] and [3].", "[2]."]
    # an override beats an alias: map the second title-like column, drop the aliased one
    ds2 = upstream_papers(clean_title=["Clean One", "Clean Two"])
    out = import_upstream(ds2, "paper", column_map={"clean_title": "title", "title": None})
    assert out["title"] == ["Clean One", "Clean Two"]


def test_bad_column_map():
    with pytest.raises(SchemaError, match="not in the upstream dataset"):
        import_upstream(upstream_papers(), "paper", column_map={"nope": "title"})
    with pytest.raises(SchemaError, match="not paper fields"):
        import_upstream(upstream_papers(), "paper", column_map={"title": "headline"})


def test_missing_required_fields_named():
    with pytest.raises(SchemaError) as err:
        import_upstream(upstream_papers(introduction=None, cited_ids=None), "paper")
    message = str(err.value)
    assert "['introduction', 'citations']" in message and "available columns" in message and "'related_work_section'" in message


def test_out_of_range_markers_name_papers():
    ds = upstream_papers(
        id=["p1", "p2", "p3"], title=["a", "b", "c"], abstract=["", "", ""], introduction=["", "", ""],
        related_work_section=["Fine [1].", "Too far [4].", "Zero [0] and [1]."],
        cited_ids=[["d1"], ["d1", "d2", "d3"], ["d1"]], year=[2024, 2024, 2024],
    )
    with pytest.raises(SchemaError) as err:
        import_upstream(ds, "paper")
    assert "2 papers" in str(err.value) and "p2, p3" in str(err.value) and "p1" not in str(err.value).split(":")[-1]


def test_other_marker_styles_left_as_is():
    ds = import_upstream(upstream_papers(related_work_section=["As \\cite{x} shows.", "[CITATION] did it."]), "paper")
    assert ds["related_work"] == ["As \\cite{x} shows.", "[CITATION] did it."]


def test_corpus_import():
    ds = Dataset.from_dict({
        "corpus_id": [1, 2],
        "Title": ["T1", "T2"],
        "Abstract": ["x", None],
        "Authors": ["A. B, C. D and E. F", None],
        "Year": ["2020", ""],
    })
    out = import_upstream(ds, "corpus")
    assert out.features == CORPUS_FEATURES
    assert out[0] == {"doc_id": "1", "title": "T1", "abstract": "x", "authors": ["A. B", "C. D", "E. F"],
                      "year": 2020, "source": "rwgbench-upstream"}
    assert out[1]["authors"] == [] and out[1]["year"] is None and out[1]["abstract"] is None


def test_dataset_dict_imported_per_split():
    dd = DatasetDict({"test": upstream_papers()})
    out = import_upstream(dd, "paper")
    assert isinstance(out, DatasetDict) and out["test"].features == PAPER_FEATURES


def test_alias_table_covers_schema_and_resolution_order():
    for kind, features in (("paper", PAPER_FEATURES), ("corpus", CORPUS_FEATURES)):
        assert list(UPSTREAM_COLUMN_ALIASES[kind]) == list(features)
    mapping, unknown, dropped = resolve_columns(["id", "paper_id", "title"], "paper")
    assert mapping == {"paper_id": "paper_id", "title": "title"} and unknown == ["id"] and dropped == []
    with pytest.raises(ValueError, match="kind"):
        import_upstream(upstream_papers(), "papers")
