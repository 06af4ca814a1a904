"""Grounding of per-paper reference lists: every reference's verdict, and what a system's lists add up to.

Both benchmarks' metrics go through here. A paper's list is resolved with a `ReferenceResolver` (and, for what the
corpus does not hold, an optional `OnlineLookup`); its row holds each entry (``grounding_references``), the counts
per verdict, the rates and the grounded precision and recall against the paper's gold doc_ids:

- the **found rate**, **hallucination rate** (``not_found``) and **ambiguous rate** (and, online, the
  ``exists_outside_corpus`` rate) are shares of the paper's readable references;
- **grounded precision** is |found doc_ids in the gold set| over the paper's distinct citations, a found doc_id
  counted once and every other readable reference counted as one citation that names no gold paper (a
  hallucinated reference is a wrong citation decision; an ambiguous one is not credited, since which paper it
  names is unknown); **grounded recall** is the same hits over the gold set. A paper that lists no reference
  scores 0 on both (the paper's rule for an empty-citation output) and has no rates.

An entry that cannot be read (not a title or an object with one, an empty title) is ``invalid``: listed with a
message naming the paper and the reference, counted apart, and left out of the rates; the other entries are still
resolved. A list that is not a list makes the paper's whole row invalid, with its message, and the run goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sciwrite.grounding.normalize import normalize_reference_title
from sciwrite.grounding.resolver import (
    AMBIGUOUS,
    EXISTS_OUTSIDE_CORPUS,
    FOUND,
    NOT_FOUND,
    Reference,
    ReferenceResolver,
    Verdict,
)
from sciwrite.grounding.specs import (
    GROUNDED_PRECISION,
    GROUNDED_RECALL,
    GROUNDING_AMBIGUOUS_RATE,
    GROUNDING_FOUND_RATE,
    GROUNDING_HALLUCINATION_RATE,
)

logger = logging.getLogger(__name__)

INVALID = "invalid"
#: The per-paper rates and scores a system's summary averages (over the papers where each is defined).
#: The share of references found outside the corpus (None offline: only an online lookup can tell).
OUTSIDE_RATE = "grounding_outside_rate"
RATE_KEYS = (GROUNDING_FOUND_RATE.key, GROUNDING_HALLUCINATION_RATE.key, GROUNDING_AMBIGUOUS_RATE.key, OUTSIDE_RATE)
SCORE_KEYS = (GROUNDED_PRECISION.key, GROUNDED_RECALL.key)
GROUNDING_KEYS = (*RATE_KEYS, *SCORE_KEYS)
#: The verdicts a readable reference can get, in the order tables print them.
COUNTED = (FOUND, AMBIGUOUS, NOT_FOUND, EXISTS_OUTSIDE_CORPUS)


def read_entries(listed: Any, paper: str) -> tuple[list[tuple[int, Reference | None, str | None]], str | None]:
    """([(number, reference or None, problem)], problem of the whole list) of one paper's reference list; `paper`
    names the paper in every message. An entry's number is its ``n`` when it has one, else its position."""
    if listed is None:
        return [], None
    if not isinstance(listed, (list, tuple)):
        return [], f"{paper}: field 'references' must be a list of references, got {type(listed).__name__}"
    entries = []
    for position, item in enumerate(listed, start=1):
        n = item.get("n") if isinstance(item, Mapping) and isinstance(item.get("n"), int) else position
        try:
            reference = Reference.from_record(item)
        except ValueError as err:
            entries.append((n, None, f"{paper} reference [{n}]: {err}"))
            continue
        if not normalize_reference_title(reference.title):
            entries.append((n, None, f"{paper} reference [{n}]: field 'title' is empty (no title to look up)"))
            continue
        entries.append((n, reference, None))
    return entries, None


def ground_reference_lists(lists: Sequence[Any], gold: Sequence[Sequence[str]], papers: Sequence[str],
                           resolver: Callable[[], ReferenceResolver], online: Any = None,
                           show_progress: bool = False) -> list[dict[str, Any]]:
    """Ground every paper's reference list: one row per paper with each entry's verdict, the rates and scores.

    A row holds each entry (``grounding_references``), the counts per verdict, the found, hallucination
    (``not_found``) and ambiguous rates over the paper's readable references, and the grounded precision and recall
    of its found doc_ids against its gold ones. An entry that cannot be read is ``invalid``: listed with its
    message and left out of the rates.

    Args:
        lists: Each paper's reference list (None: the paper has none).
        gold: Each paper's gold doc_ids.
        papers: How messages name each paper (``paper_id 'p1'``).
        resolver: Returns the resolver; called once, and only when some list holds a reference (building a large
            corpus's title index takes a minute).
        online: An `sciwrite.grounding.online.OnlineLookup` for the references the corpus does not hold, asked
            all at once after the corpus has decided.
        show_progress: Show the online lookups' progress bar.
    """
    read = [read_entries(listed, name) for listed, name in zip(lists, papers)]
    wanted = [ref for entries, _ in read for _, ref, _ in entries if ref is not None]
    verdicts = resolver().resolve(wanted) if wanted else []
    if online is not None:
        verdicts = online.second_opinions(verdicts, show_progress=show_progress)
    verdicts = iter(verdicts)
    rows = []
    for listed, (entries, problem), golds, name in zip(lists, read, gold, papers):
        if problem is not None:
            logger.warning("%s", problem)
            rows.append({"grounding_source": "references", "grounding_error": problem, "grounding_references": []})
            continue
        if listed is None:
            rows.append({"grounding_source": None})
            continue
        out = [entry(n, ref, why, next(verdicts) if ref is not None else None, golds) for n, ref, why in entries]
        for item in out:
            if item["verdict"] == INVALID:
                logger.warning("%s", item["why"])
        rows.append(paper_row("references", out, golds))
    return rows


def entry(n: int, reference: Reference | None, problem: str | None, verdict: Verdict | None,
          gold: Sequence[str]) -> dict[str, Any]:
    """One reference as a row lists it: its number and title, verdict, doc_id, score, evidence and, when found,
    the corpus title and whether it is a gold citation."""
    if reference is None:
        return {"n": n, "title": "", "verdict": INVALID, "doc_id": None, "score": None, "why": problem,
                "corpus_title": None, "gold": False}
    best = verdict.candidates[0] if verdict.candidates else None
    found = verdict.verdict == FOUND
    return {"n": n, "title": reference.title, "verdict": verdict.verdict, "doc_id": verdict.doc_id,
            "score": verdict.score, "why": verdict.why,
            "corpus_title": best.title if found and best is not None else None,
            "gold": bool(found and verdict.doc_id in set(gold)),
            **({"outside": dict(verdict.outside)} if verdict.outside else {})}


def paper_row(source: str, entries: Sequence[Mapping[str, Any]], gold: Sequence[str]) -> dict[str, Any]:
    """A paper's grounding row from its listed `entries` (see the module docstring)."""
    counts = {v: sum(1 for e in entries if e["verdict"] == v) for v in (*COUNTED, INVALID)}
    readable = sum(counts[v] for v in COUNTED)
    found_ids = {e["doc_id"] for e in entries if e["verdict"] == FOUND}
    hits = len(found_ids & set(gold))
    cited = len(found_ids) + readable - counts[FOUND]
    row: dict[str, Any] = {"grounding_source": source, "grounding_references": list(entries),
                           "grounding_n_references": readable,
                           **{f"grounding_n_{v}": counts[v] for v in (*COUNTED, INVALID)}}
    for key, verdict in zip(RATE_KEYS, (FOUND, NOT_FOUND, AMBIGUOUS, EXISTS_OUTSIDE_CORPUS)):
        row[key] = counts[verdict] / readable if readable else None
    row[GROUNDED_PRECISION.key] = hits / cited if cited else 0.0
    row[GROUNDED_RECALL.key] = hits / len(set(gold)) if gold else 0.0
    return row


def summarize_grounding(rows: Sequence[Mapping[str, Any]], *, online: str | None = None,
                        threshold: float | None = None) -> dict[str, Any]:
    """A system's grounding summary from its per-paper rows; empty (``{}``) when no paper has a reference list.

    It holds the mean of every rate and score over the papers where it is defined (rates: papers listing a
    reference; scores: papers with a reference list), the pooled counts, the sources and the setting (`online`
    service, `threshold`).
    """
    listed = [r for r in rows if r.get("grounding_source") and not r.get("grounding_error")]
    if not listed and not any(r.get("grounding_error") for r in rows):
        return {}
    summary: dict[str, Any] = {}
    for key in GROUNDING_KEYS:
        values = [r[key] for r in listed if r.get(key) is not None]
        summary[key] = sum(values) / len(values) if values else None
    if online is None:
        summary[OUTSIDE_RATE] = None
    summary["counts"] = {v: sum(r.get(f"grounding_n_{v}", 0) for r in listed) for v in (*COUNTED, INVALID)}
    summary["n_references"] = sum(r.get("grounding_n_references", 0) for r in listed)
    summary["n_papers"] = len(listed)
    summary["n_papers_listing"] = sum(1 for r in listed if r.get("grounding_n_references"))
    summary["sources"] = sorted({r["grounding_source"] for r in listed})
    summary["n_invalid_lists"] = sum(1 for r in rows if r.get("grounding_error"))
    summary["problems"] = [r["grounding_error"] for r in rows if r.get("grounding_error")][:10] + [
        e["why"] for r in listed for e in r.get("grounding_references", []) if e["verdict"] == INVALID][:10]
    summary["lookup"] = f"online second opinion: {online}" if online else "offline, corpus only"
    summary["threshold"] = threshold
    return summary


__all__ = ["COUNTED", "EXISTS_OUTSIDE_CORPUS", "GROUNDING_KEYS", "INVALID", "RATE_KEYS", "SCORE_KEYS", "entry",
           "ground_reference_lists", "paper_row", "read_entries", "summarize_grounding"]
