"""`sciwrite build sciig` as a `sciwrite.core.commands.BuildCommand` of the benchmark: a SciIG folder from
grobid2json papers, (``--release FILE``) by importing an upstream SciIG release file, or (``--from-arxiv DIR``)
the fresh ``arxiv`` config from the LaTeXML pages `sciwrite fetch arxiv` saved.

The LLM mapping step runs when ``--judge`` is given and an endpoint is configured (``--judge-base-url`` /
``SCIWRITE_LLM_BASE_URL`` and ``SCIWRITE_LLM_API_KEY``); otherwise it is skipped and the skipped citations are
counted in the build report. Semantic Scholar enrichment runs with ``--s2`` (key: ``--s2-api-key`` or
``S2_API_KEY``), cached in ``--s2-cache`` (default ``<out>/s2_cache.json``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.core.commands import BuildCommand, BuildResult, Option
from sciwrite.core.skips import describe_skips
from sciwrite.llm.client import ChatClient, LLMNotConfiguredError
from sciwrite.llm.ledger import LEDGER_NAME
from sciwrite.sciig.data.arxiv_build import ARXIV_CONFIG, build_sciig_from_arxiv
from sciwrite.sciig.data.builder import (
    DEFAULT_HOLDOUT_FRACTION,
    NEIGHBOR_FIELDS,
    SciIGBuildReport,
    build_sciig_records,
    neighbor_problem,
    write_sciig_folder,
)
from sciwrite.sciig.data.configs import ALL_CONFIGS, default_sciig_dir
from sciwrite.sciig.data.upstream import import_upstream_release
from sciwrite.sources.arxiv import API_URL, MIN_INTERVAL, ArxivClient
from sciwrite.sources.licences import LicenceRule
from sciwrite.sources.semantic_scholar import SemanticScholarClient

logger = logging.getLogger(__name__)


BUILD_OPTIONS: tuple[Option, ...] = (
    Option("split", "the SciIG config to write (default: sample)", default="sample", choices=ALL_CONFIGS),
    Option("paper_dir", "folder of grobid2json papers (default: the aclsum package's 250 ACL papers)"),
    Option("out", "dataset folder (default: $SCIWRITE_SCIIG_DIR or $SCIWRITE_DATA_DIR/../sciig)"),
    Option("allow_missing_abstracts", "keep papers whose cited works have no abstract (empty abstracts); the offline "
                                      "sample needs it", switch=True),
    Option("venue", "venue of every paper (default: from ACL Anthology ids)"),
    Option("year", "year of every paper (default: from the paper or its Anthology id)", type=int),
    Option("holdout_fraction", "share of papers in `holdout`", type=float, default=DEFAULT_HOLDOUT_FRACTION),
    Option("judge", "the LLM that maps unresolved citations (skipped without it)", metavar="MODEL"),
    Option("judge_base_url", "its OpenAI-compatible endpoint (default: $SCIWRITE_LLM_BASE_URL)"),
    Option("judge_cache", "JSON Lines cache of its mapping replies, so a rerun resumes"),
    Option("s2", "fill missing abstracts/authors from Semantic Scholar", switch=True),
    Option("s2_api_key", "Semantic Scholar API key (default: $S2_API_KEY)"),
    Option("s2_base_url", "Graph API base URL (default: https://api.semanticscholar.org/graph/v1)"),
    Option("s2_cache", "cache of Semantic Scholar answers, one JSON line each, so a rerun resumes (default: "
                       "<out>/s2_cache.json; an older one-object cache there is still read)"),
    Option("release", "import this upstream SciIG release (JSON / JSON Lines with title, abstract, introduction, "
                      "neighbors) instead of building from papers; needs --venue"),
    Option("from_arxiv", "folder written by `sciwrite fetch arxiv`: build the fresh `arxiv` config from its LaTeXML "
                         "pages (no GROBID needed)"),
    Option("arxiv_lookup", "with --from-arxiv: fetch cited works' abstracts from the arXiv API by title (cached in the "
                           "--from-arxiv folder)", switch=True, default=True),
    Option("allow_non_commercial", "with --from-arxiv: keep CC BY-NC(-SA) papers too", switch=True),
    Option("keep_all_licences", "with --from-arxiv: keep every paper whatever its licence (for your own use)",
           switch=True),
    Option("arxiv_api_url", "the arXiv API (default: export.arxiv.org; another for a mirror)"),
    Option("arxiv_min_interval", "seconds between two arXiv requests", type=float, default=MIN_INTERVAL),
)


def _llm_client(model: str | None, base_url: str | None, cache: str | None, out: Path) -> Any | None:
    """The Table 8 mapping client, its spend written to ``<out>/usage.jsonl``; None without a model or endpoint."""
    if not model:
        return None

    try:
        return ChatClient(model, base_url=base_url, cache_path=cache, ledger=out / LEDGER_NAME, purpose="llm_map")
    except LLMNotConfiguredError as err:
        logger.warning("LLM citation mapping skipped: %s", err)
        return None


@dataclass(frozen=True)
class SciIGBuild:
    """What a build wrote: the folder, the config, and the statistics the command prints (the config's, then the
    build report's counts)."""

    out: Path
    config: str
    statistics: dict[str, Any]


def run_build(options: Mapping[str, Any]) -> SciIGBuild:
    """Build the config the ``split`` option names into ``out`` (or import ``release`` as it); returns the config's
    statistics and the build report's counts."""
    get = options.get
    config = get("split", "sample")
    out = Path(get("out") or default_sciig_dir())
    allow_missing = bool(get("allow_missing_abstracts"))
    holdout_fraction = get("holdout_fraction", DEFAULT_HOLDOUT_FRACTION)
    if release := get("release"):
        if not (venue := get("venue")):
            raise ValueError("--release needs --venue (the venue of every paper of the release)")
        stats = import_release_folder(release, out, config, venue=venue, year=get("year"),
                                      allow_missing_abstracts=allow_missing, holdout_fraction=holdout_fraction)
        return SciIGBuild(out, config, stats)
    s2 = (SemanticScholarClient(api_key=get("s2_api_key"), base_url=get("s2_base_url"),
                                cache_path=get("s2_cache") or out / "s2_cache.json") if get("s2") else None)
    if get("from_arxiv"):
        return build_from_arxiv(options, out, s2)
    llm_client = _llm_client(get("judge"), get("judge_base_url"), get("judge_cache"), out)
    records, report = build_sciig_records(get("paper_dir"), llm_client=llm_client, s2_client=s2,
                                          allow_missing_abstracts=allow_missing, venue=get("venue"), year=get("year"))
    _enough(records, report)
    stats = write_sciig_folder(out, config, records, report, holdout_fraction=holdout_fraction)
    return SciIGBuild(out, config, {**stats, **_report_counts(report)})


def _report_counts(report: SciIGBuildReport) -> dict[str, Any]:
    """The build report as the command prints it: every count, without the skipped papers' ids."""
    counts = report.as_dict()
    del counts["skipped"]
    return counts


def build_from_arxiv(options: Mapping[str, Any], out: Path, s2: SemanticScholarClient | None) -> SciIGBuild:
    """``--from-arxiv``: the fresh `arxiv` config (`sciwrite.sciig.data.arxiv_build`)."""
    get = options.get
    if get("split", "sample") not in ("sample", ARXIV_CONFIG):
        raise ValueError(f"--from-arxiv builds the {ARXIV_CONFIG!r} config, not --split {get('split')!r}")
    client = ArxivClient(get("arxiv_api_url") or API_URL, min_interval=get("arxiv_min_interval", MIN_INTERVAL))
    records, report, fresh = build_sciig_from_arxiv(
        options["from_arxiv"], client=client, lookup=get("arxiv_lookup", True), s2_client=s2,
        allow_missing_abstracts=bool(get("allow_missing_abstracts")),
        licences=LicenceRule(bool(get("allow_non_commercial")), bool(get("keep_all_licences"))))
    _enough(records, report)
    stats = write_sciig_folder(out, ARXIV_CONFIG, records, report,
                               holdout_fraction=get("holdout_fraction", DEFAULT_HOLDOUT_FRACTION), fresh=fresh)
    return SciIGBuild(out, ARXIV_CONFIG, {**stats, **_report_counts(report),
                                          "kept_share_of_fetched": fresh["kept_share_of_fetched"]})


def _enough(records: list[dict[str, Any]], report: SciIGBuildReport) -> None:
    """Raise when too few records were kept for a test and a holdout split, saying why they were skipped."""
    if len(records) >= 2:
        return
    hint = (" (cited works without abstracts: pass --allow-missing-abstracts, or --s2 to fetch them)"
            if "cited-work-missing-abstract" in report.skipped else "")
    raise ValueError(f"the SciIG build kept {len(records)} of {report.n_source_papers} papers, too few for a "
                     f"test and a holdout split; skipped: {describe_skips(report.skipped, report.why)}{hint}")


def build_command_result(options: Mapping[str, Any]) -> BuildResult:
    """`run_build`, said as the command prints it."""
    built = run_build(options)
    return BuildResult(f"SciIG config {built.config!r} written to {built.out}", built.statistics)


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


BUILD_COMMANDS: tuple[BuildCommand, ...] = (
    BuildCommand("sciig", "SciIG from grobid2json papers (default: the offline sample) or fetched arXiv papers",
                 BUILD_OPTIONS,
                 build_command_result),
)

__all__ = ["BUILD_COMMANDS", "BUILD_OPTIONS", "SciIGBuild", "build_command_result", "import_release_folder",
           "run_build"]
