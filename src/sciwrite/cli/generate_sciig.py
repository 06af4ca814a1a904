"""``sciwrite generate sciig``: generate Introductions for a SciIG split with one or several prompt levels.

For each level: load the ``test`` split (papers to write for) and the ``holdout`` split (few-shot exemplars) of
``--dataset`` from ``--source`` (a local folder or a Hub repo; default: the offline sample folder for ``sample``,
the Hub otherwise), build `SciIGMethod`, and run it through `cli_common.execute` into
``<out>/<model>_<dataset>_<level>.jsonl`` (``<level>`` in lower case; default out ``outputs/generations/sciig``),
with ``pred``, ``label``, ``desc``, ``paper_id`` and the run's metadata. ``--push-to-hub REPO_ID`` then publishes
the file as a config of that dataset repo (`sciwrite.core.hub.push_predictions`). ``--model extractive``
runs the offline extractive floor (`sciwrite.generation.extractive.ExtractiveSciIG`) instead of prompts.
Levels: the paper's seven (``all``), plus ``ZERO_SHOT`` (the ELABORATE prompt under its own name, SciIG Table
11) and ``AUTOCOT_PIPELINE`` (our three-request variant of AUTOCOT; see `sciwrite.sciig.generation.prompts`).
``--config baselines/sciig/<level>.yaml`` sets the defaults of one published run (dataset, level, seed; see
`generate_common.load_config`); explicit flags win.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.cli import generate_common as cli_common
from sciwrite.core.hub import push_predictions
from sciwrite.generation.extractive import ExtractiveSciIG
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation.levels import SciIGMethod
from sciwrite.sciig.generation.prompts import ALL_LEVELS, LEVELS, SHOTS, parse_levels

logger = logging.getLogger(__name__)

DEFAULT_OUT = Path("outputs") / "generations" / "sciig"
#: `sciwrite.sciig.data.loading.SCIIG_CONFIGS`, repeated so that ``--help`` need not import `datasets`.
DATASETS: tuple[str, ...] = ("naacl_2025", "iclr_2025", "sample")
SPLIT = "test"
HOLDOUT = "holdout"


def _levels_type(value: str) -> str:
    try:
        parse_levels([value])
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return value


def add_generate_sciig_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The shared run options plus --dataset, --source, --level, --push-to-hub and --config."""
    cli_common.add_run_arguments(parser)
    cli_common.add_config_argument(parser, "sciig")
    parser.add_argument("--dataset", default="naacl_2025", choices=list(DATASETS),
                        help="SciIG config; introductions are generated for its test split (default: naacl_2025)")
    parser.add_argument("--source", help="local dataset folder or Hub repo id (default: the sample folder for "
                                         "'sample', the sciwrite Hub repo otherwise)")
    parser.add_argument("--level", nargs="+", type=_levels_type, metavar="LEVEL",
                        help=f"prompt level(s): {', '.join(ALL_LEVELS)}, or 'all' for the paper's seven "
                             f"({', '.join(LEVELS)}); case-insensitive; one output file each. ZERO_SHOT is the "
                             "ELABORATE prompt (SciIG Table 11); AUTOCOT is the paper's single prompt, "
                             "AUTOCOT_PIPELINE our three-request variant. Not used with --model extractive")
    parser.add_argument("--push-to-hub", metavar="REPO_ID",
                        help="after each run, publish the output file as a config of this Hub dataset repo")
    return parser


def output_path(out: str | Path | None, model: str, dataset: str, level: str) -> Path:
    """``<out>/<file_label(model)>_<dataset>_<level>.jsonl`` (level in lower case)."""
    return Path(out or DEFAULT_OUT) / f"{cli_common.file_label(model)}_{dataset}_{level.lower()}.jsonl"


def load_split(dataset: str, source: str | None, split: str) -> list[dict[str, Any]]:
    """One split of a SciIG config as a list of records."""

    return load_sciig(dataset, source=source, split=split).to_list()


def plan_runs(args: argparse.Namespace) -> list[str]:
    """The levels to run (``["extractive"]``-like single entry for the extractive floor)."""
    if args.model == cli_common.EXTRACTIVE:
        if args.level:
            logger.warning("--level is ignored with --model %s", cli_common.EXTRACTIVE)
        return [cli_common.EXTRACTIVE]
    if not args.level:
        raise ValueError(f"--level is required: one or several of {', '.join(ALL_LEVELS)}, or 'all'")
    return parse_levels(args.level)


def run_generate_sciig(args: argparse.Namespace) -> list[Any]:
    """Run every requested level; returns the runner's reports (None entries for a dry run)."""

    levels = plan_runs(args)
    records = load_split(args.dataset, args.source, SPLIT)
    if not records:
        raise ValueError(f"SciIG {args.dataset!r} split {SPLIT!r} (from {args.source or 'the default source'}) has "
                         "no papers: nothing to generate")
    needs_holdout = any(level in SHOTS for level in levels)
    holdout = load_split(args.dataset, args.source, HOLDOUT) if needs_holdout else []
    reports = []
    for level in levels:
        if level == cli_common.EXTRACTIVE:
            method = ExtractiveSciIG()
            label = method.name
        else:
            method = SciIGMethod(level, holdout, seed=args.seed, dataset=args.dataset)
            label = level
        out_path = output_path(args.out, args.model, args.dataset, label)
        meta = run_meta(args, label)
        report = cli_common.execute(args, records, method, out_path, meta)
        reports.append(report)
        if report is not None and args.push_to_hub:
            url = push_predictions(out_path, args.push_to_hub, card_fields(meta, SPLIT))
            print(f"pushed {out_path} to {url}")
    return reports


def run_meta(args: argparse.Namespace, level: str) -> dict[str, Any]:
    return {"benchmark": "sciig", "dataset": args.dataset, "model": args.model, "method": level,
            "retriever": None, "seed": args.seed}


def card_fields(meta: Mapping[str, Any], split: str) -> dict[str, Any]:
    return {"benchmark": meta["benchmark"], "dataset": meta["dataset"], "split": split, "model": meta["model"],
            "method": meta["method"], "seed": meta.get("seed")}


__all__ = ["DEFAULT_OUT", "add_generate_sciig_arguments", "card_fields", "load_split", "output_path",
           "plan_runs", "run_generate_sciig", "run_meta"]
