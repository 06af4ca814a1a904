"""SurGE reference resolution, Coverage and citation precision: values worked by hand."""

from __future__ import annotations

import pytest

from sciwrite.surge.metrics.coverage import ExactTitleIndex, coverage, reference_precision, surge_normalize


@pytest.mark.parametrize("title, expected", [
    ("BERT-2: Pre-training of Deep Transformers", "bertpretrainingofdeeptransformers"),  # digits, ':' '-' ' ' dropped
    ("Café Über", "cafber"),  # non-ASCII letters dropped: 'é' and 'Ü' are not [a-zA-Z]
    ("  GPT 4 ", "gpt"),
    ("2024 / 42", ""),
])
def test_surge_normalize_keeps_ascii_letters_lower_cased(title, expected):
    assert surge_normalize(title) == expected


def test_index_resolves_exact_normalised_titles_and_the_last_record_wins():
    index = ExactTitleIndex.from_records([
        ("1", "Attention Is All You Need"),
        ("2", "Deep Residual Learning"),
        ("3", "attention is all you need!"),  # same normalised title as "1": the later record wins, as upstream
    ])
    assert len(index) == 2
    assert index.resolve("ATTENTION is all-you-need.") == "3"
    assert index.resolve("Deep residual learning (2016)") == "2"
    assert index.resolve("Deep Residual Learning for Image Recognition") is None  # no fuzzy match
    assert index.resolve("") is None


def test_a_title_without_letters_resolves_to_the_corpus_title_without_letters():
    # Upstream indexes "" like any normalised title; a reference "[12]"-like title then resolves to it.
    index = ExactTitleIndex.from_records([("7", "2020"), ("8", "Graph Networks")])
    assert index.resolve("1999 ...") == "7"


def test_coverage_counts_gold_cites_as_a_list():
    # gold a, b, c, a: a is cited, so both of its entries hit -> 2 of 4.
    assert coverage(["a", "b", "c", "a"], {"a", "x"}) == 0.5
    assert coverage(["a", "b"], ["a", "b", "b"]) == 1.0
    assert coverage(["a", "b"], []) == 0.0
    assert coverage([], {"a"}) is None  # upstream divides by zero


def test_citation_precision_counts_each_reference_entry():
    # 4 references: "a" twice (both in gold), one unresolved, "z" not in gold -> 2 / 4.
    assert reference_precision(["a", None, "a", "z"], {"a", "b"}) == 0.5
    assert reference_precision([None, None], {"a"}) == 0.0
    assert reference_precision(["b"], ["a", "b"]) == 1.0
    assert reference_precision([], {"a"}) is None
