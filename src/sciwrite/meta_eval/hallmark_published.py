"""HALLMARK's published tool results (``baseline_results/*_<split>.json`` of rpatrik96/hallmark, MIT), read as
typed rows to compare a sciwrite checker with.

Every published HALLMARK tool is open-world: it asks live services at check time (doi.org, CrossRef, OpenAlex,
Semantic Scholar, arXiv, DBLP, Google Scholar) or an LLM's own memory and tools, not a given bibliographic snapshot.
So its numbers depend on the day it ran, and a closed-world checker (one that looks entries up in a local snapshot)
is compared with them as a different kind of system; `PublishedRow.open_world` and `how` say this for each row."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The keys every published row must carry (numbers, except the tool's name; ``false_positive_rate`` may be null).
HEADLINE_KEYS: tuple[str, ...] = ("tool_name", "num_entries", "detection_rate", "false_positive_rate",
                                  "f1_hallucination", "tier_weighted_f1", "ece")
#: Where the default lookups of bibtex-updater's ``bibtex-check`` go.
_BTU_SOURCES = "CrossRef, OpenAlex, Semantic Scholar and arXiv"


@dataclass(frozen=True)
class PublishedRow:
    """One published HALLMARK result file: its stem (``<name>_<split>``), the tool, the treatment of UNCERTAIN
    (``aggressive`` when the stem or ``_provenance.eval_mode`` says so), the headline metrics (None where the file
    has no such key), the detection rate per type, and what kind of system it is: `open_world` (always True for
    HALLMARK's tools), `how` it checks, and a one-line `description`."""

    stem: str
    name: str
    tool_name: str
    split: str
    treatment: str
    num_entries: int
    detection_rate: float
    false_positive_rate: float | None
    f1_hallucination: float
    tier_weighted_f1: float
    ece: float
    auroc: float | None
    auprc: float | None
    mcc: float | None
    num_uncertain: int | None
    coverage: float | None
    per_type_detection: Mapping[str, float]
    open_world: bool
    how: str
    description: str
    provenance: Mapping[str, Any] = field(default_factory=dict)


def _number(data: Mapping[str, Any], key: str, where: str) -> float | None:
    """`data[key]` as a float, None when absent, null or NaN; anything else raises naming the key."""
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: key {key!r} is {value!r}, not a number")
    return None if math.isnan(value) else float(value)


def _headline(data: Mapping[str, Any], key: str, where: str) -> float:
    """`data[key]`, a number the file must have."""
    value = _number(data, key, where)
    if value is None:
        raise ValueError(f"{where}: missing headline key {key!r} (absent, null or NaN)")
    return value


def _model(rest: str) -> str:
    """A model name from a tool-name tail: ``claude_opus_4_7`` -> ``claude opus 4.7``."""
    words = rest.split("_")
    out: list[str] = []
    for word in words:
        if out and word.isdigit() and out[-1].replace(".", "").isdigit():
            out[-1] += f".{word}"
        else:
            out.append(word)
    return " ".join(out) or "an unnamed model"


def describe(name: str, provenance: Mapping[str, Any], tool_name: str = "") -> tuple[bool, str, str]:
    """(open_world, how, description) of a published tool from its file name (stem without the split), its
    ``_provenance`` and its tool name (whose model tail is preferred: ``gpt-5.4`` over the file's ``gpt54``). Every
    HALLMARK tool queries live services or an LLM, so open_world is always True."""
    kind = str(provenance.get("kind") or "")
    btu = str(provenance.get("endpoint_btu") or f"bibtex-check over {_BTU_SOURCES}")
    stage2 = str(provenance.get("endpoint_stage2") or "an LLM")
    if kind == "cascade" or name.startswith("cascade"):
        return (True, f"stage 1 queries live bibliographic APIs ({btu}); stage 2 asks {stage2} to diagnose the rest",
                f"cascade: bibtex-updater lookups, then {stage2} diagnosing the hallucination type")
    if kind == "btu_standalone" or name.startswith("bibtexupdater"):
        return True, f"queries live bibliographic APIs ({btu})", "bibtex-updater: metadata lookups by DOI and title"
    if name.startswith("doi_only"):
        return True, "resolves each entry's DOI at doi.org at check time", "DOI-only: flags entries whose DOI fails"
    if name.startswith("harc"):
        key = " with a Semantic Scholar API key" if "s2key" in name else ""
        return (True, f"HaRC queries Semantic Scholar, DBLP, Google Scholar and Open Library live{key}",
                f"HaRC (Hallucinated Reference Checker){key}")
    if name.startswith("llm_agentic_btu_"):
        model = _model(name.removeprefix("llm_agentic_btu_"))
        return (True, f"an LLM agent ({model}) calling bibtex-updater's live lookups as tools",
                f"LLM agent ({model}) with bibtex-updater tools")
    if name.startswith("llm_agentic_"):
        model = _model(name.removeprefix("llm_agentic_"))
        return (True, f"an LLM agent ({model}) calling lookup tools at check time",
                f"LLM agent ({model}) with lookup tools")
    for prefix, route, default in (("llm_openrouter_", "OpenRouter", "an unnamed model"),
                                   ("llm_openai", "the OpenAI API", "an OpenAI model")):
        if name.startswith(prefix):
            tail = (tool_name if tool_name.startswith(prefix) else name).removeprefix(prefix).lstrip("_")
            model = _model(tail) if tail else default
            return (True, f"an LLM ({model} via {route}) judging each entry from what it knows, no given snapshot",
                    f"LLM checker: {model} via {route}")
    return (True, "a published HALLMARK tool: these query live services or an LLM, not a given snapshot",
            f"published HALLMARK tool {name}")


def _row(path: Path, split: str) -> PublishedRow:
    """One result file as a row; a file that is not a JSON object or lacks a headline key raises naming both."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: not a JSON file ({err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    if not isinstance(data.get("tool_name"), str):
        raise ValueError(f"{path}: missing headline key 'tool_name' (or not a string)")
    if data.get("split_name", split) != split:
        raise ValueError(f"{path}: key 'split_name' is {data['split_name']!r}, not {split!r}")
    numbers = {key: _headline(data, key, str(path)) for key in HEADLINE_KEYS[1:] if key != "false_positive_rate"}
    if "false_positive_rate" not in data:  # null is allowed: HALLMARK writes it for a split without valid entries
        raise ValueError(f"{path}: missing headline key 'false_positive_rate'")
    optional = {key: _number(data, key, str(path)) for key in ("false_positive_rate", "auroc", "auprc", "mcc",
                                                               "num_uncertain", "coverage")}
    per_type = data.get("per_type_metrics") or {}
    if not isinstance(per_type, dict) or not all(isinstance(v, dict) for v in per_type.values()):
        raise ValueError(f"{path}: key 'per_type_metrics' is not an object of objects")
    detection = {t: _headline(m, "detection_rate", f"{path}: per_type_metrics[{t!r}]") for t, m in per_type.items()}
    provenance = data.get("_provenance") or {}
    if not isinstance(provenance, dict):
        raise ValueError(f"{path}: key '_provenance' is not an object")
    name = path.stem.removesuffix(f"_{split}")
    aggressive = "aggressive" in name.split("_") or provenance.get("eval_mode") == "aggressive"
    open_world, how, description = describe(name, provenance, data["tool_name"])
    uncertain = optional["num_uncertain"]
    return PublishedRow(
        stem=path.stem, name=name, tool_name=data["tool_name"], split=split,
        treatment="aggressive" if aggressive else "conservative", num_entries=int(numbers["num_entries"]),
        detection_rate=numbers["detection_rate"], false_positive_rate=optional["false_positive_rate"],
        f1_hallucination=numbers["f1_hallucination"], tier_weighted_f1=numbers["tier_weighted_f1"],
        ece=numbers["ece"], auroc=optional["auroc"], auprc=optional["auprc"], mcc=optional["mcc"],
        num_uncertain=None if uncertain is None else int(uncertain), coverage=optional["coverage"],
        per_type_detection=dict(sorted(detection.items())),
        open_world=open_world, how=how, description=description, provenance=provenance)


def published_dir(folder: str | Path) -> Path:
    """The folder of result files: ``folder/baseline_results`` when it exists, else `folder` itself."""
    folder = Path(folder)
    return folder / "baseline_results" if (folder / "baseline_results").is_dir() else folder


def read_published(folder: str | Path, split: str) -> list[PublishedRow]:
    """Every published row for `split` (``*_<split>.json`` under `published_dir(folder)`), sorted by file stem.
    Strict: the first file that is not a JSON object or lacks a headline key (`HEADLINE_KEYS`) raises ValueError
    naming the file and the key, and a folder without any file for the split raises too; nothing is skipped."""
    where = published_dir(folder)
    paths = sorted(where.glob(f"*_{split}.json"))
    if not paths:
        raise ValueError(f"{where}: no published HALLMARK results for split {split!r} (*_{split}.json)")
    return [_row(path, split) for path in paths]


__all__ = ["HEADLINE_KEYS", "PublishedRow", "describe", "published_dir", "read_published"]
