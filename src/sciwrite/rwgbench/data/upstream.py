"""Import the upstream Hub release `BFTree/RWGBench` into our schema through an explicit column mapping.

The upstream column layout is not known in advance, so every accepted upstream name is listed in
`UPSTREAM_COLUMN_ALIASES`; a column the mapping does not know is an error (strict mode) rather than
silently dropped, and `column_map` extends or overrides the mapping for one call.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from datasets import Dataset, DatasetDict, load_dataset

from sciwrite.core.schema import SchemaError
from sciwrite.rwgbench.data.configs import card_configs_yaml, write_dataset_folder
from sciwrite.rwgbench.data.schema import FEATURES_BY_KIND, validate_dataset
from sciwrite.sources.bibliography import parse_authors, parse_year
from sciwrite.sources.markers import marker_numbers

logger = logging.getLogger(__name__)

UPSTREAM_REPO_ID = "BFTree/RWGBench"

# Per kind: our field -> upstream column names accepted for it, tried in this order.
UPSTREAM_COLUMN_ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "paper": {
        "paper_id": ("paper_id", "id", "arxiv_id", "paperId"),
        "title": ("title", "Title", "paper_title"),
        "abstract": ("abstract", "Abstract"),
        "introduction": ("introduction", "intro", "Introduction"),
        "related_work": ("related_work", "related_work_section", "rw", "related_work_text", "Related Work"),
        "citations": ("citations", "cited_ids", "citation_ids", "references", "ref_ids", "cited_doc_ids"),
        "venue": ("venue", "Venue", "conference"),
        "year": ("year", "Year"),
    },
    "corpus": {
        "doc_id": ("doc_id", "id", "corpus_id", "paperId", "docid"),
        "title": ("title", "Title"),
        "abstract": ("abstract", "Abstract"),
        "authors": ("authors", "Authors"),
        "year": ("year", "Year"),
        "source": ("source", "Source", "origin"),
    },
}

# Defaults for the two optional fields when upstream has no column for them (or a row has no value).
OPTIONAL_DEFAULTS: dict[str, dict[str, str]] = {
    "paper": {"venue": "unknown"},
    "corpus": {"source": "rwgbench-upstream"},
}

_ID_KEYS = ("doc_id", "id", "corpus_id", "paperId")
_LIST_SPLIT = re.compile(r"[,;\s]+")
_OTHER_MARKERS = re.compile(r"\\cite[pt]?\{|\[CITATION\]", re.IGNORECASE)


def _check_kind(kind: str) -> None:
    if kind not in FEATURES_BY_KIND:
        raise ValueError(f"kind must be one of {sorted(FEATURES_BY_KIND)}, not {kind!r}")


def resolve_columns(
    columns: list[str], kind: str, column_map: Mapping[str, str | None] | None = None
) -> tuple[dict[str, str], list[str], list[str]]:
    """Match upstream `columns` to our fields.

    `column_map` maps an upstream column to our field name, or to None to drop it; it takes
    precedence over the aliases. Returns (upstream column -> our field, unknown upstream columns,
    dropped columns).
    """
    _check_kind(kind)
    fields = FEATURES_BY_KIND[kind]
    column_map = dict(column_map or {})
    absent = [c for c in column_map if c not in columns]
    wrong = {c: f for c, f in column_map.items() if f is not None and f not in fields}
    if absent or wrong:
        problems = []
        if absent:
            problems.append(f"columns {absent} are not in the upstream dataset (columns: {columns})")
        if wrong:
            problems.append(f"targets {wrong} are not {kind} fields ({list(fields)})")
        raise SchemaError(f"bad column_map: {'; '.join(problems)}")
    mapping = {c: f for c, f in column_map.items() if f is not None}
    if len(set(mapping.values())) < len(mapping):
        raise SchemaError(f"bad column_map: two upstream columns map to one field: {mapping}")
    dropped = [c for c, f in column_map.items() if f is None]
    taken = set(mapping.values())
    for name in fields:
        if name in taken:
            continue
        for alias in UPSTREAM_COLUMN_ALIASES[kind][name]:
            if alias in columns and alias not in column_map and alias not in mapping:
                mapping[alias] = name
                break
    unknown = [c for c in columns if c not in mapping and c not in dropped]
    return mapping, unknown, dropped


def _as_id(value: Any) -> str | None:
    if isinstance(value, Mapping):
        value = next((value[k] for k in _ID_KEYS if value.get(k) is not None), None)
    return None if value is None else str(value)


def _as_id_list(value: Any) -> list[str]:
    """A citation list from a list (of ids, or of dicts with an id), a JSON list string, or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                value = _LIST_SPLIT.split(text.strip("[]"))
        else:
            value = _LIST_SPLIT.split(text)
        if isinstance(value, str):
            value = [value]
    ids = [_as_id(v) for v in value]
    return [i.strip() for i in ids if i is not None and i.strip()]


def _convert_batch(batch: dict[str, list[Any]], kind: str, n: int) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    defaults = OPTIONAL_DEFAULTS[kind]
    for name in FEATURES_BY_KIND[kind]:
        values = batch.get(name, [None] * n)
        if name == "year":
            out[name] = [parse_year(v) for v in values]
        elif name == "authors":
            out[name] = [parse_authors(v) for v in values]
        elif name == "citations":
            out[name] = [_as_id_list(v) for v in values]
        elif name in ("paper_id", "doc_id"):
            out[name] = [_as_id(v) for v in values]
        elif name in defaults:
            out[name] = [str(v) if v not in (None, "") else defaults[name] for v in values]
        else:
            out[name] = [None if v is None else str(v) for v in values]
    return out


def check_markers(ds: Dataset, where: str = "upstream paper dataset", batch_size: int = 1000) -> None:
    """Raise `SchemaError` naming the papers whose related_work has a `[k]` marker outside 1..len(citations)."""
    offending: list[str] = []
    n_other_style = 0
    for batch in ds.select_columns(["paper_id", "related_work", "citations"]).iter(batch_size=batch_size):
        for paper_id, text, citations in zip(batch["paper_id"], batch["related_work"], batch["citations"]):
            numbers = marker_numbers(text or "")
            if any(not 1 <= k <= len(citations or []) for k in numbers):
                offending.append(str(paper_id))
            elif not numbers and citations and _OTHER_MARKERS.search(text or ""):
                n_other_style += 1
    if n_other_style:
        logger.warning("%s: %d papers cite with \\cite{...} or [CITATION] rather than [k]; left as is", where, n_other_style)
    if offending:
        shown = ", ".join(offending[:5]) + (", ..." if len(offending) > 5 else "")
        raise SchemaError(
            f"{where}: {len(offending)} papers have [k] citation markers outside 1..len(citations): {shown}"
        )


def import_upstream(
    ds: Dataset | DatasetDict,
    kind: str,
    *,
    strict: bool = True,
    column_map: Mapping[str, str | None] | None = None,
) -> Dataset | DatasetDict:
    """Rename and convert an upstream dataset to our `kind` schema ('paper' or 'corpus') and validate it.

    Conversions: ids to strings, authors string -> list, year string/date -> int, citations to a
    list of id strings. Only the optional fields get defaults when absent: venue "unknown",
    source "rwgbench-upstream". Unknown upstream columns raise `SchemaError` when `strict` (else they
    are dropped with a warning); `column_map` ({upstream column: our field or None}) extends the
    mapping. For papers, every `[k]` marker must lie within 1..len(citations).
    """
    if isinstance(ds, DatasetDict):
        return DatasetDict(
            {name: import_upstream(split, kind, strict=strict, column_map=column_map) for name, split in ds.items()}
        )
    mapping, unknown, dropped = resolve_columns(list(ds.column_names), kind, column_map)
    fields = FEATURES_BY_KIND[kind]
    if unknown:
        message = (
            f"upstream {kind} dataset has columns the mapping does not know: {unknown}. "
            f"Mapped: {mapping}. Pass column_map={{'<upstream column>': '<field>'}} to map one to one of "
            f"{list(fields)}, or to None to drop it (or strict=False to drop all unknown columns)."
        )
        if strict:
            raise SchemaError(message)
        logger.warning("%s", message)
    missing = [f for f in fields if f not in mapping.values() and f not in OPTIONAL_DEFAULTS[kind]]
    if missing:
        raise SchemaError(
            f"upstream {kind} dataset has no column for required fields {missing}; available columns: "
            f"{list(ds.column_names)}. Pass column_map={{'<upstream column>': '<field>'}} to name them."
        )
    ds = ds.select_columns(list(mapping)).rename_columns(mapping)
    ds = ds.map(
        lambda batch: _convert_batch(batch, kind, len(next(iter(batch.values())))),
        batched=True,
        remove_columns=ds.column_names,
        features=fields,
        desc=f"importing upstream {kind}",
    )
    ds = validate_dataset(ds, kind, where=f"upstream {kind} dataset")
    if kind == "paper":
        check_markers(ds)
    return ds


def load_upstream(
    repo_id: str = UPSTREAM_REPO_ID,
    config: str | None = None,
    split: str | None = None,
    kind: str = "paper",
    *,
    strict: bool = True,
    column_map: Mapping[str, str | None] | None = None,
    **load_kwargs: Any,
) -> Dataset | DatasetDict:
    """Load the upstream release from the Hub with `datasets.load_dataset` and import it as `kind`."""
    _check_kind(kind)
    ds = load_dataset(repo_id, config, split=split, **load_kwargs)
    return import_upstream(ds, kind, strict=strict, column_map=column_map)


def config_split(spec: str) -> tuple[str | None, str | None]:
    """``"CONFIG:SPLIT"`` (either part may be empty) as (config or None, split or None)."""
    config, _, split = spec.partition(":")
    return config or None, split or None


def import_upstream_folder(out: str, repo_id: str = UPSTREAM_REPO_ID, *, papers: str = ":train", test: str = ":test",
                           corpus: str = "corpus:train", column_map: Mapping[str, str | None] | None = None) -> str:
    """Import the upstream release config by config (each a ``CONFIG:SPLIT`` of `repo_id`) and write it in our
    layout (``papers``, ``test``, ``corpus``) with a card into the folder `out`; returns `out`."""
    tables: dict[str, Dataset] = {}
    for ours, spec in (("papers", papers), ("test", test)):
        config, split = config_split(spec)
        tables[ours] = load_upstream(repo_id, config, split=split, kind="paper", column_map=column_map)
    config, split = config_split(corpus)
    tables["corpus"] = load_upstream(repo_id, config, split=split, kind="corpus", column_map=column_map)
    card = f"---\nlicense: cc-by-4.0\n{card_configs_yaml(list(tables))}---\n\n# RWGBench (imported from {repo_id})\n"
    write_dataset_folder(out, tables, card)
    return out
