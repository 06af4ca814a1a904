"""Building SciIG from grobid2json / S2ORC papers, following the SciIG pipeline.

1. parse each paper: title, abstract, Introduction paragraphs, bibliography (`sciwrite.sources.grobid`);
2. link the Introduction's author–year citations to the bibliography: GROBID cite_spans, else first-author
   surname + year (`sciwrite.sciig.data.links`);
3. optionally map what is still unresolved with an LLM (`sciwrite.sciig.data.llm_map`; skipped, and counted,
   without a client);
4. optionally enrich each cited work with abstract and authors from Semantic Scholar
   (`sciwrite.sciig.data.semantic_scholar`);
5. skip records whose cited works lack a title, authors or an abstract, counted per reason.
   ``allow_missing_abstracts`` keeps records whose cited works have no abstract (with ``abstract=""``): the
   offline sample needs it, GROBID bibliographies carrying no abstracts.

Records are split deterministically into ``test`` and ``holdout`` (`split_for_config`): ``naacl_2025`` and
``iclr_2025`` by the SciIG paper's rule, the first 52 records in the order of the data file (`split_first_n`;
papers built from PDFs are in the order of their sorted file names, an imported release in its file order);
the offline ``sample`` by a hash of ``paper_id`` (`split_records`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from sciwrite.core.datasets import write_json
from sciwrite.sciig.data.card import render_folder_card, sciig_statistics
from sciwrite.sciig.data.configs import (
    PAPER_HOLDOUT_SIZE,
    PAPER_SPLIT_CONFIGS,
    SCIIG_SPLITS,
    holdout_rule,
    write_sciig_config,
)
from sciwrite.sciig.data.links import Link, link_paragraphs, neighbors_from_links
from sciwrite.sciig.data.llm_map import MappingRequest, map_with_llm
from sciwrite.sciig.data.semantic_scholar import enrich_neighbor
from sciwrite.sources.aclsum import aclsum_paper_dir, anthology_venue
from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.grobid import bib_entries, load_grobid_json, section_paragraphs
from sciwrite.sources.headings import is_introduction_heading
from sciwrite.sources.semantic_scholar import SemanticScholarClient

logger = logging.getLogger(__name__)

REPORT_FILE = "build_report.json"
DEFAULT_HOLDOUT_FRACTION = 0.1
NEIGHBOR_FIELDS = ("title", "authors", "abstract")


@dataclass
class SciIGBuildReport:
    """What a build kept, skipped (per reason, with paper ids) and how its citations were resolved."""

    n_source_papers: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)  # paper id -> why it could not be read (naming its file)
    citations: Counter = field(default_factory=Counter)  # linked by method, and "unresolved"
    llm_mapping: Counter = field(default_factory=Counter)
    enrichment: Counter = field(default_factory=Counter)
    neighbors_missing: Counter = field(default_factory=Counter)  # cited works lacking each field, after enrichment
    allow_missing_abstracts: bool = False

    def skip(self, reason: str, paper_id: str) -> None:
        self.skipped.setdefault(reason, []).append(paper_id)

    def as_dict(self) -> dict[str, Any]:
        return {"source_papers": self.n_source_papers, "allow_missing_abstracts": self.allow_missing_abstracts,
                "skipped_counts": {k: len(v) for k, v in sorted(self.skipped.items())}, "skipped": self.skipped,
                "citations": dict(self.citations), "llm_mapping": dict(self.llm_mapping),
                "enrichment": dict(self.enrichment), "neighbors_missing": dict(self.neighbors_missing)}


def anthology_year(paper_id: str) -> int | None:
    """Year from an ACL Anthology id: '2020.acl-main.47' -> 2020, 'P18-1001' -> 2018, 'J93-1002' -> 1993."""
    if re.match(r"^\d{4}\.", paper_id):
        return int(paper_id[:4])
    old_style = re.match(r"^[A-Z](\d{2})-\d{4}$", paper_id)
    if old_style:
        yy = int(old_style.group(1))
        return 1900 + yy if yy >= 50 else 2000 + yy
    return None


@dataclass
class _Draft:
    record: dict[str, Any]
    bibs: dict[str, dict[str, Any]]
    links: list[Link]


def _draft(path: Path, report: SciIGBuildReport, venue: str | None, year: int | None
           ) -> tuple[_Draft, list[MappingRequest]] | None:
    """Steps 1-2 for one paper; None (with the reason recorded) when it cannot become a record."""
    paper_id = path.stem
    try:
        doc = load_grobid_json(path)
    except ValueError as err:
        logger.warning("skipping %s", err)
        report.skip("unreadable", paper_id)
        report.why[paper_id] = str(err)
        return None
    title, abstract = (doc.get("title") or "").strip(), (doc.get("abstract") or "").strip()
    _, intro = section_paragraphs(doc, is_introduction_heading)
    intro = [p for p in intro if p.text.strip()]
    if not title or not abstract or not intro:
        report.skip("no-title" if not title else "no-abstract" if not abstract else "no-introduction", paper_id)
        return None
    bibs = bib_entries(doc)
    linked = link_paragraphs(intro, bibs)
    for link in linked.links:
        report.citations[f"linked-by-{link.method}"] += 1
    metadata = {"title": title, "abstract": abstract, "authors": doc.get("authors") or [],
                "introduction": "\n\n".join(p.text.strip() for p in intro)}  # for the Table 8 prompt
    requests = [MappingRequest(paper_id, c, linked.contexts[c], bibs, linked.positions[c], metadata)
                for c in linked.unresolved if bibs]
    report.citations["unresolved-before-llm"] += len(linked.unresolved)
    if not bibs:  # nothing to map them to
        report.citations["unresolved"] += len(linked.unresolved)
    record: dict[str, Any] = {
        "paper_id": paper_id, "title": title, "abstract": abstract,
        "introduction": "\n\n".join(p.text.strip() for p in intro), "neighbors": [],
        "venue": venue or anthology_venue(paper_id),
        "year": year or parse_year(doc.get("year")) or anthology_year(paper_id)}
    return _Draft(record, bibs, list(linked.links)), requests


def neighbor_problem(neighbors: list[dict[str, Any]], allow_missing_abstracts: bool) -> str | None:
    """Why a record with these cited works is skipped (the first failing check), or None to keep it."""
    if not neighbors:
        return "no-linked-citation"
    for name in NEIGHBOR_FIELDS:
        if name == "abstract" and allow_missing_abstracts:
            continue
        if any(not n[name] for n in neighbors):
            return f"cited-work-missing-{name}"
    return None


def build_sciig_records(papers: str | Path | Iterable[str | Path] | None = None, *,
                        llm_client: Any | None = None, s2_client: SemanticScholarClient | None = None,
                        allow_missing_abstracts: bool = False, venue: str | None = None, year: int | None = None,
                        show_progress: bool = True) -> tuple[list[dict[str, Any]], SciIGBuildReport]:
    """SciIG records (schema `SCIIG_FEATURES`) from grobid2json papers, and the build report.

    `papers` is a folder of ``*.json`` or a list of files (default: the 250 papers of the ``aclsum`` package).
    `llm_client` (a `ChatClient`) maps unresolved citations; `s2_client` fills missing abstracts/authors.
    `venue`/`year` override what is read from each paper (ACL Anthology ids give the venue otherwise).
    """
    source = papers if papers is not None else aclsum_paper_dir()
    paths = sorted(Path(source).glob("*.json")) if isinstance(source, (str, Path)) else sorted(Path(p) for p in source)
    if not paths:
        raise FileNotFoundError(f"no grobid2json papers (*.json) in {source}")
    report = SciIGBuildReport(n_source_papers=len(paths), allow_missing_abstracts=allow_missing_abstracts)
    drafts: list[_Draft] = []
    requests: list[tuple[int, MappingRequest]] = []
    for path in tqdm(paths, desc="reading papers", disable=not show_progress):
        made = _draft(path, report, venue, year)
        if made is not None:
            requests.extend((len(drafts), r) for r in made[1])
            drafts.append(made[0])
    mapped, report.llm_mapping = map_with_llm([r for _, r in requests], llm_client, show_progress=show_progress)
    for (index, request), ref_id in zip(requests, mapped):
        if ref_id is not None:
            drafts[index].links.append(Link(request.citation.key, ref_id, "llm", request.position))
            report.citations["linked-by-llm"] += 1
        else:
            report.citations["unresolved"] += 1
    records = []
    for draft in tqdm(drafts, desc="cited works", disable=not show_progress):
        neighbors = neighbors_from_links(draft.links, draft.bibs)
        for neighbor in neighbors:
            report.enrichment[enrich_neighbor(neighbor, s2_client) if s2_client else "not-attempted"] += 1
            for name in NEIGHBOR_FIELDS:
                report.neighbors_missing[name] += not neighbor[name]
        problem = neighbor_problem(neighbors, allow_missing_abstracts)
        if problem:
            report.skip(problem, draft.record["paper_id"])
            continue
        records.append({**draft.record, "neighbors": neighbors})
    return records, report


def is_holdout(paper_id: str, fraction: float = DEFAULT_HOLDOUT_FRACTION) -> bool:
    """Deterministic: the paper's SHA-256 hash, read as a number in [0, 1), falls below `fraction`."""
    digest = int.from_bytes(hashlib.sha256(paper_id.encode("utf-8")).digest()[:8], "big")
    return digest / 2 ** 64 < fraction


def split_records(records: list[dict[str, Any]], holdout_fraction: float = DEFAULT_HOLDOUT_FRACTION
                  ) -> dict[str, list[dict[str, Any]]]:
    """``{"test": ..., "holdout": ...}`` by `is_holdout`; neither split is left empty (a tiny build moves the
    record with the lowest hash across), since an empty parquet split cannot be loaded."""
    if len(records) < 2:
        raise ValueError(f"a SciIG config needs at least 2 records (one per split), the build kept {len(records)}")
    splits = {"test": [r for r in records if not is_holdout(r["paper_id"], holdout_fraction)],
              "holdout": [r for r in records if is_holdout(r["paper_id"], holdout_fraction)]}
    for empty, full in (("holdout", "test"), ("test", "holdout")):
        if not splits[empty]:
            moved = min(splits[full], key=lambda r: hashlib.sha256(r["paper_id"].encode()).hexdigest())
            splits[full].remove(moved)
            splits[empty].append(moved)
    return splits


def split_first_n(records: list[dict[str, Any]], n: int = PAPER_HOLDOUT_SIZE) -> dict[str, list[dict[str, Any]]]:
    """The SciIG paper's split: ``holdout`` = the first `n` records in the given (data file) order, ``test`` =
    the rest, in order. A file of `n` records or fewer (a test fixture, never the paper's data) keeps its last
    record for ``test`` and warns, since an empty split cannot be written."""
    if len(records) < 2:
        raise ValueError(f"a SciIG config needs at least 2 records (one per split), the build kept {len(records)}")
    cut = n
    if len(records) <= n:
        cut = len(records) - 1
        logger.warning("only %d records: the first %d go to holdout (the paper's rule is the first %d) and the "
                       "last one to test", len(records), cut, n)
    return {"test": list(records[cut:]), "holdout": list(records[:cut])}


def split_for_config(config: str, records: list[dict[str, Any]],
                     holdout_fraction: float = DEFAULT_HOLDOUT_FRACTION) -> dict[str, list[dict[str, Any]]]:
    """``naacl_2025`` / ``iclr_2025``: `split_first_n` (the paper's first 52; `holdout_fraction` is not used);
    any other config (``sample``): `split_records` by hash."""
    if config in PAPER_SPLIT_CONFIGS:
        return split_first_n(records)
    return split_records(records, holdout_fraction)


def write_sciig_folder(folder: str | Path, config: str, records: list[dict[str, Any]], report: SciIGBuildReport,
                       holdout_fraction: float = DEFAULT_HOLDOUT_FRACTION,
                       fresh: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write `config` into `folder` (other configs already there are kept), split by `split_for_config`, the
    card listing every config, and the build report (one entry per config; `fresh`, for a config built from arXiv,
    its window, licences and choices). Returns the config's statistics."""
    folder = Path(folder)
    splits = split_for_config(config, records, holdout_fraction)
    write_sciig_config(folder, config, splits)
    stats = sciig_statistics(splits)
    report_path = folder / REPORT_FILE
    reports = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else {}
    reports[config] = {"statistics": stats, "holdout_rule": holdout_rule(config), **report.as_dict(),
                       **({"fresh": fresh} if fresh else {})}
    write_json(report_path, reports)
    present = {c: r for c, r in reports.items() if (folder / c).is_dir()}
    (folder / "README.md").write_text(render_folder_card({c: r["statistics"] for c, r in present.items()},
                                                         {c: r["fresh"] for c, r in present.items() if "fresh" in r}),
                                      encoding="utf-8")
    logger.info("wrote SciIG config %r (%s) to %s", config, stats["papers"], folder)
    return stats


def write_sciig_sample(folder: str | Path, paper_dir: str | Path | None = None, show_progress: bool = False
                       ) -> dict[str, Any]:
    """The offline ``sample`` config from the aclsum papers (no LLM, no Semantic Scholar: cited works keep
    empty abstracts)."""
    records, report = build_sciig_records(paper_dir, allow_missing_abstracts=True, show_progress=show_progress)
    return write_sciig_folder(folder, "sample", records, report)


__all__ = ["SCIIG_SPLITS", "SciIGBuildReport", "build_sciig_records", "is_holdout", "split_first_n",
           "split_for_config", "split_records", "write_sciig_folder", "write_sciig_sample"]
