"""Citation grounding, shared by both benchmarks: does a generated reference name a paper that exists?

A free-form reference (a title, optionally with authors and a year) is normalised (`normalize`), its candidates are
found in a title index over a corpus (`index`), and rapidfuzz scores them with the surnames and the year as evidence
(`resolver`): each reference gets a verdict, ``found`` (with its doc_id), ``ambiguous`` or ``not_found``, and the
evidence behind it. The threshold is calibrated on the corpus itself (`calibration`). What the corpus lacks can be
looked up on Semantic Scholar or OpenAlex (`online`), for a fourth verdict, ``exists_outside_corpus``; the default is
offline, corpus only. A system's lists become per-paper rows and a summary in `scoring`.
"""

from sciwrite.grounding.index import TitleIndex
from sciwrite.grounding.normalize import normalize_reference_title
from sciwrite.grounding.resolver import (
    AMBIGUOUS,
    EXISTS_OUTSIDE_CORPUS,
    FOUND,
    NOT_FOUND,
    Candidate,
    Reference,
    ReferenceResolver,
    Verdict,
)

__all__ = ["AMBIGUOUS", "EXISTS_OUTSIDE_CORPUS", "FOUND", "NOT_FOUND", "Candidate", "Reference", "ReferenceResolver", "TitleIndex", "Verdict",
           "normalize_reference_title"]
