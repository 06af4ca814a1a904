"""Building RWGBench from arXiv HTML pages (LaTeXML) and the SurGE corpus, as the paper describes:
parse each paper's related-work section, align its cited titles to the corpus, keep the papers that cite
corpus documents as ``papers``, and select ``test`` from them by the paper's rules."""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import mean, median
from typing import Any

from datasets import Dataset
from tqdm.auto import tqdm

from sciwrite.core.datasets import write_json
from sciwrite.rwgbench.data.configs import card_configs_yaml, write_dataset_folder
from sciwrite.rwgbench.data.schema import PAPER_FEATURES
from sciwrite.rwgbench.data.selection import read_accepted_titles, select_test_papers
from sciwrite.sources.bib_links import LINK_METHODS, link_entry
from sciwrite.sources.corpus import (
    CORPUS_FEATURES,
    CorpusTitleIndex,
    assemble_corpus,
    read_arxiv_records,
    read_surge_corpus,
)
from sciwrite.sources.latexml import (
    LatexmlParseError,
    MissingRelatedWorkError,
    ParsedArxivPaper,
    parse_arxiv_html_file,
)
from sciwrite.sources.markers import renumber_by_first_appearance

logger = logging.getLogger(__name__)

_NEW_ARXIV_ID = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}(v\d+)?$")


def arxiv_year(arxiv_id: str) -> int | None:
    """Submission year from a new-style arXiv id: '2004.14974' -> 2020."""
    match = _NEW_ARXIV_ID.match(arxiv_id)
    return 2000 + int(match.group(1)) if match else None




@dataclass
class PapersReport:
    """What happened to each arXiv page: kept, or skipped with a reason; every unresolved citation; and
    how many cited entries were linked to the corpus by each method (`LINK_METHODS`)."""

    n_pages: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)
    unresolved: list[dict[str, Any]] = field(default_factory=list)
    unaligned: list[dict[str, Any]] = field(default_factory=list)
    link_methods: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LINK_METHODS, 0))

    def skip(self, reason: str, paper_id: str) -> None:
        self.skipped.setdefault(reason, []).append(paper_id)


def paper_candidate(parsed: ParsedArxivPaper, index: CorpusTitleIndex, report: PapersReport) -> dict[str, Any]:
    """A paper record aligned to the corpus, plus the figures the test selection needs.

    Markers of cited works that are not in the corpus are removed from the text (and listed in the
    report); `coverage` is the share of distinct cited works found in the corpus; `link_methods` counts
    the cited entries by how they were linked (`link_entry`).
    """
    for u in parsed.unresolved:
        report.unresolved.append({"paper_id": parsed.paper_id, **asdict(u)})
    links = [link_entry(entry, index) for entry in parsed.cited]
    doc_ids = [doc_id for doc_id, _ in links]
    link_methods = dict.fromkeys(LINK_METHODS, 0)
    for entry, (doc_id, method) in zip(parsed.cited, links):
        link_methods[method] += 1
        report.link_methods[method] += 1
        if doc_id is None:
            report.unaligned.append({"paper_id": parsed.paper_id, "bib_key": entry.key, "title": entry.title,
                                     "link_method": method})
    text, citations = renumber_by_first_appearance(parsed.related_work, doc_ids)
    return {
        "paper_id": parsed.paper_id,
        "title": parsed.title,
        "abstract": parsed.abstract,
        "introduction": parsed.introduction,
        "related_work": text,
        "citations": citations,
        "venue": "arXiv",
        "year": arxiv_year(parsed.paper_id),
        "extraction_rate": parsed.extraction_rate,
        "n_cited": len(parsed.cited),
        "coverage": sum(d is not None for d in doc_ids) / len(doc_ids) if doc_ids else 1.0,
        "link_methods": link_methods,
    }


def parse_pages(pages: Iterable[tuple[str, Path]], index: CorpusTitleIndex, report: PapersReport,
                show_progress: bool = True) -> list[ParsedArxivPaper]:
    """Parse each (paper id, page path); a page that cannot be parsed or has no related-work section is skipped
    and counted in `report`.

    Bibliography entries without a parsable title get the corpus title found in their text, if any
    (`CorpusTitleIndex.title_in_text`), so that their citations resolve.
    """
    parsed = []
    for paper_id, path in tqdm(list(pages), desc="parsing arXiv HTML", disable=not show_progress):
        try:
            parsed.append(parse_arxiv_html_file(path, index.title_in_text, paper_id))
        except MissingRelatedWorkError as err:
            logger.info("%s", err)
            report.skip("no-related-work", paper_id)
        except (LatexmlParseError, OSError, UnicodeDecodeError) as err:
            logger.warning("skipping %s: %s", path, err)
            report.skip("unparseable", paper_id)
    return parsed


def build_paper_candidates(html_paths: Iterable[Path], index: CorpusTitleIndex,
                           show_progress: bool = True) -> tuple[list[dict[str, Any]], PapersReport]:
    """Parse every page (`parse_pages`, the paper id its file stem) and align it to the corpus; a page with no
    citation in the corpus is skipped and counted too."""
    paths = list(html_paths)
    report = PapersReport(n_pages=len(paths))
    candidates = []
    for parsed in parse_pages(((path.stem, path) for path in paths), index, report, show_progress):
        candidate = paper_candidate(parsed, index, report)
        if candidate["citations"]:
            candidates.append(candidate)
        else:
            report.skip("no-citation-in-corpus", parsed.paper_id)
    return candidates, report


def _paper_record(candidate: dict[str, Any]) -> dict[str, Any]:
    return {name: candidate[name] for name in PAPER_FEATURES}


def build_rwgbench_folder(html_dir: str | Path, surge_corpus: str | Path, out: str | Path,
                          arxiv_records: str | Path | None = None, accepted_titles: str | Path | None = None,
                          show_progress: bool = True) -> dict[str, Any]:
    """Build ``corpus``, ``papers`` and (given accepted titles) ``test`` into the dataset folder `out`.

    Besides the parquet files and the card, writes ``build_report.json`` (counts, skips, per-paper
    extraction and coverage) and ``unresolved_citations.jsonl`` (every citation that could not be resolved
    to a bibliography entry or aligned to the corpus), so nothing is dropped silently.
    """
    out = Path(out)
    sources = [read_surge_corpus(surge_corpus)] + ([read_arxiv_records(arxiv_records)] if arxiv_records else [])
    corpus, corpus_report = assemble_corpus(*sources)
    logger.info("%s", corpus_report.summary())
    index = CorpusTitleIndex(corpus)
    html_paths = sorted(Path(html_dir).glob("*.html"))
    if not html_paths:
        raise FileNotFoundError(f"no arXiv HTML pages (*.html) in {html_dir}")
    candidates, papers_report = build_paper_candidates(html_paths, index, show_progress)
    tables = {"papers": Dataset.from_list([_paper_record(c) for c in candidates], features=PAPER_FEATURES),
              "corpus": Dataset.from_list(corpus, features=CORPUS_FEATURES)}
    selection_report = None
    if accepted_titles:
        test, selection_report = select_test_papers(candidates, read_accepted_titles(accepted_titles),
                                                    {d["doc_id"] for d in corpus})
        if test:
            tables["test"] = Dataset.from_list(test, features=PAPER_FEATURES)
        else:
            logger.warning("no paper passed the test selection (%s); the folder has no `test` config",
                           selection_report.summary())
    stats = statistics(tables, candidates, papers_report.link_methods)
    write_dataset_folder(out, tables, build_card(tables, stats))
    write_json(out / "build_report.json", {
        "statistics": stats,
        "corpus_assembly": asdict(corpus_report) | {"redirects": len(corpus_report.redirects)},
        "skipped_pages": papers_report.skipped,
        "link_methods": papers_report.link_methods,
        "test_selection": asdict(selection_report) if selection_report else None,
        "per_paper": [{k: c[k] for k in ("paper_id", "extraction_rate", "n_cited", "coverage", "link_methods")}
                      | {"n_citations": len(c["citations"])}
                      for c in candidates],
    })
    write_unresolved(out, papers_report)
    return stats


def write_unresolved(out: Path, report: PapersReport) -> None:
    """``unresolved_citations.jsonl``: every citation not resolved to a bibliography entry, then every cited entry
    not aligned to the corpus, one line each with its stage."""
    with (out / "unresolved_citations.jsonl").open("w", encoding="utf-8") as f:
        for row in report.unresolved:
            f.write(json.dumps({"stage": "bibliography", **row}) + "\n")
        for row in report.unaligned:
            f.write(json.dumps({"stage": "corpus-alignment", **row}) + "\n")


def statistics(tables: dict[str, Dataset], candidates: list[dict[str, Any]],
               link_methods: dict[str, int] | None = None) -> dict[str, Any]:
    """The figures the card reports; `link_methods` (cited entries per link method, over all parsed
    pages) become `cited_entries_<method>` rows."""
    stats: dict[str, Any] = {"corpus_documents": len(tables["corpus"]),
                             "corpus_sources": dict(Counter(tables["corpus"]["source"]))}
    for name in ("papers", "test"):
        if name in tables:
            counts = [len(c) for c in tables[name]["citations"]]
            stats[f"{name}_papers"] = len(counts)
            stats[f"{name}_mean_citations"] = round(mean(counts), 2) if counts else 0.0
            stats[f"{name}_median_citations"] = median(counts) if counts else 0
    if candidates:
        stats["papers_mean_extraction_rate"] = round(mean(c["extraction_rate"] for c in candidates), 4)
        stats["papers_mean_coverage"] = round(mean(c["coverage"] for c in candidates), 4)
    for method, count in (link_methods or {}).items():
        stats[f"cited_entries_{method}"] = count
    return stats


def build_card(tables: dict[str, Dataset], stats: dict[str, Any]) -> str:
    """A card for a built folder: the configs present, the statistics, licence and citation."""
    rows = "\n".join(f"| {k} | {v} |" for k, v in stats.items())
    return f"""---
license: cc-by-4.0
language:
- en
pretty_name: RWGBench (local build)
{card_configs_yaml(list(tables))}---

# RWGBench (local build)

Built by `sciwrite build rwgbench` from LaTeXML arXiv pages and the SurGE corpus. The field descriptions,
licence and citation are those of the published card (`datasets/rwgbench/README.md` in the sciwrite
repository). `build_report.json` lists skipped pages and per-paper extraction and coverage;
`unresolved_citations.jsonl` lists every citation that could not be resolved or aligned.

| statistic | value |
|---|---|
{rows}
"""
