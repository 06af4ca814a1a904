"""SciIG keyphrase metrics: one extraction and one matching procedure behind four scores.

Extraction: KeyBERT, top `TOP_N` = 5 phrases of 1-3 words (``keyphrase_ngram_range=(1, 3)``, English stop words,
plain cosine ranking: no MMR / MaxSum), on the ``keyphrase_encoder`` role (all-MiniLM-L6-v2, loaded by
`sciwrite.models.encoders.keyphrase_encoder_for_profile`). Every document of a
chunk of papers (generations, references, title + abstract sources; duplicates once) is embedded in one batched
pass, and so is the chunk's whole candidate vocabulary (in large batches of these short phrases); each document's
candidates are then ranked as KeyBERT ranks them (`extract_keyphrases` re-does its cosine selection on these
embeddings, for speed), so the encoder never runs per paper. Chunks (`DOCS_PER_CHUNK`) only bound memory: a
document's phrases do not depend on which chunk it is in.

Matching: phrases ``a`` and ``b`` match when any of these holds, tried in this order and logged by the first:
- ``stem``: identical sequences of Porter stems of their lower-cased word tokens (``neural networks`` ~
  ``neural network``);
- ``partial``: partial token overlap, as the SciIG README states it (no bound): their sets of stemmed tokens
  share at least one stem (``network`` ~ ``neural network`` ~ ``network pruning``). ``partial_min_jaccard``
  (our former rule: 0.5, `FORMER_PARTIAL_MIN_JACCARD`) also asks |A ∩ B| / |A ∪ B| >= that bound (then not
  ``neural network`` ~ ``network pruning``, 1/3); ``scripts/bench/keyphrase_partial_overlap.py`` shows what the
  bound changes on the sample;
- ``cosine``: Sentence-BERT cosine of their embeddings (the same encoder) >= `COSINE_THRESHOLD` = 0.7.

Scores per paper (G = generation's phrases, R = reference introduction's, S = title + abstract's):
- reference-based coverage  = |{r in R matched by some g in G}| / |R|
- reference-free coverage   = |{s in S matched by some g in G}| / |S|
- faithfulness              = |{g in G matched by some s in S}| / |G|
- consistency               = |{g in G matched by some r in R}| / |G|
A score whose denominator set is empty (a text with no phrase outside the stop words) is 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from sciwrite.models.encoders import embed, embedding_dimension
from sciwrite.sciig.metrics.inputs import check_sciig_inputs, source_text
from sciwrite.sciig.metrics.specs import (
    KEYPHRASE_CONSISTENCY,
    KEYPHRASE_COVERAGE_FREE,
    KEYPHRASE_COVERAGE_REF,
    KEYPHRASE_FAITHFULNESS,
)

TOP_N = 5
NGRAM_RANGE = (1, 3)
STOP_WORDS = "english"
COSINE_THRESHOLD = 0.7
#: The README's rule: any shared stem is a partial overlap (None: no Jaccard bound).
PARTIAL_OVERLAP_MIN_JACCARD: float | None = None
#: The bound sciwrite used before 2026-12-02 (not the paper's), kept as an option.
FORMER_PARTIAL_MIN_JACCARD = 0.5
DOCS_PER_CHUNK = 256
#: Candidate phrases (~5 tokens each) per encoder batch, within the token budget of `sciwrite.models.encoders.embed`: on
#: 2 CPU cores batches of ~400 phrases ran ~2x faster than batches of 64.
PHRASES_PER_BATCH = 4096
CRITERIA = ("stem", "partial", "cosine")
#: Decimals of the ``cosine`` written in each ``keyphrase_log`` entry (a diagnostic; the scores use the full value).
LOG_COSINE_DECIMALS = 4
# score name -> (the set divided by, the set searched for a match); G generation, R reference, S source
SCORES = {
    KEYPHRASE_COVERAGE_REF.key: ("reference", "generation"),
    KEYPHRASE_COVERAGE_FREE.key: ("source", "generation"),
    KEYPHRASE_FAITHFULNESS.key: ("generation", "source"),
    KEYPHRASE_CONSISTENCY.key: ("generation", "reference"),
}
_TOKEN = re.compile(r"\w\w+")  # sklearn's CountVectorizer token pattern: KeyBERT's phrases are made of these


@lru_cache(maxsize=1)
def _porter():
    from nltk.stem import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=65536)
def phrase_stems(phrase: str) -> tuple[str, ...]:
    """Porter stems of the phrase's lower-cased word tokens, in order."""
    return tuple(_porter().stem(token) for token in _TOKEN.findall(phrase.lower()))


def match_criterion(a: str, b: str, cosine: float,
                    partial_min_jaccard: float | None = PARTIAL_OVERLAP_MIN_JACCARD) -> str | None:
    """The first matching criterion that holds for phrases `a` and `b` ('stem', 'partial', 'cosine'), or None."""
    stems_a, stems_b = phrase_stems(a), phrase_stems(b)
    if stems_a and stems_a == stems_b:
        return "stem"
    set_a, set_b = set(stems_a), set(stems_b)
    shared = set_a & set_b
    if shared and (partial_min_jaccard is None or len(shared) / len(set_a | set_b) >= partial_min_jaccard):
        return "partial"
    if cosine >= COSINE_THRESHOLD:
        return "cosine"
    return None


@dataclass(frozen=True)
class Keyphrases:
    """A document's ranked phrases and their unit-length embeddings (one row per phrase)."""

    phrases: list[str]
    vectors: np.ndarray


def extract_keyphrases(texts: Sequence[str], model: Any, top_n: int = TOP_N, batch_size: int = 64,
                       docs_per_chunk: int = DOCS_PER_CHUNK, show_progress: bool = False) -> list[Keyphrases]:
    """KeyBERT's top `top_n` phrases of each text, the encoder run in batches over many texts at once.

    The selection is KeyBERT 0.9's cosine ranking (``KeyBERT.extract_keywords`` without MMR / MaxSum), re-done
    here for speed: KeyBERT, even given precomputed ``word_embeddings``, refits and re-applies its
    CountVectorizer to the chunk, and its own embedding call would batch phrases of ~5 tokens 32 at a time.
    Here the vocabulary is fitted once per chunk, all of its distinct candidate phrases are embedded in one
    `embed` call in large token-budget batches (`PHRASES_PER_BATCH`), and each document's candidates are ranked
    with the very same steps KeyBERT takes (its candidate order, sklearn's ``cosine_similarity``, the last
    `top_n` of ``argsort``), so the phrases are KeyBERT's (tests/sciig/test_keyphrases.py checks them against
    ``KeyBERT.extract_keywords`` on real introductions). `show_progress` shows the chunks and the embedding of
    their candidates (the slow part: ~1,000-2,000 phrases per paper).
    """
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    unique = list(dict.fromkeys(texts))
    found: dict[str, Keyphrases] = {}
    empty = Keyphrases([], np.zeros((0, embedding_dimension(model)), dtype=np.float32))
    starts = range(0, len(unique), docs_per_chunk)
    for start in tqdm(starts, desc="keyphrase chunks", unit="chunk", disable=not show_progress or len(starts) < 2):
        chunk = unique[start:start + docs_per_chunk]
        vectorizer = CountVectorizer(ngram_range=NGRAM_RANGE, stop_words=STOP_WORDS)
        try:  # the vectorizer KeyBERT builds from these arguments: the same vocabulary, in the same order
            counts = vectorizer.fit_transform(chunk)
            counts.sort_indices()  # then it is what KeyBERT's fit(chunk).transform(chunk) gives, entry for entry
        except ValueError:  # no word outside the stop words in the whole chunk
            found.update((text, empty) for text in chunk)
            continue
        words = list(vectorizer.get_feature_names_out())
        doc_vectors = embed(model, chunk, batch_size, show_progress=show_progress)
        word_vectors = embed(model, words, max(batch_size, PHRASES_PER_BATCH), show_progress=show_progress)
        for row, text in enumerate(chunk):
            candidates = counts[row].nonzero()[1]  # as KeyBERT: df[index].nonzero()[1]
            if not len(candidates):  # KeyBERT's ValueError branch: no candidate phrase in this document
                found[text] = empty
                continue
            cosines = cosine_similarity(doc_vectors[row].reshape(1, -1), word_vectors[candidates])
            best = candidates[cosines.argsort()[0][-top_n:][::-1]]
            found[text] = Keyphrases([words[i] for i in best], word_vectors[best])
    return [found[text] for text in texts]


def match_sets(targets: Keyphrases, pool: Keyphrases,
               partial_min_jaccard: float | None = PARTIAL_OVERLAP_MIN_JACCARD) -> list[dict[str, Any]]:
    """For each target phrase, its best match in `pool`: a stem match before a partial one before the highest
    cosine >= 0.7. Each entry: phrase, matched (None if none), criterion, cosine (to the matched phrase, or the
    best cosine in the pool when nothing matched)."""
    cosines = targets.vectors @ pool.vectors.T if len(targets.phrases) and len(pool.phrases) else None
    log = []
    for i, phrase in enumerate(targets.phrases):
        best: tuple[int, float, str | None, float] = (len(CRITERIA), 0.0, None, 0.0)
        top_cosine = None
        for j, other in enumerate(pool.phrases):
            cosine = float(cosines[i, j]) if cosines is not None else 0.0  # never None: the pool has phrases
            top_cosine = cosine if top_cosine is None else max(top_cosine, cosine)
            criterion = match_criterion(phrase, other, cosine, partial_min_jaccard)
            if criterion is None:
                continue
            rank = CRITERIA.index(criterion)
            if (rank, -cosine) < (best[0], -best[1]):
                best = (rank, cosine, other, cosine)
        rank, _, matched, cosine = best
        log.append({"phrase": phrase, "matched": matched, "criterion": CRITERIA[rank] if matched else None,
                    "cosine": round(cosine if matched else (top_cosine if top_cosine is not None else 0.0),
                                      LOG_COSINE_DECIMALS)})
    return log


def score_keyphrases(predictions: Sequence[str], references: Sequence[str], titles: Sequence[str] | None,
                     abstracts: Sequence[str], model: Any, batch_size: int = 64, show_progress: bool = False,
                     partial_min_jaccard: float | None = PARTIAL_OVERLAP_MIN_JACCARD) -> list[dict[str, Any]]:
    """Per paper: the four keyphrase scores, the three phrase lists and ``keyphrase_log`` (one entry per phrase
    and score: metric, phrase, matched, criterion, cosine), for a suite to write under ``keyphrase_outputs/``."""
    check_sciig_inputs(predictions, references, titles, abstracts)
    titles = [""] * len(predictions) if titles is None else titles
    sources = [source_text(t, a) for t, a in zip(titles, abstracts)]
    # paper by paper, so that a paper's three texts (which share many candidate phrases) fall in one chunk
    extracted = extract_keyphrases([text for texts in zip(predictions, references, sources) for text in texts],
                                   model, batch_size=batch_size, show_progress=show_progress)
    return score_extracted(extracted, partial_min_jaccard)


def score_extracted(extracted: Sequence[Keyphrases],
                    partial_min_jaccard: float | None = PARTIAL_OVERLAP_MIN_JACCARD) -> list[dict[str, Any]]:
    """`score_keyphrases`' rows from the phrases already extracted (generation, reference, source per paper)."""
    n = len(extracted) // 3
    rows = []
    for i in range(n):
        sets = {"generation": extracted[3 * i], "reference": extracted[3 * i + 1], "source": extracted[3 * i + 2]}
        row: dict[str, Any] = {}
        log: list[dict[str, Any]] = []
        for name, (divided_by, searched) in SCORES.items():
            matches = match_sets(sets[divided_by], sets[searched], partial_min_jaccard)
            row[name] = sum(m["matched"] is not None for m in matches) / len(matches) if matches else 0.0
            log.extend({"metric": name, **m} for m in matches)
        row.update(generated_keyphrases=sets["generation"].phrases, reference_keyphrases=sets["reference"].phrases,
                   source_keyphrases=sets["source"].phrases, keyphrase_log=log)
        rows.append(row)
    return rows
