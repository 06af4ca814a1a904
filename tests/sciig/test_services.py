"""The SciIG build's network steps against local servers: the Semantic Scholar client (cache, 429 retry,
api-key header, rate limit) and the LLM citation mapping (prompt, JSON answer, rejected answers, errors)."""

from __future__ import annotations

import time

import pytest

from sciwrite.llm.client import ChatClient
from sciwrite.sciig.data.llm_map import (
    MappingRequest,
    map_with_llm,
    mapping_messages,
    parse_table8_neighbors,
)
from sciwrite.sciig.data.semantic_scholar import (
    SemanticScholarClient,
    SemanticScholarError,
    enrich_neighbor,
)
from sciwrite.sources.apa import find_citations
from tests.fakes.openai_server import ChatServer
from tests.fakes.semantic_scholar import SemanticScholarServer

PAPERS = {"attention is all you need": {"paperId": "abc", "title": "Attention Is All You Need",
                                        "abstract": "The dominant sequence transduction models ...",
                                        "authors": [{"name": "Ashish Vaswani"}, {"name": "Noam Shazeer"}]}}


@pytest.fixture
def s2_server():
    servers = []

    def start(fail_first=None):
        server = SemanticScholarServer(PAPERS, fail_first or ()).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def test_title_search_cache_and_api_key(s2_server, tmp_path):
    server = s2_server()
    cache = tmp_path / "s2.json"
    client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", api_key="secret", cache_path=cache, min_interval=0)
    paper = client.search_title("Attention is all you need.")
    assert paper["paperId"] == "abc"
    assert client.search_title("A title nobody wrote") is None
    assert len(server.requests) == 2
    assert server.requests[0]["headers"]["x-api-key"] == "secret"
    assert server.requests[0]["query"]["fields"] == "title,authors,abstract,year"
    # A new client on the same cache (a rerun) sends nothing, for the found and the not-found title alike.
    again = SemanticScholarClient(base_url=f"{server.url}/graph/v1", cache_path=cache, min_interval=0)
    assert again.search_title("Attention is all you need.")["paperId"] == "abc"
    assert again.search_title("A title nobody wrote") is None
    assert len(server.requests) == 2 and again.n_requests == 0


def test_no_key_no_header_and_paper_lookup(s2_server, monkeypatch):
    for name in ("S2_API_KEY", "SEMANTIC_SCHOLAR_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    server = s2_server()
    client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", min_interval=0)
    assert client.paper("abc")["title"] == "Attention Is All You Need"
    assert client.paper("nope") is None
    assert "x-api-key" not in server.requests[0]["headers"]


def test_429_and_5xx_are_retried_with_backoff(s2_server):
    server = s2_server(fail_first=[429, 503])
    client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", min_interval=0, backoff=0.01)
    assert client.search_title("Attention Is All You Need")["paperId"] == "abc"
    assert len(server.requests) == 3


def test_retries_give_up_with_a_clear_error(s2_server):
    server = s2_server(fail_first=[429] * 10)
    client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", min_interval=0, backoff=0.01, max_retries=2)
    with pytest.raises(SemanticScholarError, match="HTTP 429"):
        client.search_title("Attention Is All You Need")
    assert len(server.requests) == 3
    neighbor = {"key": "V, 2017", "title": "Attention Is All You Need", "authors": [], "abstract": ""}
    assert enrich_neighbor(neighbor, client) == "error" and neighbor["abstract"] == ""


def test_rate_limit_spaces_requests(s2_server):
    server = s2_server()
    client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", min_interval=0.2)
    start = time.monotonic()
    client.search_title("one")
    client.search_title("two")
    client.search_title("three")
    assert time.monotonic() - start >= 0.4 and len(server.requests) == 3


def test_enrich_neighbor_fills_only_what_is_missing(s2_server):
    server = s2_server()
    client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", min_interval=0)
    neighbor = {"key": "Vaswani et al., 2017", "title": "Attention is all you need", "authors": ["A. Vaswani"], "abstract": ""}
    assert enrich_neighbor(neighbor, client) == "enriched"
    assert neighbor["authors"] == ["A. Vaswani"] and neighbor["abstract"].startswith("The dominant")
    assert enrich_neighbor(neighbor, client) == "complete"
    assert enrich_neighbor({"key": "X, 2020", "title": "Unknown", "authors": [], "abstract": ""}, client) == "not-found"


BIB = {"BIBREF0": {"title": "Deep parsing", "year": 2018,
                   "authors": [{"first": "Hu", "middle": [], "last": "Zhang", "suffix": ""}]},
       "BIBREF1": {"title": "Shallow parsing", "year": 2015, "authors": []}}


def request(text: str = "Parsing improved (Zhang, 2019).", paper_id: str = "paper-1") -> MappingRequest:
    (citation,) = find_citations(text)
    return MappingRequest(paper_id, citation, text, BIB,
                          paper={"title": "Parsing", "abstract": "We parse.", "authors": [], "introduction": text})


def test_mapping_prompt_is_table8_and_answer_parsing():
    [message] = mapping_messages(request())
    user = message["content"]
    assert user.startswith("Objective: Extract citations from paper introductions using LLaMA 4-Maverick")
    assert "- Full introduction text.\nParsing improved (Zhang, 2019)." in user
    assert "- Citation BIBREF0:\n- Title: Deep parsing\n- Authors: Hu Zhang" in user
    assert "- Citation BIBREF1:\n- Title: Shallow parsing\n- Authors: unknown" in user
    assert parse_table8_neighbors('{"neighbors": [{"Zhang, 2019": {"title": "Deep parsing", "reason": "r"}}]}') == \
        [{"identifier": "Zhang, 2019", "title": "Deep parsing", "reason": "r"}]


def table8(identifier: str, title: str) -> str:
    return '{"neighbors": [{"%s": {"title": "%s", "reason": "Not included in the high-confidence list"}}]}' % (
        identifier, title)


def test_map_with_llm_through_a_local_endpoint():
    answers = {"paper-1": table8("Zhang, 2019", "Deep Parsing"),  # title case and punctuation do not matter
               "paper-2": table8("Zhang, 2019", "A title not in the bibliography")}  # rejected, not guessed

    def answer(body):
        return next(a for pid, a in answers.items() if ("Chunking" in body["messages"][0]["content"]) == (pid == "paper-2"))

    with ChatServer(answer) as server:
        client = ChatClient("mapper", base_url=server.base_url, api_key="EMPTY", max_retries=0)
        ids, counts = map_with_llm([request(), request("Chunking (Zhang, 2019) too.", "paper-2")], client)
    assert ids == ["BIBREF0", None]
    assert counts == {"mapped": 1, "rejected": 1}
    assert server.requests[0]["model"] == "mapper" and server.requests[0]["temperature"] == 0.0


def test_map_with_llm_counts_errors_and_skips():
    ids, counts = map_with_llm([request(), request()], None)
    assert ids == [None, None] and counts == {"skipped": 2}
    with ChatServer(lambda body: (500, {"error": {"message": "boom"}})) as server:
        client = ChatClient("mapper", base_url=server.base_url, api_key="EMPTY", max_retries=0)
        ids, counts = map_with_llm([request()], client)
    assert ids == [None] and counts == {"error": 1} and len(server.requests) == 1
