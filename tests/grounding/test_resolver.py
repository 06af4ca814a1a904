"""The reference resolver (issue 24, first part): the normaliser, each verdict by hand, the evidence, bad input and
the calibration procedure."""

from __future__ import annotations

import pytest

from sciwrite.grounding import AMBIGUOUS, FOUND, NOT_FOUND, Reference, ReferenceResolver, TitleIndex
from sciwrite.grounding.calibration import (
    FABRICATIONS,
    VARIANTS,
    Operating,
    calibration_set,
    choose_threshold,
    evaluate_thresholds,
)
from sciwrite.grounding.normalize import normalize_reference_title, strip_reference_tail, surname, without_subtitle

CORPUS = [
    {"doc_id": "bert", "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
     "authors": ["Jacob Devlin", "Ming-Wei Chang"], "year": 2019},
    {"doc_id": "attention", "title": "Attention Is All You Need", "authors": ["Ashish Vaswani"], "year": 2017},
    {"doc_id": "glove", "title": "GloVe: Global Vectors for Word Representation", "authors": ["Jeffrey Pennington"],
     "year": 2014},
    {"doc_id": "kernels-a", "title": "Graph Kernels", "authors": ["S. V. N. Vishwanathan"], "year": 2010},
    {"doc_id": "kernels-b", "title": "Graph kernels", "authors": ["Karsten Borgwardt"], "year": 2005},
    {"doc_id": "untitled", "title": "", "authors": [], "year": None},
    {"doc_id": "sentiment", "title": "Unsupervised Aspect-Level Sentiment Controllable Style Transfer",
     "authors": ["Zishan Ahmad"], "year": 2020},
]


@pytest.fixture(scope="module")
def resolver():
    return ReferenceResolver(TitleIndex.from_corpus(CORPUS))


def test_the_normaliser_on_unicode_latex_entities_and_tails():
    assert normalize_reference_title("Caf\u00e9 na\u00efve r\u00e9sum\u00e9s") == "cafe naive resumes"
    assert normalize_reference_title(r"Sch{\"u}tze's {BERT}: \textit{Deep} models") == "schutze s bert deep models"
    assert normalize_reference_title("Word &amp; Phrase &#39;Embeddings&#39;") == "word phrase embeddings"
    assert normalize_reference_title("\u201cAttention Is All You Need\u201d") == "attention is all you need"
    assert strip_reference_tail("Attention is all you need. In Proceedings of NeurIPS 2017") == "Attention is all you need"
    assert strip_reference_tail("Attention is all you need, arXiv preprint arXiv:1706.03762") == \
        "Attention is all you need"
    assert strip_reference_tail("Attention is all you need, 2017, pp. 5998-6008") == "Attention is all you need"
    assert strip_reference_tail("SemEval-2017 Task 4: Sentiment Analysis in Twitter") == \
        "SemEval-2017 Task 4: Sentiment Analysis in Twitter"  # a year inside a title stays
    assert without_subtitle("GloVe: Global Vectors for Word Representation") == "glove"
    assert without_subtitle("Attention Is All You Need") == ""
    assert [surname(n) for n in ("Jacob Devlin", "Devlin, J.", "J. Devlin", "M\u00fcller")] == \
        ["devlin", "devlin", "devlin", "muller"]


def test_each_verdict_by_hand(resolver):
    found, typo, short, tail, invented, twins, empty = resolver.resolve([
        "Attention Is All You Need", "Atention is all you need", "GloVe", "BERT: pre-training of deep bidirectional "
        "transformers for language understanding. In Proceedings of NAACL 2019",
        "Quantum gravity for recipe generation in the kitchen", "Graph kernels", ""])
    assert (found.verdict, found.doc_id, found.score) == (FOUND, "attention", 1.0)
    assert typo.verdict == FOUND and typo.doc_id == "attention" and 0.85 <= typo.score < 1.0
    assert short.verdict == FOUND and short.doc_id == "glove"  # the main title alone names the paper
    assert tail.verdict == FOUND and tail.doc_id == "bert"
    assert invented.verdict == NOT_FOUND and invented.doc_id is None and "no corpus title scores" in invented.why
    assert twins.verdict == AMBIGUOUS and twins.doc_id is None and "kernels-a" in twins.why and "kernels-b" in twins.why
    assert empty.verdict == NOT_FOUND and empty.why == "the reference has no title to look up"


def test_surnames_and_year_are_evidence(resolver):
    twins = [Reference("Graph kernels", ("Borgwardt",), 2005), Reference("Graph kernels", ("K. Borgwardt",))]
    for verdict in resolver.resolve(twins):  # the authors tell the two "Graph kernels" apart
        assert (verdict.verdict, verdict.doc_id) == (FOUND, "kernels-b")
        assert "an author surname matches" in verdict.why
    wrong_year, near, near_wrong = resolver.resolve([Reference("Attention Is All You Need", ("Vaswani",), 2009),
                                                     Reference("Attention is all we need"),
                                                     Reference("Attention is all we need", ("Smith",), 2009)])
    # an exact title with a wrong year is still the paper, and the evidence says so
    assert wrong_year.verdict == FOUND and "the year differs" in wrong_year.why
    # a near title (0.898) is found on its own; with authors and a year that both disagree it is not
    assert near.verdict == FOUND and near.doc_id == "attention" and near.score == pytest.approx(0.898, abs=1e-3)
    assert near_wrong.verdict == NOT_FOUND and near_wrong.candidates[0].surnames_match is False
    assert near_wrong.candidates[0].score == pytest.approx(0.898 - 0.08 - 0.04, abs=1e-3)


def test_bad_input_is_named_and_long_titles_are_cut(resolver):
    [long] = resolver.resolve(["Attention Is All You Need " + "x" * 5000])
    assert long.verdict == NOT_FOUND and "cut at 500 characters" in long.why
    with pytest.raises(ValueError, match=r"reference 2: field 'title' must be a string, got int"):
        resolver.resolve(["Attention Is All You Need", {"title": 3}])
    with pytest.raises(ValueError, match=r"reference 1: a reference must be a title or an object"):
        resolver.resolve([["not", "a", "reference"]])
    with pytest.raises(ValueError, match="field 'year' must be a number"):
        Reference.from_record({"title": "x", "year": "last year"})
    assert Reference.from_record({"title": "x", "authors": "A. Smith and B. Jones", "year": "2020"}) == \
        Reference("x", ("A. Smith", "B. Jones"), 2020)
    with pytest.raises(ValueError, match="threshold must be in"):
        ReferenceResolver(resolver.index, threshold=0)
    with pytest.raises(ValueError, match="without titled papers"):
        TitleIndex.from_corpus([{"doc_id": "x", "title": ""}])


def test_the_calibration_set_and_the_chosen_threshold(mini_sample_folder):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    index = TitleIndex.from_corpus(load_rwgbench("sample_corpus", source=mini_sample_folder))
    items = calibration_set(index, n_papers=40, seed=1)
    assert items == calibration_set(index, n_papers=40, seed=1)  # seeded
    kinds = {item.kind for item in items}
    assert set(VARIANTS) - {"subtitle dropped"} <= kinds and set(FABRICATIONS) <= kinds
    real = [i for i in items if i.doc_id is not None]
    assert len(items) == 2 * len(real) and all(i.doc_id is None for i in items if i.kind in FABRICATIONS)
    points = evaluate_thresholds(index, items, [0.5, 0.85, 0.99])
    low, chosen, high = points
    assert low.recall >= chosen.recall >= high.recall  # a higher threshold never finds more
    assert low.false_found >= high.false_found
    assert chosen.recall_by_kind["exact"] == 1.0 and chosen.precision >= 0.95
    assert choose_threshold(points, target=0.0).threshold == 0.5
    assert choose_threshold([Operating(0.9, 0.5, 1.0, 10, 5, {})], target=0.99).threshold == 0.9  # none reaches it


def test_candidates_come_from_the_rarest_shared_words(monkeypatch):
    from sciwrite.grounding import index as index_module

    index = TitleIndex.from_corpus(CORPUS)
    [positions] = index.candidates(["attention is all we need"], k=2)
    assert index.papers[positions[0]].doc_id == "attention"
    assert index.candidates(["", "words the corpus never saw"]) == [[], []]
    monkeypatch.setattr(index_module, "MAX_POSTINGS", 1)  # the rarest word is read whatever the cap
    [positions] = index.candidates(["glove vectors"], k=5)
    assert [index.papers[p].doc_id for p in positions] == ["glove"]


def test_the_word_index_finds_the_paper_as_often_as_bm25(mini_sample_folder):
    """The hand-written candidate search against the library it replaces (bm25s over the same titles): on the
    calibration set's real references, the named paper is among the candidates at least as often."""
    from sciwrite.retrieval.bm25 import BM25Retriever
    from sciwrite.rwgbench.data.loading import load_rwgbench

    index = TitleIndex.from_corpus(load_rwgbench("sample_corpus", source=mini_sample_folder))
    real = [item for item in calibration_set(index, n_papers=60, seed=2) if item.doc_id is not None]
    keys = [normalize_reference_title(item.title) for item in real]
    bm25 = BM25Retriever(stemmer=None, stopwords=None).index([str(i) for i in range(len(index))],
                                                             [p.key for p in index.papers], show_progress=False)
    by_bm25 = [[index.papers[int(d)].doc_id for d in hit.doc_ids] for hit in bm25.search(keys, k=10, show_progress=False)]
    ours = [[index.papers[p].doc_id for p in positions] for positions in index.candidates(keys, k=10)]
    hit_bm25 = sum(item.doc_id in found for item, found in zip(real, by_bm25))
    hit_ours = sum(item.doc_id in found for item, found in zip(real, ours))
    assert hit_ours >= hit_bm25 and hit_ours >= 0.95 * len(real)
