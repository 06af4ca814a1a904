r"""A memorisation signal per paper: how much of a prediction repeats the reference text word for word where the
model's inputs could not have taught it.

For each paper: the share, in [0, 1], of the prediction's word 8-grams (every position counted) that occur in the
reference text but in none of the inputs the model was given (`memorisation`), and the longest run of the
prediction's words covered by such 8-grams (`memorised_span_words`). A model that recites a related-work section or
an introduction it read in training scores near 1; one that writes from its inputs, or copies from them (the
extractive floor), near 0, since an 8-gram copied from an input is in an input.

Words are lower-cased runs of letters and digits (``\w+``), with numeric citation markers (``[3]``, ``[1, 2]``)
removed first, so renumbered markers neither make nor break a match. Written by hand because no library we use
offers "n-grams of A found in B but not in C" with the covered spans; it is set arithmetic over tuples.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from statistics import median
from typing import Any

from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import Interval, MemorisationSummary, Summary
from sciwrite.stats import mean_interval

N = 8
KEYS = ("memorisation", "memorised_span_words")
_MARKER = re.compile(r"\[\d+(?:\s*[,;–-]\s*\d+)*\]")
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The lower-cased words of `text`, citation markers removed."""
    return _WORD.findall(_MARKER.sub(" ", text or "").lower())


def ngrams(tokens: Sequence[str], n: int = N) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def memorisation(prediction: str, reference: str, inputs: Iterable[str], n: int = N) -> dict[str, Any]:
    """``{"memorisation": share or None, "memorised_span_words": int}`` for one paper (see the module docstring);
    the share is None when the prediction has fewer than `n` words."""
    tokens = words(prediction)
    if len(tokens) < n:
        return {"memorisation": None, "memorised_span_words": 0}
    in_reference = ngrams(words(reference), n)
    in_inputs: set[tuple[str, ...]] = set()
    for text in inputs:
        in_inputs |= ngrams(words(text), n)
    recalled = in_reference - in_inputs
    starts = [tuple(tokens[i:i + n]) in recalled for i in range(len(tokens) - n + 1)]
    covered = [False] * len(tokens)
    for i, hit in enumerate(starts):
        if hit:
            covered[i:i + n] = [True] * n
    longest = run = 0
    for flag in covered:
        run = run + 1 if flag else 0
        longest = max(longest, run)
    return {"memorisation": sum(starts) / len(starts), "memorised_span_words": longest}


def summarize_memorisation(rows: Sequence[PaperRow], n_resamples: int = 1000, seed: int = 0,
                           top: int = 5) -> MemorisationSummary:
    """A system's memorisation: the mean share over papers with its bootstrap interval, the median, the longest
    span, how many papers are at least half recalled, and the `top` papers by share."""
    share_key, span_key = KEYS
    scored = [(row, share) for row in rows if (share := row.value(share_key)) is not None]
    shares = [share for _, share in scored]
    if not scored:
        return MemorisationSummary(n_papers=0, interval=Interval(None, None))
    low, high = mean_interval(shares, n_resamples, rng=seed) if n_resamples > 0 else (None, None)
    ranked = sorted(scored, key=lambda pair: (-pair[1], str(pair[0].paper_id)))[:top]
    return MemorisationSummary(
        n=N, n_papers=len(scored), mean=sum(shares) / len(shares), interval=Interval(low, high),
        median=median(shares), max_span_words=int(max(row.value(span_key) or 0 for row, _ in scored)),
        papers_at_least_half=sum(s >= 0.5 for s in shares),
        top=tuple({"paper_id": row.paper_id, share_key: share, span_key: row.value(span_key)} for row, share in ranked))


def format_memorisation(summary: Summary) -> str:
    """One line for a system's report, beside its tables (``"<system>: memorisation ..."``); "" without a signal."""
    m = summary.memorisation
    if m is None or not m.n_papers or m.mean is None or m.median is None:
        return ""
    low, high = (m.interval.low, m.interval.high) if m.interval is not None else (None, None)
    interval = f" [{low:.3f}, {high:.3f}]" if low is not None else ""
    return (f"{summary.system}: memorisation ({m.n}-grams of the prediction in the reference but in no input): mean "
            f"{m.mean:.3f}{interval} over {m.n_papers} papers, median {m.median:.3f}, longest span "
            f"{m.max_span_words} words, {m.papers_at_least_half} papers at least half recalled")


def print_memorisation(summaries: Sequence[Summary]) -> None:
    """Each system's `format_memorisation` line, for those that have one."""
    for summary in summaries:
        if line := format_memorisation(summary):
            print(line)


__all__ = ["KEYS", "N", "format_memorisation", "print_memorisation", "memorisation", "ngrams", "summarize_memorisation", "words"]
