"""RWGBench's reference grounding: which papers a generated related-work section's references name in the corpus.

A prediction's references are the list it carries (``references``: what a Direct run listed after its "References"
line, `sciwrite generate`), resolved against the corpus's titles (`sciwrite.grounding.scoring`). A prediction without
that field but with a candidate list (RAG, ALCE, TAG, Workflow, Oracle) cites its candidates: its references are the
candidates its markers resolve to, corpus papers by construction, so each is ``found`` with score 1 (and, for the
reference checker, ``verified``) and its grounded precision and recall are Table 2's P and R. A prediction with neither has no reference list and no grounding row.

The Grounding table is printed beside Table 2 and never changes it: Direct keeps the paper's 0.000 recall (§5.2)
there, while here its listed titles are resolved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sciwrite.core.metric_spec import board_groups
from sciwrite.core.summary import Summary
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.corpus_check import verified_by_construction
from sciwrite.grounding.resolver import FOUND, ReferenceResolver
from sciwrite.grounding.scoring import OUTSIDE_RATE, ground_reference_lists, paper_row
from sciwrite.grounding.specs import (
    GROUNDED_PRECISION,
    GROUNDED_RECALL,
    GROUNDING_AMBIGUOUS_RATE,
    GROUNDING_FOUND_RATE,
    GROUNDING_HALLUCINATION_RATE,
    GROUNDING_VERDICT_ANACHRONISTIC_RATE,
    GROUNDING_VERDICT_FABRICATED_RATE,
    GROUNDING_VERDICT_METADATA_MISMATCH_RATE,
    GROUNDING_VERDICT_TITLE_MISMATCH_RATE,
)
from sciwrite.rwgbench.metrics.formulas import resolve_citations
from sciwrite.rwgbench.metrics.specs import METRICS

#: Sources of a prediction's references, as rows and tables name them.
LISTED, CANDIDATES = "references", "candidates"
BY_CONSTRUCTION = "a candidate the generator was given: a corpus paper by construction"
#: The Grounding table's columns: (summary key, printed header), the specs' labels and the outside rate's (which no
#: spec declares: it is None offline).
GROUNDING_COLUMNS = (*((spec.key, spec.label) for spec in (GROUNDING_FOUND_RATE, GROUNDING_AMBIGUOUS_RATE,
                                                           GROUNDING_HALLUCINATION_RATE)),
                     (OUTSIDE_RATE, "Outside"),
                     *((spec.key, spec.label) for spec in (GROUNDED_PRECISION, GROUNDED_RECALL)),
                     *((spec.key, spec.label) for spec in (GROUNDING_VERDICT_FABRICATED_RATE,
                                                           GROUNDING_VERDICT_METADATA_MISMATCH_RATE,
                                                           GROUNDING_VERDICT_TITLE_MISMATCH_RATE,
                                                           GROUNDING_VERDICT_ANACHRONISTIC_RATE)))


def score_reference_grounding(predictions: Sequence[str], candidates: Sequence[Sequence[str]],
                              references: Sequence[Any], gold: Sequence[Sequence[str]], paper_ids: Sequence[str],
                              titles: Callable[[Sequence[str]], Mapping[str, str]],
                              resolver: Callable[[], ReferenceResolver], online: Any = None,
                              show_progress: bool = False, checker: Callable[[], ReferenceChecker] | None = None,
                              years: Sequence[Any] | None = None) -> list[dict[str, Any]]:
    """One grounding row per prediction (see the module docstring); `references[i]` is prediction i's listed
    references (None: it has none), `titles(doc_ids)` the corpus titles of doc_ids, `resolver()` the corpus's
    resolver and `checker()` its reference checker (each called only when a prediction lists references), `online`
    the optional second opinion on what the corpus does not hold (`sciwrite.grounding.online.OnlineLookup`),
    `years[i]` paper i's year (its references' cutoff). Cited candidates are corpus papers by construction:
    found, and verified, without a lookup."""
    listed = [i for i, refs in enumerate(references) if refs is not None]
    rows: list[dict[str, Any]] = [{} for _ in predictions]
    grounded = ground_reference_lists([references[i] for i in listed], [gold[i] for i in listed],
                                      [f"paper_id {paper_ids[i]!r}" for i in listed], resolver, online,
                                      show_progress, checker,
                                      [years[i] for i in listed] if years is not None else None)
    for i, row in zip(listed, grounded):
        rows[i] = row
    cited = {i: (cands, resolve_citations(text, cands).unique_ids)
             for i, (text, cands) in enumerate(zip(predictions, candidates)) if references[i] is None and cands}
    known = titles([d for _, ids in cited.values() for d in ids]) if cited else {}
    for i, (cands, ids) in cited.items():
        position = {d: n for n, d in enumerate(cands, start=1)}
        gold_ids = set(gold[i])
        entries = [{"n": position[d], "title": known.get(d, ""), "verdict": FOUND, "doc_id": d, "score": 1.0,
                    "why": BY_CONSTRUCTION, "corpus_title": known.get(d), "gold": d in gold_ids,
                    "check": verified_by_construction(d, known.get(d, ""), BY_CONSTRUCTION)} for d in ids]
        rows[i] = paper_row(CANDIDATES, entries, gold[i])
    return [row or {"grounding_source": None} for row in rows]


#: The leaderboard's grounding columns (`Benchmark.presentation.board_groups`): fewer than the printed table's, the ones a reader
#: ranks by.
BOARD_GROUPS = board_groups(METRICS)  # declared with each metric (`sciwrite.rwgbench.metrics.specs`)


def board_values(summary: Summary) -> dict[str, tuple[Any, Any, Any]]:
    """(mean, low, high) of each leaderboard grounding column, from a summary's ``grounding`` (all None when the
    system lists no references, or was scored before grounding existed)."""
    grounding = summary.grounding
    values: dict[str, tuple[Any, Any, Any]] = {}
    for columns in BOARD_GROUPS.values():
        for key, _ in columns:
            interval = grounding.intervals.get(key) if grounding is not None else None
            values[key] = (grounding.reported(key) if grounding is not None else None,
                           *((interval.low, interval.high) if interval is not None else (None, None)))
    return values


def listed_references(record: Mapping[str, Any]) -> Any:
    """A prediction record's own reference list (None when it carries none: the candidates are its references)."""
    return record.get("references")


__all__ = ["BOARD_GROUPS", "BY_CONSTRUCTION", "CANDIDATES", "GROUNDING_COLUMNS", "LISTED", "board_values",
           "listed_references",
           "score_reference_grounding"]
