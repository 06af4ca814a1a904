"""What the leaderboard's drill-down shows of one RWGBench paper: each distinct marker [i] resolved to
``candidates[i-1]`` (`sciwrite.rwgbench.metrics.formulas`) with the cited paper's title and whether it is one of the
published section's citations (the gold set); a number outside the candidate list is flagged; the gold papers the
generation did not cite are listed apart, with their place in the candidate list if they were there."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.formulas import parse_citation_markers
from sciwrite.rwgbench.metrics.report import SPLITS

#: What the citation table says of a marker whose number is outside the candidate list.
OUT_OF_RANGE = "not in the candidate list"
CITATION_COLUMNS = ("Marker", "doc_id", "Cited title", "In gold set")
UNCITED_GOLD_COLUMNS = ("doc_id", "Title", "In candidate list")


def drilldown_papers(split: str, source: Any = None) -> tuple[list[dict[str, Any]], Any]:
    """The papers of `split` (``sample`` / ``test``: the paper configs of `SPLITS`) and its corpus, for titles."""
    if split not in SPLITS:
        raise ValueError(f"unknown RWGBench split {split!r}; choose one of {list(SPLITS)}")
    paper_config, corpus_config = SPLITS[split]
    return load_rwgbench(paper_config, source=source).to_list(), load_rwgbench(corpus_config, source=source)


def rwgbench_citations(text: str, candidates: Sequence[str], gold: Sequence[str],
                       titles: Mapping[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per distinct marker in order of first appearance: Marker, doc_id, Cited title, In gold set — "yes",
    "no" or `OUT_OF_RANGE`; the gold papers no marker resolves to: doc_id, Title, In candidate list — "[k]" or
    "no")."""
    gold_set, cited, rows = set(gold), set(), []
    for n in dict.fromkeys(parse_citation_markers(text)):
        if 1 <= n <= len(candidates):
            doc_id = candidates[n - 1]
            cited.add(doc_id)
            rows.append({"Marker": f"[{n}]", "doc_id": doc_id, "Cited title": titles.get(doc_id, ""),
                         "In gold set": "yes" if doc_id in gold_set else "no"})
        else:
            rows.append({"Marker": f"[{n}]", "doc_id": "", "Cited title": "", "In gold set": OUT_OF_RANGE})
    position = {doc_id: i for i, doc_id in reversed(list(enumerate(candidates, 1)))}
    uncited = [{"doc_id": d, "Title": titles.get(d, ""), "In candidate list": f"[{position[d]}]" if d in position
                else "no"} for d in dict.fromkeys(gold) if d not in cited]
    return pd.DataFrame(rows, columns=list(CITATION_COLUMNS)), pd.DataFrame(uncited, columns=list(UNCITED_GOLD_COLUMNS))


def citation_view(record: Mapping[str, Any], paper: Mapping[str, Any], row: Mapping[str, Any] | None,
                  titles: Callable[[Iterable[str]], Mapping[str, str]]
                  ) -> tuple[pd.DataFrame, pd.DataFrame, str, str, list[str]]:
    """(citations, gold papers not cited, the second table's caption, the reference text, notes) of one paper."""
    text = str(record.get("text", record.get("pred", "")) or "")
    candidates = [str(c) for c in record.get("candidates") or []]
    gold = [str(g) for g in paper.get("citations") or []]
    citations, extra = rwgbench_citations(text, candidates, gold, titles([*candidates, *gold]))
    notes = [] if candidates else ["the prediction has no candidate list (Direct): no marker resolves to a paper"]
    return (citations, extra, "Gold papers (cited by the published section) the generation does not cite",
            str(paper.get("related_work") or ""), notes)


__all__ = ["CITATION_COLUMNS", "OUT_OF_RANGE", "UNCITED_GOLD_COLUMNS", "citation_view", "drilldown_papers",
           "rwgbench_citations"]
