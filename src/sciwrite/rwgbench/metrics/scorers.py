"""RWGBench scores over a batch of predictions, with the per-paper diagnostics the suite reports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from sciwrite.metrics.bertscore import bertscore
from sciwrite.metrics.lexical import rouge_l_batch
from sciwrite.metrics.summary import (
    EMPTY_CITATION_OUTPUT,
    EMPTY_CITATION_RATE,
    UNRESOLVED_MARKERS,
    check_pairs,
)
from sciwrite.metrics.text import content_blocks, split_sentences, strip_markers
from sciwrite.models.encoders import embed
from sciwrite.retrieval.query import document_text
from sciwrite.rwgbench.metrics.formulas import (
    N_NOT_APPLICABLE,
    NOT_APPLICABLE,
    NOT_APPLICABLE_NO_CANDIDATES,
    citation_counts,
    citation_density,
    citation_distribution_balance,
    citation_precision_recall,
    claim_support_consistency,
    marker_keys,
    nli_label_scores,
    positioning_structure_similarity,
    resolve_citations,
    soft_citation_recall,
    topical_relevance,
)
from sciwrite.rwgbench.metrics.row_fields import NO_CANDIDATES, not_applicable_key
from sciwrite.rwgbench.metrics.specs import (
    BERTSCORE_F1,
    CITATION_DENSITY,
    CITATION_DISTRIBUTION_BALANCE,
    CLAIM_SUPPORT_CONSISTENCY,
    POSITIONING_STRUCTURE_SIMILARITY,
    PRECISION,
    RECALL,
    ROUGE_L,
    SOFT_CITATION_RECALL,
    TOPICAL_RELEVANCE,
)


def has_candidates(candidates: Sequence[str] | None) -> bool:
    """Whether a prediction came with a candidate list; none (empty or absent) is the paper's Direct setting."""
    return bool(candidates)


def candidate_list(candidates: Sequence[str] | None) -> list[str]:
    """A prediction's candidate doc_ids as a list (empty for Direct)."""
    return list(candidates or [])


def check_batch(predictions: Sequence[str], references: Sequence[Any],
                candidates: Sequence[Sequence[str]] | None) -> Sequence[Sequence[str]]:
    """Lists of unequal length, or a missing candidate list, name the problem instead of misaligning papers; the
    candidates, once checked.

    `candidates` is required for the batch; one prediction's entry may be empty or None (Direct: no list)."""
    if candidates is None:
        raise ValueError("`candidates` is required: for each prediction, the ordered doc_ids its markers [i] index into "
                         "(an empty list for a prediction without candidates, the paper's Direct setting)")
    if not len(predictions) == len(references) == len(candidates):
        raise ValueError(f"predictions ({len(predictions)}), references ({len(references)}) and candidates "
                         f"({len(candidates)}) must have the same length")
    for i, text in enumerate(predictions):
        if not isinstance(text, str):
            raise ValueError(f"record {i}: field 'predictions' must be a string, got {type(text).__name__}")
    return candidates


def score_citation_precision_recall(predictions: Sequence[str], references: Sequence[Sequence[str]],
                                    candidates: Sequence[Sequence[str]] | None) -> list[dict[str, Any]]:
    """Per paper: resolve the markers through the candidates and score the cited set against the gold set."""
    candidates = check_batch(predictions, references, candidates)
    rows = []
    for i, (text, gold, cands) in enumerate(zip(predictions, references, candidates)):
        if not gold:
            raise ValueError(f"record {i}: field 'references' is empty; citation recall needs gold citations")
        resolved = resolve_citations(text, candidate_list(cands))
        precision, recall = citation_precision_recall(resolved.unique_ids, gold)
        rows.append({PRECISION.key: precision, RECALL.key: recall,
                     EMPTY_CITATION_OUTPUT: resolved.is_empty_citation_output,
                     "n_cited": len(resolved.unique_ids), UNRESOLVED_MARKERS: resolved.n_unresolved,
                     NO_CANDIDATES: not has_candidates(cands)})
    return rows


def score_citation_distribution_balance(predictions: Sequence[str],
                                        candidates: Sequence[Sequence[str]] | None) -> list[dict[str, Any]]:
    """Per paper: the share of its cited papers cited exactly once (0 for an output citing nothing).

    Without a candidate list (Direct) each marker number is one cited item (`marker_keys`), as the paper counts
    Direct's markers; otherwise the resolved doc_ids are."""
    candidates = check_batch(predictions, predictions, candidates)
    rows = []
    for text, cands in zip(predictions, candidates):
        resolved = resolve_citations(text, candidate_list(cands))
        counts = citation_counts(resolved.doc_ids if has_candidates(cands) else marker_keys(text))
        rows.append({CITATION_DISTRIBUTION_BALANCE.key: citation_distribution_balance(counts),
                     "n_cited": len(counts), "cited_once": sum(1 for c in counts.values() if c == 1),
                     EMPTY_CITATION_OUTPUT: resolved.is_empty_citation_output,
                     UNRESOLVED_MARKERS: resolved.n_unresolved})
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


def corpus_titles(corpus: Mapping[str, Any] | Any, doc_ids: Iterable[str]) -> dict[str, str]:
    """The title of each of `doc_ids` the corpus holds: a corpus `Dataset`'s ``title`` field, or a mapping's value
    (its ``title`` when the value is a record, '' when it is text)."""
    wanted = list(dict.fromkeys(doc_ids))
    if isinstance(corpus, Mapping):
        return {d: (corpus[d].get("title") or "") if isinstance(corpus[d], Mapping) else "" for d in wanted
                if d in corpus}
    row_of = {doc_id: i for i, doc_id in enumerate(corpus["doc_id"])} if wanted else {}
    rows = corpus.select([row_of[d] for d in wanted if d in row_of]).select_columns(["doc_id", "title"])
    return {r["doc_id"]: r["title"] or "" for r in rows}


def corpus_abstracts(corpus: Mapping[str, Any] | Any, doc_ids: Iterable[str]) -> dict[str, str]:
    """The abstract of each of `doc_ids` (Eqs. 3-4 compare abstracts): a corpus `Dataset`'s ``abstract`` field,
    or a mapping's value: its ``abstract`` when the value is a record, the string itself when it is text (a
    doc_id -> text mapping is taken as the text to compare). An empty abstract falls back to the title.
    A doc_id the corpus does not hold is an error that names it."""
    wanted = list(dict.fromkeys(doc_ids))
    if isinstance(corpus, Mapping):
        missing = [d for d in wanted if d not in corpus]
        values = {d: corpus[d] for d in wanted if d in corpus}
        found = {d: v if isinstance(v, str) else ((v.get("abstract") or "").strip() or document_text(v))
                 for d, v in values.items()}
    else:
        row_of = {doc_id: i for i, doc_id in enumerate(corpus["doc_id"])}
        missing = [d for d in wanted if d not in row_of]
        rows = corpus.select([row_of[d] for d in wanted if d in row_of])
        found = {r["doc_id"]: (r.get("abstract") or "").strip() or document_text(r) for r in rows}
    if missing:
        raise ValueError(f"{len(missing)} cited doc_id(s) are not in the corpus, e.g. {missing[:5]}")
    return found


def score_topical_relevance(predictions: Sequence[str], target_abstracts: Sequence[str],
                            candidates: Sequence[Sequence[str]] | None, corpus: Mapping[str, Any] | Any,
                            model: Any, batch_size: int = 64, show_progress: bool = False) -> list[dict[str, Any]]:
    """Per paper, Eq. 4: mean over the distinct cited papers C_g of cos(target abstract, cited abstract).

    Every text is embedded once for the whole batch (L2-normalised, so a dot product is the cosine). An
    empty-citation output with a candidate list scores 0; a prediction without one (Direct) has no value
    (None, with `not_applicable` saying why).
    """
    candidates = check_batch(predictions, target_abstracts, candidates)
    for i, abstract in enumerate(target_abstracts):
        if not isinstance(abstract, str) or not abstract.strip():
            raise ValueError(f"record {i}: field 'references' (the target paper's abstract) is empty")
    resolved = [resolve_citations(text, candidate_list(cands)) for text, cands in zip(predictions, candidates)]
    texts = corpus_abstracts(corpus, (d for r in resolved for d in r.unique_ids))
    cited_ids = list(texts)
    cited = dict(zip(cited_ids, embed(model, [texts[d] for d in cited_ids], batch_size, show_progress)))
    applicable = [has_candidates(c) for c in candidates]
    targets = embed(model, [a for a, ok in zip(target_abstracts, applicable) if ok], batch_size, show_progress)
    rows, k = [], 0
    for r, ok in zip(resolved, applicable):
        row: dict[str, Any] = {TOPICAL_RELEVANCE.key: None, "n_cited": len(r.unique_ids),
                               EMPTY_CITATION_OUTPUT: r.is_empty_citation_output, UNRESOLVED_MARKERS: r.n_unresolved,
                               NO_CANDIDATES: not ok}
        if ok:
            row[TOPICAL_RELEVANCE.key] = topical_relevance([float(cited[d] @ targets[k]) for d in r.unique_ids])
            k += 1
        else:
            row[not_applicable_key(TOPICAL_RELEVANCE.key)] = NOT_APPLICABLE_NO_CANDIDATES
        rows.append(row)
    return rows


def score_positioning_structure(predictions: Sequence[str], references: Sequence[str], model: Any,
                                batch_size: int = 64, show_progress: bool = False) -> list[dict[str, Any]]:
    """Per paper: soft-LCS similarity of the generated and reference block sequences (block embeddings' cosines)."""
    check_pairs(predictions, references)
    for field_name, texts in (("predictions", predictions), ("references", references)):
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValueError(f"record {i}: field '{field_name}' must be a string, got {type(text).__name__}")
    blocks = [(content_blocks(p), content_blocks(r)) for p, r in zip(predictions, references)]
    unique = list(dict.fromkeys(b for pair in blocks for side in pair for b in side))
    vector_of = dict(zip(unique, embed(model, unique, batch_size, show_progress)))
    rows = []
    for gen, ref in blocks:
        sim = [[float(vector_of[g] @ vector_of[r]) for r in ref] for g in gen]
        rows.append({POSITIONING_STRUCTURE_SIMILARITY.key: positioning_structure_similarity(np.array(sim).reshape(len(gen), len(ref))),
                     "generated_blocks": len(gen), "reference_blocks": len(ref)})
    return rows


def score_citation_density(predictions: Sequence[str], candidates: Sequence[Sequence[str]] | None) -> list[dict[str, Any]]:
    """Per paper, Eq. 5: distinct cited items per sentence (sentences by `split_sentences`).

    The cited items are the distinct resolved doc_ids; without a candidate list (Direct) the distinct marker
    numbers (`marker_keys`), as the paper counts Direct's markers (its Direct rows report CD > 0)."""
    candidates = check_batch(predictions, predictions, candidates)
    rows = []
    for text, cands in zip(predictions, candidates):
        resolved = resolve_citations(text, candidate_list(cands))
        n_sentences = len(split_sentences(text))
        n_cited = len(resolved.unique_ids) if has_candidates(cands) else len(set(marker_keys(text)))
        rows.append({CITATION_DENSITY.key: citation_density(n_cited, n_sentences),
                     "n_cited": len(resolved.unique_ids), "n_cited_items": n_cited, "n_sentences": n_sentences,
                     EMPTY_CITATION_OUTPUT: resolved.is_empty_citation_output,
                     UNRESOLVED_MARKERS: resolved.n_unresolved})
    return rows


def score_soft_citation_recall(predictions: Sequence[str], references: Sequence[Sequence[str]],
                               candidates: Sequence[Sequence[str]] | None, corpus: Mapping[str, str] | Any,
                               nli: Any, batch_size: int = 32) -> list[dict[str, Any]]:
    """Per paper: mean over gold papers r of max over cited papers g of P(entail) + 0.5 P(neutral) (g => r).

    Each distinct (generated, reference) pair of the batch goes through the NLI model once.
    """
    candidates = check_batch(predictions, references, candidates)
    resolved = [resolve_citations(text, candidate_list(cands)) for text, cands in zip(predictions, candidates)]
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
        rows.append({SOFT_CITATION_RECALL.key: soft_citation_recall(np.array(matrix).reshape(len(res.unique_ids), len(gold))),
                     EMPTY_CITATION_OUTPUT: res.is_empty_citation_output, UNRESOLVED_MARKERS: res.n_unresolved})
    return rows


def citing_sentences(text: str, candidates: Sequence[str]) -> list[tuple[str, str]]:
    """(sentence without markers, cited doc_id) for every resolved citation, sentence by sentence."""
    pairs = []
    for sentence in split_sentences(text):
        for doc_id in resolve_citations(sentence, candidates).unique_ids:
            pairs.append((strip_markers(sentence), doc_id))
    return pairs


def score_claim_support(predictions: Sequence[str], candidates: Sequence[Sequence[str]] | None,
                        corpus: Mapping[str, Any] | Any, nli: Any, batch_size: int = 32) -> list[dict[str, Any]]:
    """Per paper, Eq. 3: for each distinct cited paper c_i of C_g, premise = c_i's abstract, hypothesis = the
    sentence citing it (markers removed); the predicted NLI label (argmax) scores 1 / 0.5 / 0; s_i is the mean
    over c_i's citing sentences and CSC the mean of s_i over C_g.

    An empty-citation output with a candidate list scores 0; a prediction without one (Direct) has no value
    (None, with `not_applicable` saying why). Each distinct (premise, hypothesis) pair runs through NLI once.
    """
    candidates = check_batch(predictions, predictions, candidates)
    per_paper = [citing_sentences(text, candidate_list(cands)) for text, cands in zip(predictions, candidates)]
    texts = corpus_abstracts(corpus, [d for pairs in per_paper for _, d in pairs])
    flat = list(dict.fromkeys((texts[d], sentence) for pairs in per_paper for sentence, d in pairs))
    probs = nli.probabilities([p for p, _ in flat], [h for _, h in flat], batch_size) if flat else np.zeros((0, 3))
    score_of = dict(zip(flat, nli_label_scores(probs).tolist()))
    rows = []
    for pairs, cands in zip(per_paper, candidates):
        by_paper: dict[str, list[float]] = {}
        for sentence, d in pairs:
            by_paper.setdefault(d, []).append(score_of[(texts[d], sentence)])
        row: dict[str, Any] = {CLAIM_SUPPORT_CONSISTENCY.key: None, "n_citations": len(pairs), "n_cited": len(by_paper),
                               EMPTY_CITATION_OUTPUT: not pairs, NO_CANDIDATES: not has_candidates(cands)}
        if has_candidates(cands):
            row[CLAIM_SUPPORT_CONSISTENCY.key] = claim_support_consistency(list(by_paper.values()))
        else:
            row[not_applicable_key(CLAIM_SUPPORT_CONSISTENCY.key)] = NOT_APPLICABLE_NO_CANDIDATES
        rows.append(row)
    return rows


def score_text_quality(predictions: Sequence[str], references: Sequence[str], encoder: Any,
                       show_progress: bool = False) -> list[dict[str, Any]]:
    """Per paper: ROUGE-L F1 (rouge_score's tokens, Porter stemming) and whole-text BERTScore, markers removed.
    Without an `encoder` (BERTScore not requested: ``--metrics rougeL``) the rows hold ROUGE-L only."""
    check_pairs(predictions, references)
    generated = [strip_markers(p or "") for p in predictions]
    published = [strip_markers(r or "") for r in references]
    rouge = [{ROUGE_L.key: rouge_f} for _, _, rouge_f in rouge_l_batch(generated, published)]
    if encoder is None:
        return rouge
    scores = bertscore(generated, published, encoder, show_progress=show_progress)
    return [{**row, "bertscore_precision": p, "bertscore_recall": r, BERTSCORE_F1.key: f}
            for row, (p, r, f) in zip(rouge, scores)]


def summarize_applicable(rows: Sequence[Mapping[str, Any]], key: str, citations: bool = True) -> dict[str, Any]:
    """Mean of `key` (CSC or TRT) over the papers it applies to, i.e. whose prediction has a candidate list.

    When none has (a Direct system) the mean is None and ``not_applicable`` says why; ``n_not_applicable``
    counts the papers left out. With `citations`, also the empty-citation rate and unresolved markers.
    """
    n = len(rows)
    values = [r[key] for r in rows if r.get(key) is not None]
    summary: dict[str, Any] = {key: sum(values) / len(values) if values else (None if n else 0.0),
                               N_NOT_APPLICABLE: n - len(values)}
    if n and not values:
        summary[NOT_APPLICABLE] = NOT_APPLICABLE_NO_CANDIDATES
    if citations:
        summary[EMPTY_CITATION_RATE] = sum(bool(r[EMPTY_CITATION_OUTPUT]) for r in rows) / n if n else 0.0
        summary[UNRESOLVED_MARKERS] = sum(r[UNRESOLVED_MARKERS] for r in rows)
    return summary
