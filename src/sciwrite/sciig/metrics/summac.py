"""SummaC-ZS (Laban et al., TACL 2022), implemented in sciwrite: entailment-based faithfulness and consistency.

For a source document and a generated text, both split into sentences (`split_sentences`): an NLI model scores
every (source sentence = premise, generated sentence = hypothesis) pair; each generated sentence gets the maximum
over source sentences of P(entailment) - P(contradiction); the text's score is the mean over its sentences, in
[-1, 1]. This is SummaC-ZS at sentence granularity with both entailment and contradiction used and the default
max / mean reductions. SciIG reads it twice: faithfulness (source = title + abstract + the cited works, as §4.2
defines it: "its source context (i.e., title, abstract, and cited papers)") and consistency (source = the
reference introduction). A long source is not truncated: every one of its sentences is a premise (the cited works'
abstracts add their sentences), each pair is one NLI input cut to the model's maximum length (premise first), and a
generated sentence takes its maximum over all of them, so more source can only raise a sentence's score.

The `summac` package itself cannot be installed next to transformers 5 (it pins huggingface-hub<=0.17), so the
algorithm lives here on top of `sciwrite.models.nli.NLIModel`: every distinct pair of a batch of papers goes
through one batched `probabilities` call. The NLI model (the `summac_nli` role) is loaded by
`sciwrite.models.nli.load_summac_nli` / `summac_nli_for_profile`, which read its label columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sciwrite.metrics.text import split_sentences
from sciwrite.models.nli import NLIModel
from sciwrite.sciig.metrics.inputs import check_sciig_inputs, faithfulness_context
from sciwrite.sciig.metrics.specs import SUMMAC_CONSISTENCY, SUMMAC_FAITHFULNESS


def summac_zs_score(probabilities: np.ndarray) -> tuple[float, np.ndarray]:
    """SummaC-ZS from a (source sentences, generated sentences, 3) array of P(entail, neutral, contradict):
    the mean over generated sentences of the max over source sentences of P(entail) - P(contradict); also the
    per-generated-sentence scores."""
    per_sentence = (probabilities[..., 0] - probabilities[..., 2]).max(axis=0)
    return float(per_sentence.mean()), per_sentence


def summac_zs_batch(jobs: Sequence[tuple[str, str]], nli: NLIModel, batch_size: int = 32) -> list[dict[str, Any]]:
    """SummaC-ZS of each (source, generation) job: one batched NLI call over all distinct sentence pairs.

    Each result: ``score``, ``sentence_scores`` (per generated sentence), ``best_source_sentence`` (index of the
    source sentence that gave each maximum), ``source_sentences``, ``generated_sentences``."""
    split = [(split_sentences(source), split_sentences(generation)) for source, generation in jobs]
    pair_index: dict[tuple[str, str], int] = {}
    for sources, generated in split:
        for premise in sources:
            for hypothesis in generated:
                pair_index.setdefault((premise, hypothesis), len(pair_index))
    pairs = list(pair_index)
    probs = nli.probabilities([p for p, _ in pairs], [h for _, h in pairs], batch_size)
    results = []
    for sources, generated in split:
        if not sources or not generated:  # only possible for text without any sentence (checked upstream)
            results.append({"score": 0.0, "sentence_scores": [], "best_source_sentence": [],
                            "source_sentences": len(sources), "generated_sentences": len(generated)})
            continue
        rows = np.array([[pair_index[(p, h)] for h in generated] for p in sources])
        matrix = probs[rows]  # (source sentences, generated sentences, 3)
        score, per_sentence = summac_zs_score(matrix)
        best = (matrix[..., 0] - matrix[..., 2]).argmax(axis=0)
        results.append({"score": score, "sentence_scores": [round(float(s), 6) for s in per_sentence],
                        "best_source_sentence": [int(b) for b in best],
                        "source_sentences": len(sources), "generated_sentences": len(generated)})
    return results


def score_summac(predictions: Sequence[str], references: Sequence[str], titles: Sequence[str] | None,
                 abstracts: Sequence[str], nli: NLIModel, batch_size: int = 32,
                 cited: Sequence[Sequence[str]] | None = None) -> list[dict[str, Any]]:
    """Per paper: ``summac_faithfulness`` (source = title + abstract + the `cited` works, §4.2),
    ``summac_consistency`` (source = reference introduction), both in [-1, 1], with the per-sentence scores of
    each. One NLI pass for the whole batch."""
    n = check_sciig_inputs(predictions, references, titles, abstracts)
    if cited is not None and len(cited) != n:
        raise ValueError(f"cited ({len(cited)}) and predictions ({n}) must have the same length")
    titles = [""] * n if titles is None else titles
    sources = [faithfulness_context(t, a, cited[i] if cited is not None else None)
               for i, (t, a) in enumerate(zip(titles, abstracts))]
    jobs = [*zip(sources, predictions), *zip(references, predictions)]
    results = summac_zs_batch(jobs, nli, batch_size)
    rows = []
    for i in range(n):
        faith, consist = results[i], results[n + i]
        rows.append({SUMMAC_FAITHFULNESS.key: faith["score"], SUMMAC_CONSISTENCY.key: consist["score"],
                     "generated_sentences": faith["generated_sentences"],
                     "faithfulness_sentence_scores": faith["sentence_scores"],
                     "consistency_sentence_scores": consist["sentence_scores"]})
    return rows
