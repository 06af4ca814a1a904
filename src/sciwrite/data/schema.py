"""The RWGBench schema, defined once as `datasets.Features`, and checks that a dataset matches it."""

from __future__ import annotations

from datasets import Dataset, DatasetDict, Features, List, Sequence, Value

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

FEATURES_BY_KIND: dict[str, Features] = {"paper": PAPER_FEATURES, "corpus": CORPUS_FEATURES, "sciig": SCIIG_FEATURES}


class SchemaError(ValueError):
    """A dataset, folder or record does not match the RWGBench schema."""


def _type_name(feature: object) -> str:
    if isinstance(feature, Value):
        return feature.dtype
    if isinstance(feature, Sequence):
        return f"list<{_type_name(feature.feature)}>"
    if isinstance(feature, list) and feature:
        return f"list<{_type_name(feature[0])}>"
    if isinstance(feature, dict):
        return "struct<" + ", ".join(f"{k}: {_type_name(v)}" for k, v in feature.items()) + ">"
    return type(feature).__name__


def _compatible(actual: object, expected: object) -> bool:
    """Same type, allowing integer widths to differ and `large_string` for `string`."""
    a, e = _type_name(actual), _type_name(expected)
    if a == e:
        return True
    ints = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"}
    strings = {"string", "large_string"}
    a_inner, e_inner = a.removeprefix("list<").rstrip(">"), e.removeprefix("list<").rstrip(">")
    if a.startswith("list<") != e.startswith("list<"):
        return False
    return (a_inner in ints and e_inner in ints) or (a_inner in strings and e_inner in strings)


def schema_problems(features: Features, kind: str) -> list[str]:
    """Describe every way `features` differs from the schema of `kind` ('paper' or 'corpus')."""
    expected = FEATURES_BY_KIND[kind]
    problems = []
    missing = [c for c in expected if c not in features]
    extra = [c for c in features if c not in expected]
    if missing:
        problems.append(f"missing columns {missing}")
    if extra:
        problems.append(f"unexpected columns {extra}")
    for name, feature in expected.items():
        if name in features and not _compatible(features[name], feature):
            problems.append(
                f"column {name!r} has type {_type_name(features[name])}, expected {_type_name(feature)}"
            )
    return problems


def validate_dataset(ds: Dataset | DatasetDict, kind: str, where: str = "dataset") -> Dataset | DatasetDict:
    """Raise `SchemaError` naming `where` unless `ds` has the `kind` schema; cast it to the exact features."""
    if isinstance(ds, DatasetDict):
        return DatasetDict({name: validate_dataset(split, kind, f"{where} (split {name!r})") for name, split in ds.items()})
    problems = schema_problems(ds.features, kind)
    if problems:
        expected = ", ".join(f"{k}: {_type_name(v)}" for k, v in FEATURES_BY_KIND[kind].items())
        schema = "SciIG" if kind == "sciig" else f"RWGBench {kind}"
        raise SchemaError(f"{where} does not match the {schema} schema: {'; '.join(problems)}. Expected columns: {expected}.")
    if ds.features != FEATURES_BY_KIND[kind]:
        ds = ds.cast(FEATURES_BY_KIND[kind])
    return ds
