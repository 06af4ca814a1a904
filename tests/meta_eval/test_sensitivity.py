"""Sensitivity analysis: the perturbations on hand-made texts, the expectation table, and a tiny end-to-end run."""

from __future__ import annotations

import json
import random

import pytest

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import main
from sciwrite.metrics.sensitivity import (
    DIRECTIONS,
    PERTURBATIONS,
    drop_every_second_citation,
    drop_every_second_marker,
    drop_last_paragraph,
    duplicate_text,
    expectation_in,
    failures,
    moved_as_expected,
    replace_citations,
    shift_citations,
    shift_markers,
    shuffle_paragraphs,
)
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.sensitivity import perturb_rwgbench, random_candidates, rwgbench_sensitivity
from sciwrite.rwgbench.metrics.suite import SUITE_METRICS as RWGBENCH_METRICS
from sciwrite.rwgbench.metrics.suite import load_rwgbench_models
from sciwrite.sciig.metrics.sensitivity import perturb_sciig
from sciwrite.sciig.metrics.suite import SUITE_METRICS as SCIIG_METRICS
from sciwrite.sources.apa import extract_citation_keys
from sciwrite.sources.markers import marker_numbers

TEXT = "A is known [1][2]. B follows [3]. C ends here [4].\n\nD is new [2]."


def test_drop_half_keeps_every_other_cited_number():
    assert marker_numbers(drop_every_second_marker("See [1][2][3][4].")) == [1, 3]
    dropped = drop_every_second_marker(TEXT)
    assert marker_numbers(dropped) == [1, 3]
    assert dropped == "A is known [1]. B follows [3]. C ends here.\n\nD is new."


def test_drop_half_author_year():
    text = "Parsing is hard (Li et al., 2020; Wu, 2021). Kim (2018) agrees. Again (Wu, 2021; Ng, 2019)."
    assert extract_citation_keys(drop_every_second_citation(text)) == ["Li et al., 2020", "Kim, 2018"]
    assert "(Li et al., 2020)." in drop_every_second_citation(text)


def test_shift_moves_markers_to_the_next_sentence():
    shifted = shift_markers("Alpha works [1]. Beta works. Gamma works.")
    assert shifted == "Alpha works. Beta works [1]. Gamma works."
    shifted = shift_markers(TEXT, seed=3)
    assert shifted.startswith("A is known") and "B follows [1] [2]" in shifted  # A's markers, to B
    assert "[2]" not in shifted.split("\n\n")[1]  # the last sentence's [2] went to a (seeded) earlier sentence
    assert "C ends here [3]" in shifted and "D is new [4]" in shifted
    assert sorted(marker_numbers(shifted)) == sorted(marker_numbers(TEXT))  # same markers, other sentences
    assert shifted.count("\n\n") == 1
    assert shift_markers("Only one sentence [1].") == "Only one sentence [1]."


def test_shift_author_year_citations():
    text = "Parsing is hard (Li, 2020). Tagging is easier. We differ."
    assert shift_citations(text) == "Parsing is hard. Tagging is easier (Li, 2020). We differ."


def test_replace_citations_with_fake_work():
    text = "Parsing (Li et al., 2020; Wu, 2021) is hard; Kim (2018) agrees."
    replaced = replace_citations(text)
    assert replaced == "Parsing (Nobody et al., 1900; Nobody et al., 1900) is hard; Nobody et al. (1900) agrees."
    assert extract_citation_keys(replaced) == ["Nobody et al., 1900"]


def test_paragraph_perturbations_empty_and_duplicate():
    assert drop_last_paragraph(TEXT) == "A is known [1][2]. B follows [3]. C ends here [4]."
    assert shuffle_paragraphs(TEXT) == "D is new [2].\n\nA is known [1][2]. B follows [3]. C ends here [4]."
    one = " ".join(f"Sentence {i} is here." for i in range(6))  # one paragraph: blocks of 3 sentences
    assert drop_last_paragraph(one) == "Sentence 0 is here. Sentence 1 is here. Sentence 2 is here."
    assert shuffle_paragraphs(one).startswith("Sentence 3")
    assert duplicate_text("x y.") == "x y.\n\nx y."
    assert duplicate_text("") == ""


def test_random_candidates_are_seeded_and_never_gold():
    pool = [f"d{i}" for i in range(20)]
    a = random_candidates(["d1", "d2", "d3"], pool, random.Random(0))
    assert len(a) == 3 and not {"d1", "d2", "d3"} & set(a)
    assert a == random_candidates(["d1", "d2", "d3"], pool, random.Random(0))


def test_perturb_batches_cover_every_perturbation():
    papers = [{"related_work": TEXT, "citations": ["a", "b", "c", "d"], "abstract": "Abs.", "introduction": "I."}]
    rwg = perturb_rwgbench(papers, ["a", "b", "c", "d", "e", "f", "g", "h"], seed=0)
    assert list(rwg) == ["reference", *PERTURBATIONS]
    assert rwg["empty_text"][0] == [""] and rwg["abstract_as_text"][0] == ["Abs."]
    assert set(rwg["random_citations"][1][0]) == {"e", "f", "g", "h"}
    assert list(perturb_sciig(papers)) == ["reference", *PERTURBATIONS]


def test_expectations_cover_both_benchmarks():
    for benchmark, metrics in (("rwgbench", RWGBENCH_METRICS), ("sciig", SCIIG_METRICS)):
        sensitivity = BENCHMARKS[benchmark].studies.sensitivity
        assert set(sensitivity.expected) == set(metrics)
        for metric in metrics:
            assert set(sensitivity.expected[metric]) == set(PERTURBATIONS)
            assert set(sensitivity.expected[metric].values()) <= set(DIRECTIONS)
        for metric, perturbation in sensitivity.reasons:
            assert metric in sensitivity.expected and perturbation in {"*", *PERTURBATIONS}
    rwg = BENCHMARKS["rwgbench"].studies.sensitivity
    expectation = lambda metric, perturbation: expectation_in(rwg.expected, rwg.reasons, metric, perturbation)  # noqa: E731
    assert expectation("precision", "drop_half_citations")[0] == "any"
    assert expectation("positioning_structure_similarity", "shuffle_paragraphs") == ("down", "")
    assert expectation("citation_density", "empty_text")[1]


def test_moved_as_expected():
    assert moved_as_expected("down", -0.5, -0.1) is True
    assert moved_as_expected("down", -0.5, 0.1) is False
    assert moved_as_expected("up", 0.1, 0.2) is True
    assert moved_as_expected("down", 0.1, 0.2) is False
    assert moved_as_expected("any", -1.0, -0.5) is None
    assert moved_as_expected("down", None, None) is None


@pytest.fixture(scope="module")
def four_papers(sample_folder):
    papers = [dict(p) for p in load_rwgbench("sample", source=sample_folder)][:4]
    return papers, load_rwgbench("sample_corpus", source=sample_folder)


def test_end_to_end_random_documents_lower_precision(four_papers):
    papers, corpus = four_papers
    cheap = ["precision", "recall", "citation_density", "citation_distribution_balance"]
    suite = load_rwgbench_models("lite", metrics=cheap)
    rows = rwgbench_sensitivity(papers, corpus, suite, n_resamples=200)
    assert {r["metric"] for r in rows} == set(cheap)
    assert len(rows) == len(cheap) * len(PERTURBATIONS)
    by = {(r["metric"], r["perturbation"]): r for r in rows}
    random_p = by[("precision", "random_citations")]
    assert random_p["n_papers"] == 4 and random_p["reference"] == pytest.approx(1.0)
    assert random_p["difference"] < 0 and random_p["moved_as_expected"] is True
    assert by[("recall", "drop_half_citations")]["moved_as_expected"] is True
    assert by[("precision", "drop_half_citations")]["difference"] == pytest.approx(0.0)
    assert by[("citation_density", "empty_text")]["moved_as_expected"] is None  # "any"
    assert all(r["metric"] != "precision" or r["perturbation"] != "random_citations" for r in failures(rows))


def test_text_quality_is_not_expected_to_see_markers(four_papers):
    """ROUGE-L is computed with the markers stripped, so dropping or moving markers leaves it where it was: the
    study expects nothing there (it used to expect a drop, and listed the metric as failing on every run), and still
    expects a drop when the words change."""
    papers, corpus = four_papers
    rows = rwgbench_sensitivity(papers, corpus, load_rwgbench_models("lite", metrics=["rougeL"]), n_resamples=50)
    by = {(r["metric"], r["perturbation"]): r for r in rows}
    for perturbation in ("drop_half_citations", "shift_markers"):
        assert by[("rougeL", perturbation)]["difference"] == pytest.approx(0.0, abs=0.02)
        assert by[("rougeL", perturbation)]["moved_as_expected"] is None
    assert by[("rougeL", "abstract_as_text")]["moved_as_expected"] is True
    assert not [r for r in failures(rows) if r["perturbation"] in ("drop_half_citations", "shift_markers")]


def test_cli_sensitivity_prints_table_and_failures(tmp_path, capsys):
    stem = tmp_path / "sens"
    assert main(["meta-eval", "sensitivity", "--benchmark", "rwgbench", "--profile", "lite", "--limit", "3",
                 "--metrics", "precision", "recall", "citation_density", "--bootstrap", "50",
                 "--out", str(stem)]) == 0
    out = capsys.readouterr().out
    assert "rwgbench sensitivity" in out and "random_citations" in out and "moved_as_expected" in out
    assert "fails to move as expected" in out
    rows = json.loads(stem.with_suffix(".json").read_text())
    assert len(rows) == 3 * len(PERTURBATIONS) and stem.with_suffix(".csv").exists()
