"""`sciwrite build sciig --from-arxiv DIR`: SciIG records from the LaTeXML pages `sciwrite fetch arxiv` saved, so a
fresh SciIG set needs no GROBID server.

Each page gives the introduction as printed (its author-year citations kept) and, through the citations' links to
the bibliography, the cited works in order of first citation (`sciwrite.sources.latexml.parse_arxiv_introduction`).
A cited work's key is its in-text form ("Li et al., 2022", from the entry's tag or its authors and year), its title
and authors come from the bibliography, and its abstract from the arXiv API by title (`CitedLookups`, cached in
``DIR``), else from Semantic Scholar with ``--s2``. Then the SciIG build's checks apply (`neighbor_problem`).

Two choices the SciIG paper does not make, named in the card and the build report:

- a paper is kept when over 95 % of its introduction's citations resolve to a titled bibliography entry (RWGBench's
  extraction rule, §3.3), so its introduction does not cite works its record lacks;
- only papers whose arXiv licence lets their text be redistributed are kept (`sciwrite.sources.licences`), unless
  ``--keep-all-licences``.

Records carry their arXiv id, version, publication date and licence (`sciwrite.core.schema.ARXIV_PROVENANCE`); they
are written as the ``arxiv`` config, split into ``test`` and ``holdout`` by a hash of the paper id.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from sciwrite.sciig.data.builder import NEIGHBOR_FIELDS, SciIGBuildReport, neighbor_problem
from sciwrite.sciig.data.semantic_scholar import enrich_neighbor
from sciwrite.sources.arxiv import ArxivClient
from sciwrite.sources.arxiv_cited import LOOKUPS_FILE, CitedLookups
from sciwrite.sources.arxiv_fetch import MANIFEST_FILE, fetched_papers, read_manifest
from sciwrite.sources.latexml import BibEntry, LatexmlParseError, MissingIntroductionError, parse_arxiv_introduction
from sciwrite.sources.licences import LicenceRule
from sciwrite.sources.semantic_scholar import SemanticScholarClient

logger = logging.getLogger(__name__)

ARXIV_CONFIG = "arxiv"
MIN_EXTRACTION_RATE = 0.95
_TAG = re.compile(r"^(?P<names>.+?)\s*[,(]\s*(?P<year>(?:19|20)\d{2}[a-z]?)\)?$")


def citation_key(entry: BibEntry) -> str:
    """The in-text key of a cited work: its tag as printed ("Li et al. (2022)" -> "Li et al., 2022"), else its first
    authors' surnames and year, else its bibliography id."""
    match = _TAG.match(entry.label.strip().strip('"”“'))
    if match:
        return f"{match.group('names').strip(' ,')}, {match.group('year')}"
    surnames = [a.split()[-1] for a in entry.authors if a.split()]
    if surnames and entry.year:
        names = (surnames[0] if len(surnames) == 1 else f"{surnames[0]} and {surnames[1]}" if len(surnames) == 2
                 else f"{surnames[0]} et al.")
        return f"{names}, {entry.year}"
    return entry.label or entry.key


def neighbor(entry: BibEntry, lookups: CitedLookups) -> tuple[dict[str, Any], str]:
    """A cited work as a SciIG neighbor, its abstract (and missing authors) from arXiv; and where the abstract
    came from ("arxiv" or "not-on-arxiv")."""
    record = {"key": citation_key(entry), "title": entry.title or "", "authors": list(entry.authors),
              "abstract": ""}
    found = lookups.lookup(entry.title) if entry.title else None
    if found is None:
        return record, "not-on-arxiv"
    record["abstract"] = found["abstract"]
    record["authors"] = record["authors"] or list(found["authors"])
    return record, "arxiv"


def build_sciig_from_arxiv(arxiv_dir: str | Path, *, client: ArxivClient | None = None, lookup: bool = True,
                           s2_client: SemanticScholarClient | None = None, allow_missing_abstracts: bool = False,
                           licences: LicenceRule = LicenceRule(), min_extraction_rate: float = MIN_EXTRACTION_RATE,
                           show_progress: bool = True) -> tuple[list[dict[str, Any]], SciIGBuildReport, dict]:
    """SciIG records (with `ARXIV_PROVENANCE`) from a folder of fetched arXiv papers, the build report, and what the
    card says of the fresh set (window, licences, choices); see the module docstring."""
    arxiv_dir = Path(arxiv_dir)
    fetched = fetched_papers(arxiv_dir)
    if not fetched:
        raise ValueError(f"{arxiv_dir} holds no fetched page (see its {MANIFEST_FILE})")
    lookups = CitedLookups(arxiv_dir / LOOKUPS_FILE, (client or ArxivClient()) if lookup else None)
    report = SciIGBuildReport(n_source_papers=len(fetched), allow_missing_abstracts=allow_missing_abstracts)
    records = []
    for paper, path in tqdm(fetched, desc="introductions from arXiv pages", disable=not show_progress):
        if not licences.allows(paper.licence_name):
            report.skip("licence-not-redistributable", paper.arxiv_id)
            continue
        try:
            page = parse_arxiv_introduction(path.read_text(encoding="utf-8", errors="replace"), paper.arxiv_id)
        except MissingIntroductionError:
            report.skip("no-introduction", paper.arxiv_id)
            continue
        except (LatexmlParseError, OSError) as err:
            logger.warning("skipping %s: %s", path, err)
            report.skip("unparseable", paper.arxiv_id)
            continue
        report.citations["linked-by-latexml-link"] += page.n_citations - len(page.unresolved)
        report.citations["unresolved"] += len(page.unresolved)
        if not page.extraction_rate > min_extraction_rate:
            report.skip("citation-extraction-rate", paper.arxiv_id)
            continue
        neighbors = []
        for entry in page.cited:
            work, source = neighbor(entry, lookups)
            report.enrichment[f"abstract-from-{source}"] += 1
            if s2_client is not None and not (work["abstract"] and work["authors"]):
                report.enrichment[f"semantic-scholar-{enrich_neighbor(work, s2_client)}"] += 1
            for name in NEIGHBOR_FIELDS:
                report.neighbors_missing[name] += not work[name]
            neighbors.append(work)
        problem = neighbor_problem(neighbors, allow_missing_abstracts)
        if problem:
            report.skip(problem, paper.arxiv_id)
            continue
        records.append({"paper_id": paper.arxiv_id, "title": page.title or paper.title,
                        "abstract": page.abstract or paper.abstract, "introduction": page.introduction,
                        "neighbors": neighbors, "venue": "arXiv", "year": int(paper.published[:4]),
                        **paper.provenance()})
    manifest = read_manifest(arxiv_dir)
    fresh = {"since": manifest.get("since"), "until": manifest.get("until"),
             "categories": manifest.get("categories", []), "fetched_pages": len(fetched),
             "kept_share_of_fetched": round(len(records) / len(fetched), 4),
             "licences": dict(Counter(r["licence"] for r in records)),
             "licence": licences.split_licence({r["licence"] for r in records}),
             "not_for_redistribution": licences.keep_all,
             "choices": [f"kept when over {min_extraction_rate:.0%} of the introduction's citations resolve "
                         "(RWGBench §3.3's rule; the SciIG paper sets none)",
                         "only licences that allow redistribution" if not licences.keep_all else
                         "every licence kept (--keep-all-licences): not for redistribution",
                         "cited works' abstracts from the arXiv API by title" + (", then Semantic Scholar"
                                                                                if s2_client else "")],
             "cited_lookups": {"asked": lookups.n_asked, "errors": lookups.n_errors}}
    return records, report, fresh


__all__ = ["ARXIV_CONFIG", "MIN_EXTRACTION_RATE", "build_sciig_from_arxiv", "citation_key", "neighbor"]
