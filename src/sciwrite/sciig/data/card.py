"""Statistics of a SciIG build and the dataset card written next to its parquet files."""

from __future__ import annotations

from statistics import mean, median
from typing import Any

from sciwrite.sciig.data.configs import card_configs_block


def _summary(values: list[int]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "min": 0, "max": 0}
    return {"mean": round(mean(values), 1), "median": float(median(values)), "min": min(values), "max": max(values)}


def sciig_statistics(splits: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Rows per split; introduction length in words and citations (neighbors) per paper over all splits."""
    rows = [r for split in splits.values() for r in split]
    neighbors = [n for r in rows for n in r["neighbors"]]
    return {
        "papers": {split: len(records) for split, records in splits.items()},
        "introduction_words": _summary([len(r["introduction"].split()) for r in rows]),
        "citations_per_paper": _summary([len(r["neighbors"]) for r in rows]),
        "cited_works": len(neighbors),
        "cited_works_with_abstract": sum(1 for n in neighbors if n["abstract"]),
    }


def statistics_table(config: str, stats: dict[str, Any]) -> str:
    """One markdown table row per statistic of `config`."""
    words, cites = stats["introduction_words"], stats["citations_per_paper"]
    papers = stats["papers"]
    return "\n".join([
        f"### `{config}`", "", "| quantity | value |", "|---|---|",
        f"| papers (test / holdout) | {papers.get('test', 0)} / {papers.get('holdout', 0)} |",
        f"| introduction length in words (mean / median / range) | {words['mean']} / {words['median']:g} / {words['min']}–{words['max']} |",
        f"| citations per paper (mean / median / range) | {cites['mean']} / {cites['median']:g} / {cites['min']}–{cites['max']} |",
        f"| cited works (with an abstract) | {stats['cited_works']} ({stats['cited_works_with_abstract']}) |", ""])


def fresh_table(config: str, fresh: dict[str, Any]) -> str:
    """What the card says of a config built from fresh arXiv papers: its date window, licences and choices."""
    until = fresh.get("until") or "the day it was fetched"
    licences = ", ".join(f"{name}: {n}" for name, n in sorted(fresh["licences"].items())) or "none"
    use = ("**not for redistribution** (built with `--keep-all-licences`)" if fresh["not_for_redistribution"] else
           "every paper's licence allows its text to be redistributed")
    choices = "".join(f"- {c}\n" for c in fresh["choices"])
    return (f"### `{config}`: fresh arXiv papers first submitted {fresh['since']} to {until}\n\n"
            f"From the arXiv categories {', '.join(fresh['categories'])}; {fresh['fetched_pages']} pages fetched, "
            f"{fresh['kept_share_of_fetched']:.1%} kept. Each record carries `arxiv_id`, `arxiv_version`, `published` "
            f"and `licence` ({licences}; {use}). Score a model with `sciwrite evaluate sciig --split {config} --source "
            f"<this folder> --cutoff <its training cutoff>`. Choices made where the SciIG paper is silent:\n\n"
            f"{choices}\n")


_CARD = """---
license: {licence}
language:
- en
pretty_name: SciIG (built by sciwrite)
task_categories:
- text-generation
tags:
- introduction-generation
- scientific-writing
{configs}---

# SciIG dataset folder

Built by `sciwrite build sciig` (see `datasets/sciig/README.md` in the sciwrite repository for the fields and
the pipeline). Each config has a `test` split and a `holdout` split (few-shot exemplars are drawn from it),
assigned by a hash of `paper_id`. `build_report.json` next to this card lists what the build kept, skipped (per
reason) and could not resolve.

## Statistics

{tables}
## Licence

Code: MIT. Data: CC BY 4.0 (the papers' own licences apply to their text); a config built from arXiv states each
paper's licence in its `licence` column.
"""


def render_folder_card(stats_by_config: dict[str, dict[str, Any]],
                       fresh_by_config: dict[str, dict[str, Any]] | None = None) -> str:
    """The README.md of a built folder: YAML configs for every config built into it, and their statistics; a config
    built from fresh arXiv papers (`fresh_by_config`) also says its window and licences, and sets the card's."""
    configs = sorted(stats_by_config)
    fresh_by_config = fresh_by_config or {}
    licences = {fresh_by_config[c]["licence"] if c in fresh_by_config else "cc-by-4.0" for c in configs}
    tables = "\n".join((fresh_table(c, fresh_by_config[c]) if c in fresh_by_config else "")
                       + statistics_table(c, stats_by_config[c]) for c in configs)
    return _CARD.format(licence=licences.pop() if len(licences) == 1 else "other",
                        configs=card_configs_block(configs), tables=tables)
