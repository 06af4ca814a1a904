"""Grounding of per-paper reference lists: every reference's verdict, and what a system's lists add up to.

Both benchmarks' metrics go through here. A paper's list is resolved with a `ReferenceResolver` (and, for what the
corpus does not hold, an optional `OnlineLookup`); its row holds each entry (``grounding_references``), the counts
per verdict, the rates and the grounded precision and recall against the paper's gold doc_ids:

- the **found rate**, **hallucination rate** (``not_found``) and **ambiguous rate** (and, online, the
  ``exists_outside_corpus`` rate) are shares of the paper's readable references;
- beside the resolver's verdict, each listed reference gets the reference checker's (``check``: verified,
  fabricated, metadata_mismatch, title_mismatch, anachronistic, unresolved; `sciwrite.grounding.checker`), checked
  against the benchmark's corpus as a closed world: the corpus is the universe the benchmark's systems cite from,
  so a title absent from it is ``fabricated`` there (`sciwrite.grounding.corpus_check`); a reference dated after the
  target paper's year is ``anachronistic``. The **verdict rates** (``grounding_verdict_<verdict>_rate``) are shares
  of the paper's checked references;
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

from sciwrite.core.paper_row import GROUNDING_ERROR, GROUNDING_REFERENCES, GROUNDING_SOURCE, PaperRow
from sciwrite.core.summary import GroundingSummary
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.corpus_check import CLOSED_WORLD_NOTE, check_fields, cutoff_year
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
    GROUNDING_VERDICT_RATES,
)
from sciwrite.grounding.taxonomy import Check

logger = logging.getLogger(__name__)

INVALID = "invalid"
#: A paper's count of readable references, and of references with each verdict (`count_key`).
N_REFERENCES = "grounding_n_references"


def count_key(verdict: str) -> str:
    """The row's key of a paper's count of references with `verdict`."""
    return f"grounding_n_{verdict}"


#: The per-paper rates and scores a system's summary averages (over the papers where each is defined).
#: The share of references found outside the corpus (None offline: only an online lookup can tell).
OUTSIDE_RATE = "grounding_outside_rate"
RATE_KEYS = (GROUNDING_FOUND_RATE.key, GROUNDING_HALLUCINATION_RATE.key, GROUNDING_AMBIGUOUS_RATE.key, OUTSIDE_RATE)
SCORE_KEYS = (GROUNDED_PRECISION.key, GROUNDED_RECALL.key)
#: The checker's verdict rates, in `CHECK_VERDICTS` order (`sciwrite.grounding.specs.GROUNDING_VERDICT_RATES`).
VERDICT_RATE_KEYS = tuple(spec.key for spec in GROUNDING_VERDICT_RATES.values())
GROUNDING_KEYS = (*RATE_KEYS, *SCORE_KEYS, *VERDICT_RATE_KEYS)
#: A paper's count of references the checker checked (the verdict rates' denominator).
N_CHECKED = "grounding_n_checked"
#: The verdicts a readable reference can get, in the order tables print them.
COUNTED = (FOUND, AMBIGUOUS, NOT_FOUND, EXISTS_OUTSIDE_CORPUS)


def read_entries(listed: Any, paper: str) -> tuple[list[tuple[int, Reference | None, str | None]], str | None]:
    """([(number, reference or None, problem)], problem of the whole list) of one paper's reference list; `paper`
    names the paper in every message. An entry's number is its ``n`` when it has one, else its position."""
    if listed is None:
        return [], None
    if not isinstance(listed, (list, tuple)):
        return [], f"{paper}: field 'references' must be a list of references, got {type(listed).__name__}"
    entries: list[tuple[int, Reference | None, str | None]] = []
    for position, item in enumerate(listed, start=1):
        own = item.get("n") if isinstance(item, Mapping) else None
        n = own if isinstance(own, int) else position
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
                           show_progress: bool = False, checker: Callable[[], ReferenceChecker] | None = None,
                           years: Sequence[Any] | None = None) -> list[dict[str, Any]]:
    """Ground every paper's reference list: one row per paper with each entry's verdicts, the rates and scores.

    A row holds each entry (``grounding_references``), the counts per verdict, the found, hallucination
    (``not_found``) and ambiguous rates over the paper's readable references, the grounded precision and recall
    of its found doc_ids against its gold ones and, with a `checker`, each entry's ``check`` and the paper's verdict
    rates. An entry that cannot be read is ``invalid``: listed with its message and left out of the rates.

    Args:
        lists: Each paper's reference list (None: the paper has none).
        gold: Each paper's gold doc_ids.
        papers: How messages name each paper (``paper_id 'p1'``).
        resolver: Returns the resolver; called once, and only when some list holds a reference (building a large
            corpus's title index takes a minute).
        online: An `sciwrite.grounding.online.OnlineLookup` for the references the corpus does not hold, asked
            all at once after the corpus has decided.
        show_progress: Show the online lookups' progress bar.
        checker: Returns the reference checker over the benchmark's corpus as a closed world
            (`sciwrite.grounding.corpus_check.lazy_checker`); called once, and only when some list holds a
            reference. None: no check verdicts (a caller that grounds against no corpus).
        years: Each paper's year, every reference's cutoff (None, or None for a paper: the checker's default,
            this year).
    """
    read = [read_entries(listed, name) for listed, name in zip(lists, papers)]
    wanted = [ref for entries, _ in read for _, ref, _ in entries if ref is not None]
    verdicts = resolver().resolve(wanted) if wanted else []
    if online is not None:
        verdicts = online.second_opinions(verdicts, show_progress=show_progress)
    checks: list[Check | None] = [None] * len(wanted)
    if checker is not None and wanted:  # every reference of the system in one call
        cutoffs = [cutoff_year(year) for year in (years if years is not None else [None] * len(lists))]
        wanted_cutoffs = [cutoff for (entries, _), cutoff in zip(read, cutoffs)
                          for _, ref, _ in entries if ref is not None]
        checks = list(checker().check(wanted, wanted_cutoffs))
    pending = iter(verdicts)
    pending_checks = iter(checks)
    rows: list[dict[str, Any]] = []
    for listed, (entries, problem), golds, name in zip(lists, read, gold, papers):
        if problem is not None:
            logger.warning("%s", problem)
            rows.append({GROUNDING_SOURCE: "references", GROUNDING_ERROR: problem, GROUNDING_REFERENCES: []})
            continue
        if listed is None:
            rows.append({GROUNDING_SOURCE: None})
            continue
        out = [entry(n, ref, why, next(pending) if ref is not None else None, golds,
                     next(pending_checks) if ref is not None else None) for n, ref, why in entries]
        for item in out:
            if item["verdict"] == INVALID:
                logger.warning("%s", item["why"])
        rows.append(paper_row("references", out, golds))
    return rows


def entry(n: int, reference: Reference | None, problem: str | None, verdict: Verdict | None,
          gold: Sequence[str], check: Check | None = None) -> dict[str, Any]:
    """One reference as a row lists it: its number and title, verdict, doc_id, score, evidence, when found the
    corpus title and whether it is a gold citation, and the checker's verdict with its evidence (``check``, when
    checked)."""
    if reference is None:
        return {"n": n, "title": "", "verdict": INVALID, "doc_id": None, "score": None, "why": problem,
                "corpus_title": None, "gold": False}
    if verdict is None:
        raise ValueError(f"reference [{n}] {reference.title!r} is readable but was given no verdict")
    best = verdict.candidates[0] if verdict.candidates else None
    found = verdict.verdict == FOUND
    return {"n": n, "title": reference.title, "verdict": verdict.verdict, "doc_id": verdict.doc_id,
            "score": verdict.score, "why": verdict.why,
            "corpus_title": best.title if found and best is not None else None,
            "gold": bool(found and verdict.doc_id in set(gold)),
            **({"outside": dict(verdict.outside)} if verdict.outside else {}),
            **({"check": check_fields(check)} if check is not None else {})}


def paper_row(source: str, entries: Sequence[Mapping[str, Any]], gold: Sequence[str]) -> dict[str, Any]:
    """A paper's grounding row from its listed `entries` (see the module docstring)."""
    counts = {v: sum(1 for e in entries if e["verdict"] == v) for v in (*COUNTED, INVALID)}
    readable = sum(counts[v] for v in COUNTED)
    found_ids = {e["doc_id"] for e in entries if e["verdict"] == FOUND}
    hits = len(found_ids & set(gold))
    cited = len(found_ids) + readable - counts[FOUND]
    row: dict[str, Any] = {GROUNDING_SOURCE: source, GROUNDING_REFERENCES: list(entries), N_REFERENCES: readable,
                           **{count_key(v): counts[v] for v in (*COUNTED, INVALID)}}
    for key, verdict in zip(RATE_KEYS, (FOUND, NOT_FOUND, AMBIGUOUS, EXISTS_OUTSIDE_CORPUS)):
        row[key] = counts[verdict] / readable if readable else None
    row[GROUNDED_PRECISION.key] = hits / cited if cited else 0.0
    row[GROUNDED_RECALL.key] = hits / len(set(gold)) if gold else 0.0
    checked = [str(e["check"].get("verdict")) for e in entries if isinstance(e.get("check"), Mapping)]
    row[N_CHECKED] = len(checked)
    for verdict, spec in GROUNDING_VERDICT_RATES.items():
        row[spec.key] = checked.count(verdict) / len(checked) if checked else None
    return row


def summarize_grounding(rows: Sequence[PaperRow], *, online: str | None = None,
                        threshold: float | None = None) -> GroundingSummary | None:
    """A system's grounding summary from its per-paper rows; None when no paper has a reference list.

    It holds the mean of every rate and score over the papers where it is defined (rates: papers listing a
    reference; the checker's verdict rates: papers with a checked reference; scores: papers with a reference list),
    the pooled counts, the sources and the setting (`online` service, `threshold`; ``checker``: the world the
    verdict rates were checked against, the corpus as a closed world, where some reference was checked). Its
    intervals are the caller's (`with_intervals`).
    """
    grounded = [(row, row.grounding) for row in rows if row.grounding is not None]
    listed = [(row, grounding) for row, grounding in grounded if grounding.listed]
    failed = [grounding.error for _, grounding in grounded if grounding.error]
    if not listed and not failed:
        return None
    means: dict[str, float | None] = {}
    for key in GROUNDING_KEYS:
        values = [value for row, _ in listed if (value := row.value(key)) is not None]
        means[key] = sum(values) / len(values) if values else None
    if online is None:
        means[OUTSIDE_RATE] = None
    unreadable = [str(e["why"]) for _, grounding in listed for e in grounding.references if e["verdict"] == INVALID]
    return GroundingSummary(
        metrics=means, counts={v: int(sum(row.value(count_key(v)) or 0 for row, _ in listed)) for v in (*COUNTED, INVALID)},
        n_references=int(sum(row.value(N_REFERENCES) or 0 for row, _ in listed)), n_papers=len(listed),
        n_papers_listing=sum(1 for row, _ in listed if row.value(N_REFERENCES)),
        sources=tuple(sorted({str(grounding.source) for _, grounding in listed})), n_invalid_lists=len(failed),
        problems=tuple(failed[:10] + unreadable[:10]),
        lookup=f"online second opinion: {online}" if online else "offline, corpus only", threshold=threshold,
        checker=CLOSED_WORLD_NOTE if any(row.value(N_CHECKED) for row, _ in listed) else None)


__all__ = ["COUNTED", "EXISTS_OUTSIDE_CORPUS", "GROUNDING_KEYS", "INVALID", "N_CHECKED", "RATE_KEYS", "SCORE_KEYS",
           "VERDICT_RATE_KEYS", "entry", "ground_reference_lists", "paper_row", "read_entries", "summarize_grounding"]
