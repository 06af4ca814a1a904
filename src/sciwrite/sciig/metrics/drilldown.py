"""What the leaderboard's drill-down shows of one SciIG paper: the paper's cited works, each marked cited or not by
the generation as the citation-correctness scorer read it (its ``cited_keys`` on the per-paper row), and the
citations it makes outside them, each marked as the scorer split them (`sciwrite.sciig.metrics.citations`):
*unmatched* (no cited work has its surname: fabricated, as far as the inputs tell) or a *near miss* (a cited work
by that surname, with another year or author form), with the text around it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from sciwrite.benchmark import CitationView, DrilldownPapers, Source
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.tables import MISSING_CELL
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics.citations import resolve_keys
from sciwrite.sciig.metrics.row_fields import CITED_KEYS, NEAR_MISS_CITATIONS, NOT_IN_NEIGHBORS, UNMATCHED_CITATIONS
from sciwrite.sources.apa import comparison_key

NEIGHBOR_COLUMNS = ("Key", "Title", "Cited by the generation")
OUTSIDE_COLUMNS = ("Citation", "Mark", "In the text")
UNMATCHED = "unmatched: no cited work has this surname"


def drilldown_papers(config: str, source: Source = None) -> DrilldownPapers:
    """The test papers of SciIG `config` (the submission's split names the config); no corpus."""
    return DrilldownPapers(load_sciig(config, source=source, split="test").to_list())


def sciig_citations(neighbors: Sequence[Mapping[str, Any]], row: PaperRow | None
                    ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(the paper's cited works: Key, Title, Cited by the generation — "yes" / "no" from the row's ``cited_keys``,
    `MISSING_CELL` when the row holds none; the generation's citations outside them; notes)."""
    keys = None if row is None else row.details.get(CITED_KEYS)
    notes: list[str] = []
    cited: set[str] | None = None
    outside: list[str] = []
    if isinstance(keys, list):
        cited, outside, _ = resolve_keys([str(k) for k in keys], neighbors)
    else:
        notes.append("the per-paper row holds no extracted citations (citation correctness was not computed), "
                     "so only the cited works are listed")
    table = [{"Key": n.get("key", ""), "Title": n.get("title", ""),
              "Cited by the generation": MISSING_CELL if cited is None else
              ("yes" if comparison_key(str(n.get("key", ""))) in cited else "no")} for n in neighbors]
    return pd.DataFrame(table, columns=list(NEIGHBOR_COLUMNS)), outside_citations(row, outside), notes


def outside_citations(row: PaperRow | None, outside: Sequence[str]) -> pd.DataFrame:
    """The generation's citations outside the cited works (OUTSIDE_COLUMNS): each marked unmatched or near miss
    (naming the works it is near) with the text around it, from the row's ``unmatched_citations`` and
    ``near_miss_citations``; a row scored before that split lists ``not_in_neighbors`` (else `outside`) unmarked."""
    details: Mapping[str, Any] = {} if row is None else row.details
    if UNMATCHED_CITATIONS not in details:
        listed = details.get(NOT_IN_NEIGHBORS)
        return pd.DataFrame([{"Citation": k, "Mark": MISSING_CELL, "In the text": ""}
                             for k in (listed if isinstance(listed, list) else outside)], columns=list(OUTSIDE_COLUMNS))
    marked = [{"Citation": e.get("citation", ""), "Mark": UNMATCHED, "In the text": e.get("text") or ""}
              for e in details.get(UNMATCHED_CITATIONS) or []]
    marked += [{"Citation": e.get("citation", ""), "Mark": "near miss: a cited work by this surname ("
                + "; ".join(map(str, e.get("neighbors") or [])) + ")", "In the text": e.get("text") or ""}
               for e in details.get(NEAR_MISS_CITATIONS) or []]
    return pd.DataFrame(marked, columns=list(OUTSIDE_COLUMNS))


def citation_view(record: Mapping[str, Any], paper: Mapping[str, Any], row: PaperRow | None,
                  titles: Callable[[Iterable[str]], Mapping[str, str]]) -> CitationView:
    """The cited works, the citations outside them with the table's caption, the reference text and notes."""
    citations, extra, notes = sciig_citations(list(paper.get("neighbors") or []), row)
    return CitationView(citations, extra, "Citations in the generation that are not among the paper's cited works: "
                                          "unmatched (fabricated, as far as the inputs tell) or near misses",
                        str(paper.get("introduction") or ""), notes)


__all__ = ["NEIGHBOR_COLUMNS", "OUTSIDE_COLUMNS", "UNMATCHED", "citation_view", "drilldown_papers",
           "outside_citations", "sciig_citations"]
