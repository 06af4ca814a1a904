"""Citation frame alignment (CFA) for RWGBench: the citation contexts of a related-work section, how many carry
each of the seven MultiCite frames, and the per-paper CFA built on them. The frame classifiers themselves (a
frame head over sentence embeddings, or a multi-label transformers checkpoint) are in
`sciwrite.models.citation_frames`.

Counting unit (the paper leaves it open): one context per citation-bearing sentence, markers removed. A
sentence citing three papers is one context; a frame predicted for it counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sciwrite.metrics.text import split_sentences, strip_markers
from sciwrite.models.citation_frames import FRAMES, FrameClassifier
from sciwrite.rwgbench.metrics.formulas import citation_frame_alignment, parse_citation_markers, resolve_citations
from sciwrite.rwgbench.metrics.scorers import candidate_list, check_batch, has_candidates
from sciwrite.rwgbench.metrics.specs import CITATION_FRAME_ALIGNMENT


def citation_contexts(text: str, candidates: Sequence[str] | None = None) -> list[str]:
    """The citation contexts of a section: each sentence with at least one marker that resolves, markers removed.

    With `candidates`, a marker [i] counts when it resolves to ``candidates[i-1]``; without (a published
    reference section), every well-formed marker counts. One context per sentence, however many it cites.
    """
    contexts = []
    for sentence in split_sentences(text or ""):
        if candidates is None:
            cites = bool(parse_citation_markers(sentence))
        else:
            cites = bool(resolve_citations(sentence, candidates).doc_ids)
        if cites:
            contexts.append(strip_markers(sentence))
    return contexts


def frame_counts(predictions: Sequence[Sequence[bool]] | np.ndarray) -> dict[str, int]:
    """How many contexts carry each frame, from (n, 7) boolean rows in `FRAMES` order (all seven keys)."""
    rows = np.asarray(predictions, dtype=bool).reshape(-1, len(FRAMES))
    return {frame: int(n) for frame, n in zip(FRAMES, rows.sum(axis=0))}


def score_citation_frame_alignment(predictions: Sequence[str], references: Sequence[str],
                                   candidates: Sequence[Sequence[str]] | None, classifier: FrameClassifier,
                                   reference_citations: Sequence[Sequence[str]] | None = None,
                                   batch_size: int = 64) -> list[dict[str, Any]]:
    """Per paper: CFA between the frame counts of the generated and the reference section's citation contexts.

    Generated markers resolve through `candidates`; reference markers through `reference_citations` when
    given, else every well-formed marker counts. A prediction without a candidate list (Direct) has its
    contexts counted from every well-formed marker, as a published section's are (the paper reports CFA for
    Direct); with a list, an empty-citation output (no marker resolves) scores 0.
    All distinct contexts of the batch, both sides, go through the classifier in one batched call.
    """
    candidates = check_batch(predictions, references, candidates)
    for i, text in enumerate(references):
        if not isinstance(text, str):
            raise ValueError(f"record {i}: field 'references' must be a string, got {type(text).__name__}")
    if reference_citations is not None and len(reference_citations) != len(references):
        raise ValueError(f"references ({len(references)}) and reference_citations ({len(reference_citations)}) "
                         "must have the same length")
    resolved = [resolve_citations(text, candidate_list(cands)) for text, cands in zip(predictions, candidates)]
    generated = [citation_contexts(text, candidate_list(cands) if has_candidates(cands) else None)
                 for text, cands in zip(predictions, candidates)]
    published = [citation_contexts(text, None if reference_citations is None else list(reference_citations[i]))
                 for i, text in enumerate(references)]
    unique = list(dict.fromkeys(c for side in (generated, published) for contexts in side for c in contexts))
    labels = np.asarray(classifier.predict(unique, batch_size=batch_size), dtype=bool)
    if labels.shape != (len(unique), len(FRAMES)):
        raise ValueError(f"the classifier returned shape {labels.shape} for {len(unique)} contexts; "
                         f"expected ({len(unique)}, {len(FRAMES)})")
    row_of = dict(zip(unique, labels))
    rows = []
    for res, gen, ref, cands in zip(resolved, generated, published, candidates):
        gen_counts = frame_counts([row_of[c] for c in gen])
        ref_counts = frame_counts([row_of[c] for c in ref])
        empty = res.is_empty_citation_output
        zero = empty and has_candidates(cands)
        rows.append({CITATION_FRAME_ALIGNMENT.key: 0.0 if zero else citation_frame_alignment(gen_counts, ref_counts),
                     "generated_frames": gen_counts, "reference_frames": ref_counts,
                     "n_generated_contexts": len(gen), "n_reference_contexts": len(ref),
                     "empty_citation_output": empty, "unresolved_markers": res.n_unresolved})
    return rows
