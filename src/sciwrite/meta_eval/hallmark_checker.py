"""sciwrite's reference checker on HALLMARK: each entry read as a reference, each check written as a prediction in
HALLMARK's format, and the documented mapping between our verdicts and HALLMARK's hallucination types.

Verdict -> HALLMARK label: ``verified`` -> VALID; ``fabricated``, ``metadata_mismatch``, ``title_mismatch``,
``anachronistic`` -> HALLUCINATED; ``unresolved`` -> UNCERTAIN (which HALLMARK's conservative treatment leaves out of
its classification metrics, and its aggressive treatment counts as HALLUCINATED at 0.55). The confidence is the
check's.

HALLMARK type -> the verdict that diagnoses it (`EXPECTED_VERDICT`), used to score whether the verdict type is right:

- ``fabricated``: plausible_fabrication, hybrid_fabrication (a modified title with fabricated authors: no work has
  both);
- ``title_mismatch``: near_miss_title, chimeric_title;
- ``anachronistic``: future_date;
- ``metadata_mismatch``: the other nine (fabricated_doi, nonexistent_venue, placeholder_authors, wrong_venue,
  swapped_authors, preprint_as_published, merged_citation, partial_author_list, arxiv_version_mismatch): each is
  a real title with wrong metadata.

Our verdict -> HALLMARK's type, for ``predicted_hallucination_type`` (`predicted_type`): the field mismatches
decide, in the order of `predicted_type`'s rules.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.normalize import normalize_reference_title
from sciwrite.grounding.record_index import RecordIndex
from sciwrite.grounding.resolver import Reference
from sciwrite.grounding.taxonomy import (
    ANACHRONISTIC,
    AUTHORS_PARTIAL,
    AUTHORS_PLACEHOLDER,
    CHIMERA,
    DOI_UNRESOLVED,
    FABRICATED,
    METADATA_MISMATCH,
    PREPRINT_AS_PUBLISHED,
    TITLE_MISMATCH,
    UNRESOLVED,
    VENUE_NONEXISTENT,
    VERIFIED,
    Check,
)
from sciwrite.meta_eval.hallmark_data import HALLUCINATED, UNCERTAIN, VALID, HallmarkEntry, HallmarkPrediction
from sciwrite.sources.bibliography import parse_year
from sciwrite.sources.identifiers import normalize_doi

#: HALLMARK's hallucination type -> the verdict that diagnoses it (see the module docstring).
EXPECTED_VERDICT: dict[str, str] = {
    "plausible_fabrication": FABRICATED, "hybrid_fabrication": FABRICATED,
    "near_miss_title": TITLE_MISMATCH, "chimeric_title": TITLE_MISMATCH,
    "future_date": ANACHRONISTIC,
    **{t: METADATA_MISMATCH for t in ("fabricated_doi", "nonexistent_venue", "placeholder_authors", "wrong_venue",
                                      "swapped_authors", "preprint_as_published", "merged_citation",
                                      "partial_author_list", "arxiv_version_mismatch")},
}
LABEL_OF = {VERIFIED: VALID, UNRESOLVED: UNCERTAIN}


def entry_reference(entry: HallmarkEntry) -> Reference:
    """A HALLMARK entry's BibTeX fields as the reference the checker reads."""
    fields = entry.fields
    authors = tuple(a.strip() for a in " ".join((fields.get("author") or "").split()).split(" and ") if a.strip())
    return Reference(fields.get("title") or "", authors, parse_year(fields.get("year")),
                     (fields.get("booktitle") or fields.get("journal") or "").strip() or None,
                     fields.get("doi") or None, fields.get("eprint") or None, entry.entry_type or None)


def predicted_type(check: Check) -> str | None:
    """HALLMARK's type for a check that says the reference is wrong (None otherwise)."""
    if check.verdict == ANACHRONISTIC:
        return "future_date"
    if check.verdict == FABRICATED:
        return "hybrid_fabrication" if check.matched is not None else "plausible_fabrication"
    if check.verdict == TITLE_MISMATCH:
        return "chimeric_title" if check.kind == CHIMERA else "near_miss_title"
    if check.verdict != METADATA_MISMATCH:
        return None
    kinds = {(m.field, m.kind) for m in check.mismatches}
    fields = check.fields_differing()
    if ("doi", DOI_UNRESOLVED) in kinds:
        return "fabricated_doi"
    if ("venue", VENUE_NONEXISTENT) in kinds:
        return "nonexistent_venue"
    if ("venue", PREPRINT_AS_PUBLISHED) in kinds:
        return "preprint_as_published"
    if ("authors", AUTHORS_PLACEHOLDER) in kinds:
        return "placeholder_authors"
    if ("authors", AUTHORS_PARTIAL) in kinds:
        return "partial_author_list"
    if "authors" in fields:
        return "merged_citation" if ("year" in fields or "venue" in fields) else "swapped_authors"
    if "year" in fields or "arxiv_id" in fields:
        return "arxiv_version_mismatch"
    if "venue" in fields:
        return "wrong_venue"
    return "fabricated_doi" if "doi" in fields else None


def subtests(check: Check) -> dict[str, bool | None]:
    """HALLMARK's sub-tests as the check answers them (None: not tested)."""
    fields = set(check.fields_differing())
    matched = check.matched is not None and check.verdict in (VERIFIED, METADATA_MISMATCH, ANACHRONISTIC)
    decided = check.verdict != UNRESOLVED
    return {"doi_resolves": None if check.reference.doi is None else "doi" not in fields and decided,
            "title_exists": matched if decided else None,
            "authors_match": ("authors" not in fields) if matched and check.reference.authors else None,
            "venue_real": None if not check.reference.venue else not any(
                m.kind == VENUE_NONEXISTENT for m in check.mismatches),
            "fields_complete": bool(check.reference.title and check.reference.authors and check.reference.year),
            "cross_db_agreement": None}


def as_prediction(key: str, check: Check, seconds: float, api_calls: int = 0) -> HallmarkPrediction:
    """A check as a prediction in HALLMARK's format."""
    label = LABEL_OF.get(check.verdict, HALLUCINATED)
    return HallmarkPrediction(key, label, round(min(max(check.confidence, 0.0), 1.0), 4),
                              f"{check.verdict}: {check.why}", subtests(check), check.sources, round(seconds, 6),
                              api_calls, predicted_type(check) if label == HALLUCINATED else None)


def record_in_snapshot(entry: HallmarkEntry, index: RecordIndex) -> bool:
    """Whether the work an entry is about is in the snapshot: its title or DOI is there, or it was made by
    perturbing an entry of HALLMARK's valid pool (which the snapshot is built from). Decided from the data alone,
    not from the checker."""
    if entry.generation_method == "perturbation" and entry.hallucinated:
        return True
    key = normalize_reference_title(entry.fields.get("title"))
    doi = normalize_doi(entry.fields.get("doi"))
    return bool(key and key in index.titles.by_key) or bool(doi and doi in index.by_doi and entry.label == VALID)


@dataclass(frozen=True)
class CheckedSplit:
    """A split checked: each entry's check and prediction, in order, and the time taken."""

    entries: tuple[HallmarkEntry, ...]
    checks: tuple[Check, ...]
    predictions: tuple[HallmarkPrediction, ...]
    seconds: float


def check_split(entries: Sequence[HallmarkEntry], checker: ReferenceChecker) -> CheckedSplit:
    """Every entry checked (one batch: the title lookups are vectorised), as predictions."""
    references = [entry_reference(e) for e in entries]
    started = time.perf_counter()
    checks = checker.check(references)
    seconds = time.perf_counter() - started
    each = seconds / max(len(entries), 1)
    predictions = tuple(as_prediction(e.key, c, each) for e, c in zip(entries, checks))
    return CheckedSplit(tuple(entries), tuple(checks), predictions, seconds)


__all__ = ["EXPECTED_VERDICT", "LABEL_OF", "CheckedSplit", "as_prediction", "check_split", "entry_reference",
           "predicted_type", "record_in_snapshot", "subtests"]
