"""The RWGBench schema, defined once as `datasets.Features`: target papers, and the corpus (every benchmark's corpus
features, `sciwrite.sources.corpus.CORPUS_FEATURES`)."""

from __future__ import annotations

from datasets import Dataset, DatasetDict, Features, Sequence, Value

from sciwrite.core.schema import validate_features
from sciwrite.sources.corpus import CORPUS_FEATURES

PAPER_FEATURES = Features(
    {
        "paper_id": Value("string"),
        "title": Value("string"),
        "abstract": Value("string"),
        "introduction": Value("string"),
        # Related-work text whose citation markers are normalised to [k], 1-based into `citations`.
        "related_work": Value("string"),
        # Corpus doc_ids in order of first appearance in `related_work`.
        "citations": Sequence(Value("string")),
        "venue": Value("string"),
        "year": Value("int32"),
    }
)
"""The target papers' features: ids, inputs, the reference related-work section and its gold citations."""

FEATURES_BY_KIND: dict[str, Features] = {"paper": PAPER_FEATURES, "corpus": CORPUS_FEATURES}


def validate_dataset(ds: Dataset | DatasetDict, kind: str, where: str = "dataset") -> Dataset | DatasetDict:
    """Check `ds` against the RWGBench schema of `kind` and cast it to the exact features.

    Args:
        ds: The dataset (or every split of one) to check.
        kind: ``"paper"`` (`PAPER_FEATURES`) or ``"corpus"`` (`CORPUS_FEATURES`).
        where: What `ds` is, for the error message (a folder, a config).

    Returns:
        `ds` cast to the schema's features.

    Raises:
        SchemaError: A column is missing, extra or of the wrong type; the message names `where` and each problem.
    """
    return validate_features(ds, FEATURES_BY_KIND[kind], f"RWGBench {kind}", where)
