"""Command-line glue for building SciIG folders (`sciwrite build sciig`): from grobid2json papers, or
(``--release FILE``) by importing an upstream SciIG release file.

The LLM mapping step runs when ``--llm-model`` is given and an endpoint is configured (``--llm-base-url`` /
``SCIWRITE_LLM_BASE_URL`` and ``SCIWRITE_LLM_API_KEY``); otherwise it is skipped and the skipped citations are
counted in the build report. Semantic Scholar enrichment runs with ``--s2`` (key: ``--s2-api-key`` or
``S2_API_KEY``), cached in ``--s2-cache`` (default ``<out>/s2_cache.json``).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from sciwrite.llm.client import ChatClient, LLMNotConfiguredError
from sciwrite.sciig.data.builder import (
    DEFAULT_HOLDOUT_FRACTION,
    NEIGHBOR_FIELDS,
    SciIGBuildReport,
    build_sciig_records,
    neighbor_problem,
    write_sciig_folder,
)
from sciwrite.sciig.data.configs import SCIIG_CONFIGS, default_sciig_dir
from sciwrite.sciig.data.semantic_scholar import SemanticScholarClient
from sciwrite.sciig.data.upstream import import_upstream_release

logger = logging.getLogger(__name__)


def add_build_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of a SciIG build from grobid2json papers."""
    p.add_argument("--config", default="sample", choices=SCIIG_CONFIGS, help="config to write (default: sample)")
    p.add_argument("--paper-dir", help="folder of grobid2json papers (default: the aclsum package's 250 ACL papers)")
    p.add_argument("--out", help="dataset folder (default: $SCIWRITE_SCIIG_DIR or $SCIWRITE_DATA_DIR/../sciig)")
    p.add_argument("--allow-missing-abstracts", action="store_true",
                   help="keep papers whose cited works have no abstract (empty abstracts); the offline sample needs it")
    p.add_argument("--venue", help="venue of every paper (default: from ACL Anthology ids)")
    p.add_argument("--year", type=int, help="year of every paper (default: from the paper or its Anthology id)")
    p.add_argument("--holdout-fraction", type=float, default=DEFAULT_HOLDOUT_FRACTION, help="share of papers in `holdout`")
    p.add_argument("--llm-model", help="model that maps unresolved citations (skipped without it)")
    p.add_argument("--llm-base-url", help="OpenAI-compatible endpoint (default: $SCIWRITE_LLM_BASE_URL)")
    p.add_argument("--llm-cache", help="JSON Lines cache of the mapping replies")
    p.add_argument("--s2", action="store_true", help="fill missing abstracts/authors from Semantic Scholar")
    p.add_argument("--s2-api-key", help="Semantic Scholar API key (default: $S2_API_KEY)")
    p.add_argument("--s2-base-url", help="Graph API base URL (default: https://api.semanticscholar.org/graph/v1)")
    p.add_argument("--s2-cache", help="JSON cache of Semantic Scholar answers (default: <out>/s2_cache.json)")
    p.add_argument("--release", help="import this upstream SciIG release (JSON / JSON Lines with title, abstract, "
                                     "introduction, neighbors) instead of building from papers; needs --venue")
    return p


def _llm_client(model: str | None, base_url: str | None, cache: str | None, out: Path) -> Any | None:
    """The Table 8 mapping client, its spend written to ``<out>/usage.jsonl``; None without a model or endpoint."""
    if not model:
        return None

    try:
        return ChatClient(model, base_url=base_url, cache_path=cache, ledger=out / "usage.jsonl", purpose="llm_map")
    except LLMNotConfiguredError as err:
        logger.warning("LLM citation mapping skipped: %s", err)
        return None


def run_build(args: argparse.Namespace) -> dict[str, Any]:
    """Build `args.config` into `args.out` (or import `args.release` as it); returns the config's statistics and the
    build report's counts."""

    out = Path(args.out or default_sciig_dir())
    if getattr(args, "release", None):
        if not args.venue:
            raise ValueError("--release needs --venue (the venue of every paper of the release)")
        stats = import_release_folder(args.release, out, args.config, venue=args.venue, year=args.year,
                                      allow_missing_abstracts=args.allow_missing_abstracts,
                                      holdout_fraction=args.holdout_fraction)
        return {"out": str(out), "config": args.config, **stats}
    s2 = (SemanticScholarClient(api_key=args.s2_api_key, base_url=args.s2_base_url,
                                cache_path=args.s2_cache or out / "s2_cache.json") if args.s2 else None)
    records, report = build_sciig_records(args.paper_dir, llm_client=_llm_client(args.llm_model, args.llm_base_url, args.llm_cache, out),
                                          s2_client=s2, allow_missing_abstracts=args.allow_missing_abstracts,
                                          venue=args.venue, year=args.year)
    if len(records) < 2:
        skipped = {k: len(v) for k, v in report.skipped.items()}
        hint = (" (cited works without abstracts: pass --allow-missing-abstracts, or --s2 to fetch them)"
                if "cited-work-missing-abstract" in skipped else "")
        raise ValueError(f"the SciIG build kept {len(records)} of {report.n_source_papers} papers, too few for a "
                         f"test and a holdout split; skipped: {skipped}{hint}")
    stats = write_sciig_folder(out, args.config, records, report, holdout_fraction=args.holdout_fraction)
    summary = report.as_dict()
    summary.pop("skipped")
    return {"out": str(out), "config": args.config, **stats, **summary}


def import_release_folder(release: str | Path, out: str | Path, config: str, *, venue: str, year: int | None = None,
                          allow_missing_abstracts: bool = False,
                          holdout_fraction: float = DEFAULT_HOLDOUT_FRACTION) -> dict[str, Any]:
    """Import an upstream SciIG release file as `config` of the folder `out`, with the build's checks (records
    whose cited works lack a title, authors or an abstract are skipped and counted)."""

    raw = import_upstream_release(release, venue=venue, year=year)
    report = SciIGBuildReport(n_source_papers=len(raw), allow_missing_abstracts=allow_missing_abstracts)
    records = []
    for record in raw:
        for name in NEIGHBOR_FIELDS:
            report.neighbors_missing[name] += sum(not n[name] for n in record["neighbors"])
        problem = neighbor_problem(record["neighbors"], allow_missing_abstracts)
        if problem:
            report.skip(problem, record["paper_id"])
        else:
            records.append(record)
    return write_sciig_folder(out, config, records, report, holdout_fraction=holdout_fraction)
