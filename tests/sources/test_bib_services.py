"""The five bibliographic services behind `BibService`, against their fakes, sharing one SQLite cache: each answers
a title search and what lookups it can, counts requests and cache answers, and a rerun on a new cache instance
sends nothing and answers the same. `open_services` refuses unknown services and options by name."""

from __future__ import annotations

import threading

import pytest

from sciwrite.sources.arxiv import ArxivPaper
from sciwrite.sources.bib_services import SERVICES, ServiceCounts, arxiv_record, open_services
from sciwrite.sources.openalex import as_work as openalex_work
from sciwrite.sources.response_cache import SqliteResponseCache
from sciwrite.sources.semantic_scholar import as_work as s2_work
from tests.fakes.arxiv import ArxivServer
from tests.fakes.crossref import CrossrefServer
from tests.fakes.dblp import DblpServer
from tests.fakes.openalex import OpenAlexServer
from tests.fakes.semantic_scholar import SemanticScholarServer

TITLE = "Deep Residual Learning for Image Recognition"
DOI = "10.1109/CVPR.2016.90"
CROSSREF = {DOI: {"title": [TITLE], "type": "proceedings-article", "author": [{"given": "Kaiming", "family": "He"}],
                  "issued": {"date-parts": [[2016]]}, "container-title": ["CVPR"]}}
DBLP = [{"authors": {"author": {"@pid": "1", "text": "Kaiming He 0001"}}, "title": f"{TITLE}.", "venue": "CVPR",
         "year": "2016", "type": "Conference and Workshop Papers", "key": "conf/cvpr/HeZRS16", "doi": DOI,
         "url": "https://dblp.org/rec/conf/cvpr/HeZRS16"}]
S2 = {"resnet": {"paperId": "s2-resnet", "title": TITLE, "year": 2016, "venue": "CVPR",
                 "authors": [{"name": "Kaiming He"}], "publicationTypes": ["Conference"],
                 "externalIds": {"DOI": DOI, "ArXiv": "1512.03385"}}}
OPENALEX = [{"id": "https://openalex.org/W2194775991", "display_name": TITLE, "publication_year": 2016,
             "authorships": [{"author": {"display_name": "Kaiming He"}}], "doi": f"https://doi.org/{DOI.lower()}",
             "type": "article", "primary_location": {"landing_page_url": f"https://doi.org/{DOI}",
                                                     "source": {"display_name": "CVPR", "type": "conference"}}}]
ARXIV = [{"arxiv_id": "1512.03385", "published": "2015-12-10", "title": TITLE, "authors": ["Kaiming He"],
          "abstract": "Deeper neural networks are more difficult to train."}]


@pytest.fixture
def servers():
    running = {"crossref": CrossrefServer(CROSSREF), "dblp": DblpServer(DBLP),
               "semantic_scholar": SemanticScholarServer(S2), "openalex": OpenAlexServer(OPENALEX),
               "arxiv": ArxivServer(ARXIV)}
    for server in running.values():  # polling for shutdown often: closing five servers takes no 2.5 s
        threading.Thread(target=server.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    yield running
    for server in running.values():
        server.close()


def options_for(servers) -> dict:
    return {"min_interval": 0, "crossref": {"base_url": servers["crossref"].url},
            "dblp": {"base_url": servers["dblp"].url},
            "semantic_scholar": {"base_url": f"{servers['semantic_scholar'].url}/graph/v1"},
            "openalex": {"base_url": servers["openalex"].url}, "arxiv": {"api_url": servers["arxiv"].api_url}}


def ask(services) -> dict:
    return {s.name: (s.search(TITLE, ["Kaiming He"], 2016), s.by_doi(f"https://doi.org/{DOI}"),
                     s.by_arxiv_id("arXiv:1512.03385v2"), s.by_doi("10.9999/nothing")) for s in services}


def test_every_service_answers_through_one_shared_cache_and_a_rerun_sends_nothing(servers, tmp_path):
    path = tmp_path / "responses.sqlite"
    with SqliteResponseCache(path) as cache:
        services = open_services(list(SERVICES), cache, **options_for(servers))
        first = ask(services)
        sent = {name: len(server.requests) for name, server in servers.items()}
        counts = {s.name: s.counts() for s in services}
    assert [s.name for s in services] == list(SERVICES)
    for name, (found, by_doi, by_arxiv, missing) in first.items():
        assert found and found[0].title == TITLE and found[0].year == (2015 if name == "arxiv" else 2016), name
        assert missing is None
        assert (by_doi is not None) == services[list(SERVICES).index(name)].resolves_dois, name
        assert (by_arxiv is not None) == services[list(SERVICES).index(name)].resolves_arxiv_ids, name
    assert {found[0].source for found, *_ in first.values()} == set(SERVICES)
    assert first["crossref"][1].doi == DOI and first["openalex"][1].venue == "CVPR"
    assert first["semantic_scholar"][2].arxiv_id == "1512.03385" and first["arxiv"][2].venue == ""
    assert first["dblp"][0][0].authors == ("Kaiming He",)
    # what each service was asked: a search, and only the lookups it can answer
    assert sent == {"crossref": 3, "dblp": 1, "semantic_scholar": 4, "openalex": 3, "arxiv": 2}
    assert counts["crossref"] == ServiceCounts(lookups=3, requests=3, from_cache=0)
    assert counts["dblp"] == ServiceCounts(lookups=1, requests=1, from_cache=0)

    with SqliteResponseCache(path) as cache:  # a rerun: new cache instance, new clients
        again = open_services(list(SERVICES), cache, **options_for(servers))
        assert ask(again) == first
        assert cache.count() == sum(sent.values())
    assert {name: len(server.requests) for name, server in servers.items()} == sent
    assert {s.name: s.counts() for s in again} == {
        name: ServiceCounts(c.lookups, 0, c.requests) for name, c in counts.items()}


def test_open_services_takes_names_in_order_once_and_the_default_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_CACHE_DIR", str(tmp_path))
    services = open_services("dblp, crossref,dblp", timeout=3, crossref={"mailto": "me@example.org"})
    assert [s.name for s in services] == ["dblp", "crossref"]
    dblp, crossref = (s.client for s in services)  # type: ignore[attr-defined]
    assert dblp.timeout == crossref.timeout == 3 and crossref.mailto == "me@example.org"
    assert dblp.cache is crossref.cache and dblp.cache.path == tmp_path / "online" / "responses.sqlite"
    assert open_services([], SqliteResponseCache(tmp_path / "x.sqlite")) == []


def test_unknown_services_and_options_are_named_with_the_choices(tmp_path):
    cache = SqliteResponseCache(tmp_path / "c.sqlite")
    with pytest.raises(ValueError, match=r"unknown bibliographic service 'googlescholar'; choose from: crossref, "
                                         r"dblp, semantic_scholar, openalex, arxiv"):
        open_services(["crossref", "googlescholar"], cache)
    with pytest.raises(ValueError, match=r"unknown option 'mailto'.*backoff, max_retries, min_interval, timeout"):
        open_services(["crossref"], cache, mailto="me@example.org")


def test_services_that_cannot_resolve_ask_nothing_and_bad_ids_are_none(servers, tmp_path):
    with SqliteResponseCache(tmp_path / "c.sqlite") as cache:
        dblp, s2 = open_services(["dblp", "semantic_scholar"], cache, **options_for(servers))
        assert dblp.by_doi(DOI) is None and dblp.by_arxiv_id("1512.03385") is None
        assert s2.by_doi("not a doi") is None and s2.by_arxiv_id("not an id") is None and s2.search("  ") == []
    assert servers["dblp"].requests == [] and servers["semantic_scholar"].requests == []


def test_an_arxiv_paper_with_a_journal_reference_is_not_a_preprint():
    paper = ArxivPaper("1512.03385", 1, "2015-12-10", "2015-12-10", TITLE, "", ["Kaiming He"], journal_ref="CVPR 2016",
                       doi=DOI)
    record = arxiv_record(paper)
    assert (record.venue, record.entry_type, record.doi, record.year) == ("CVPR 2016", None, DOI, 2015)
    assert arxiv_record(ArxivPaper("1512.03385", 1, "2015-12-10", "2015-12-10", TITLE, "")).venue == ""


def test_semantic_scholar_and_openalex_records_say_where_a_work_was_published():
    s2 = s2_work({"paperId": "p", "title": "T", "venue": "arXiv.org", "externalIds": {"ArXiv": "2101.00001"},
                  "publicationTypes": ["JournalArticle"]})
    assert (s2.venue, s2.arxiv_id, s2.doi, s2.entry_type) == ("", "2101.00001", None, "misc")  # a preprint
    unknown = s2_work({"paperId": "p", "title": "T", "venue": "", "publicationTypes": ["JournalArticle"]})
    assert (unknown.venue, unknown.entry_type) == (None, "article")  # S2's empty venue: unknown, not a preprint
    preprint = openalex_work({"id": "https://openalex.org/W9", "display_name": "T", "type": "preprint",
                              "primary_location": {"landing_page_url": "https://arxiv.org/abs/2101.00001",
                                                   "source": {"display_name": "arXiv (Cornell University)",
                                                              "type": "repository"}}})
    assert (preprint.venue, preprint.arxiv_id, preprint.entry_type, preprint.id) == ("", "2101.00001", "misc", "W9")
    journal = openalex_work({"id": "W1", "display_name": "T", "type": "article", "doi": "https://doi.org/10.1/J",
                             "primary_location": {"source": {"display_name": "Nature", "type": "journal"}}})
    assert (journal.venue, journal.doi, journal.entry_type) == ("Nature", "10.1/J", "article")
    bare = openalex_work({"id": "W2", "display_name": "T"})  # match_title's select: nothing said about a venue
    assert (bare.venue, bare.entry_type, bare.arxiv_id) == (None, None, None)


def test_an_arxiv_id_arxiv_does_not_know_is_none(servers, tmp_path):
    with SqliteResponseCache(tmp_path / "c.sqlite") as cache:
        [arxiv] = open_services(["arxiv"], cache, **options_for(servers))
        assert arxiv.by_arxiv_id("2101.99999") is None and arxiv.by_arxiv_id("2101.99999") is None
    [asked] = servers["arxiv"].api_requests()
    assert asked["query"]["id_list"] == "2101.99999" and "search_query" not in asked["query"]
