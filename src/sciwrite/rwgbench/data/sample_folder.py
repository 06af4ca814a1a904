"""Writing the offline sample as a local dataset folder: parquet files, a card with its statistics, a report."""

from __future__ import annotations

import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

from datasets import Dataset

from sciwrite.core.datasets import write_json
from sciwrite.rwgbench.data.configs import card_configs_yaml, rwgbench_repo_id, write_dataset_folder
from sciwrite.rwgbench.data.sample import build_sample
from sciwrite.rwgbench.data.schema import PAPER_FEATURES
from sciwrite.sources.corpus import CORPUS_FEATURES, AssemblyReport

logger = logging.getLogger(__name__)

REPORT_FILE = "build_report.json"

_CARD = """---
license: cc-by-4.0
language:
- en
pretty_name: RWGBench offline sample (ACL Anthology papers)
task_categories:
- text-generation
tags:
- related-work-generation
- citation-recommendation
- scientific-writing
{configs}---

# RWGBench offline sample

A small, offline stand-in for [RWGBench](https://huggingface.co/datasets/{repo}) built by
`sciwrite build sample` from the 250 ACL Anthology papers (GROBID / grobid2json parses) that the
[`aclsum`](https://pypi.org/project/aclsum/) package ships. It has the RWGBench schema, so every
sciwrite pipeline runs on it unchanged; it is not the benchmark and its numbers are not the paper's.

- `sample` (split `test`): the papers that have a related-work section found by heading, with at least one
  linked citation. `related_work` keeps the section's words; every citation span that GROBID linked to a
  titled bibliography entry is replaced by `[k]`, 1-based into `citations`; unlinked spans keep their text,
  and bracketed numbers that are not resolved citations (an enumeration, an interval, an unlinked numeric
  citation) are written with parentheses, so that only real markers read as markers.
- `sample_corpus` (split `train`): the target papers plus every distinct work their bibliographies list,
  de-duplicated by normalised title. **Cited works have an empty `abstract`**: GROBID bibliographies carry
  title, authors and year only. Only the target papers' own records have abstracts.

## Statistics

| quantity | value |
|---|---|
| source papers (aclsum) | {source_papers} |
| target papers | {target_papers} |
| skipped papers | {skipped} |
| corpus documents | {corpus_documents} |
| corpus documents with an abstract | {corpus_documents_with_abstract} |
| citations per paper (mean / min / max) | {mean_citations} / {min_citations} / {max_citations} |
| citation extraction rate (mean over papers) | {mean_extraction_rate:.1%} |
| citation coverage by the corpus (mean) | {mean_coverage:.1%} |
| unresolved citation spans by reason | {unresolved} |

`{report}` next to this card lists the figures per paper.

## Licence

Code: MIT. Data: the ACL Anthology papers are CC BY 4.0; the `aclsum` parses are distributed under its MIT
licence.
"""


def write_sample_folder(folder: str | Path, paper_dir: str | Path | None = None, show_progress: bool = True) -> dict[str, Any]:
    """Build the sample and write it to `folder`; returns its statistics."""
    papers, corpus, report = build_sample(paper_dir, show_progress=show_progress)
    stats = report.statistics(papers, corpus)
    tables = {"sample": Dataset.from_list(papers, features=PAPER_FEATURES),
              "sample_corpus": Dataset.from_list(corpus, features=CORPUS_FEATURES)}
    card = _CARD.format(configs=card_configs_yaml(list(tables)), repo=rwgbench_repo_id(), report=REPORT_FILE,
                        skipped=", ".join(f"{n} ({reason})" for reason, n in stats["skipped_papers"].items()) or "0",
                        unresolved=", ".join(f"{reason}: {n}" for reason, n in stats["unresolved_citations"].items()) or "none",
                        **{k: v for k, v in stats.items() if k not in ("skipped_papers", "unresolved_citations")})
    folder = write_dataset_folder(folder, tables, card)
    write_json(folder / REPORT_FILE, {"statistics": stats, "skipped": report.skipped, "per_paper": report.per_paper,
                                      "corpus_assembly": _as_dict(report.corpus_report)})
    logger.info("wrote the RWGBench sample to %s", folder)
    return stats


def _as_dict(report: AssemblyReport | None) -> dict[str, Any] | None:
    """The corpus assembly report as JSON (None before the corpus is assembled)."""
    return asdict(report) if report is not None else None
