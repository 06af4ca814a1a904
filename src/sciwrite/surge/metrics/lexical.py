"""SurGE's content overlap with the expert survey: ROUGE-1/2/L and BLEU of each generated paragraph, averaged.

Definition from SurGE (Su et al. 2025, arXiv 2508.15658; oneal2000/SurGE src/rougeBleuFuncs.py
``calculate_average_rouge_bleu`` and ``eval_rougeBleu``): for each generated paragraph, the best ROUGE F-measure over
the expert survey's sections (`rouge_score` tokens with Porter stemming, ``scorer.score(paragraph, section)``), and
its sentence BLEU (`sacrebleu.sentence_bleu`, defaults: 13a tokens, exp smoothing, effective order) against ALL
expert sections at once as multiple references; each of the four is then averaged with `statistics.mean`.

Choices:

- The numbers are rouge_score's, computed faster: each distinct text is tokenized once with rouge_score's own
  tokenizer, ROUGE-1/2 use rouge_score's n-gram counting formula, and ROUGE-L uses the exact bit-parallel LCS of
  `sciwrite.metrics.lexical` (rouge_score's table is quadratic in pure Python, and every paragraph meets every
  section). The tests check equality with `rouge_score.RougeScorer` itself.
- BLEU is reported on a 0-1 scale (sacrebleu's 0-100 score times `BLEU_SCALE`), like the ROUGE scores.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sciwrite.metrics.lexical import rouge_l, rouge_tokens

#: Upstream's sacrebleu score is 0-100; we report BLEU on 0-1 (set to 1.0 to get upstream's scale back).
BLEU_SCALE = 0.01
#: Upstream's threshold: a section (expert or generated) takes part only if its text has at least 100 characters.
MIN_CONTENT_CHARS = 100


@dataclass(frozen=True)
class LexicalScores:
    """Mean best-section ROUGE F-measures and mean multi-reference sentence BLEU (0-1, see `BLEU_SCALE`)."""

    rouge1: float
    rouge2: float
    rouge_l: float
    bleu: float


def expert_sections(structure: Iterable[Mapping[str, str]]) -> list[str]:
    """The expert survey's section contents of at least `MIN_CONTENT_CHARS` characters, in structure order
    (upstream's ``target_content``; the root section is not excluded, as upstream)."""
    return [section["content"] for section in structure if len(section["content"]) >= MIN_CONTENT_CHARS]


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _ngram_f(target: Counter[tuple[str, ...]], prediction: Counter[tuple[str, ...]]) -> float:
    """rouge_score's n-gram F-measure: clipped overlap over each side's n-gram count (at least 1)."""
    small, large = (target, prediction) if len(target) <= len(prediction) else (prediction, target)
    overlap = sum(min(count, large[gram]) for gram, count in small.items() if gram in large)
    precision = overlap / max(prediction.total(), 1)
    recall = overlap / max(target.total(), 1)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def surge_rouge_bleu(generated_paragraphs: Sequence[str], expert_sections: Sequence[str]) -> LexicalScores | None:
    """SurGE's ROUGE-1/2/L and BLEU of the generated paragraphs (upstream: the generated survey's section texts of
    at least 100 characters) against the expert sections (`expert_sections`). None when either list is empty:
    upstream raises then (`statistics.mean` of no paragraph; `sacrebleu.sentence_bleu` with no reference)."""
    if not generated_paragraphs or not expert_sections:
        return None
    import sacrebleu

    references = list(expert_sections)
    tokens = {text: rouge_tokens(text) for text in (*generated_paragraphs, *references)}
    grams = {text: (_ngrams(toks, 1), _ngrams(toks, 2)) for text, toks in tokens.items()}
    rouge1, rouge2, rouge_ls, bleus = [], [], [], []
    for paragraph in generated_paragraphs:
        best1 = best2 = best_l = 0.0
        for section in references:
            # rouge_score's scorer.score(target=paragraph, prediction=section), as upstream calls it.
            best1 = max(best1, _ngram_f(grams[paragraph][0], grams[section][0]))
            best2 = max(best2, _ngram_f(grams[paragraph][1], grams[section][1]))
            best_l = max(best_l, rouge_l(tokens[section], tokens[paragraph])[2])
        rouge1.append(best1)
        rouge2.append(best2)
        rouge_ls.append(best_l)
        bleus.append(sacrebleu.sentence_bleu(paragraph, references).score)
    return LexicalScores(
        rouge1=statistics.mean(rouge1),
        rouge2=statistics.mean(rouge2),
        rouge_l=statistics.mean(rouge_ls),
        bleu=statistics.mean(bleus) * BLEU_SCALE,
    )


__all__ = ["BLEU_SCALE", "MIN_CONTENT_CHARS", "LexicalScores", "expert_sections", "surge_rouge_bleu"]
