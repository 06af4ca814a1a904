"""The dataset cards `sciwrite build surge` and the offline sample write beside their parquet files."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sciwrite.surge.data.configs import UPSTREAM_FILES_URL, UPSTREAM_REPO

LICENCE_NOTE = (f"SurGE's data licence is not stated (its code, {UPSTREAM_REPO}, is MIT; its README links the data "
                f"files at {UPSTREAM_FILES_URL} without a licence). This folder is built on your machine from the "
                "files you downloaded; sciwrite does not re-host them, and you should not publish this folder until "
                "the authors state a licence.")

_UPSTREAM = """---
license: other
language:
- en
pretty_name: SurGE (built locally by sciwrite)
task_categories:
- text-generation
tags:
- survey-generation
- scientific-writing
- citation-aware-generation
{configs}---

# SurGE, built locally

SurGE (Su et al., "SurGE: A Benchmark and Evaluation Framework for Scientific Survey Generation", arXiv 2508.15658)
as `sciwrite build surge` wrote it from SurGE's `surveys.json`, `queries.json` and `corpus.json`.

- `surveys` (split `test`): the expert surveys, each with its section tree (`structure`), the corpus documents it
  cites (`all_cites`) and, per section, the documents that section cites (`queries`, from `queries.json`).
- `corpus` (split `train`): the literature corpus, in RWGBench's corpus schema (documents with the same normalised
  title merged into the first; `build_report.json` lists every merge, and the surveys' cites follow them).

| quantity | value |
|---|---|
{rows}

## Licence

{licence}
"""

_SAMPLE = """---
license: cc-by-4.0
language:
- en
pretty_name: SurGE offline sample (ACL Anthology papers as survey-shaped targets)
task_categories:
- text-generation
tags:
- survey-generation
- scientific-writing
{configs}---

# SurGE offline sample: a stand-in with SurGE's shape, not SurGE's surveys

Built by sciwrite from the ACL Anthology papers (GROBID parses) that the
[`aclsum`](https://pypi.org/project/aclsum/) package ships, so that every SurGE pipeline runs offline. **These are
research papers laid out as SurGE lays out a survey, not SurGE's 205 expert surveys**: their numbers say that the
pipeline works, never how a system does on SurGE.

{rules}

| quantity | value |
|---|---|
{rows}

## Licence

The ACL Anthology papers are CC BY 4.0; the `aclsum` parses are distributed under its MIT licence.
"""


def _rows(figures: Mapping[str, Any]) -> str:
    return "\n".join(f"| {name.replace('_', ' ')} | {value} |" for name, value in figures.items())


def upstream_card(configs: str, figures: Mapping[str, Any]) -> str:
    """The card of a folder built from SurGE's own files."""
    return _UPSTREAM.format(configs=configs, rows=_rows(figures), licence=LICENCE_NOTE)


def sample_card(configs: str, figures: Mapping[str, Any], rules: str) -> str:
    """The card of the offline sample: `rules` are how its targets were made (the sample builder's docstring)."""
    return _SAMPLE.format(configs=configs, rows=_rows(figures), rules=rules)


__all__ = ["LICENCE_NOTE", "sample_card", "upstream_card"]
