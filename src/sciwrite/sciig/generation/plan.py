"""How ``sciwrite generate sciig`` plans a run: its options, the prompt levels and one output file per level
(`sciwrite.generation.jobs`).

For each level: the ``test`` split of the config ``--split`` names
from ``--source`` (a local folder or a Hub repo; default: the offline sample folder for ``sample``, the Hub
otherwise) holds the papers to write for, its ``holdout`` split the few-shot exemplars (read only when a few-shot
level runs). Each level writes
``<out>/<model>_<dataset>_<level>.jsonl`` (``<level>`` in lower case; default out ``outputs/generations/sciig``),
with ``pred``, ``label``, ``desc``, ``paper_id`` and the run's metadata. ``--model extractive`` runs the offline
extractive floor (`sciwrite.generation.extractive.ExtractiveSciIG`) instead of prompts. Levels: the paper's seven
(``all``), plus ``ZERO_SHOT`` (the ELABORATE prompt under its own name, SciIG Table 11) and ``AUTOCOT_PIPELINE``
(our three-request variant of AUTOCOT; see `sciwrite.sciig.generation.prompts`). ``--inputs title`` or
``title-abstract`` runs SciIG Table 4's ablation: the level's prompt without the target-paper lines the
configuration lacks (`prompts.restrict_inputs`; the paper does not print these prompts, and the command says
so before it runs), written as ``<level>_title`` / ``<level>_title_abstract``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sciwrite.core.commands import Option
from sciwrite.generation.extractive import ExtractiveSciIG
from sciwrite.generation.jobs import EXTRACTIVE, GenerationJob, GenerationRequest, file_label
from sciwrite.sciig.data.configs import ALL_CONFIGS
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation.levels import SciIGMethod
from sciwrite.sciig.generation.prompts import (
    ALL_LEVELS,
    FULL_INPUTS,
    INPUTS,
    LEVELS,
    SHOTS,
    inputs_note,
    parse_levels,
)

logger = logging.getLogger(__name__)

DATASETS: tuple[str, ...] = ALL_CONFIGS
SPLIT = "test"
HOLDOUT = "holdout"


def level_name(value: str) -> str:
    """One ``--level`` value, checked (case-insensitive; ``all`` is accepted)."""
    parse_levels([value])
    return value


GENERATE_OPTIONS: tuple[Option, ...] = (
    Option("split", "SciIG config; introductions are generated for its test split (default: naacl_2025)",
           default="naacl_2025", choices=DATASETS),
    Option("source", "local dataset folder or Hub repo id (default: the sample folder for 'sample', the sciwrite Hub "
                     "repo otherwise)"),
    Option("level", f"prompt level(s): {', '.join(ALL_LEVELS)}, or 'all' for the paper's seven ({', '.join(LEVELS)}); "
                    "case-insensitive; one output file each. ZERO_SHOT is the ELABORATE prompt (SciIG Table 11); "
                    "AUTOCOT is the paper's single prompt, AUTOCOT_PIPELINE our three-request variant. Not used with "
                    "--model extractive", type=level_name, many=True, metavar="LEVEL"),
    Option("inputs", "the target paper's inputs (SciIG Table 4's ablation): title, title-abstract, or "
                     "title-abstract-related (the default, the full input); a single-prompt level's template without "
                     "the lines the configuration lacks", choices=INPUTS, default=FULL_INPUTS),
)


def output_path(out: str | Path, model: str, dataset: str, level: str) -> Path:
    """``<out>/<file_label(model)>_<dataset>_<level>.jsonl`` (level in lower case)."""
    return Path(out) / f"{file_label(model)}_{dataset}_{level.lower()}.jsonl"


def load_split(dataset: str, source: str | None, split: str) -> list[dict[str, Any]]:
    """One split of a SciIG config as a list of records."""
    return load_sciig(dataset, source=source, split=split).to_list()


def plan_levels(request: GenerationRequest) -> list[str]:
    """The levels to run (the single entry ``extractive`` for the extractive floor)."""
    levels = request.options.get("level")
    if request.extractive:
        if levels:
            logger.warning("--level is ignored with --model %s", EXTRACTIVE)
        return [EXTRACTIVE]
    if not levels:
        raise ValueError(f"--level is required: one or several of {', '.join(ALL_LEVELS)}, or 'all'")
    return parse_levels(levels)


def run_meta(request: GenerationRequest, level: str) -> dict[str, Any]:
    meta = {"benchmark": "sciig", "dataset": request.options.get("split", "naacl_2025"), "model": request.model,
            "method": level, "retriever": None, "seed": request.seed}
    inputs = request.options.get("inputs", FULL_INPUTS)
    return meta if inputs == FULL_INPUTS else {**meta, "inputs": inputs}


def card_fields(meta: Mapping[str, Any], split: str) -> dict[str, Any]:
    return {"benchmark": meta["benchmark"], "dataset": meta["dataset"], "split": split, "model": meta["model"],
            "method": meta["method"], "seed": meta.get("seed")}


def plan_generation(request: GenerationRequest) -> Iterator[GenerationJob]:
    """One job per level, over the test split's papers (the holdout split read once, for the few-shot levels)."""
    levels = plan_levels(request)
    dataset = request.options.get("split", "naacl_2025")
    source = request.options.get("source")
    inputs = request.options.get("inputs", FULL_INPUTS)
    if request.extractive and inputs != FULL_INPUTS:  # before any split is loaded
        raise ValueError("--inputs applies to the prompt levels, not to --model extractive")
    records = load_split(dataset, source, SPLIT)
    if not records:
        raise ValueError(f"SciIG {dataset!r} split {SPLIT!r} (from {source or 'the default source'}) has no papers: "
                         "nothing to generate")
    holdout = load_split(dataset, source, HOLDOUT) if any(level in SHOTS for level in levels) else []
    for level in levels:
        if level == EXTRACTIVE:
            method: Any = ExtractiveSciIG()
        else:
            method = SciIGMethod(level, holdout, seed=request.seed, dataset=dataset, inputs=inputs)
        label = method.name
        meta = run_meta(request, label)
        note = None if level == EXTRACTIVE else inputs_note(level, inputs)
        yield GenerationJob(records, method, output_path(request.out, request.model, dataset, label), meta,
                            card=card_fields(meta, SPLIT), notes=(note,) if note else ())


__all__ = ["DATASETS", "GENERATE_OPTIONS", "card_fields", "load_split", "output_path", "plan_generation",
           "plan_levels", "run_meta"]
