"""The `evaluate` modules: loading offline by path and by name, their documented example, bad input."""

from __future__ import annotations

import doctest
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import sciwrite
from sciwrite.core.metric_modules import available_metrics, metric_path, metrics_root

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cpr():
    import evaluate

    return evaluate.load(str(REPO / "metrics" / "citation_precision_recall"))


def test_load_by_name_and_by_path(cpr):
    assert "citation_precision_recall" in available_metrics()
    by_name = sciwrite.load_metric("citation_precision_recall")
    assert by_name.name == cpr.name == "citation_precision_recall"
    with pytest.raises(FileNotFoundError, match=r"no sciwrite metric 'nope'; available: \[.*citation_precision_recall"):
        metric_path("nope")


def test_modules_are_found_through_importlib_resources(tmp_path, monkeypatch):
    """`sciwrite.evaluate_modules` is the repository's metrics/ folder; the look-up goes through the package."""
    assert metrics_root().resolve() == (REPO / "metrics").resolve()
    installed = tmp_path / "site" / "citation_precision_recall"
    shutil.copytree(REPO / "metrics" / "citation_precision_recall", installed)
    monkeypatch.setattr("sciwrite.core.metric_modules.metrics_root", lambda: installed.parent)
    assert metric_path("citation_precision_recall") == installed
    assert available_metrics() == ["citation_precision_recall"]


# Every module folder: a new module without a working documented example fails here.
ALL_MODULES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


@pytest.mark.parametrize("name", ALL_MODULES)
def test_documented_example_runs(name):
    """Each module's inputs description carries a doctest; it must hold."""
    metric = sciwrite.load_metric(name)
    module = sys.modules[type(metric).__module__]
    examples = doctest.DocTestParser().get_examples(module._KWARGS_DESCRIPTION)
    for example in examples:
        example.source = example.source.replace('evaluate.load("metrics/', f'evaluate.load("{REPO}/metrics/')
    runner = doctest.DocTestRunner()
    runner.run(doctest.DocTest(examples, {}, name, None, 0, None))
    assert runner.failures == 0 and runner.tries == len(examples) > 0


def test_every_module_folder_is_package_data_with_a_card():
    """pyproject's one package-data glob ships ``<name>/<name>.py`` and ``<name>/README.md`` of every folder."""
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"sciwrite.evaluate_modules" = ["*/*.py", "*/*.md"]' in pyproject
    folders = sorted(p for p in (REPO / "metrics").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert [p.name for p in folders] == ALL_MODULES
    for folder in folders:
        assert (folder / "README.md").is_file(), f"metrics/{folder.name} has no card"


def test_scores_by_hand(cpr):
    results = cpr.compute(
        predictions=["A [1] and B [2, 3].", "Nothing cited here [9].", "Only [2]."],
        references=[["d1", "d3"], ["d1"], ["x", "y"]],
        candidates=[["d1", "d2", "d3"], ["d1"], ["x", "y"]],
    )
    # paper 1: cited {d1, d2, d3} vs gold {d1, d3}: P 2/3, R 1; paper 2: empty-citation output: 0, 0; paper 3: P 1, R 1/2
    assert results["precision"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert results["recall"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert results["empty_citation_rate"] == pytest.approx(1 / 3)
    assert results["unresolved_markers"] == 1


def test_bad_input_names_the_problem(cpr):
    with pytest.raises(ValueError, match="`candidates` is required"):
        cpr.compute(predictions=["A [1]."], references=[["d1"]])
    with pytest.raises(ValueError, match=r"candidates \(2\) must have the same length"):
        cpr.compute(predictions=["A [1]."], references=[["d1"]], candidates=[["d1"], ["d2"]])
    with pytest.raises(ValueError, match="record 1: field 'references' is empty"):
        cpr.compute(predictions=["A [1].", "B [1]."], references=[["d1"], []], candidates=[["d1"], ["d1"]])


def test_reference_sections_score_one(cpr, sample_folder):
    """Each published section, with its own citations as candidates, cites exactly its gold set."""
    papers = pq.read_table(sample_folder / "sample" / "test-00000-of-00001.parquet").to_pylist()
    results = cpr.compute(predictions=[p["related_work"] for p in papers], references=[p["citations"] for p in papers],
                          candidates=[p["citations"] for p in papers])
    assert results == {"precision": 1.0, "recall": 1.0, "empty_citation_rate": 0.0, "unresolved_markers": 0}


def test_citation_distribution_balance_by_hand():
    cdb = sciwrite.load_metric("citation_distribution_balance")
    results = cdb.compute(
        predictions=["[1] [1] [2] [3] [3] [3] [4]", "no citation [5]", "[1][2]"],
        candidates=[["a", "b", "c", "d"], ["a"], ["a", "a"]],
    )
    # paper 1: a 2x, b 1x, c 3x, d 1x -> 2/4; paper 2: empty-citation output -> 0; paper 3: both markers are "a" -> 0/1
    assert results["citation_distribution_balance"] == pytest.approx((0.5 + 0 + 0) / 3)
    assert results["empty_citation_rate"] == pytest.approx(1 / 3)
    assert results["unresolved_markers"] == 1
    with pytest.raises(ValueError, match="record 0: field 'predictions' must be a string"):
        from sciwrite.rwgbench.metrics.scorers import score_citation_distribution_balance

        score_citation_distribution_balance([None], [["a"]])


def test_topical_relevance_by_hand(minilm):
    trt = sciwrite.load_metric("topical_relevance")
    corpus = {"d1": "Graph neural networks for molecules.", "d2": "Baking bread at home.", "d3": "Protein folding."}
    abstract = "Graph neural networks for molecules."
    results = trt.compute(predictions=["A [1] and B [2] and again [1, 2].", "nothing [7]"],
                          references=[abstract, abstract], candidates=[["d1", "d2"], ["d3"]], corpus=corpus, profile="lite")
    vectors = minilm.encode([abstract, corpus["d2"]], normalize_embeddings=True)
    expected_first = (1.0 + float(vectors[0] @ vectors[1])) / 2  # distinct cited papers d1 (same text) and d2
    assert results["topical_relevance"] == pytest.approx((expected_first + 0.0) / 2, abs=1e-4)  # paper 2: empty output
    assert results["empty_citation_rate"] == 0.5 and results["unresolved_markers"] == 1
    assert results["model"] == "packaged:all-MiniLM-L6-v2"


def test_topical_relevance_bad_input():
    trt = sciwrite.load_metric("topical_relevance")
    with pytest.raises(ValueError, match="`corpus` is required"):
        trt.compute(predictions=["A [1]"], references=["abs"], candidates=[["d1"]], profile="lite")
    with pytest.raises(ValueError, match=r"not in the corpus, e.g. \['zz'\]"):
        trt.compute(predictions=["A [1]"], references=["abs"], candidates=[["zz"]], corpus={"d1": "x"}, profile="lite")
    with pytest.raises(ValueError, match="record 0: field 'references'"):
        trt.compute(predictions=["A [1]"], references=[" "], candidates=[["d1"]], corpus={"d1": "x"}, profile="lite")


def test_topical_relevance_reads_a_corpus_dataset(mini_sample_folder):
    from sciwrite.rwgbench import load_rwgbench

    papers = load_rwgbench("sample", source=mini_sample_folder)
    corpus = load_rwgbench("sample_corpus", source=mini_sample_folder)
    trt = sciwrite.load_metric("topical_relevance")
    results = trt.compute(predictions=papers["related_work"], references=papers["abstract"],
                          candidates=papers["citations"], corpus=corpus, profile="lite")
    assert 0.0 < results["topical_relevance"] < 1.0 and results["empty_citation_rate"] == 0.0


def test_positioning_structure_similarity_by_hand(minilm):
    from sciwrite.rwgbench.metrics.formulas import positioning_structure_similarity

    pss = sciwrite.load_metric("positioning_structure_similarity")
    ref_blocks = ["Graph neural networks learn on molecules.", "Language models read papers.", "Robots fold laundry."]
    gen_blocks = ["Language models read papers.", "Graph neural networks learn on molecules."]
    results = pss.compute(predictions=["\n\n".join(b.replace(".", " [1].") for b in gen_blocks)],
                          references=["\n\n".join(ref_blocks)], profile="lite")
    g = minilm.encode(gen_blocks, normalize_embeddings=True)
    r = minilm.encode(ref_blocks, normalize_embeddings=True)
    assert results["positioning_structure_similarity"] == pytest.approx(positioning_structure_similarity(g @ r.T), abs=1e-4)


def test_reference_sections_have_pss_one(mini_sample_folder):
    from sciwrite.rwgbench import load_rwgbench

    papers = load_rwgbench("sample", source=mini_sample_folder)
    pss = sciwrite.load_metric("positioning_structure_similarity")
    results = pss.compute(predictions=papers["related_work"], references=papers["related_work"], profile="lite")
    assert results["positioning_structure_similarity"] == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(ValueError, match=r"Mismatch in the number of predictions \(1\) and references \(2\)"):
        pss.compute(predictions=["a"], references=["a", "b"], profile="lite")  # evaluate's own check


def test_citation_density_by_hand():
    cd = sciwrite.load_metric("citation_density")
    texts = [
        "Graph methods [1] came first. Attention [2] followed, e.g. in Fig. 2 of [3]. We build on [1].\n\nA new paragraph.",
        "",
        "No citation here [9].",
    ]
    results = cd.compute(predictions=texts, candidates=[["a", "b", "c"], [], ["a"]])
    # paper 1: 3 distinct papers over 4 sentences; paper 2: no sentence -> 0; paper 3: 0 papers / 1 sentence
    assert results["citation_density"] == pytest.approx((3 / 4 + 0 + 0) / 3)
    assert results["empty_citation_rate"] == pytest.approx(2 / 3)
    assert results["unresolved_markers"] == 1


def test_split_sentences_keeps_abbreviations_together():
    from sciwrite.metrics.text import content_blocks, split_sentences, strip_markers

    text = "Smith et al. [3] proposed it. Later, Fig. 2 shows e.g. a curve [4]. It rose by 3.5 points.\n\nNew para."
    assert split_sentences(text) == ["Smith et al. [3] proposed it.", "Later, Fig. 2 shows e.g. a curve [4].",
                                     "It rose by 3.5 points.", "New para."]
    assert strip_markers("as in [1, 2]. And [3] too") == "as in. And too"
    one_paragraph = "A graph came first. Attention followed. Transformers won. We differ."
    assert content_blocks(one_paragraph) == ["A graph came first. Attention followed. Transformers won.", "We differ."]
