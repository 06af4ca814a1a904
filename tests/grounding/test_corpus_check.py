"""The reference checker's verdicts in the shared grounding (`sciwrite.grounding.scoring`): each listed reference's
``check`` against the corpus as a closed world, the per-paper verdict rates and the system summary's means, worked
by hand on a five-paper corpus."""

from __future__ import annotations

import pytest

from sciwrite.core.paper_row import typed_rows
from sciwrite.grounding.check_cells import check_cells
from sciwrite.grounding.corpus_check import CLOSED_WORLD_NOTE, cutoff_year, lazy_checker
from sciwrite.grounding.resolver import lazy_resolver
from sciwrite.grounding.scoring import N_CHECKED, VERDICT_RATE_KEYS, ground_reference_lists, summarize_grounding
from sciwrite.grounding.specs import GROUNDING_VERDICT_RATES
from sciwrite.grounding.taxonomy import CHECK_VERDICTS

CORPUS = [
    {"doc_id": "d1", "title": "Attention Is All You Need", "authors": ["Ashish Vaswani", "Noam Shazeer"],
     "year": 2017},
    {"doc_id": "d2", "title": "Deep Residual Learning for Image Recognition", "authors": ["Kaiming He", "Xiangyu Zhang"],
     "year": 2016},
    {"doc_id": "d3", "title": "Neural Machine Translation by Jointly Learning to Align and Translate",
     "authors": ["Dzmitry Bahdanau", "Kyunghyun Cho"], "year": 2015},
    {"doc_id": "d4", "title": "Language Models are Few-Shot Learners", "authors": ["Tom Brown", "Benjamin Mann"],
     "year": 2020},
    {"doc_id": "d5", "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
     "authors": ["Jacob Devlin", "Ming-Wei Chang"], "year": 2019},
]
#: Paper A (2019): one reference per verdict but unresolved, and an unreadable one (no title: not checked).
LIST_A = [
    {"n": 1, "title": "Attention Is All You Need", "authors": ["Ashish Vaswani", "Noam Shazeer"], "year": 2017},
    {"n": 2, "title": "Deep Residual Learning for Image Recognition", "authors": ["Kaiming He", "Xiangyu Zhang"],
     "year": 2014},
    {"n": 3, "title": "Neural Machine Translation by Jointly Learning to Align and to Translate",
     "authors": ["Dzmitry Bahdanau", "Kyunghyun Cho"], "year": 2015},
    {"n": 4, "title": "Quantum Gravity for Sparse Llama Parsing", "authors": ["Nobody Real"], "year": 2018},
    {"n": 5, "title": "Language Models are Few-Shot Learners", "authors": ["Tom Brown", "Benjamin Mann"],
     "year": 2020},
    {"n": 6, "title": ""},
]
#: Paper B (2021): one verified reference.
LIST_B = [{"n": 1, "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
           "year": 2019}]


class Counting:
    """A checker factory that counts how often it is built and how often `check` is called."""

    def __init__(self, corpus):
        self.factory, self.built, self.calls = lazy_checker(corpus), 0, 0

    def __call__(self):
        self.built += 1
        checker = self.factory()
        counting = self

        class Wrapped:
            def check(self, references, cutoff_years=None):
                counting.calls += 1
                return checker.check(references, cutoff_years)
        return Wrapped()


def ground(lists, years, checker=None):
    return ground_reference_lists(lists, [["d1"], ["d5"], []][:len(lists)], ["paper_id 'A'", "paper_id 'B'",
                                                                             "paper_id 'C'"][:len(lists)],
                                  lazy_resolver(CORPUS), checker=checker or lazy_checker(CORPUS), years=years)


def test_each_reference_gets_the_checkers_verdict_and_the_paper_its_rates():
    counting = Counting(CORPUS)
    row_a, row_b, row_c = ground([LIST_A, LIST_B, None], [2019, "2021", None], counting)
    assert (counting.built, counting.calls) == (1, 1)  # every reference of the system in one check() call
    refs = row_a["grounding_references"]
    assert [r["check"]["verdict"] for r in refs[:5]] == ["verified", "metadata_mismatch", "title_mismatch",
                                                        "fabricated", "anachronistic"]
    assert "check" not in refs[5] and refs[5]["verdict"] == "invalid"  # unreadable: not checked
    assert "title" not in refs[0]["check"]  # the row has it already
    assert refs[0]["check"]["matched"] == {"source": "corpus", "id": "d1", "title": "Attention Is All You Need",
                                           "authors": ["Ashish Vaswani", "Noam Shazeer"], "year": 2017}
    assert refs[1]["check"]["fields"] == ["year"] and refs[1]["check"]["mismatches"][0]["record"] == "2016"
    assert refs[2]["check"]["kind"] == "near_miss" and refs[2]["check"]["matched"]["id"] == "d3"
    assert refs[3]["check"]["matched"] is None and "no work in corpus has this title" in refs[3]["check"]["why"]
    assert refs[4]["check"]["why"] == "dated 2020, after the cutoff 2019"
    # per paper: shares of the checked references (A: 5 checked, one each; B: 1 checked, verified)
    assert row_a[N_CHECKED] == 5 and row_b[N_CHECKED] == 1
    assert [row_a[k] for k in VERDICT_RATE_KEYS] == [0.2, 0.2, 0.2, 0.2, 0.2, 0.0]
    assert [row_b[k] for k in VERDICT_RATE_KEYS] == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert row_c == {"grounding_source": None}
    # the system: the mean over the papers with a checked reference, (A + B) / 2
    summary = summarize_grounding(typed_rows([{"paper_id": p, **r} for p, r in zip("ABC", (row_a, row_b, row_c))]))
    assert summary is not None and summary.checker == CLOSED_WORLD_NOTE and "closed world" in summary.checker
    assert [summary.metrics[k] for k in VERDICT_RATE_KEYS] == pytest.approx([0.6, 0.1, 0.1, 0.1, 0.1, 0.0])
    assert summary.to_json()["checker"] == CLOSED_WORLD_NOTE


def test_the_rate_keys_are_declared_once_per_verdict():
    assert tuple(GROUNDING_VERDICT_RATES) == CHECK_VERDICTS
    assert VERDICT_RATE_KEYS == tuple(f"grounding_verdict_{v}_rate" for v in CHECK_VERDICTS)
    assert [s.key for s in GROUNDING_VERDICT_RATES.values() if s.on_board] == [
        "grounding_verdict_fabricated_rate", "grounding_verdict_metadata_mismatch_rate"]


def test_without_the_papers_year_the_cutoff_is_the_checkers_default():
    row, = ground([LIST_A[4:5]], None)
    assert row["grounding_references"][0]["check"]["verdict"] == "verified"
    assert [cutoff_year(y) for y in (2019, "2019", " 7 ", None, 0, -3, True, "n.d.", 2019.0)] == [
        2019, 2019, 7, None, None, None, None, None, None]


def test_no_listed_reference_builds_no_index():
    counting = Counting(CORPUS)
    rows = ground([None, []], [2019, 2020], counting)
    assert counting.built == 0
    assert rows[1][N_CHECKED] == 0 and rows[1][VERDICT_RATE_KEYS[0]] is None  # no reference checked: no rate
    summary = summarize_grounding(typed_rows([{"paper_id": p, **r} for p, r in zip("AB", rows)]))
    assert summary is not None and summary.checker is None and summary.metrics[VERDICT_RATE_KEYS[0]] is None


def test_a_check_as_drilldown_cells_is_text():
    row, = ground([LIST_A[1:4]], [2019])
    cells = [check_cells(r["check"]) for r in row["grounding_references"]]
    assert cells[0] == {"Check": "metadata mismatch", "Fields differing": "year: cited 2014, record 2016",
                        "Matched record": "Deep Residual Learning for Image Recognition (corpus d2)",
                        "Check evidence": "title matches corpus d2; year 2014, the record says 2016"}
    assert cells[1]["Check"] == "title mismatch (near_miss)" and cells[1]["Matched record"].endswith("(corpus d3)")
    assert cells[2]["Check"] == "fabricated" and cells[2]["Matched record"] == ""
    assert check_cells(None) == {"Check": "\u2013", "Fields differing": "", "Matched record": "", "Check evidence": ""}
