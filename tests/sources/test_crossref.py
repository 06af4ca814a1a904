"""The Crossref client against a fake that answers Crossref's documented bodies: the mapping to `BibRecord`, citation
search (none, several, best first), DOIs that do not resolve, the two pools' pace, 429 with Retry-After, timeouts."""

from __future__ import annotations

import pytest

from sciwrite.sources.bib_record import BibRecord
from sciwrite.sources.crossref import (
    SELECT,
    CrossrefClient,
    CrossrefError,
    as_record,
    normalize_doi,
    stated_interval,
)
from sciwrite.sources.response_cache import SqliteResponseCache
from tests.fakes.crossref import CrossrefServer

RESNET = {"title": ["Deep Residual Learning for Image Recognition"], "type": "proceedings-article",
          "author": [{"given": "Kaiming", "family": "He", "sequence": "first"}, {"given": "Xiangyu", "family": "Zhang"}],
          "issued": {"date-parts": [[2016, 6]]}, "container-title": ["2016 IEEE Conference on Computer Vision and "
                                                                     "Pattern Recognition (CVPR)"]}
ATTENTION = {"title": ["Attention Is All You Need"], "type": "journal-article", "author": [{"given": "Ashish",
             "family": "Vaswani"}], "issued": {"date-parts": [[2017]]}, "container-title": ["Journal of Attention"]}
NOT_ALL = {"title": ["Attention Is Not All You Need"], "type": "journal-article",
           "author": [{"given": "Yihe", "family": "Dong"}], "issued": {"date-parts": [[2021]]}, "container-title": []}
PREPRINT = {"title": ["A <i>Preprint</i> on   Parsing"], "type": "posted-content", "author": [{"name": "The Parsing "
            "Consortium"}], "issued": {"date-parts": [[None]]}, "published-online": {"date-parts": [[2020, 2, 1]]}}
WORKS = {"10.1109/CVPR.2016.90": RESNET, "10.5555/attention": ATTENTION, "10.5555/not-all": NOT_ALL,
         "10.31234/osf.io/abc": PREPRINT}


def client_for(server: CrossrefServer, **options) -> CrossrefClient:
    return CrossrefClient(base_url=server.url, **{"min_interval": 0, **options})


def test_a_documented_work_maps_to_a_bib_record():
    record = as_record({"DOI": "10.1109/CVPR.2016.90", **RESNET})
    assert record == BibRecord("crossref", "10.1109/CVPR.2016.90", "Deep Residual Learning for Image Recognition",
                               ("Kaiming He", "Xiangyu Zhang"), 2016, "https://doi.org/10.1109/CVPR.2016.90",
                               venue="2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)",
                               doi="10.1109/CVPR.2016.90", entry_type="inproceedings")
    preprint = as_record({"DOI": "10.31234/osf.io/abc", **PREPRINT})
    assert preprint is not None
    assert (preprint.title, preprint.authors, preprint.year, preprint.venue, preprint.entry_type) == (
        "A Preprint on Parsing", ("The Parsing Consortium",), 2020, "", "misc")  # markup gone, year from online
    article = as_record({"DOI": "10.5555/not-all", **NOT_ALL})
    assert article is not None and (article.venue, article.entry_type) == (None, "article")
    assert as_record({"DOI": "10.1/x", "title": []}) is None


def test_search_sends_the_citation_and_reads_the_best_match_first():
    with CrossrefServer(WORKS) as server:
        client = client_for(server)
        found = client.search("Attention is all you need", ["Ashish Vaswani"], 2017)
        [asked] = server.requests
    assert [r.doi for r in found] == ["10.5555/attention", "10.5555/not-all"]  # several, by score
    assert found[0].authors == ("Ashish Vaswani",) and found[0].venue == "Journal of Attention"
    assert asked["path"] == "/works" and asked["query"]["select"] == SELECT and asked["query"]["rows"] == "5"
    assert asked["query"]["query.bibliographic"] == "Attention is all you need Ashish Vaswani 2017"


def test_no_match_is_an_empty_list_and_an_empty_title_asks_nothing():
    with CrossrefServer(WORKS) as server:
        client = client_for(server)
        assert client.search("Quantum llamas in the kitchen") == []
        assert client.search("   ") == []
        assert len(server.requests) == 1


def test_a_doi_that_does_not_resolve_is_none_and_cached(tmp_path):
    with CrossrefServer(WORKS) as server, SqliteResponseCache(tmp_path / "r.sqlite") as cache:
        client = client_for(server, cache=cache)
        record = client.by_doi("https://doi.org/10.1109/cvpr.2016.90")
        assert record is not None and record.title == RESNET["title"][0] and record.year == 2016
        assert client.by_doi("10.9999/does-not-exist") is None
        again = client_for(server, cache=cache)
        assert again.by_doi("doi:10.9999/DOES-NOT-EXIST") is None and again.n_requests == 0
        assert [r["path"] for r in server.requests] == ["/works/10.1109/cvpr.2016.90", "/works/10.9999/does-not-exist"]


def test_the_polite_pool_is_asked_with_mailto_at_its_documented_pace(tmp_path, monkeypatch):
    monkeypatch.delenv("CROSSREF_MAILTO", raising=False)
    public = CrossrefClient(base_url="http://127.0.0.1:9")
    assert (public.min_interval, public.max_concurrent, public.auth_params()) == (0.2, 1, {})
    polite = CrossrefClient(base_url="http://127.0.0.1:9", mailto="me@example.org")
    assert (polite.min_interval, polite.max_concurrent) == (0.1, 3)
    monkeypatch.setenv("CROSSREF_MAILTO", "env@example.org")
    with CrossrefServer(WORKS) as server, SqliteResponseCache(tmp_path / "r.sqlite") as cache:
        client = client_for(server, cache=cache)
        client.search("Deep residual learning for image recognition")
        assert server.requests[0]["query"]["mailto"] == "env@example.org"
        assert "env@example.org" in server.requests[0]["headers"]["user-agent"]
        assert cache.count("crossref") == 1
        [[key]] = cache._db.execute("SELECT key FROM responses").fetchall()
    assert "mailto" not in key  # who asks is not part of the question


def test_the_stated_rate_limit_slows_the_client_down(waits):
    assert stated_interval("5", "1s") == 0.2 and stated_interval("50", "1s") == 0.02
    assert stated_interval(None, "1s") is None and stated_interval("x", "1s") is None
    with CrossrefServer(WORKS, rate_headers=(2, "1s")) as server:
        client = client_for(server)
        client.search("Deep residual learning for image recognition")
        assert client.min_interval == 0.5
    faster = CrossrefClient(base_url="http://127.0.0.1:9", min_interval=1.0)
    faster.on_response({"X-Rate-Limit-Limit": "5", "X-Rate-Limit-Interval": "1s"})
    assert faster.min_interval == 1.0  # never faster than asked


def test_a_429_is_retried_after_its_retry_after(waits):
    with CrossrefServer(WORKS, fail_first=[429, 429], retry_after=7) as server:
        client = client_for(server)
        [record] = client.search("Deep residual learning for image recognition")
        assert len(server.requests) == 3 and client.n_requests == 3
    assert record.doi == "10.1109/CVPR.2016.90" and waits == [7.0, 7.0]


def test_a_timeout_fails_after_the_retries_with_back_off(waits):
    with CrossrefServer(WORKS, slow=["slowpoke"], delay=0.5) as server:
        client = client_for(server, timeout=0.05, max_retries=2, backoff=1.0)
        with pytest.raises(CrossrefError, match=r"failed after 2 retries: .*(?i:timed out)"):
            client.search("slowpoke title")
        assert len(server.requests) == 3
    assert waits == [1.0, 2.0]


def test_normalize_doi():
    assert normalize_doi("https://doi.org/10.1109/CVPR.2016.90") == "10.1109/cvpr.2016.90"
    assert normalize_doi("doi: 10.18653/v1/N19-1423.") == "10.18653/v1/n19-1423"
    assert normalize_doi("https://doi.org/10.1002%2F%28SICI%291097") == "10.1002/(sici)1097"
    assert normalize_doi("not a doi") is None
