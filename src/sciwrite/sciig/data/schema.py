"""The SciIG schema, defined once as `datasets.Features`."""

from __future__ import annotations

from datasets import Dataset, DatasetDict, Features, List, Value

from sciwrite.core.schema import validate_features

# SciIG: a paper's title, abstract and cited works (`neighbors`) paired with its published introduction.
SCIIG_FEATURES = Features(
    {
        "paper_id": Value("string"),
        "title": Value("string"),
        "abstract": Value("string"),
        # The reference target: the published Introduction, paragraphs separated by blank lines.
        "introduction": Value("string"),
        # Cited works in order of first citation; `key` is the in-text identifier, e.g. "Li et al., 2022".
        "neighbors": List({"key": Value("string"), "title": Value("string"),
                           "authors": List(Value("string")), "abstract": Value("string")}),
        "venue": Value("string"),
        "year": Value("int32"),
    }
)


def validate_sciig(ds: Dataset | DatasetDict, where: str = "dataset") -> Dataset | DatasetDict:
    """Raise `SchemaError` naming `where` unless `ds` has the SciIG schema; cast it to the exact features."""
    return validate_features(ds, SCIIG_FEATURES, "SciIG", where)
