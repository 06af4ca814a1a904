"""Checking a dataset against a benchmark's schema (`datasets.Features`), with messages that say what differs.

The schemas themselves belong to the benchmarks: `sciwrite.rwgbench.data.schema`, `sciwrite.sciig.data.schema`.
"""

from __future__ import annotations

from datasets import Dataset, DatasetDict, Features, Sequence, Value


class SchemaError(ValueError):
    """A dataset, folder or record does not match a benchmark's schema."""


#: Columns a record built from arXiv carries besides its benchmark's schema (`sciwrite build ... --from-arxiv`):
#: which paper and version it was taken from, its publication date (version 1, ISO YYYY-MM-DD: what
#: ``sciwrite evaluate --cutoff`` splits on) and the licence arXiv records for it. All four or none.
ARXIV_PROVENANCE = Features({"arxiv_id": Value("string"), "arxiv_version": Value("int32"),
                             "published": Value("string"), "licence": Value("string")})


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


def schema_problems(features: Features, expected: Features) -> list[str]:
    """Describe every way `features` differs from the `expected` schema."""
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


def with_optional(features: Features, expected: Features, optional: Features | None) -> Features:
    """`expected`, plus the `optional` columns when `features` has any of them (then it must have them all)."""
    if optional is None or not any(name in features for name in optional):
        return expected
    return Features({**expected, **optional})


def validate_features(ds: Dataset | DatasetDict, expected: Features, schema: str,
                      where: str = "dataset", optional: Features | None = ARXIV_PROVENANCE) -> Dataset | DatasetDict:
    """Raise `SchemaError` naming `where` unless `ds` has the `expected` features (`schema` names them in the
    message), and either all or none of the `optional` ones; cast it to the exact features."""
    if isinstance(ds, DatasetDict):
        return DatasetDict({name: validate_features(split, expected, schema, f"{where} (split {name!r})", optional)
                            for name, split in ds.items()})
    expected = with_optional(ds.features, expected, optional)
    problems = schema_problems(ds.features, expected)
    if problems:
        columns = ", ".join(f"{k}: {_type_name(v)}" for k, v in expected.items())
        raise SchemaError(f"{where} does not match the {schema} schema: {'; '.join(problems)}. Expected columns: {columns}.")
    if ds.features != expected:
        ds = ds.cast(expected)
    return ds
