"""What the leaderboard's drill-down shows of one SciIG paper: the paper's cited works, each marked cited or not by
the generation as the citation-correctness scorer read it (its ``cited_keys`` on the per-paper row), and the
citations it makes outside them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from sciwrite.core.tables import MISSING_CELL
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.metrics.citations import resolve_keys
from sciwrite.sources.apa import comparison_key

NEIGHBOR_COLUMNS = ("Key", "Title", "Cited by the generation")


def drilldown_papers(config: str, source: Any = None) -> tuple[list[dict[str, Any]], None]:
    """The test papers of SciIG `config` (the submission's split names the config); no corpus."""
    return load_sciig(config, source=source, split="test").to_list(), None


def sciig_citations(neighbors: Sequence[Mapping[str, Any]], row: Mapping[str, Any] | None
                    ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(the paper's cited works: Key, Title, Cited by the generation — "yes" / "no" from the row's ``cited_keys``,
    `MISSING_CELL` when the row holds none; the generation's citations outside them; notes)."""
    keys = (row or {}).get("cited_keys")
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
    extra = pd.DataFrame([{"Citation": k} for k in (row or {}).get("not_in_neighbors", outside)], columns=["Citation"])
    return pd.DataFrame(table, columns=list(NEIGHBOR_COLUMNS)), extra, notes


def citation_view(record: Mapping[str, Any], paper: Mapping[str, Any], row: Mapping[str, Any] | None,
                  titles: Callable[[Iterable[str]], Mapping[str, str]]
                  ) -> tuple[pd.DataFrame, pd.DataFrame, str, str, list[str]]:
    """(the cited works, citations outside them, the second table's caption, the reference text, notes)."""
    citations, extra, notes = sciig_citations(list(paper.get("neighbors") or []), row)
    return (citations, extra, "Citations in the generation that are not among the paper's cited works",
            str(paper.get("introduction") or ""), notes)


__all__ = ["NEIGHBOR_COLUMNS", "citation_view", "drilldown_papers", "sciig_citations"]
