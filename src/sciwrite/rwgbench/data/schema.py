"""The RWGBench schema, defined once as `datasets.Features`: target papers and the corpus."""

from __future__ import annotations

from datasets import Dataset, DatasetDict, Features, Sequence, Value

from sciwrite.core.schema import validate_features

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

CORPUS_FEATURES = Features(
    {
        "doc_id": Value("string"),
        "title": Value("string"),
        "abstract": Value("string"),
        "authors": Sequence(Value("string")),
        "year": Value("int32"),
        "source": Value("string"),
    }
)

FEATURES_BY_KIND: dict[str, Features] = {"paper": PAPER_FEATURES, "corpus": CORPUS_FEATURES}


def validate_dataset(ds: Dataset | DatasetDict, kind: str, where: str = "dataset") -> Dataset | DatasetDict:
    """Raise `SchemaError` naming `where` unless `ds` has the RWGBench `kind` schema ('paper' or 'corpus');
    cast it to the exact features."""
    return validate_features(ds, FEATURES_BY_KIND[kind], f"RWGBench {kind}", where)
