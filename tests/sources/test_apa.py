"""APA / ACL author-year citation extraction and key normalisation, table-driven."""

from __future__ import annotations

import pytest

from sciwrite.sources.apa import comparison_key, extract_citation_keys, find_citations

CASES = [
    ("(Li et al., 2022)", ["Li et al., 2022"]),
    ("(Li and Wu, 2022; Chen et al., 2021a)", ["Li and Wu, 2022", "Chen et al., 2021a"]),
    ("as Li et al. (2022) show", ["Li et al., 2022"]),
    ("reported by Li et al., 2022b in detail", ["Li et al., 2022b"]),
    ("(Li et al., 2022, p. 3)", ["Li et al., 2022"]),
    ("(Li et al., 2022, pp. 3-5)", ["Li et al., 2022"]),
    ("(see Section 3)", []),
    ("in the year (2022)", []),
    ("BERT (2019) is a model", []),
    ("In Paris, 2022 was warm", []),
    ("in 2019 (Table 2)", []),
    ("(e.g., Li & Wu, 2022)", ["Li and Wu, 2022"]),
    ("(Chen et al., 2021a,b)", ["Chen et al., 2021a", "Chen et al., 2021b"]),
    ("(Li, 2020, 2021)", ["Li, 2020", "Li, 2021"]),
    ("Following Kenter and de Rijke (2015), we", ["Kenter and de Rijke, 2015"]),
    ("(Gašić et al., 2013a)", ["Gašić et al., 2013a"]),
    ("Li et al 2022 and (Wu et al. 2020)", ["Li et al., 2022", "Wu et al., 2020"]),
    ("(Smith 2020)", ["Smith, 2020"]),
    ("Wu et al., 2014)", ["Wu et al., 2014"]),  # a GROBID span cut before its "("
    ("(Li et al., 2022; see also Wu, 2020)", ["Li et al., 2022", "Wu, 2020"]),
    ("Smith (2020) and Jones et al. (2019a) found it (Brown and Lee, 2018).",
     ["Smith, 2020", "Jones et al., 2019a", "Brown and Lee, 2018"]),
    ("(Li et al., 2022) and again (Li et al., 2022)", ["Li et al., 2022"]),  # each key once
    ("O'Neil (2016) and Mc-Donald (2007)", ["O'Neil, 2016", "Mc-Donald, 2007"]),
]


@pytest.mark.parametrize(("text", "keys"), CASES)
def test_extract_citation_keys(text, keys):
    assert extract_citation_keys(text) == keys


def test_citations_carry_their_span_and_parts():
    text = "Parsing improved (Li and Wu, 2022; Chen et al., 2021a)."
    first, second = find_citations(text)
    assert (first.first, first.second, first.et_al, first.year, first.suffix) == ("Li", "Wu", False, 2022, "")
    assert text[first.start:first.end] == "Li and Wu, 2022"
    assert (second.first, second.et_al, second.suffix) == ("Chen", True, "a")
    assert text[second.start:second.end] == "Chen et al., 2021a"


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Li & Wu, 2022", "li and wu 2022", True),
    ("Li et al., 2022b", "Li et al., 2022", True),
    ("LI  ET AL.  2022", "Li et al., 2022", True),
    ("Gašić et al., 2013a", "Gasic et al., 2013", True),
    ("Li et al., 2022", "Li, 2022", False),
    ("Li et al., 2022", "Li et al., 2021", False),
    ("Li and Wu, 2022", "Li and Chen, 2022", False),
])
def test_comparison_key(a, b, same):
    assert (comparison_key(a) == comparison_key(b)) is same


def test_comparison_key_can_keep_the_suffix():
    assert comparison_key("Li et al., 2022b", keep_suffix=True) == "li et al 2022b"
    assert comparison_key("Li et al., 2022b") == "li et al 2022"
