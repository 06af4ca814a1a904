"""The SQLite response cache all bibliographic services share: answers (and "not found") kept across instances,
committed at once, safe across threads; and `JsonApiClient` reading it, so that a rerun sends nothing."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from sciwrite.sources.api_client import JsonApiClient
from sciwrite.sources.response_cache import SqliteResponseCache, default_cache_path
from sciwrite.sources.semantic_scholar import SemanticScholarClient
from tests.fakes.semantic_scholar import SemanticScholarServer

PAPER = {"paperId": "s2-att", "title": "Attention Is All You Need", "year": 2017, "venue": "NeurIPS",
         "authors": [{"name": "Ashish Vaswani"}], "externalIds": {"DOI": "10.5555/3295222.3295349", "ArXiv": "1706.03762"},
         "publicationTypes": ["Conference"]}


def test_answers_round_trip_and_not_found_is_an_answer(tmp_path):
    with SqliteResponseCache(tmp_path / "responses.sqlite") as cache:
        assert cache.get("crossref", "k") == (False, None)
        cache.put("crossref", "k", {"items": [{"title": ["T"]}]})
        cache.put("crossref", "missing", None)
        assert cache.get("crossref", "k") == (True, {"items": [{"title": ["T"]}]})
        assert cache.get("crossref", "missing") == (True, None)  # cached "not found", not a miss
        assert cache.get("dblp", "k") == (False, None)  # services do not share keys
        cache.put("crossref", "k", [1, 2])
        assert cache.get("crossref", "k") == (True, [1, 2]) and cache.count() == 2 and cache.count("dblp") == 0


def test_answers_persist_across_instances_in_a_wal_file(tmp_path):
    path = tmp_path / "online" / "responses.sqlite"
    cache = SqliteResponseCache(path)
    cache.put("dblp", "q=attention", {"result": {"hits": {"@total": "0"}}})
    # no close: each answer is committed as it comes, so another connection sees it at once
    with SqliteResponseCache(path) as again:
        assert again.get("dblp", "q=attention") == (True, {"result": {"hits": {"@total": "0"}}})
    cache.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert [r[0] for r in db.execute("SELECT service FROM responses")] == ["dblp"]


def test_threads_share_one_cache(tmp_path):
    errors: list[BaseException] = []
    with SqliteResponseCache(tmp_path / "c.sqlite") as cache:
        def work(n: int) -> None:
            try:
                for i in range(40):
                    cache.put("s", f"{n}-{i}", {"n": n, "i": i})
                    assert cache.get("s", f"{n}-{i}") == (True, {"n": n, "i": i})
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors and cache.count("s") == 320


def test_a_file_that_is_not_sqlite_is_one_clear_error(tmp_path):
    bad = tmp_path / "responses.sqlite"
    bad.write_text("this is not a database, " * 100)
    with pytest.raises(ValueError, match=r"responses\.sqlite: not a response cache"):
        SqliteResponseCache(bad)


def test_the_default_path_is_under_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_CACHE_DIR", str(tmp_path))
    assert default_cache_path() == tmp_path / "online" / "responses.sqlite"
    with SqliteResponseCache() as cache:
        assert cache.path == tmp_path / "online" / "responses.sqlite" and cache.path.exists()


def test_a_client_on_the_shared_cache_reruns_without_requests_and_keeps_no_credentials(tmp_path):
    path = tmp_path / "responses.sqlite"
    with SemanticScholarServer({"att": PAPER}) as server:
        with SqliteResponseCache(path) as cache:
            client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", api_key="secret-key", cache=cache,
                                           min_interval=0)
            first = (client.search("Attention is all you need"), client.by_doi("10.5555/3295222.3295349"),
                     client.by_doi("10.1/nothing"))
        assert first[1] is not None and first[2] is None and len(server.requests) == 3
        with SqliteResponseCache(path) as cache:  # a rerun: a new process, a new client
            again = SemanticScholarClient(base_url=f"{server.url}/graph/v1", cache=cache, min_interval=0)
            second = (again.search("Attention is all you need"), again.by_doi("10.5555/3295222.3295349"),
                      again.by_doi("10.1/nothing"))
        assert len(server.requests) == 3 and again.n_requests == 0 and again.n_cached == 3
    assert second == first
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT service, key, answer FROM responses").fetchall()
    assert {r[0] for r in rows} == {"semantic_scholar"} and not any("secret-key" in "".join(r) for r in rows)


def test_a_client_takes_one_cache_not_both(tmp_path):
    with SqliteResponseCache(tmp_path / "c.sqlite") as cache, pytest.raises(ValueError, match="not both"):
        JsonApiClient("http://127.0.0.1:9", cache=cache, cache_path=tmp_path / "c.jsonl")
