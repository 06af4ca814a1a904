"""What the leaderboard's drill-down shows of one RWGBench paper: each distinct marker [i] resolved to
``candidates[i-1]`` (`sciwrite.rwgbench.metrics.formulas`) with the cited paper's title and whether it is one of the
published section's citations (the gold set); a number outside the candidate list is flagged; the gold papers the
generation did not cite are listed apart, with their place in the candidate list if they were there.

A prediction that lists its own references (Direct, which has no candidate list) is shown by its list instead: each
reference with its grounding verdict from the per-paper row (`sciwrite.rwgbench.metrics.grounding`): found, with the
corpus title it names, ambiguous, not found or, online, outside the corpus, with the evidence; whether a marker [n]
of the text cites it; the reference checker's verdict (`sciwrite.grounding.check_cells`: verified, fabricated,
metadata or title mismatch, anachronistic, unresolved), the fields that differ, the record it matched and its
evidence; and the gold papers no listed reference names."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from sciwrite.benchmark import CitationView, DrilldownPapers, Source
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.tables import MISSING_CELL
from sciwrite.grounding.check_cells import CHECK_COLUMNS, check_cells
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.evaluation import SPLITS
from sciwrite.rwgbench.metrics.formulas import parse_citation_markers

#: What the citation table says of a marker whose number is outside the candidate list.
OUT_OF_RANGE = "not in the candidate list"
CITATION_COLUMNS = ("Marker", "doc_id", "Cited title", "In gold set")
UNCITED_GOLD_COLUMNS = ("doc_id", "Title", "In candidate list")
REFERENCE_COLUMNS = ("Ref", "Listed title", "Verdict", "Corpus title", "doc_id", "In gold set", "Cited in text",
                     "Evidence", *CHECK_COLUMNS)
#: How the reference table words each verdict.
VERDICT_TEXT = {"found": "found", "ambiguous": "ambiguous", "not_found": "not found",
                "exists_outside_corpus": "exists outside the corpus", "invalid": "invalid"}


def drilldown_papers(split: str, source: Source = None) -> DrilldownPapers:
    """The papers of `split` (``sample`` / ``test``: the paper configs of `SPLITS`) and its corpus, for titles."""
    if split not in SPLITS:
        raise ValueError(f"unknown RWGBench split {split!r}; choose one of {list(SPLITS)}")
    paper_config, corpus_config = SPLITS[split]
    return DrilldownPapers(load_rwgbench(paper_config, source=source).to_list(),
                           load_rwgbench(corpus_config, source=source))


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


def listed_references_view(text: str, listed: Sequence[Any], row: PaperRow | None, gold: Sequence[str],
                           titles: Callable[[Iterable[str]], Mapping[str, str]]
                           ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(one row per listed reference: REFERENCE_COLUMNS; the gold papers no found reference names: doc_id, Title;
    notes) of a prediction with its own reference list. The verdicts are the per-paper row's grounding (its
    references' records); without them the titles are listed unchecked, and a note says so."""
    grounding = None if row is None else row.grounding
    entries: list[Mapping[str, Any]] = list(grounding.references) if grounding is not None else []
    notes: list[str] = []
    if grounding is not None and grounding.error:
        notes.append(grounding.error)
    elif not entries and listed:
        notes.append("the per-paper row holds no reference grounding (scored before it existed): the listed titles "
                     "are shown unchecked")
        entries = [{"n": item.get("n", i) if isinstance(item, Mapping) else i,
                    "title": item.get("title", "") if isinstance(item, Mapping) else str(item), "verdict": None}
                   for i, item in enumerate(listed, start=1)]
    markers = set(parse_citation_markers(text))
    gold_set = set(gold)
    table = [{"Ref": f"[{e.get('n')}]", "Listed title": str(e.get("title") or ""),
              "Verdict": VERDICT_TEXT.get(str(e.get("verdict")), MISSING_CELL),
              "Corpus title": str(e.get("corpus_title") or ""), "doc_id": str(e.get("doc_id") or ""),
              "In gold set": "yes" if e.get("gold") else "no" if e.get("verdict") else MISSING_CELL,
              "Cited in text": "yes" if e.get("n") in markers else "no", "Evidence": str(e.get("why") or ""),
              **check_cells(e.get("check"))}
             for e in entries]
    named = {e.get("doc_id") for e in entries if e.get("verdict") == "found"}
    missed = [d for d in dict.fromkeys(gold) if d not in named]
    known = titles(missed)
    uncited = pd.DataFrame([{"doc_id": d, "Title": known.get(d, "")} for d in missed], columns=["doc_id", "Title"])
    if not gold_set:
        notes.append("the paper has no gold citations")
    return pd.DataFrame(table, columns=list(REFERENCE_COLUMNS)), uncited, notes


def citation_view(record: Mapping[str, Any], paper: Mapping[str, Any], row: PaperRow | None,
                  titles: Callable[[Iterable[str]], Mapping[str, str]]) -> CitationView:
    """One paper's citations, the gold papers not cited, the second table's caption, the reference text and notes:
    a prediction that lists references is shown by its list (`listed_references_view`)."""
    text = str(record.get("text", record.get("pred", "")) or "")
    gold = [str(g) for g in paper.get("citations") or []]
    listed = record.get("references")
    if listed is not None:
        if not isinstance(listed, list):
            listed = []
        references, uncited, notes = listed_references_view(text, listed, row, gold, titles)
        return CitationView(references, uncited,
                            "Gold papers (cited by the published section) that no listed reference names",
                            str(paper.get("related_work") or ""), notes)
    candidates = [str(c) for c in record.get("candidates") or []]
    citations, extra = rwgbench_citations(text, candidates, gold, titles([*candidates, *gold]))
    notes = [] if candidates else ["the prediction has no candidate list (Direct): no marker resolves to a paper"]
    return CitationView(citations, extra, "Gold papers (cited by the published section) the generation does not cite",
                        str(paper.get("related_work") or ""), notes)


__all__ = ["CITATION_COLUMNS", "OUT_OF_RANGE", "REFERENCE_COLUMNS", "UNCITED_GOLD_COLUMNS", "VERDICT_TEXT",
           "citation_view", "drilldown_papers", "listed_references_view", "rwgbench_citations"]
