"""The offline RWGBench sample, built from the 250 ACL papers (grobid2json) that the `aclsum` package ships.

Target papers are those with a related-work section. Their related-work text keeps its words, with every
citation span that GROBID linked to a titled bibliography entry replaced by a numeric marker ``[k]``
(adjacent markers merged into ``[1, 2]``), k being 1-based into ``citations``. The corpus holds the target
papers themselves plus every distinct work their bibliographies list (title, authors, year; the abstract
where known, which for cited works is never: GROBID bibliographies have none). Citations are aligned to
the corpus by normalised title. A paper's ``year`` is its grobid2json year or, where that is empty (as in every
aclsum paper), the year its ACL Anthology id names (`sciwrite.sources.aclsum.anthology_year`).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

from tqdm.auto import tqdm

from sciwrite.core.errors import InputError
from sciwrite.core.skips import describe_skips
from sciwrite.sources.aclsum import aclsum_paper_dir, anthology_venue, anthology_year, cited_work_records
from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.corpus import AssemblyReport, CorpusTitleIndex, assemble_corpus
from sciwrite.sources.grobid import (
    author_names,
    bib_entries,
    bib_title,
    load_grobid_json,
    replace_cite_spans,
    section_paragraphs,
)
from sciwrite.sources.headings import is_introduction_heading, is_related_work_heading
from sciwrite.sources.markers import neutralize_markers, renumber_by_first_appearance

logger = logging.getLogger(__name__)

@dataclass
class SampleReport:
    """What the sample build kept, skipped and could not resolve."""

    n_source_papers: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)  # paper id -> why it could not be read (naming its file)
    unresolved_citations: Counter = field(default_factory=Counter)
    per_paper: list[dict[str, Any]] = field(default_factory=list)
    corpus_report: AssemblyReport | None = None  # set once the corpus is assembled

    def statistics(self, papers: list[dict[str, Any]], corpus: list[dict[str, Any]]) -> dict[str, Any]:
        n_cit = [len(p["citations"]) for p in papers]
        return {
            "source_papers": self.n_source_papers,
            "target_papers": len(papers),
            "skipped_papers": {k: len(v) for k, v in self.skipped.items()},
            "corpus_documents": len(corpus),
            "corpus_documents_with_abstract": sum(1 for d in corpus if d["abstract"]),
            "mean_citations": round(mean(n_cit), 2) if n_cit else 0.0,
            "min_citations": min(n_cit, default=0),
            "max_citations": max(n_cit, default=0),
            "mean_extraction_rate": round(mean(r["extraction_rate"] for r in self.per_paper), 4) if self.per_paper else 0.0,
            "mean_coverage": round(mean(r["coverage"] for r in self.per_paper), 4) if self.per_paper else 0.0,
            "unresolved_citations": dict(self.unresolved_citations),
        }


def _related_work(doc: dict[str, Any], report: SampleReport, paper_id: str) -> tuple[str, list[str], dict[str, Any]] | None:
    """Related-work text with [k] markers into the returned bib keys, and the paper's extraction figures."""
    heading, paras = section_paragraphs(doc, is_related_work_heading)
    if not paras:
        return None
    bibs = bib_entries(doc)
    keys: list[str] = []
    counts: Counter[str] = Counter()

    def marker(ref_id: str | None) -> str | None:
        counts["all"] += 1
        if ref_id is None:
            reason = "no-link"
        elif ref_id not in bibs:
            reason = "missing-bib-entry"
        elif not bib_title(bibs[ref_id]):
            reason = "no-title"
        else:
            keys.append(ref_id)
            counts["resolved"] += 1
            return f"[{len(keys)}]"
        report.unresolved_citations[reason] += 1
        return None

    text = "\n\n".join(replace_cite_spans(p, marker, keep=neutralize_markers) for p in paras if p.text.strip())
    rate = counts["resolved"] / counts["all"] if counts["all"] else 1.0
    return text, keys, {"heading": heading, "n_citation_spans": counts["all"], "extraction_rate": rate}


def build_sample(paper_dir: str | Path | None = None, show_progress: bool = True) -> tuple[list[dict], list[dict], SampleReport]:
    """Build (papers, corpus, report) from a folder of grobid2json papers (default: aclsum's 250)."""
    folder = Path(paper_dir or aclsum_paper_dir())
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise FileNotFoundError(f"no grobid2json papers (*.json) in {folder}")
    report = SampleReport(n_source_papers=len(paths))
    targets, cited_records = [], []
    for path in tqdm(paths, desc="reading papers", disable=not show_progress):
        paper_id = path.stem
        try:
            doc = load_grobid_json(path)
        except ValueError as err:
            logger.warning("skipping %s", err)
            report.skipped.setdefault("unreadable", []).append(paper_id)
            report.why[paper_id] = str(err)
            continue
        if not (doc.get("title") or "").strip():
            report.skipped.setdefault("no-title", []).append(paper_id)
            continue
        related = _related_work(doc, report, paper_id)
        if related is None:
            report.skipped.setdefault("no-related-work", []).append(paper_id)
            continue
        text, keys, figures = related
        bibs = bib_entries(doc)
        _, intro = section_paragraphs(doc, is_introduction_heading)
        targets.append({
            "paper_id": paper_id,
            "title": doc["title"].strip(),
            "abstract": (doc.get("abstract") or "").strip(),
            "introduction": "\n\n".join(p.text for p in intro if p.text.strip()),
            "related_work": text,
            "_cited_titles": [bib_title(bibs[k]) for k in keys],
            "venue": anthology_venue(paper_id),
            "year": parse_year(doc.get("year")) or anthology_year(paper_id),  # aclsum leaves `year` empty
            "_authors": author_names(doc.get("authors")),
            "_figures": figures,
        })
        cited_records.extend(cited_work_records(bibs))
    target_records = [{"doc_id": t["paper_id"], "title": t["title"], "abstract": t["abstract"], "authors": t["_authors"],
                       "year": t["year"], "source": "aclsum"} for t in targets]
    # Target papers come first, so a cited work that is itself a target paper merges into the paper's record.
    corpus, report.corpus_report = assemble_corpus(target_records, cited_records)
    index = CorpusTitleIndex(corpus)
    papers = []
    for target in targets:
        record = _align(target, index, report)
        if record["citations"]:
            papers.append(record)
        else:
            report.skipped.setdefault("no-resolved-citation-in-related-work", []).append(record["paper_id"])
    report.per_paper = [r for r in report.per_paper if r["n_citations"]]
    if not papers:
        raise _no_paper(folder, report)
    return papers, corpus, report


def _no_paper(folder: Path, report: SampleReport) -> InputError:
    """The error of a build that kept no paper: what was skipped and why (an empty sample would fail later, in
    `datasets`, in words that name neither)."""
    unreadable = len(report.skipped.get("unreadable", [])) == report.n_source_papers
    problem = "no readable paper" if unreadable else "no usable paper"
    hint = ("each paper must be a grobid2json file in UTF-8" if unreadable else
            "a paper is kept when it has a title and a related-work section citing a work whose title is known")
    return InputError(f"{problem} in {folder}: {report.n_source_papers} skipped ({describe_skips(report.skipped, report.why)})",
                      hint=hint)


def _align(target: dict[str, Any], index: CorpusTitleIndex, report: SampleReport) -> dict[str, Any]:
    """Turn a target's bib-key markers into corpus doc_id citations in order of first appearance."""
    doc_ids = [index.lookup(title) for title in target["_cited_titles"]]
    aligned = sum(d is not None for d in doc_ids)
    text, ordered = renumber_by_first_appearance(target["related_work"], doc_ids)
    report.per_paper.append({"paper_id": target["paper_id"], **target["_figures"], "n_citations": len(ordered),
                             "coverage": aligned / len(doc_ids) if doc_ids else 1.0})
    record = {k: v for k, v in target.items() if not k.startswith("_")}
    record.update(related_work=text, citations=ordered)
    return record

