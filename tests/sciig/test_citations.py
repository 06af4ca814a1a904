"""SciIG citation correctness, checked by hand."""

from __future__ import annotations

import pytest

import sciwrite
from sciwrite.sciig.metrics.citations import (
    citation_correctness,
    score_citation_correctness,
    summarize_citation_correctness,
)

NEIGHBORS = ["Li et al., 2022", "Smith and Jones, 2020", "Chen et al., 2021a", "Chen et al., 2021b"]


def test_precision_and_recall_by_hand():
    text = ("Parsers improved (Li et al., 2022b; Smith & Jones, 2020), as Brown (2019) showed; "
            "Li et al. (2022) agree.")
    row = citation_correctness(text, NEIGHBORS)
    # cited {li et al 2022, smith and jones 2020, brown 2019}; neighbors {li.., smith.., chen et al 2021} (a/b merge)
    assert row["n_cited"] == 3 and row["n_correct"] == 2 and row["n_neighbors"] == 3
    assert row["precision"] == pytest.approx(2 / 3) and row["recall"] == pytest.approx(2 / 3)
    assert row["not_in_neighbors"] == ["Brown, 2019"] and row["no_citation"] is False


def test_neighbor_records_and_normalisation():
    records = [{"key": "LI ET AL.  2022"}, {"key": "Smith & Jones, 2020"}]
    row = citation_correctness("See (Li et al., 2022) and Smith and Jones (2020).", records)
    assert row["precision"] == row["recall"] == 1.0


def test_no_citation_scores_zero_and_is_flagged():
    row = citation_correctness("An introduction that cites nothing (see Section 3).", NEIGHBORS)
    assert row["precision"] == row["recall"] == 0.0 and row["no_citation"] is True


def test_paper_without_neighbors_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"paper 'p2': `neighbors` has no citation key"):
        score_citation_correctness(["(Li, 2020)", "(Li, 2020)"], [["Li, 2020"], []], paper_ids=["p1", "p2"])
    with pytest.raises(TypeError, match=r"record 0: the prediction must be a string"):
        score_citation_correctness([None], [["Li, 2020"]])
    with pytest.raises(ValueError, match=r"predictions \(1\) and neighbors \(2\)"):
        score_citation_correctness(["x"], [["a"], ["b"]])


def test_summary_is_a_macro_mean():
    rows = score_citation_correctness(["(Li, 2020)", "Nothing cited."], [["Li, 2020", "Wu, 2019"], ["Li, 2020"]])
    summary = summarize_citation_correctness(rows)
    assert summary == {"precision": 0.5, "recall": 0.25, "no_citation_rate": 0.5}


def test_evaluate_module():
    metric = sciwrite.load_metric("citation_correctness")
    result = metric.compute(predictions=["(Li, 2020) and Wu (2019).", "none"], references=[["Li, 2020"], ["Wu, 2019"]])
    assert result == {"precision": 0.25, "recall": 0.5, "no_citation_rate": 0.5}
    assert "arXiv:2508.14273" in metric.citation


def test_a_multi_word_surname_matches_its_neighbor_key_only_when_unambiguous():
    """Extraction keeps the last word of "Kumar Bodigutla"; the neighbor key has both (a real aclsum case)."""
    text = "Satisfaction can be estimated per turn (Kumar Bodigutla et al., 2020) or per dialogue (Liu et al., 2021)."
    row = citation_correctness(text, ["Kumar Bodigutla et al., 2020", "Liu et al., 2021"])
    assert (row["precision"], row["recall"], row["not_in_neighbors"]) == (1.0, 1.0, [])
    # two gold keys end with the cited one: no guess, the citation is not counted as correct
    row = citation_correctness(text, ["Kumar Bodigutla et al., 2020", "Raj Bodigutla et al., 2020", "Liu et al., 2021"])
    assert row["n_correct"] == 1 and row["not_in_neighbors"] == ["Bodigutla et al., 2020"]
    # a different year never matches
    assert citation_correctness("(Bodigutla et al., 2019)", ["Kumar Bodigutla et al., 2020"])["n_correct"] == 0


def test_a_one_word_surname_is_not_taken_for_the_tail_of_a_longer_one():
    assert citation_correctness("(Li et al., 2020)", ["Zhuli et al., 2020"])["n_correct"] == 0
    assert citation_correctness("(Li et al., 2020)", ["Zhu Li et al., 2020"])["n_correct"] == 1
