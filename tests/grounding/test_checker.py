"""The reference checker's verdicts, each on a case built to need it, with the evidence it gives."""

from __future__ import annotations

import pytest

from sciwrite.grounding.checker import ReferenceChecker, cited_surnames
from sciwrite.grounding.record_index import RecordIndex, name_key
from sciwrite.grounding.resolver import Reference
from sciwrite.grounding.taxonomy import (
    ANACHRONISTIC,
    FABRICATED,
    METADATA_MISMATCH,
    TITLE_MISMATCH,
    UNRESOLVED,
    VERIFIED,
)
from sciwrite.grounding.venues import canonical_venue, is_preprint, same_venue
from sciwrite.sources.api_client import ApiError
from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.identifiers import arxiv_id_of, normalize_doi, same_doi

ATTENTION = BibRecord("snapshot:t", "vaswani17", "Attention Is All You Need",
                      ("Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit"), 2017, None, "NeurIPS",
                      "10.5555/3295222.3295349", None, "inproceedings")
BERT = BibRecord("snapshot:t", "devlin19", "BERT: Pre-training of Deep Bidirectional Transformers for Language "
                 "Understanding", ("Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"), 2019, None,
                 "NAACL", "10.18653/v1/N19-1423", None, "inproceedings")
PREPRINT = BibRecord("snapshot:t", "chen26", "A Preprint About Sparse Mixtures of Experts",
                     ("Li Chen 0001", "Maria Rossi"), 2026, None, "", "10.48550/arXiv.2602.12345", "2602.12345", "misc")
RECORDS = [ATTENTION, BERT, PREPRINT]


def checker(complete: bool = True, services: tuple = ()) -> ReferenceChecker:
    return ReferenceChecker(RecordIndex(RECORDS, "snapshot:t", complete=complete), services, cutoff_year=2026)


def one(ref: Reference, **options: object) -> object:
    return checker(**options).check([ref])[0]  # type: ignore[arg-type]


def test_a_reference_agreeing_with_its_record_is_verified():
    check = one(Reference("Attention is all you need.", ("A. Vaswani", "N. Shazeer", "N. Parmar", "J. Uszkoreit"),
                          2017, "Advances in Neural Information Processing Systems", "https://doi.org/10.5555/3295222.3295349"))
    assert check.verdict == VERIFIED and check.matched is ATTENTION and not check.mismatches
    assert check.confidence == pytest.approx(0.95)


@pytest.mark.parametrize(("change", "field", "kind"), [
    ({"year": 2019}, "year", "differs"),
    ({"venue": "ICML"}, "venue", "differs"),
    ({"venue": "Symposium on Neural Scaling Laws"}, "venue", "nonexistent"),
    ({"doi": "10.88880/bpr.633067"}, "doi", "does_not_resolve"),
    ({"doi": "10.18653/v1/N19-1423"}, "doi", "other_work"),
    ({"authors": ("Jacob Devlin", "Kenton Lee")}, "authors", "replaced"),
    ({"authors": ("Ashish Vaswani", "Noam Shazeer")}, "authors", "partial"),
    ({"authors": ("Ashish Vaswani", "Petra Silva")}, "authors", "differ"),
    ({"authors": ("Petra Silva", "Yacouba Ndiaye")}, "authors", "placeholder"),
])
def test_each_differing_field_is_named(change, field, kind):
    base = {"title": "Attention Is All You Need", "authors": ATTENTION.authors, "year": 2017, "venue": "NeurIPS",
            "doi": ATTENTION.doi}
    check = one(Reference(**{**base, **change}))
    assert check.verdict == METADATA_MISMATCH and check.matched is ATTENTION
    assert [(m.field, m.kind) for m in check.mismatches] == [(field, kind)]


def test_a_truncated_author_list_that_says_so_is_not_partial():
    check = one(Reference("Attention Is All You Need", ("Ashish Vaswani", "Noam Shazeer", "others"), 2017))
    assert check.verdict == VERIFIED


def test_a_preprint_cited_as_published_and_an_arxiv_doi_with_a_version():
    check = one(Reference(PREPRINT.title, ("Li Chen", "Maria Rossi"), 2026, "ICLR", "10.48550/arXiv.2602.12345v2"))
    assert [(m.field, m.kind) for m in check.mismatches] == [("venue", "preprint_as_published")]
    assert one(Reference(PREPRINT.title, ("Li Chen", "Maria Rossi"), 2026, "arXiv preprint",
                         "10.48550/arXiv.2602.12345v2")).verdict == VERIFIED


def test_near_miss_and_chimeric_titles_are_title_mismatches():
    near = one(Reference("Attention Is All You Want", ("Ashish Vaswani",), 2017))
    assert (near.verdict, near.kind, near.matched) == (TITLE_MISMATCH, "near_miss", ATTENTION)
    assert 0.8 <= near.title_similarity < 1.0
    chimera = one(Reference("Deep Transformers for Protein Folding", ("Jacob Devlin", "Ming-Wei Chang", "Kenton Lee")))
    assert (chimera.verdict, chimera.kind, chimera.matched) == (TITLE_MISMATCH, "chimera", BERT)
    assert "3 of its 3 authors" in chimera.why


def test_absent_titles_are_fabricated_in_a_complete_snapshot_and_unresolved_in_an_open_one():
    ref = Reference("Quantum Gradient Descent for Folding Proteins", ("Wei Seo", "Tamara Fu"), 2021)
    assert one(ref).verdict == FABRICATED
    open_check = one(ref, complete=False)
    assert open_check.verdict == UNRESOLVED and open_check.confidence == 0.5 and not open_check.wrong


def test_a_doi_naming_another_work_without_shared_authors_is_a_fabrication_matched_to_it():
    check = one(Reference("Bidirectional Pretraining at Scale", ("Lucas Brown",), 2019, doi="10.18653/v1/N19-1423"))
    assert check.verdict == FABRICATED and check.matched is BERT


def test_anachronisms():
    future = one(Reference("Attention Is All You Need", ATTENTION.authors, 2033, "NeurIPS"))
    assert future.verdict == ANACHRONISTIC and future.matched is ATTENTION
    citing_2020 = checker().check([Reference(PREPRINT.title, ("Li Chen", "Maria Rossi"))], cutoff_years=[2020])[0]
    assert citing_2020.verdict == ANACHRONISTIC and citing_2020.kind == "work_after_cutoff"


class _Service:
    resolves_dois = True
    resolves_arxiv_ids = False

    def __init__(self, name: str, records: list[BibRecord], fail: bool = False):
        self.name, self.records, self.fail, self.calls = name, records, fail, 0

    def search(self, title, authors, year):
        self.calls += 1
        if self.fail:
            raise ApiError(f"{self.name} timed out")
        return list(self.records)

    def by_doi(self, doi):
        return next((r for r in self.records if normalize_doi(r.doi) == doi), None)

    def by_arxiv_id(self, arxiv_id):
        return next((r for r in self.records if r.arxiv_id == arxiv_id), None)


def test_a_service_fills_what_the_snapshot_lacks_and_an_unreachable_one_never_makes_a_fabrication():
    gpt3 = BibRecord("crossref", "10.5555/gpt3", "Language Models are Few-Shot Learners", ("Tom B. Brown",), 2020,
                     venue="NeurIPS", doi="10.5555/gpt3")
    ref = Reference("Language Models are Few-Shot Learners", ("Tom Brown",), 2020, "NeurIPS")
    assert one(ref, complete=False, services=(_Service("crossref", [gpt3]),)).verdict == VERIFIED
    assert one(ref, complete=False, services=(_Service("crossref", []),)).verdict == FABRICATED
    down = checker(False, (_Service("dblp", [], fail=True),))
    check = down.check([ref])[0]
    assert check.verdict == UNRESOLVED and check.unreachable == ("dblp",) and "could not be reached" in check.why
    assert down.service_failures == {"dblp": 1}
    exact = _Service("crossref", [gpt3])
    assert one(Reference("Attention Is All You Need"), services=(exact,)).verdict == VERIFIED
    assert exact.calls == 0  # the snapshot settled it: nothing sent


def test_identifiers_venues_and_names():
    assert normalize_doi("https://doi.org/10.1109/CVPR.2021.01368.") == "10.1109/cvpr.2021.01368"
    assert arxiv_id_of("10.48550/arXiv.2602.12279v1") == ("2602.12279", "v1")
    assert arxiv_id_of("https://arxiv.org/abs/hep-th/9901001v3") == ("hep-th/9901001", "v3")
    assert same_doi("10.48550/arXiv.2602.12279v1", "10.48550/arxiv.2602.12279") is True
    assert canonical_venue("Proceedings of the 38th International Conference on Machine Learning") == "ICML"
    assert canonical_venue("NIPS 2017") == "NeurIPS" and canonical_venue("Mach. Learn.") == "Machine Learning"
    assert same_venue("ICML", "Machine Learning") is False and same_venue("CVPR", None) is None
    assert is_preprint("arXiv preprint arXiv:1606.06565") and is_preprint("CoRR") and not is_preprint("ICLR")
    assert cited_surnames(["Wei Wang 0001", "Devlin, J.", "et al."]) == (("wang", "devlin"), True)
    assert name_key("Devlin, Jacob") == name_key("Jacob Devlin") == "j devlin"


def test_of_two_records_of_one_title_the_one_the_reference_agrees_with_is_matched():
    bare = BibRecord("corpus", "c1", "Language Models are Few-Shot Learners", tuple(f"Author {i}" for i in range(31)),
                     2020)
    preprint = BibRecord("snapshot:t", "corr", "Language Models are Few-Shot Learners",
                         ("Tom B. Brown", "Benjamin Mann"), 2020, venue="", arxiv_id="2005.14165", entry_type="misc")
    index = RecordIndex([bare, preprint], "corpus+snapshot:t")
    check = ReferenceChecker(index).check([Reference("Language models are few-shot learners",
                                                     ("Tom Brown", "Benjamin Mann"), 2020, "arXiv preprint")])[0]
    assert check.verdict == VERIFIED and check.matched is preprint


def test_an_arxiv_doi_is_never_called_unresolvable_by_a_service_that_cannot_resolve_arxiv_ids():
    gpt3 = BibRecord("crossref", "x", "Language Models are Few-Shot Learners", ("Tom B. Brown",), 2020,
                     doi="10.5555/other")
    ref = Reference("Language Models are Few-Shot Learners", ("Tom Brown",), 2020, doi="10.48550/arXiv.2005.14165")
    assert one(ref, complete=False, services=(_Service("crossref", [gpt3]),)).verdict == VERIFIED
    arxiv = _Service("arxiv", [BibRecord("arxiv", "2005.14165", gpt3.title, gpt3.authors, 2020, venue="",
                                         arxiv_id="2005.14165")])
    arxiv.resolves_dois, arxiv.resolves_arxiv_ids = False, True
    check = one(Reference("A Title Nobody Wrote", ("Tom Brown",), 2020, doi="10.48550/arXiv.2005.14165"),
                complete=False, services=(arxiv,))
    assert check.verdict == TITLE_MISMATCH and check.matched.id == "2005.14165"
