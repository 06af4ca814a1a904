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
"""The SciIG features: the inputs (title, abstract, the cited works as `neighbors`) and the reference
introduction."""


def validate_sciig(ds: Dataset | DatasetDict, where: str = "dataset") -> Dataset | DatasetDict:
    """Check `ds` against `SCIIG_FEATURES` and cast it to the exact features.

    Args:
        ds: The dataset (or every split of one) to check.
        where: What `ds` is, for the error message (a folder, a config).

    Returns:
        `ds` cast to the schema's features.

    Raises:
        SchemaError: A column is missing, extra or of the wrong type; the message names `where` and each problem.
    """
    return validate_features(ds, SCIIG_FEATURES, "SciIG", where)
