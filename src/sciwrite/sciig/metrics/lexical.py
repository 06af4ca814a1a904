"""SciIG lexical overlap of a generated introduction with the reference one: ROUGE-1/2/L, BLEU and METEOR.

Texts are scored whole and as given (citation markers included: SciIG introductions cite in the same style as
their references). An empty generation scores 0; an empty reference is an error naming the record, since no
overlap can be measured against it. Long generations are never truncated: ROUGE-L uses the bit-parallel LCS of
`sciwrite.metrics.lexical`, the other scores are linear in length.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sciwrite.metrics.lexical import rouge_l_batch
from sciwrite.metrics.text import scanned
from sciwrite.sciig.metrics.inputs import check_same_length, check_texts
from sciwrite.sciig.metrics.specs import BLEU, METEOR, ROUGE1, ROUGE2, ROUGE_L


def check_reference_pairs(predictions: Sequence[Any], references: Sequence[Any]) -> None:
    """One reference per prediction; generations may be empty (they score 0), references may not. No length cap:
    these scores are cheap, and a long generation is scored whole."""
    check_same_length(predictions=predictions, references=references)
    check_texts("predictions", predictions, allow_empty=True, max_words=sys.maxsize)
    check_texts("references", references, max_words=sys.maxsize)


@lru_cache(maxsize=1)
def _ngram_scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)


def score_rouge(predictions: Sequence[str], references: Sequence[str]) -> list[dict[str, float]]:
    """Per paper: ROUGE-1, ROUGE-2 and ROUGE-L F1 as `rouge_score` computes them (its tokens, Porter stemming)."""
    check_reference_pairs(predictions, references)
    rows = []
    for prediction, reference, (_, _, rouge_l) in zip(predictions, references, rouge_l_batch(list(predictions), list(references))):
        scores = _ngram_scorer().score(reference, prediction)
        rows.append({ROUGE1.key: scores["rouge1"].fmeasure, ROUGE2.key: scores["rouge2"].fmeasure, ROUGE_L.key: rouge_l})
    return rows


def score_bleu(predictions: Sequence[str], references: Sequence[str]) -> tuple[float, list[dict[str, float]]]:
    """(corpus BLEU, per-paper rows with sentence BLEU), both by `sacrebleu` with its defaults (13a tokens,
    exponential smoothing; effective order for sentence BLEU), on sacrebleu's 0-100 scale."""
    from sacrebleu import metrics as sacrebleu_metrics

    check_reference_pairs(predictions, references)
    corpus = sacrebleu_metrics.BLEU().corpus_score(list(predictions), [list(references)]).score if predictions else 0.0
    sentence = sacrebleu_metrics.BLEU(effective_order=True)
    rows = [{BLEU.key: sentence.sentence_score(p, [r]).score} for p, r in zip(predictions, references)]
    return corpus, rows


def meteor_tokens(text: str) -> list[str]:
    """nltk's Treebank word tokens of `text`, without its punkt sentence splitter (which has no offline data)."""
    from nltk.tokenize import word_tokenize

    return scanned("word tokenizer", lambda line: word_tokenize(line, preserve_line=True), text)


def score_meteor(predictions: Sequence[str], references: Sequence[str], wordnet: Any) -> list[dict[str, float]]:
    """Per paper: nltk's METEOR (exact, Porter-stem and WordNet-synonym matches; alpha 0.9, beta 3, gamma 0.5).

    `wordnet` is a loaded nltk WordNet reader (`sciwrite.sciig.metrics.wordnet.load_wordnet`): required, so that METEOR
    is never computed without its synonym stage.
    """
    from nltk.translate.meteor_score import meteor_score

    check_reference_pairs(predictions, references)
    if wordnet is None:
        raise ValueError("METEOR needs a WordNet reader (sciwrite.sciig.metrics.wordnet.load_wordnet)")
    rows = []
    for prediction, reference in zip(predictions, references):
        hypothesis = meteor_tokens(prediction)
        score = meteor_score([meteor_tokens(reference)], hypothesis, wordnet=wordnet) if hypothesis else 0.0
        rows.append({METEOR.key: float(score)})
    return rows
