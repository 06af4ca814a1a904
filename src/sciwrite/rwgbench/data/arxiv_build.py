"""`sciwrite build rwgbench --from-arxiv DIR --corpus-source SOURCE`: a fresh RWGBench split from papers fetched by
`sciwrite fetch arxiv`, built as the paper builds its own (§3).

The steps:

- each fetched LaTeXML page is parsed for its related-work section and citations (§3.1);
- cited works are aligned with the corpus by title; those missing from it are looked up on the arXiv API by
  title, and merged into the corpus when arXiv has the same (normalised) title (§3.2), each lookup cached in
  ``DIR/cited_lookups.jsonl`` so a rebuild sends no repeat request;
- the split keeps the papers whose citation extraction rate is above 95 % and that cite 10 to 50 works (§3.3),
  every citation in the corpus (§3.3, last sentence); the venue filter (accepted ICLR/NeurIPS/ICML titles) applies
  only when ``--accepted-titles`` is given, as a fresh paper is rarely accepted yet;
- only papers whose arXiv licence lets their text be redistributed are kept (`sciwrite.sources.licences`), unless
  ``--keep-all-licences`` builds a folder for one's own use.

Each record carries its arXiv id, version, publication date and licence (`sciwrite.core.schema.ARXIV_PROVENANCE`);
the card states the date window, the licences and the share each filter kept.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from datasets import Dataset, Features, concatenate_datasets
from tqdm.auto import tqdm

from sciwrite.core.datasets import write_json
from sciwrite.core.schema import ARXIV_PROVENANCE
from sciwrite.rwgbench.data.builder import PapersReport, paper_candidate, parse_pages, statistics, write_unresolved
from sciwrite.rwgbench.data.configs import card_configs_yaml, write_dataset_folder
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.schema import PAPER_FEATURES
from sciwrite.rwgbench.data.selection import RULES, read_accepted_titles, select_test_papers
from sciwrite.sources.arxiv import ArxivClient, ArxivPaper
from sciwrite.sources.arxiv_cited import LOOKUPS_FILE, CitedLookups
from sciwrite.sources.arxiv_fetch import MANIFEST_FILE, fetched_papers, read_manifest
from sciwrite.sources.corpus import CORPUS_FEATURES, CorpusTitleIndex, arxiv_doc_id
from sciwrite.sources.licences import LicenceRule
from sciwrite.sources.titles import normalize_title

logger = logging.getLogger(__name__)

FRESH_PAPER_FEATURES = Features({**PAPER_FEATURES, **ARXIV_PROVENANCE})


def corpus_row(paper: dict[str, Any]) -> dict[str, Any]:
    """A corpus document from an arXiv paper found for a cited title."""
    return {"doc_id": arxiv_doc_id(paper["arxiv_id"]), "title": paper["title"], "abstract": paper["abstract"],
            "authors": list(paper["authors"]), "year": int(paper["published"][:4]) if paper["published"] else None,
            "source": "arxiv"}


def missing_cited(parsed: Iterable[tuple[ArxivPaper, Any]], known: set[str], index: CorpusTitleIndex,
                  lookups: CitedLookups, show_progress: bool) -> list[dict[str, Any]]:
    """Look up on arXiv each cited title the corpus lacks; the corpus rows of those found (added to `index` and
    `known`, the corpus's doc_ids)."""
    missing: dict[str, str] = {}  # normalized title -> the title as cited
    for _, page in parsed:
        for entry in page.cited:
            if entry.title and index.lookup(entry.title) is None and index.find_in_text(entry.raw) is None:
                missing.setdefault(normalize_title(entry.title), entry.title)
    added = []
    for title in tqdm(list(missing.values()), desc="cited works missing from the corpus (arXiv)",
                      disable=not show_progress):
        found = lookups.lookup(title)
        if found is not None and arxiv_doc_id(found["arxiv_id"]) not in known:
            added.append(corpus_row(found))
            known.add(added[-1]["doc_id"])
    index.add(added)
    return added


def build_rwgbench_from_arxiv(arxiv_dir: str | Path, corpus_source: str | Path, out: str | Path, *,
                              corpus_config: str = "corpus", accepted_titles: str | Path | None = None,
                              client: ArxivClient | None = None, lookup_missing: bool = True,
                              licences: LicenceRule = LicenceRule(), show_progress: bool = True) -> dict[str, Any]:
    """Build ``test`` (the filtered fresh split), ``papers`` (every paper with a related-work section) and
    ``corpus`` (the given corpus and the cited works added from arXiv) into `out`; see the module docstring.
    Returns the card's statistics."""
    arxiv_dir, out = Path(arxiv_dir), Path(out)
    fetched = fetched_papers(arxiv_dir)
    if not fetched:
        raise ValueError(f"{arxiv_dir} holds no fetched page (see its {MANIFEST_FILE})")
    corpus = load_rwgbench(corpus_config, source=corpus_source)  # a Dataset: 1.09M rows stay in Arrow
    index = CorpusTitleIndex(corpus)
    report = PapersReport(n_pages=len(fetched))
    by_id = {paper.arxiv_id: paper for paper, _ in fetched}
    parsed = [(by_id[page.paper_id], page) for page in
              parse_pages(((paper.arxiv_id, path) for paper, path in fetched), index, report, show_progress)]
    lookups = CitedLookups(arxiv_dir / LOOKUPS_FILE, (client or ArxivClient()) if lookup_missing else None)
    known = set(corpus["doc_id"])
    added = missing_cited(parsed, known, index, lookups, show_progress) if lookup_missing else []
    if added:
        corpus = concatenate_datasets([corpus, Dataset.from_list(added, features=CORPUS_FEATURES)])
    candidates = []
    for paper, page in parsed:
        candidate = paper_candidate(page, index, report) | paper.provenance()
        candidate["year"] = int(paper.published[:4]) if paper.published else candidate["year"]
        candidates.append(candidate)
    accepted = read_accepted_titles(accepted_titles) if accepted_titles else None
    selected, selection = select_test_papers(candidates, accepted, known, extra_fields=tuple(ARXIV_PROVENANCE))
    test = [r for r in selected if licences.allows(r["licence"])]
    licence_rejected = [r["paper_id"] for r in selected if not licences.allows(r["licence"])]
    papers = [c for c in candidates if licences.allows(c["licence"])]
    tables = {"corpus": corpus}
    if papers:
        tables["papers"] = Dataset.from_list([{k: c[k] for k in FRESH_PAPER_FEATURES} for c in papers],
                                             features=FRESH_PAPER_FEATURES)
    if test:
        tables["test"] = Dataset.from_list(test, features=FRESH_PAPER_FEATURES)
    else:
        logger.warning("no fetched paper passed every filter; the folder has no `test` config")
    funnel = filter_funnel(len(fetched), report, selection, len(test), accepted is not None)
    manifest = read_manifest(arxiv_dir)
    stats = statistics(tables, candidates, report.link_methods) | {
        "corpus_documents_added_from_arxiv": len(added), "fetched_pages": len(fetched),
        "test_share_of_fetched": round(len(test) / len(fetched), 4)}
    write_dataset_folder(out, tables, fresh_card(tables, stats, funnel, manifest, licences))
    write_json(out / "build_report.json", {
        "statistics": stats, "filters": funnel, "skipped_pages": report.skipped,
        "licence_rejected": licence_rejected, "test_selection": asdict(selection),
        "cited_lookups": {"asked": lookups.n_asked, "errors": lookups.n_errors, "cache": str(lookups.path)},
        "window": {"since": manifest.get("since"), "until": manifest.get("until"),
                   "categories": manifest.get("categories")},
        "per_paper": [{k: c[k] for k in ("paper_id", "arxiv_version", "published", "licence", "extraction_rate",
                                          "n_cited", "coverage")} | {"n_citations": len(c["citations"])}
                      for c in candidates]})
    write_unresolved(out, report)
    return stats


def filter_funnel(n_fetched: int, report: PapersReport, selection: Any, n_kept: int,
                  venue_rule: bool) -> list[dict[str, Any]]:
    """Papers left after each filter, in order, with the share of the fetched pages each step keeps."""
    rows = [("fetched pages", n_fetched)]
    left = n_fetched - sum(len(v) for v in report.skipped.values())
    rows.append(("with a related-work section (parsed)", left))
    names = {"extraction-rate": "citation extraction rate > 95 %", "citation-count": "10 to 50 citations",
             "not-accepted": "accepted at ICLR/NeurIPS/ICML (by title)",
             "citation-coverage": "every citation in the corpus", "duplicate-paper_id": "not a duplicate"}
    for rule in RULES:
        if rule == "not-accepted" and not venue_rule:
            continue
        left -= selection.rejected.get(rule, 0)
        rows.append((names[rule], left))
    rows.append(("redistributable licence", n_kept))
    return [{"step": step, "papers": n, "share_of_fetched": round(n / n_fetched, 4) if n_fetched else 0.0}
            for step, n in rows]


def fresh_card(tables: dict[str, Dataset], stats: dict[str, Any], funnel: list[dict[str, Any]],
               manifest: dict[str, Any], licences: LicenceRule) -> str:
    """The card of a fresh split: its date window first, then licences, filters and statistics."""
    names = Counter(tables["test"]["licence"]) if "test" in tables else Counter()
    licence = licences.split_licence(set(names))
    until = manifest.get("until") or manifest.get("last_run", {}).get("finished_at", "")[:10]
    window = f"{manifest.get('since')} to {until}"
    steps = "\n".join(f"| {r['step']} | {r['papers']} | {r['share_of_fetched']:.1%} |" for r in funnel)
    rows = "\n".join(f"| {k} | {v} |" for k, v in stats.items())
    licence_rows = "\n".join(f"| {name} | {n} |" for name, n in sorted(names.items())) or "| (none) | 0 |"
    use = ("**Not for redistribution**: built with `--keep-all-licences`, it holds papers whose licence does not "
           "allow their text to be shared. Use it for your own evaluation only." if licences.keep_all else
           "Every paper in it carries a licence that allows its text to be redistributed (its `licence` column); "
           "the split's licence is the most restrictive of them.")
    return f"""---
license: {licence}
language:
- en
pretty_name: RWGBench (fresh arXiv split, {window})
{card_configs_yaml(list(tables))}---

# RWGBench: fresh arXiv split, papers first submitted {window}

Built by `sciwrite build rwgbench --from-arxiv` from the arXiv categories {', '.join(manifest.get('categories', []))}
(papers first submitted from {window}), with the RWGBench paper's rules (§3.2, §3.3). A model whose training data
ends before {manifest.get('since')} cannot have read these related-work sections; score it with
`sciwrite evaluate rwgbench --split test --source <this folder> --cutoff <the model's cutoff>`. The corpus holds
new documents, so build its retrieval index first (`sciwrite index build`).

Each record carries `arxiv_id`, `arxiv_version`, `published` (version 1, YYYY-MM-DD) and `licence`.

## Licences

{use}

| licence | papers in `test` |
|---|---|
{licence_rows}

## Filters (the share of the fetched pages each keeps)

| step | papers | share of fetched |
|---|---|---|
{steps}

## Statistics

| statistic | value |
|---|---|
{rows}
"""


__all__ = ["FRESH_PAPER_FEATURES", "build_rwgbench_from_arxiv",
           "filter_funnel", "fresh_card", "missing_cited"]
