"""The reference checker (`sciwrite.grounding.checker`) over a benchmark's corpus, as the shared grounding
(`sciwrite.grounding.scoring`) runs it beside the resolver.

A benchmark's corpus is the universe its systems cite from, so the checker takes it as a closed world
(``RecordIndex.from_corpus(corpus, complete=True)``): a title no corpus paper has (nor a near miss of one) is
``fabricated`` there, which says "not in this benchmark's corpus", not "exists nowhere"; asking beyond the corpus is
the optional online second opinion's job (`sciwrite.grounding.online`), which stays as it is. The corpus holds titles,
authors and years only, so venues and identifiers are not compared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.record_index import RecordIndex
from sciwrite.grounding.resolver import Reference
from sciwrite.grounding.taxonomy import VERIFIED, Check
from sciwrite.sources.bib_record import BibRecord

#: How verdicts name the corpus (`RecordIndex.from_corpus`'s default).
CORPUS = "corpus"
#: What a summary's ``checker`` says of the checker's verdict rates.
CLOSED_WORLD_NOTE = ("offline, the benchmark's corpus as the closed world its systems cite from: a title no corpus "
                     "paper has is fabricated there (not in the corpus, whatever exists elsewhere)")


def lazy_checker(corpus: Any) -> Callable[[], ReferenceChecker]:
    """A checker over `corpus`'s records as a closed world, built at its first call and reused after: like
    `sciwrite.grounding.resolver.lazy_resolver`, a run whose predictions list no reference never indexes the
    corpus, and a run indexes it once however many systems it scores."""
    built: list[ReferenceChecker] = []

    def checker() -> ReferenceChecker:
        if not built:
            built.append(ReferenceChecker(RecordIndex.from_corpus(corpus, name=CORPUS, complete=True)))
        return built[0]

    return checker


def cutoff_year(year: Any) -> int | None:
    """A target paper's year as a reference's cutoff (a later reference is anachronistic): a positive whole
    number, or one written as digits; None (the checker's default, this year) for anything else."""
    if isinstance(year, str) and year.strip().isdigit():
        year = int(year)
    return year if isinstance(year, int) and not isinstance(year, bool) and year > 0 else None


def check_fields(check: Check) -> dict[str, Any]:
    """A check as a per-reference row holds it (``check``): `Check.as_dict` without the title the row already
    has."""
    fields = check.as_dict()
    fields.pop("title", None)
    return fields


def verified_by_construction(doc_id: str, title: str, why: str) -> dict[str, Any]:
    """The ``check`` of a reference that is a corpus paper by construction (a candidate a generator was given, cited
    by its doc_id): ``verified``, matched to that paper, with `why`, without running the checker (as the resolver's
    ``found`` of such a reference is)."""
    return check_fields(Check(Reference(title), VERIFIED, 1.0, why, BibRecord(CORPUS, doc_id, title), 1.0,
                              sources=(CORPUS,)))


__all__ = ["CLOSED_WORLD_NOTE", "CORPUS", "check_fields", "cutoff_year", "lazy_checker", "verified_by_construction"]
