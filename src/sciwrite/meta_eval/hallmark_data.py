"""HALLMARK's data and predictions formats (the benchmark for citation-hallucination checkers, rpatrik96/hallmark,
MIT): a split is ``DIR/<split>.jsonl`` of labelled BibTeX entries; a checker's answers are JSON Lines in HALLMARK's
``Prediction`` format. Both are read strictly, every problem named ``FILE:LINE``, the entry key and the field."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sciwrite.core.jsonl import line_ref, strict_json_lines

#: HALLMARK's 14 hallucination types, in its taxonomy's order (the order of its published ``type_confusion``), each
#: with the difficulty tier HALLMARK assigns it.
TYPE_TIER: Mapping[str, int] = MappingProxyType({
    "fabricated_doi": 1, "nonexistent_venue": 1, "placeholder_authors": 1, "future_date": 1,
    "chimeric_title": 2, "wrong_venue": 2, "swapped_authors": 2, "preprint_as_published": 2, "hybrid_fabrication": 2,
    "near_miss_title": 3, "plausible_fabrication": 3,
    "merged_citation": 2, "partial_author_list": 2, "arxiv_version_mismatch": 3,
})
HALLUCINATION_TYPES: tuple[str, ...] = tuple(TYPE_TIER)
#: Theoretically motivated types HALLMARK scores apart from the main taxonomy.
STRESS_TEST_TYPES: frozenset[str] = frozenset({"merged_citation", "partial_author_list", "arxiv_version_mismatch"})
#: The 11 empirically grounded types.
MAIN_TYPES: frozenset[str] = frozenset(HALLUCINATION_TYPES) - STRESS_TEST_TYPES

VALID, HALLUCINATED, UNCERTAIN = "VALID", "HALLUCINATED", "UNCERTAIN"
ENTRY_LABELS: tuple[str, ...] = (VALID, HALLUCINATED)
PREDICTION_LABELS: tuple[str, ...] = (VALID, HALLUCINATED, UNCERTAIN)

#: Watermark rows HALLMARK's loader drops: not test items.
CANARY_PREFIX = "__canary__"


@dataclass(frozen=True)
class HallmarkEntry:
    """One benchmark entry: its BibTeX key, type and fields, the ground truth (label, hallucination type, tier; both
    None for VALID entries) and how it was made."""

    key: str
    entry_type: str
    fields: Mapping[str, str]
    label: str
    hallucination_type: str | None = None
    tier: int | None = None
    generation_method: str = ""
    explanation: str = ""

    @property
    def hallucinated(self) -> bool:
        """Whether the ground truth is HALLUCINATED."""
        return self.label == HALLUCINATED


def split_names(data_dir: str | Path) -> list[str]:
    """The splits present in `data_dir`: the stems of its ``*.jsonl`` files, sorted."""
    return sorted(p.stem for p in Path(data_dir).glob("*.jsonl"))


def _entry(record: Any, where: str) -> HallmarkEntry:
    """One split line as an entry; a missing or wrong field raises ValueError naming `where`, the key and the field."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: not a JSON object")
    key = record.get("bibtex_key")
    if not isinstance(key, str) or not key:
        raise ValueError(f"{where}: field 'bibtex_key' missing or not a non-empty string")
    at = f"{where}: record {key!r}"
    fields = record.get("fields")
    if not isinstance(fields, dict):
        raise ValueError(f"{at}, field 'fields': missing or not an object of BibTeX fields")
    if "label" not in record:
        raise ValueError(f"{at}, field 'label': missing")
    label = record.get("label")
    if label not in ENTRY_LABELS:
        raise ValueError(f"{at}, field 'label': {label!r} is not VALID or HALLUCINATED")
    h_type, tier = record.get("hallucination_type"), record.get("difficulty_tier")
    if label == VALID:  # as HALLMARK's loader does: a valid entry has no type and no tier
        h_type, tier = None, None
    elif h_type is None:
        raise ValueError(f"{at}, field 'hallucination_type': a HALLUCINATED entry needs one")
    elif h_type not in TYPE_TIER:
        raise ValueError(f"{at}, field 'hallucination_type': {h_type!r} is not one of HALLMARK's 14 types")
    if tier is not None and (isinstance(tier, bool) or tier not in (1, 2, 3)):
        raise ValueError(f"{at}, field 'difficulty_tier': {tier!r} is not 1, 2, 3 or null")
    return HallmarkEntry(key=key, entry_type=str(record.get("bibtex_type") or ""),
                         fields=MappingProxyType({str(k): str(v) for k, v in fields.items()}),
                         label=label, hallucination_type=h_type, tier=tier,
                         generation_method=str(record.get("generation_method") or ""),
                         explanation=str(record.get("explanation") or ""))


def read_split(data_dir: str | Path, split: str) -> list[HallmarkEntry]:
    """The entries of ``data_dir/<split>.jsonl``, in file order, canary rows dropped. An unknown split, a line that
    is not a JSON object, a missing ``bibtex_key``/``label``/``fields``, a label other than VALID/HALLUCINATED, a
    HALLUCINATED entry without a known type, or a key seen twice raises ValueError naming ``FILE:LINE``."""
    path = Path(data_dir) / f"{split}.jsonl"
    if not Path(data_dir).is_dir():
        raise FileNotFoundError(f"no HALLMARK data folder {data_dir} (the folder of dev_public.jsonl, "
                                "valid_entries.jsonl and baseline_results/)")
    if not path.is_file():
        found = ", ".join(split_names(data_dir)) or "none"
        raise ValueError(f"unknown HALLMARK split {split!r}: no {path} (splits in {data_dir}: {found})")
    entries: list[HallmarkEntry] = []
    first_line: dict[str, int] = {}
    for number, value in strict_json_lines(path, objects=False):  # `_entry` says what a non-object line is
        where = line_ref(path, number)
        entry = _entry(value, where)
        if entry.key in first_line:
            raise ValueError(f"{where}: record {entry.key!r}, field 'bibtex_key': duplicate of "
                             f"{line_ref(path, first_line[entry.key])}")
        first_line[entry.key] = number
        if not entry.key.startswith(CANARY_PREFIX):
            entries.append(entry)
    return entries


@dataclass(frozen=True)
class HallmarkPrediction:
    """A checker's answer for one entry, in HALLMARK's predictions format. `confidence` is the checker's belief that
    its own label is right; `predicted_hallucination_type` (one of `HALLUCINATION_TYPES` or None) is its diagnosis."""

    bibtex_key: str
    label: str
    confidence: float
    reason: str = ""
    subtest_results: Mapping[str, bool | None] = field(default_factory=dict)
    api_sources_queried: tuple[str, ...] = ()
    wall_clock_seconds: float = 0.0
    api_calls: int = 0
    predicted_hallucination_type: str | None = None

    def __post_init__(self) -> None:
        if self.label not in PREDICTION_LABELS:
            raise ValueError(f"field 'label': {self.label!r} is not VALID, HALLUCINATED or UNCERTAIN")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"field 'confidence': {self.confidence!r} is not in [0, 1]")
        if self.predicted_hallucination_type is not None and self.predicted_hallucination_type not in TYPE_TIER:
            raise ValueError(f"field 'predicted_hallucination_type': {self.predicted_hallucination_type!r} is not "
                             "one of HALLMARK's 14 types")

    def as_dict(self) -> dict[str, Any]:
        """The prediction as one JSON object of HALLMARK's predictions format."""
        return {"bibtex_key": self.bibtex_key, "label": self.label, "confidence": self.confidence,
                "reason": self.reason, "subtest_results": dict(self.subtest_results),
                "api_sources_queried": list(self.api_sources_queried),
                "wall_clock_seconds": self.wall_clock_seconds, "api_calls": self.api_calls,
                "predicted_hallucination_type": self.predicted_hallucination_type}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HallmarkPrediction:
        """A prediction from its JSON object (unknown keys ignored, as HALLMARK does); a missing or mistyped field
        raises ValueError naming it."""
        for name, kinds in (("bibtex_key", str), ("label", str), ("confidence", (int, float))):
            if not isinstance(data.get(name), kinds) or isinstance(data.get(name), bool):
                raise ValueError(f"field {name!r}: missing or not a {'number' if name == 'confidence' else 'string'}")
        subtests, sources = data.get("subtest_results") or {}, data.get("api_sources_queried") or []
        if not isinstance(subtests, dict):
            raise ValueError("field 'subtest_results': not an object")
        if not isinstance(sources, list):
            raise ValueError("field 'api_sources_queried': not a list")
        try:
            seconds, calls = float(data.get("wall_clock_seconds") or 0.0), int(data.get("api_calls") or 0)
        except (TypeError, ValueError):
            raise ValueError("field 'wall_clock_seconds' or 'api_calls': not a number") from None
        return cls(bibtex_key=data["bibtex_key"], label=data["label"], confidence=float(data["confidence"]),
                   reason=str(data.get("reason") or ""), subtest_results=dict(subtests),
                   api_sources_queried=tuple(str(s) for s in sources), wall_clock_seconds=seconds, api_calls=calls,
                   predicted_hallucination_type=data.get("predicted_hallucination_type"))


def write_predictions(path: str | Path, predictions: Iterable[HallmarkPrediction]) -> None:
    """Write `predictions` to `path` as JSON Lines, one `HallmarkPrediction.as_dict` per line."""
    with Path(path).open("w", encoding="utf-8") as f:
        for pred in predictions:
            f.write(json.dumps(pred.as_dict(), ensure_ascii=False) + "\n")


def read_predictions(path: str | Path) -> list[HallmarkPrediction]:
    """The predictions of a JSON Lines file, in order. A bad line or a key given twice raises ValueError naming
    ``FILE:LINE``, the key when present and the field."""
    predictions: list[HallmarkPrediction] = []
    first_line: dict[str, int] = {}
    for number, value in strict_json_lines(path):
        where = line_ref(path, number)
        key = value.get("bibtex_key")
        at = f"{where}: record {key!r}" if isinstance(key, str) else where
        try:
            pred = HallmarkPrediction.from_dict(value)
        except ValueError as err:
            raise ValueError(f"{at}, {err}") from None
        if pred.bibtex_key in first_line:
            raise ValueError(f"{at}, field 'bibtex_key': duplicate of {line_ref(path, first_line[pred.bibtex_key])}")
        first_line[pred.bibtex_key] = number
        predictions.append(pred)
    return predictions


__all__ = ["CANARY_PREFIX", "ENTRY_LABELS", "HALLUCINATED", "HALLUCINATION_TYPES", "MAIN_TYPES", "PREDICTION_LABELS",
           "STRESS_TEST_TYPES", "TYPE_TIER", "UNCERTAIN", "VALID", "HallmarkEntry", "HallmarkPrediction",
           "read_predictions", "read_split", "split_names", "write_predictions"]
