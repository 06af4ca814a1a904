"""SciIG contextual relevance: how close a generated introduction is, in embedding space, to the paper's sources.

Score of a paper = mean cosine between the embedding of the generated introduction and the embedding of each
source: the title, the abstract and every cited work's abstract (empty ones are skipped; `n_sources` says how
many counted). Embeddings are mean-pooled token states of the `contextual_encoder` role (loaded by
`sciwrite.models.encoders.contextual_encoder_for_profile`): the paper profile uses
Longformer (`allenai/longformer-base-4096`), which reads up to 4,096 tokens; the `lite` profile the packaged
all-MiniLM-L6-v2, which reads 256. A text longer than the encoder's window is cut into consecutive windows of
that many tokens (minus the two special tokens), cut at token boundaries of the original text; each window is
embedded and the text's embedding is the token-count-weighted mean of its window embeddings, L2-normalised. A
text within one window is embedded exactly as the encoder embeds it. An empty generation scores 0.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from sciwrite.models.encoders import embed, embedding_dimension
from sciwrite.sciig.metrics.inputs import check_same_length, check_texts
from sciwrite.sciig.metrics.specs import CONTEXTUAL_RELEVANCE


def text_windows(encoder: Any, text: str) -> list[tuple[str, int]]:
    """(window text, token count) of consecutive windows of at most `max_seq_length - 2` tokens of `text`."""
    if not text.strip():
        return []
    window = max(int(encoder.max_seq_length) - 2, 1)
    offsets = encoder.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)["offset_mapping"]
    return [(text[piece[0][0]:piece[-1][1]], len(piece))
            for piece in (offsets[i:i + window] for i in range(0, len(offsets), window))]


def long_text_embeddings(encoder: Any, texts: Sequence[str], batch_size: int = 64,
                         show_progress: bool = False) -> np.ndarray:
    """L2-normalised embedding of each text (zeros for an empty one), window by window as described above.
    The windows of all texts are embedded together, in `embed`'s length-sorted batches."""
    windows = [(t, piece, n) for t, text in enumerate(texts) for piece, n in text_windows(encoder, text)]
    vectors = embed(encoder, [piece for _, piece, _ in windows], batch_size, show_progress=show_progress)
    out = np.zeros((len(texts), embedding_dimension(encoder)), dtype=np.float32)
    for (t, _, n), vector in zip(windows, vectors):
        out[t] += n * vector
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def check_sources(predictions: Sequence[Any], titles: Sequence[Any], abstracts: Sequence[Any],
                  cited_abstracts: Sequence[Any]) -> None:
    """Aligned lists; a generation may be empty (it scores 0), an abstract may not; cited abstracts are lists."""
    check_same_length(predictions=predictions, titles=titles, abstracts=abstracts, cited_abstracts=cited_abstracts)
    check_texts("predictions", predictions, allow_empty=True, max_words=sys.maxsize)
    check_texts("titles", titles, allow_empty=True, max_words=sys.maxsize)
    check_texts("abstracts", abstracts, max_words=sys.maxsize)
    for i, cited in enumerate(cited_abstracts):
        if isinstance(cited, str) or not all(isinstance(a, str) for a in cited):
            raise ValueError(f"record {i}: field 'cited_abstracts' must be a list of strings (one per cited work)")


def score_contextual_relevance(predictions: Sequence[str], titles: Sequence[str], abstracts: Sequence[str],
                               cited_abstracts: Sequence[Sequence[str]], encoder: Any,
                               batch_size: int = 64, show_progress: bool = False) -> list[dict[str, Any]]:
    """Per paper: mean cosine of the generation with its title, abstract and cited abstracts; each distinct text
    of the batch is embedded once."""
    check_sources(predictions, titles, abstracts, cited_abstracts)
    sources = [[s for s in (title, abstract, *cited) if s.strip()]
               for title, abstract, cited in zip(titles, abstracts, cited_abstracts)]
    unique = list(dict.fromkeys([*predictions, *(s for group in sources for s in group)]))
    vector_of = dict(zip(unique, long_text_embeddings(encoder, unique, batch_size, show_progress)))
    rows = []
    for prediction, group in zip(predictions, sources):
        sims = [float(vector_of[prediction] @ vector_of[s]) for s in group]
        rows.append({CONTEXTUAL_RELEVANCE.key: sum(sims) / len(sims), "n_sources": len(sims)})
    return rows
