"""What is wrong with a reference: the checker's verdicts, the field-level mismatches behind them, and one check's
result with its evidence (`sciwrite.grounding.checker` decides them).

- ``verified``: a known work matches the title, and every field the reference gives agrees with it;
- ``fabricated``: no known work matches (the sources consulted answered, and none has it);
- ``metadata_mismatch``: the title names a known work, and some fields differ from it (`FieldMismatch`: authors
  replaced, partial or placeholder; the year; the venue, a venue no source names, or a preprint cited as
  published; a DOI that does not resolve or resolves to another work; an arXiv version);
- ``title_mismatch``: the title is a near miss of a known work's, or a real author list carries a title that is not
  theirs (a chimera);
- ``anachronistic``: the reference, or the work it names, is dated after the citing paper or the cutoff;
- ``unresolved``: not enough evidence, or a source could not be reached. Never reported as fabricated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sciwrite.grounding.resolver import Reference
from sciwrite.sources.bib_record import BibRecord

VERIFIED, FABRICATED, METADATA_MISMATCH = "verified", "fabricated", "metadata_mismatch"
TITLE_MISMATCH, ANACHRONISTIC, UNRESOLVED = "title_mismatch", "anachronistic", "unresolved"
#: Every verdict, in the order reports list them.
CHECK_VERDICTS = (VERIFIED, FABRICATED, METADATA_MISMATCH, TITLE_MISMATCH, ANACHRONISTIC, UNRESOLVED)
#: The verdicts that say a reference is wrong (HALLMARK's HALLUCINATED).
WRONG = frozenset({FABRICATED, METADATA_MISMATCH, TITLE_MISMATCH, ANACHRONISTIC})

# FieldMismatch kinds, by field.
AUTHORS_REPLACED, AUTHORS_PARTIAL, AUTHORS_PLACEHOLDER, AUTHORS_DIFFER = "replaced", "partial", "placeholder", "differ"
YEAR_DIFFERS = "differs"
VENUE_DIFFERS, VENUE_NONEXISTENT, PREPRINT_AS_PUBLISHED = "differs", "nonexistent", "preprint_as_published"
DOI_UNRESOLVED, DOI_OTHER_WORK, DOI_DIFFERS = "does_not_resolve", "other_work", "differs"
ARXIV_VERSION = "version"
# Title mismatch kinds.
NEAR_MISS, CHIMERA = "near_miss", "chimera"


@dataclass(frozen=True)
class FieldMismatch:
    """One field of a reference that differs from the record it names.

    Attributes:
        field: ``authors``, ``year``, ``venue``, ``doi`` or ``arxiv_id``.
        kind: How it differs (``replaced``, ``partial``, ``placeholder``, ``differ`` for authors; ``differs``,
            ``nonexistent``, ``preprint_as_published`` for a venue; ``does_not_resolve``, ``other_work``,
            ``differs`` for a DOI; ``version`` for an arXiv id).
        cited: What the reference says.
        record: What the record says (None: it says nothing).
        detail: The evidence in words.
    """

    field: str
    kind: str
    cited: str
    record: str | None
    detail: str

    def as_dict(self) -> dict[str, Any]:
        """The mismatch as a JSON object."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Check:
    """A reference's verdict, its confidence and its evidence.

    Attributes:
        reference: The reference checked.
        verdict: One of `CHECK_VERDICTS`.
        confidence: The checker's belief in the verdict's label (wrong vs right; for ``unresolved``, 0.5), in [0, 1].
        why: The evidence in words.
        matched: The record it was matched to, with its source (``matched.source``); None when none.
        title_similarity: The matched (or closest) record's title similarity, 0-1.
        mismatches: The fields that differ (``metadata_mismatch``; also listed beside other verdicts).
        kind: The title mismatch's kind (``near_miss``, ``chimera``), or why a reference is anachronistic.
        sources: The sources consulted; `unreachable` those that failed.
    """

    reference: Reference
    verdict: str
    confidence: float
    why: str
    matched: BibRecord | None = None
    title_similarity: float | None = None
    mismatches: tuple[FieldMismatch, ...] = ()
    kind: str | None = None
    sources: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = field(default=())

    @property
    def wrong(self) -> bool:
        """Whether the verdict says the reference is wrong."""
        return self.verdict in WRONG

    def fields_differing(self) -> tuple[str, ...]:
        """The fields that differ from the matched record, in order, each once."""
        return tuple(dict.fromkeys(m.field for m in self.mismatches))

    def as_dict(self) -> dict[str, Any]:
        """The check as a JSON object (per-reference rows, ``--out`` files)."""
        ref = self.reference
        return {"title": ref.title, "verdict": self.verdict, "confidence": round(self.confidence, 4), "why": self.why,
                "kind": self.kind, "fields": list(self.fields_differing()),
                "mismatches": [m.as_dict() for m in self.mismatches],
                "matched": self.matched.as_dict() if self.matched else None,
                "title_similarity": self.title_similarity, "sources": list(self.sources),
                "unreachable": list(self.unreachable)}


__all__ = ["ANACHRONISTIC", "ARXIV_VERSION", "AUTHORS_DIFFER", "AUTHORS_PARTIAL", "AUTHORS_PLACEHOLDER",
           "AUTHORS_REPLACED", "CHECK_VERDICTS", "CHIMERA", "DOI_DIFFERS", "DOI_OTHER_WORK", "DOI_UNRESOLVED",
           "FABRICATED", "METADATA_MISMATCH", "NEAR_MISS", "PREPRINT_AS_PUBLISHED", "TITLE_MISMATCH", "UNRESOLVED",
           "VENUE_DIFFERS", "VENUE_NONEXISTENT", "VERIFIED", "WRONG", "YEAR_DIFFERS", "Check", "FieldMismatch"]
