"""The Semantic Scholar and OpenAlex clients against fakes that behave as the services document: the Graph API
returns only ``paperId`` and the fields asked for, and OpenAlex prices each call by its documented tier."""

from __future__ import annotations

import pytest

from sciwrite.sciig.data.semantic_scholar import enrich_neighbor
from sciwrite.sources.api_client import QuotaExceededError
from sciwrite.sources.openalex import PRICE_USD, TITLE_SEARCH_PRICE_USD, OpenAlexClient
from sciwrite.sources.semantic_scholar import FIELDS, SemanticScholarClient, SemanticScholarError
from tests.fakes.openalex import OpenAlexServer
from tests.fakes.semantic_scholar import SemanticScholarServer

PAPER = {"paperId": "s2-att", "title": "Attention Is All You Need", "abstract": "The dominant sequence models ...",
         "year": 2017, "authors": [{"authorId": "1", "name": "Ashish Vaswani"}, {"authorId": "2", "name": "Noam Shazeer"}],
         "venue": "NeurIPS", "citationCount": 100000, "externalIds": {"ArXiv": "1706.03762"}}
WORKS = [{"id": f"https://openalex.org/W{i}", "display_name": f"A study of parsing number {i}", "publication_year": 2020,
          "authorships": [{"author": {"display_name": "Ada Lovelace"}}], "doi": None} for i in range(3)]


def s2_client(server: SemanticScholarServer) -> SemanticScholarClient:
    return SemanticScholarClient(base_url=f"{server.url}/graph/v1", min_interval=0, backoff=0.01)


def test_the_s2_fake_returns_only_paper_id_and_the_fields_asked_for():
    with SemanticScholarServer({"att": PAPER}) as server:
        client = s2_client(server)
        titled = client.get("/paper/s2-att", {"fields": "title"})
        bare = client.get("/paper/s2-att", {})
        matched = client.get("/paper/search/match", {"query": PAPER["title"], "fields": "year,authors.name"})
        with pytest.raises(SemanticScholarError, match=r"HTTP 400 .*Unrecognized or unsupported fields: \['summary'\]"):
            client.get("/paper/s2-att", {"fields": "title,summary"})
    assert titled == {"paperId": "s2-att", "title": PAPER["title"]}
    assert bare == {"paperId": "s2-att", "title": PAPER["title"]}  # the documented default: paperId and title
    assert set(matched["data"][0]) == {"paperId", "year", "authors", "matchScore"}


def test_the_s2_client_asks_for_every_field_it_reads():
    """With a fake that drops what was not asked for, each path still gets title, authors, year and abstract."""
    with SemanticScholarServer({"att": PAPER}) as server:
        client = s2_client(server)
        [work] = client.match_title("Attention is all you need")
        found = client.search_title("Attention is all you need")
        by_id = client.paper("s2-att")
        neighbor = {"title": "Attention is all you need", "abstract": "", "authors": []}
        assert enrich_neighbor(neighbor, client) == "enriched"
        asked = {r["query"]["fields"] for r in server.requests}
    assert asked == {FIELDS}
    assert (work.id, work.title, work.authors, work.year) == ("s2-att", PAPER["title"],
                                                              ("Ashish Vaswani", "Noam Shazeer"), 2017)
    assert found["abstract"] == PAPER["abstract"] and by_id["abstract"] == PAPER["abstract"]
    assert neighbor == {"title": "Attention is all you need", "abstract": PAPER["abstract"],
                        "authors": ["Ashish Vaswani", "Noam Shazeer"]}
    assert "venue" not in by_id and "citationCount" not in found  # what was not asked for does not come


def test_openalex_title_searches_are_priced_as_searches_and_singletons_are_free():
    """developers.openalex.org/api-reference/authentication: per 1,000 calls, singleton free, list+filter $0.10,
    search $1; a title.search filter searches full text."""
    assert (PRICE_USD["singleton"], PRICE_USD["list"], PRICE_USD["search"]) == (0.0, 0.1 / 1000, 1 / 1000)
    with OpenAlexServer(WORKS, allowance_usd=1.0) as server:
        client = OpenAlexClient(base_url=server.url, min_interval=0, backoff=0.01)
        for i in range(3):
            client.match_title(f"A study of parsing number {i}")
        assert client.cost_usd == pytest.approx(3 * TITLE_SEARCH_PRICE_USD) == pytest.approx(0.003)
        assert client.remaining_usd == pytest.approx(1.0 - 0.003)
        assert client.get("/works/W1", {})["display_name"] == "A study of parsing number 1"  # a singleton: free
        assert client.cost_usd == pytest.approx(0.003)


def test_openalex_answers_without_a_price_are_counted_at_the_documented_price():
    with OpenAlexServer(WORKS) as server:
        original = server.handle
        server.handle = lambda request: (lambda status, body, headers: (status, body, {}))(*original(request))
        client = OpenAlexClient(base_url=server.url, min_interval=0, backoff=0.01)
        client.match_title("A study of parsing number 1")
    assert client.cost_usd == pytest.approx(0.001) and client.remaining_usd is None


def test_a_spent_allowance_stops_title_searches_at_the_search_price():
    with OpenAlexServer(WORKS, allowance_usd=0.0015) as server:  # one search's worth, not two
        client = OpenAlexClient(base_url=server.url, min_interval=0, backoff=0.01)
        client.match_title("A study of parsing number 0")
        with pytest.raises(QuotaExceededError, match="Daily limit exceeded"):
            client.match_title("A study of parsing number 1")
