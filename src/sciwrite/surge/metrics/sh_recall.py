"""SurGE's SH-Recall (soft heading recall): how much of the expert survey's headings the generated headings cover,
with soft cardinalities over embedding cosine similarities.

Definition from SurGE (Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE src/structureFuncs.py
``soft_heading_recall``, ``eval_SHRecall``, ``calc_sim``), where the embedder is BAAI/bge-large-en-v1.5 (a
FlagEmbedding ``FlagModel``); here it is any `embed` callable. With card(T) = sum over T's rows of
1 / (row sum of T's cosine similarities):

    SH-Recall = (card(G) + card(P) - card(distinct strings of G and P)) / card(G)

G and P are taken as given (duplicates included, as upstream); only the union is made of distinct strings.

Choices: each distinct heading is embedded once, in one call of `embed` (upstream encodes G, P and the union
separately; a deterministic embedder gives the same vectors); similarities are computed in float64 (upstream's
float32 arithmetic differs by rounding only); a zero embedding raises (upstream's cosine would be NaN).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from sciwrite.surge.metrics.lexical import MIN_CONTENT_CHARS

#: Takes texts, returns their embeddings as a (texts, dim) matrix.
Embedder = Callable[[list[str]], np.ndarray]


def soft_cardinality(similarity: np.ndarray) -> float:
    """Sum over rows of 1 / row sum of a similarity matrix; a row summing to 0 adds 0 (as upstream)."""
    card = 0.0
    for row_sum in np.asarray(similarity, dtype=float).sum(axis=1):
        card += 1.0 / row_sum if row_sum != 0 else 0.0
    return card


def _cosine(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("a heading has a zero embedding: its cosine similarity is undefined")
    unit = vectors / norms
    return np.asarray(unit @ unit.T)


def soft_heading_recall(gold: Sequence[str], generated: Sequence[str], embed: Embedder) -> float:
    """SurGE's SH-Recall of the `generated` headings against the `gold` ones (`target_headings`).

    `generated` is what upstream's ``get_title_list`` gives: every heading of the generated survey in document
    order, cut to 512 characters, except those whose title contains "root" or "Abstract:".

    0 when there is no generated heading (upstream returns 0 before embedding anything) and when card(G) is 0
    (no gold heading).
    """
    if not generated or not gold:
        return 0.0
    distinct = list(dict.fromkeys((*gold, *generated)))
    vectors = np.asarray(embed(distinct), dtype=float)
    if vectors.ndim != 2 or vectors.shape[0] != len(distinct):
        raise ValueError(f"embeddings have shape {vectors.shape}, expected ({len(distinct)}, dim)")
    row = {text: index for index, text in enumerate(distinct)}
    similarity = _cosine(vectors)

    def card(texts: Sequence[str]) -> float:
        index = [row[text] for text in texts]
        return soft_cardinality(similarity[np.ix_(index, index)])

    card_gold = card(gold)
    if card_gold == 0:
        return 0.0
    return (card_gold + card(generated) - card(distinct)) / card_gold


def target_headings(structure: Iterable[Mapping[str, str]]) -> list[str]:
    """Titles of the expert survey's sections whose content has at least `MIN_CONTENT_CHARS` characters, in
    structure order (upstream's ``target_titles``). Upstream does not exclude the root section explicitly, so a
    root with 100 characters of content contributes its title "root"; kept."""
    return [section["title"] for section in structure if len(section["content"]) >= MIN_CONTENT_CHARS]


__all__ = ["Embedder", "soft_cardinality", "soft_heading_recall", "target_headings"]
