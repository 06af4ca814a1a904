"""RWGBench scores over a batch of predictions, with the per-paper diagnostics the suite reports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from sciwrite.metrics.bertscore import bertscore
from sciwrite.metrics.lexical import rouge_l_batch
from sciwrite.metrics.summary import check_pairs
from sciwrite.metrics.text import content_blocks, split_sentences, strip_markers
from sciwrite.models.encoders import embed
from sciwrite.retrieval.query import document_text
from sciwrite.rwgbench.metrics.formulas import (
    citation_counts,
    citation_density,
    citation_distribution_balance,
    citation_precision_recall,
    positioning_structure_similarity,
    resolve_citations,
    soft_citation_recall,
)


def check_batch(predictions: Sequence[str], references: Sequence[Any], candidates: Sequence[Sequence[str]] | None) -> None:
    """Lists of unequal length, or a missing candidate list, name the problem instead of misaligning papers."""
    if candidates is None:
        raise ValueError("`candidates` is required: for each prediction, the ordered doc_ids its markers [i] index into")
    if not len(predictions) == len(references) == len(candidates):
        raise ValueError(f"predictions ({len(predictions)}), references ({len(references)}) and candidates "
                         f"({len(candidates)}) must have the same length")
    for i, text in enumerate(predictions):
        if not isinstance(text, str):
            raise ValueError(f"record {i}: field 'predictions' must be a string, got {type(text).__name__}")


def score_citation_precision_recall(predictions: Sequence[str], references: Sequence[Sequence[str]],
                                    candidates: Sequence[Sequence[str]] | None) -> list[dict[str, Any]]:
    """Per paper: resolve the markers through the candidates and score the cited set against the gold set."""
    check_batch(predictions, references, candidates)
    rows = []
    for i, (text, gold, cands) in enumerate(zip(predictions, references, candidates)):
        if not gold:
            raise ValueError(f"record {i}: field 'references' is empty; citation recall needs gold citations")
        resolved = resolve_citations(text, list(cands))
        precision, recall = citation_precision_recall(resolved.unique_ids, gold)
        rows.append({"precision": precision, "recall": recall,
                     "empty_citation_output": resolved.is_empty_citation_output,
                     "n_cited": len(resolved.unique_ids), "unresolved_markers": resolved.n_unresolved})
    return rows


def score_citation_distribution_balance(predictions: Sequence[str],
                                        candidates: Sequence[Sequence[str]] | None) -> list[dict[str, Any]]:
    """Per paper: the share of its cited papers cited exactly once (0 for an empty-citation output)."""
    check_batch(predictions, predictions, candidates)
    rows = []
    for text, cands in zip(predictions, candidates):
        resolved = resolve_citations(text, list(cands))
        counts = citation_counts(resolved.doc_ids)
        rows.append({"citation_distribution_balance": citation_distribution_balance(counts),
                     "n_cited": len(counts), "cited_once": sum(1 for c in counts.values() if c == 1),
                     "empty_citation_output": resolved.is_empty_citation_output,
                     "unresolved_markers": resolved.n_unresolved})
    return rows


def corpus_texts(corpus: Mapping[str, str] | Any, doc_ids: Iterable[str]) -> dict[str, str]:
    """Title + abstract of each of `doc_ids`, from a doc_id -> text mapping or a corpus `Dataset`.

    A doc_id the corpus does not hold is an error that names it.
    """
    wanted = list(dict.fromkeys(doc_ids))
    if isinstance(corpus, Mapping):
        missing = [d for d in wanted if d not in corpus]
        found = {d: corpus[d] for d in wanted if d in corpus}
    else:
        row_of = {doc_id: i for i, doc_id in enumerate(corpus["doc_id"])}
        missing = [d for d in wanted if d not in row_of]
        rows = corpus.select([row_of[d] for d in wanted if d in row_of])
        found = {r["doc_id"]: document_text(r) for r in rows}
    if missing:
        raise ValueError(f"{len(missing)} cited doc_id(s) are not in the corpus, e.g. {missing[:5]}")
    return found


def score_topical_relevance(predictions: Sequence[str], target_abstracts: Sequence[str],
                            candidates: Sequence[Sequence[str]] | None, corpus: Mapping[str, str] | Any,
                            model: Any, batch_size: int = 64) -> list[dict[str, Any]]:
    """Per paper: mean cosine between the target's abstract and each distinct cited paper (title + abstract).

    Every text is embedded once for the whole batch. An empty-citation output scores 0.
    """
    check_batch(predictions, target_abstracts, candidates)
    for i, abstract in enumerate(target_abstracts):
        if not isinstance(abstract, str) or not abstract.strip():
            raise ValueError(f"record {i}: field 'references' (the target paper's abstract) is empty")
    resolved = [resolve_citations(text, list(cands)) for text, cands in zip(predictions, candidates)]
    texts = corpus_texts(corpus, (d for r in resolved for d in r.unique_ids))
    cited_ids = list(texts)
    cited = dict(zip(cited_ids, embed(model, [texts[d] for d in cited_ids], batch_size)))
    targets = embed(model, list(target_abstracts), batch_size)
    rows = []
    for target, r in zip(targets, resolved):
        sims = [float(cited[d] @ target) for d in r.unique_ids]
        rows.append({"topical_relevance": sum(sims) / len(sims) if sims else 0.0, "n_cited": len(sims),
                     "empty_citation_output": r.is_empty_citation_output, "unresolved_markers": r.n_unresolved})
    return rows


def score_positioning_structure(predictions: Sequence[str], references: Sequence[str], model: Any,
                                batch_size: int = 64) -> list[dict[str, Any]]:
    """Per paper: soft-LCS similarity of the generated and reference block sequences (block embeddings' cosines)."""
    check_pairs(predictions, references)
    for field_name, texts in (("predictions", predictions), ("references", references)):
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValueError(f"record {i}: field '{field_name}' must be a string, got {type(text).__name__}")
    blocks = [(content_blocks(p), content_blocks(r)) for p, r in zip(predictions, references)]
    unique = list(dict.fromkeys(b for pair in blocks for side in pair for b in side))
    vector_of = dict(zip(unique, embed(model, unique, batch_size)))
    rows = []
    for gen, ref in blocks:
        sim = [[float(vector_of[g] @ vector_of[r]) for r in ref] for g in gen]
        rows.append({"positioning_structure_similarity": positioning_structure_similarity(np.array(sim).reshape(len(gen), len(ref))),
                     "generated_blocks": len(gen), "reference_blocks": len(ref)})
    return rows


def score_citation_density(predictions: Sequence[str], candidates: Sequence[Sequence[str]] | None) -> list[dict[str, Any]]:
    """Per paper: distinct resolved citations per sentence (sentences by `split_sentences`)."""
    check_batch(predictions, predictions, candidates)
    rows = []
    for text, cands in zip(predictions, candidates):
        resolved = resolve_citations(text, list(cands))
        n_sentences = len(split_sentences(text))
        rows.append({"citation_density": citation_density(len(resolved.unique_ids), n_sentences),
                     "n_cited": len(resolved.unique_ids), "n_sentences": n_sentences,
                     "empty_citation_output": resolved.is_empty_citation_output,
                     "unresolved_markers": resolved.n_unresolved})
    return rows


def score_soft_citation_recall(predictions: Sequence[str], references: Sequence[Sequence[str]],
                               candidates: Sequence[Sequence[str]] | None, corpus: Mapping[str, str] | Any,
                               nli: Any, batch_size: int = 32) -> list[dict[str, Any]]:
    """Per paper: mean over gold papers r of max over cited papers g of P(entail) + 0.5 P(neutral) (g => r).

    Each distinct (generated, reference) pair of the batch goes through the NLI model once.
    """
    check_batch(predictions, references, candidates)
    resolved = [resolve_citations(text, list(cands)) for text, cands in zip(predictions, candidates)]
    for i, gold in enumerate(references):
        if not gold:
            raise ValueError(f"record {i}: field 'references' is empty; soft recall needs gold citations")
    texts = corpus_texts(corpus, [d for r, gold in zip(resolved, references) for d in (*r.unique_ids, *gold)])
    pairs = list(dict.fromkeys((g, r) for res, gold in zip(resolved, references) for g in res.unique_ids for r in gold))
    scores = nli.soft_scores([texts[g] for g, _ in pairs], [texts[r] for _, r in pairs], batch_size)
    score_of = dict(zip(pairs, scores.tolist()))
    rows = []
    for res, gold in zip(resolved, references):
        gold = list(dict.fromkeys(gold))
        matrix = [[score_of[(g, r)] for r in gold] for g in res.unique_ids]
        rows.append({"soft_citation_recall": soft_citation_recall(np.array(matrix).reshape(len(res.unique_ids), len(gold))),
                     "empty_citation_output": res.is_empty_citation_output, "unresolved_markers": res.n_unresolved})
    return rows


def citing_sentences(text: str, candidates: Sequence[str]) -> list[tuple[str, str]]:
    """(sentence without markers, cited doc_id) for every resolved citation, sentence by sentence."""
    pairs = []
    for sentence in split_sentences(text):
        for doc_id in resolve_citations(sentence, candidates).unique_ids:
            pairs.append((strip_markers(sentence), doc_id))
    return pairs


def score_claim_support(predictions: Sequence[str], candidates: Sequence[Sequence[str]] | None,
                        corpus: Mapping[str, str] | Any, nli: Any, batch_size: int = 32) -> list[dict[str, Any]]:
    """Per paper: mean over its citations of P(entail) + 0.5 P(neutral), premise = cited paper, hypothesis = citing sentence."""
    check_batch(predictions, predictions, candidates)
    per_paper = [citing_sentences(text, list(cands)) for text, cands in zip(predictions, candidates)]
    texts = corpus_texts(corpus, [d for pairs in per_paper for _, d in pairs])
    flat = [(texts[d], sentence) for pairs in per_paper for sentence, d in pairs]
    scores = nli.soft_scores([p for p, _ in flat], [h for _, h in flat], batch_size).tolist() if flat else []
    rows, start = [], 0
    for pairs in per_paper:
        own = scores[start:start + len(pairs)]
        start += len(pairs)
        rows.append({"claim_support_consistency": sum(own) / len(own) if own else 0.0, "n_citations": len(own),
                     "empty_citation_output": not pairs})
    return rows


def score_text_quality(predictions: Sequence[str], references: Sequence[str], encoder: Any) -> list[dict[str, Any]]:
    """Per paper: ROUGE-L F1 (rouge_score's tokens, Porter stemming) and whole-text BERTScore, markers removed."""

    check_pairs(predictions, references)
    generated = [strip_markers(p or "") for p in predictions]
    published = [strip_markers(r or "") for r in references]
    rows = []
    for (_, _, rouge_f), (p, r, f) in zip(rouge_l_batch(generated, published), bertscore(generated, published, encoder)):
        rows.append({"rougeL": rouge_f, "bertscore_precision": p, "bertscore_recall": r, "bertscore_f1": f})
    return rows
