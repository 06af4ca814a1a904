"""The DBLP client against a fake that answers DBLP's documented search body: homonym numbers and the trailing "."
removed, the one-author object form, CoRR preprints, no hit, several hits best first, 429 with Retry-After,
timeouts, and a rerun on the shared cache that sends nothing."""

from __future__ import annotations

import pytest

from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.dblp import MIN_INTERVAL, DblpClient, DblpError, as_record, query_words, strip_homonym
from sciwrite.sources.response_cache import SqliteResponseCache
from tests.fakes.dblp import DblpServer

TRANSFORMER = {"authors": {"author": [{"@pid": "15/7046", "text": "Ashish Vaswani"},
                                      {"@pid": "w/WeiWang1", "text": "Wei Wang 0001"}]},
               "title": "Attention is All you Need.", "venue": "NIPS", "pages": "5998-6008", "year": "2017",
               "type": "Conference and Workshop Papers", "access": "open", "key": "conf/nips/VaswaniSPUJGKP17",
               "ee": "https://proceedings.neurips.cc/paper/2017/hash/3f5ee243.html",
               "url": "https://dblp.org/rec/conf/nips/VaswaniSPUJGKP17"}
SOLO = {"authors": {"author": {"@pid": "12/345", "text": "Ada Lovelace 0002"}}, "title": "Attention is Not All.",
        "venue": "J. Mach. Learn. Res.", "volume": "22", "year": "2021", "type": "Journal Articles",
        "key": "journals/jmlr/Lovelace21", "doi": "10.5555/jmlr.2021.1", "ee": "https://doi.org/10.5555/jmlr.2021.1",
        "url": "https://dblp.org/rec/journals/jmlr/Lovelace21"}
CORR = {"authors": {"author": [{"@pid": "1/2", "text": "Grace Hopper"}]},
        "title": "Attention Is All You Need in Speech Separation.", "venue": "CoRR", "volume": "abs/2010.13154",
        "year": "2020", "type": "Informal and Other Publications", "key": "journals/corr/abs-2010-13154",
        "doi": "10.48550/ARXIV.2010.13154", "ee": ["https://doi.org/10.48550/arXiv.2010.13154",
                                                    "https://arxiv.org/abs/2010.13154"],
        "url": "https://dblp.org/rec/journals/corr/abs-2010-13154"}
PUBLICATIONS = [SOLO, CORR, TRANSFORMER]


def client_for(server: DblpServer, **options) -> DblpClient:
    return DblpClient(base_url=server.url, **{"min_interval": 0, **options})


def test_a_documented_hit_maps_to_a_bib_record():
    assert as_record(TRANSFORMER) == BibRecord(
        "dblp", "conf/nips/VaswaniSPUJGKP17", "Attention is All you Need", ("Ashish Vaswani", "Wei Wang"), 2017,
        "https://dblp.org/rec/conf/nips/VaswaniSPUJGKP17", venue="NIPS", entry_type="inproceedings")
    solo = as_record(SOLO)
    assert solo is not None and solo.authors == ("Ada Lovelace",) and solo.title == "Attention is Not All"
    assert (solo.venue, solo.doi, solo.entry_type, solo.arxiv_id) == ("J. Mach. Learn. Res.", "10.5555/jmlr.2021.1",
                                                                       "article", None)
    preprint = as_record(CORR)
    assert preprint is not None
    assert (preprint.venue, preprint.arxiv_id, preprint.entry_type) == ("", "2010.13154", "misc")
    assert as_record({"title": "No key."}) is None


def test_names_queries_and_the_documented_pace():
    assert strip_homonym("Wei Wang 0001") == "Wei Wang" and strip_homonym("Ada Lovelace") == "Ada Lovelace"
    assert query_words('BERT: pre-training | "deep" $transformers?') == "BERT pre-training deep transformers"
    assert DblpClient(base_url="http://127.0.0.1:9").min_interval == MIN_INTERVAL == 1.0


def test_several_hits_come_best_first_and_no_hit_is_empty():
    with DblpServer(PUBLICATIONS) as server:
        client = client_for(server)
        found = client.search("Attention is all you need")
        assert client.search("Quantum llamas in the kitchen") == []
        assert client.search(":|$") == []  # no words: nothing asked
        asked = [r["query"] for r in server.requests]
    assert [r.id for r in found] == ["conf/nips/VaswaniSPUJGKP17", "journals/corr/abs-2010-13154"]
    assert asked[0] == {"q": "Attention is all you need", "format": "json", "h": "5"} and len(asked) == 2


def test_a_rerun_on_the_shared_cache_sends_nothing(tmp_path):
    path = tmp_path / "responses.sqlite"
    with DblpServer(PUBLICATIONS) as server:
        with SqliteResponseCache(path) as cache:
            first = client_for(server, cache=cache).search("Attention is all you need")
            none = client_for(server, cache=cache).search("Quantum llamas")
        with SqliteResponseCache(path) as cache:
            again = client_for(server, cache=cache)
            assert again.search("Attention is all you need") == first and again.search("Quantum llamas") == none == []
        assert len(server.requests) == 2 and again.n_requests == 0 and again.n_cached == 2


def test_a_429_is_retried_after_its_retry_after(waits):
    with DblpServer(PUBLICATIONS, fail_first=[429], retry_after=3) as server:
        client = client_for(server)
        assert [r.id for r in client.search("attention is not all")] == ["journals/jmlr/Lovelace21"]
        assert len(server.requests) == 2
    assert waits == [3.0]


def test_a_timeout_fails_after_the_retries_with_back_off(waits):
    with DblpServer(PUBLICATIONS, slow=["slowpoke"], delay=0.5) as server:
        client = client_for(server, timeout=0.05, max_retries=3, backoff=0.5)
        with pytest.raises(DblpError, match=r"DBLP request .* failed after 3 retries"):
            client.search("slowpoke")
        assert len(server.requests) == 4
    assert waits == [0.5, 1.0, 2.0]
