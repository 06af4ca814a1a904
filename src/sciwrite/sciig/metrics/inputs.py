"""Input checks shared by the SciIG keyphrase, entailment, QA and judge scorers: errors name the record and field.

A SciIG paper is scored from four aligned lists: the generated introduction (``predictions``), the reference
introduction (``references``) and the sources, ``titles`` and ``abstracts``. A generation that is empty or longer
than `MAX_WORDS` words is an error rather than a silent score: an introduction runs to about 1,000 words, so
20,000 words is a runaway generation that would dominate the NLI / QA cost of the whole batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MAX_WORDS = 20_000


def check_same_length(**fields: Sequence[Any] | None) -> int:
    """All given (non-None) lists have one length, returned; otherwise a ValueError naming every field's length."""
    given = {name: values for name, values in fields.items() if values is not None}
    lengths = {name: len(values) for name, values in given.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{name} ({n})" for name, n in lengths.items())
        raise ValueError(f"{listed} must have the same length: one entry per paper")
    return next(iter(lengths.values()), 0)


def check_texts(field: str, texts: Sequence[Any], *, allow_empty: bool = False, max_words: int = MAX_WORDS) -> None:
    """Each entry is a string, non-empty unless `allow_empty`, and at most `max_words` words."""
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValueError(f"record {i}: field '{field}' must be a string, got {type(text).__name__}")
        if not allow_empty and not text.strip():
            raise ValueError(f"record {i}: field '{field}' is empty")
        n_words = len(text.split())
        if n_words > max_words:
            raise ValueError(f"record {i}: field '{field}' has {n_words} words, more than the {max_words} allowed "
                             "(an introduction runs to about 1,000); truncate or drop this record")


def check_sciig_inputs(predictions: Sequence[Any], references: Sequence[Any] | None = None,
                       titles: Sequence[Any] | None = None, abstracts: Sequence[Any] | None = None) -> int:
    """Aligned lengths and well-formed texts for the fields a scorer uses; titles may be empty, nothing else."""
    n = check_same_length(predictions=predictions, references=references, titles=titles, abstracts=abstracts)
    check_texts("predictions", predictions)
    if references is not None:
        check_texts("references", references)
    if titles is not None:
        check_texts("titles", titles, allow_empty=True)
    if abstracts is not None:
        check_texts("abstracts", abstracts)
    return n


def faithfulness_context(title: str | None, abstract: str, cited: Sequence[str] | None = None) -> str:
    """The source of the faithfulness metrics (QA-based and entailment-based): title + abstract + the cited works
    (one paragraph each), as §4.2 and Appendix A define it ("title, abstract, and cited papers")."""
    parts = [source_text(title, abstract), *(c.strip() for c in (cited or []) if c and c.strip())]
    return "\n\n".join(parts)


def source_text(title: str | None, abstract: str) -> str:
    """Title + abstract as one source document: the title is its own paragraph (and so its own sentence)."""
    title = (title or "").strip()
    return f"{title}\n\n{abstract.strip()}" if title else abstract.strip()
