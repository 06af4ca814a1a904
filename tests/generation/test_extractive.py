"""The extractive floor writers: citations point at the work a copied sentence came from, MMR avoids repeats,
the output is deterministic, SciIG never reads the reference introduction, and the runner writes their lines."""

from __future__ import annotations

import asyncio
import copy
import json
import re

import numpy as np
import pytest

from sciwrite.generation.extractive import (
    ExtractiveRWGBench,
    ExtractiveSciIG,
    mmr_select,
)
from sciwrite.generation.runner import dry_run, run_generation
from sciwrite.metrics.text import split_sentences, strip_markers
from sciwrite.sources.apa import extract_citation_keys
from sciwrite.sources.markers import marker_numbers

CANDIDATES = [
    {"doc_id": "d-mt", "title": "Phrase-based statistical machine translation",
     "abstract": "We present a phrase-based model for statistical machine translation. "
                 "The model translates contiguous sequences of words rather than single words. "
                 "Experiments on French-English news text show large gains in BLEU over word-based models."},
    {"doc_id": "d-parse", "title": "A maximum-entropy-inspired parser",
     "abstract": "We describe a new parser for English that uses a maximum entropy model. "
                 "The parser achieves high labelled precision and recall on the Penn Treebank. "
                 "Parsing is fast enough for large corpora."},
    {"doc_id": "d-title-only", "title": "Minimum error rate training in statistical machine translation",
     "abstract": ""},
    {"doc_id": "d-align", "title": "Word alignment with hidden Markov models",
     "abstract": "Word alignment links the words of a sentence to their translations in a parallel corpus. "
                 "We propose a hidden Markov model whose alignment probabilities depend on relative jumps. "
                 "The model lowers alignment error rates for German-English and French-English data."},
]

RECORD = {
    "paper_id": "P-target", "title": "Improving statistical machine translation with better word alignments",
    "abstract": "Statistical machine translation systems depend on word alignments learnt from parallel text. "
                "We show that improved alignment models lead to better phrase-based translation quality.",
    "introduction": "Machine translation is an old problem.", "candidate_docs": CANDIDATES,
}


@pytest.fixture(scope="module")
def rwg(minilm):
    return ExtractiveRWGBench(encoder=minilm, n_sentences=5)


def generate(method, record):
    return asyncio.run(method.run(record, None))


@pytest.fixture(scope="module")
def rwg_result(rwg):
    return generate(rwg, RECORD)


def cited_sentences(pred: str) -> list[tuple[str, list[int]]]:
    """(sentence without its markers, marker numbers) for every sentence of the output."""
    return [(strip_markers(s), marker_numbers(s)) for s in split_sentences(pred)]


def test_markers_resolve_to_the_candidate_each_sentence_came_from(rwg_result):
    result = rwg_result
    sentences = cited_sentences(result.pred)
    assert len(sentences) == 5
    for text, numbers in sentences:
        assert len(numbers) == 1, text
        doc = CANDIDATES[numbers[0] - 1]
        source = doc["abstract"] or doc["title"]
        assert text.rstrip(".") in source, (text, doc["doc_id"])
    # Candidates appear in rank order, one paragraph each.
    paragraph_numbers = [marker_numbers(p) for p in result.pred.split("\n\n")]
    firsts = [numbers[0] for numbers in paragraph_numbers]
    assert firsts == sorted(set(firsts)) and all(len(set(n)) == 1 for n in paragraph_numbers)
    assert result.extra == {"candidates": ["d-mt", "d-parse", "d-title-only", "d-align"], "writer": "extractive-mmr"}
    assert "No LLM prompt" in result.desc and "extractive" in result.desc


def test_deterministic(rwg_result, minilm):
    first = rwg_result
    again = generate(ExtractiveRWGBench(encoder=minilm, n_sentences=5), copy.deepcopy(RECORD))
    assert (first.pred, first.desc, first.extra) == (again.pred, again.desc, again.extra)


def test_mmr_skips_duplicated_sentences(minilm):
    # The most relevant sentence appears in three candidates (verbatim and with one word changed).
    key = "Better word alignments improve phrase-based statistical machine translation quality."
    near = "Better word alignments improve phrase-based statistical machine translation accuracy."
    docs = [{"doc_id": f"dup{i}", "title": f"Dup {i}", "abstract": f"{s} Unrelated filler about cooking pasta {i}."}
            for i, s in enumerate([key, key, near])]
    record = {**RECORD, "candidate_docs": docs + CANDIDATES}
    # Even with the near-duplicate cut-off disabled, MMR alone does not pick the paraphrase again.
    for method in (ExtractiveRWGBench(encoder=minilm, n_sentences=4),
                   ExtractiveRWGBench(encoder=minilm, n_sentences=4, max_redundancy=1.0, mmr_lambda=0.5)):
        pred = generate(method, record).pred
        texts = [text for text, _ in cited_sentences(pred)]
        normalised = [re.sub(r"\W+", " ", t).lower().strip() for t in texts]
        assert len(set(normalised)) == len(normalised)
        assert sum("better word alignments improve" in t for t in normalised) == 1, texts
        # The verbatim copy in the second candidate is dropped: its first occurrence (candidate 1) is cited.
        assert "[2]" not in pred and "[1]" in pred


def test_mmr_select_trades_relevance_for_novelty():
    relevance = np.array([0.9, 0.89, 0.5])
    similarity = np.array([[1.0, 0.99, 0.1], [0.99, 1.0, 0.1], [0.1, 0.1, 1.0]])
    assert mmr_select(relevance, similarity, 2, lam=1.0) == [0, 1]  # relevance only
    assert mmr_select(relevance, similarity, 2, lam=0.5) == [0, 2]
    assert mmr_select(relevance, similarity, 3, lam=1.0, max_redundancy=0.95) == [0, 2]


def test_no_candidates_is_an_error_naming_the_paper(rwg):
    with pytest.raises(ValueError, match="P-empty"):
        generate(rwg, {**RECORD, "paper_id": "P-empty", "candidate_docs": []})
    # The dry run still describes the paper honestly instead of failing.
    ((_, text),) = dry_run([{**RECORD, "candidate_docs": []}], rwg)
    assert "No language model is called" in text and "none: this paper will fail" in text


def test_dry_run_describes_the_selection(rwg):
    ((paper_id, text),) = dry_run([RECORD], rwg)
    assert paper_id == "P-target"
    assert "[3] Minimum error rate training" in text and "title only" in text and "MMR" in text


NEIGHBORS = [
    {"key": "Koehn et al., 2003", "title": "Statistical phrase-based translation", "authors": ["P. Koehn"],
     "abstract": "We propose a new phrase-based translation model and decoding algorithm. "
                 "Phrase-based models outperform word-based models on several language pairs."},
    {"key": "Och and Ney, 2003", "title": "A systematic comparison of various statistical alignment models",
     "authors": ["F. J. Och", "H. Ney"],
     "abstract": "We compare several statistical word alignment models on parallel text. "
                 "Refined alignment models with symmetrisation give the lowest alignment error rate."},
    {"key": "Vogel, 1996", "title": "HMM-based word alignment in statistical translation", "authors": ["S. Vogel"],
     "abstract": ""},
    {"key": "Ramirez-Lopez et al., 2021b", "title": "Cooking recipes", "authors": ["A. Ramirez-Lopez"],
     "abstract": "A neighbor whose sentence cites Smith et al. (2020) is never copied with that citation."},
]

SCIIG = {
    "paper_id": "S-1", "title": "Better word alignments for phrase-based machine translation",
    "abstract": "Phrase-based machine translation depends on word alignments learnt from parallel text. "
                "We propose a new alignment model that conditions on phrase boundaries. "
                "Our model improves translation quality on two language pairs.",
    "introduction": "Reference introduction (Koehn et al., 2003).", "neighbors": NEIGHBORS,
}


@pytest.fixture(scope="module")
def sciig(minilm):
    return ExtractiveSciIG(encoder=minilm, n_sentences=6, max_own_sentences=2)


@pytest.fixture(scope="module")
def sciig_result(sciig):
    return generate(sciig, SCIIG)


def test_sciig_cites_neighbor_keys_exactly(sciig_result):
    result = sciig_result
    keys = [n["key"] for n in NEIGHBORS]
    cited = re.findall(r"\(([^()]*\d{4}[a-z]?)\)", result.pred)
    assert cited and set(cited) <= set(keys)
    assert set(extract_citation_keys(result.pred)) <= set(keys)
    assert "Smith" not in result.pred
    for sentence in split_sentences(result.pred):
        match = re.search(r" \(([^()]*)\)\.$", sentence)
        text = sentence[: match.start()] if match else sentence.rstrip(".")
        if match:
            neighbor = next(n for n in NEIGHBORS if n["key"] == match.group(1))
            assert text in (neighbor["abstract"] or neighbor["title"]), sentence
        else:
            assert text in SCIIG["abstract"], sentence
    assert sum(text in SCIIG["abstract"] for text in (s.rstrip(".") for s in split_sentences(result.pred))) <= 2
    assert result.extra == {"label": SCIIG["introduction"], "writer": "extractive-mmr"}


def test_sciig_never_reads_the_introduction(sciig, sciig_result):
    changed = {**SCIIG, "introduction": "Something else entirely (Vogel, 1996). " * 20}
    first, second = sciig_result, generate(sciig, changed)
    assert (first.pred, first.desc) == (second.pred, second.desc)
    assert second.extra["label"] == changed["introduction"]
    ((_, text),) = dry_run([SCIIG], sciig)
    assert "Reference introduction" not in text


def test_sciig_without_neighbors_uses_the_abstract_uncited(sciig):
    result = generate(sciig, {**SCIIG, "neighbors": []})
    assert not extract_citation_keys(result.pred) and "(" not in result.pred
    assert all(s.rstrip(".") in SCIIG["abstract"] for s in split_sentences(result.pred))
    assert "no neighbors" in result.desc
    with pytest.raises(ValueError, match="S-1"):
        generate(sciig, {**SCIIG, "abstract": "", "neighbors": []})


def test_runner_writes_lines_without_a_model(rwg, tmp_path):
    records = [RECORD, {**RECORD, "paper_id": "P-bad", "candidate_docs": []}]
    out = tmp_path / "rwg.jsonl"
    report = run_generation(records, rwg, None, out, show_progress=False)
    assert (report.n_written, report.n_failed) == (1, 1)
    (line,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert line["paper_id"] == "P-target" and marker_numbers(line["pred"])
    assert line["candidates"] == [d["doc_id"] for d in CANDIDATES] and line["writer"] == "extractive-mmr"
    assert line["method"] == "extractive-mmr" and line["usage"]["requests"] == 0 and "No LLM prompt" in line["desc"]
    failed = json.loads(report.failures_path.read_text())
    assert failed["paper_id"] == "P-bad" and "P-bad" in failed["error"]
