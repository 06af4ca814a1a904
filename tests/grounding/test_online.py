"""The grounding's second opinion online, against the fake Semantic Scholar and OpenAlex servers: the fourth verdict,
429s and 403s retried, a spent daily allowance, failures left to a rerun, the cache on disk, and the command line."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.grounding import ReferenceResolver, TitleIndex
from sciwrite.grounding.online import OnlineLookup, default_cache_path
from sciwrite.sources.api_client import JsonApiClient
from sciwrite.sources.openalex import OpenAlexClient
from sciwrite.sources.semantic_scholar import SemanticScholarClient
from tests.fakes.openalex import OpenAlexServer
from tests.fakes.semantic_scholar import SemanticScholarServer

CORPUS = [{"doc_id": "d1", "title": "Attention Is All You Need", "authors": ["Ashish Vaswani"], "year": 2017},
          {"doc_id": "d2", "title": "Deep Residual Learning for Image Recognition", "authors": ["Kaiming He"]}]
OUTSIDE = {"paperId": "s2-bert", "year": 2019, "authors": [{"name": "Jacob Devlin"}, {"name": "Ming-Wei Chang"}],
           "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"}
WORKS = [{"id": "https://openalex.org/W2963341956", "display_name": OUTSIDE["title"], "publication_year": 2019,
          "authorships": [{"author": {"display_name": "Jacob Devlin"}}], "doi": "https://doi.org/10.18653/v1/N19-1423"},
         {"id": "https://openalex.org/W1", "display_name": "Language Models are Few-Shot Learners",
          "publication_year": 2020, "authorships": [{"author": {"display_name": "Tom B. Brown"}}], "doi": None}]
REFERENCES = [{"title": "Attention is all you need"},  # in the corpus: never looked up
              {"title": "BERT: pre-training of deep bidirectional transformers for language understanding",
               "authors": ["Devlin"], "year": 2019},  # outside the corpus, real
              {"title": "Quantum Llamas for Federated Syntax Parsing in the Kitchen"}]  # invented


@pytest.fixture
def verdicts():
    return ReferenceResolver(TitleIndex.from_corpus(CORPUS)).resolve(REFERENCES)


def s2_lookup(server, cache, **options):
    client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", cache_path=cache, min_interval=0,
                                   backoff=0.01, **options)
    return OnlineLookup(client, "semantic_scholar")


def test_semantic_scholar_gives_the_fourth_verdict_and_leaves_the_rest(verdicts, tmp_path):
    assert [v.verdict for v in verdicts] == ["found", "not_found", "not_found"]
    with SemanticScholarServer({"bert": OUTSIDE}) as server:
        lookup = s2_lookup(server, tmp_path / "s2.jsonl")
        found, outside, invented = lookup.second_opinions(verdicts)
        assert len(server.requests) == 2  # the corpus's found reference is not asked about
    assert found is verdicts[0]
    assert outside.verdict == "exists_outside_corpus" and outside.doc_id is None and outside.score >= 0.83
    assert outside.outside["source"] == "semantic_scholar" and outside.outside["id"] == "s2-bert"
    assert outside.outside["url"] == "https://www.semanticscholar.org/paper/s2-bert"
    assert "Semantic Scholar has it" in outside.why and "an author surname matches" in outside.why
    assert invented.verdict == "not_found" and "Semantic Scholar has no such title either" in invented.why
    assert outside.as_dict()["outside"]["title"] == OUTSIDE["title"]
    report = lookup.report()
    assert (report["looked_up"], report["exists_outside_corpus"], report["failed"], report["requests"]) == (2, 1, 0, 2)


def test_a_close_title_online_is_still_judged_at_the_threshold(tmp_path):
    """The service's closest title is scored like a corpus candidate: a near miss with other authors stays
    not_found, with the score in its evidence."""
    near = {**OUTSIDE, "title": "BERT: Pre-training of Deep Bidirectional Transformers for Vision",
            "authors": [{"name": "Someone Else"}]}
    verdict, = ReferenceResolver(TitleIndex.from_corpus(CORPUS)).resolve([REFERENCES[1]])
    with SemanticScholarServer({"near": near}) as server:
        checked = s2_lookup(server, tmp_path / "s2.jsonl").second_opinion(verdict)
    assert checked.verdict == "not_found" and "Semantic Scholar's closest title scores" in checked.why


def test_429s_are_retried_with_the_real_body_and_a_failure_is_left_to_a_rerun(verdicts, tmp_path):
    cache = tmp_path / "s2.jsonl"
    with SemanticScholarServer({"bert": OUTSIDE}, fail_first=[429, 429]) as server:
        lookup = s2_lookup(server, cache)
        assert lookup.second_opinion(verdicts[1]).verdict == "exists_outside_corpus"
        assert len(server.requests) == 3  # two 429s, then the answer
    with SemanticScholarServer({"bert": OUTSIDE}, fail_first=[429] * 3) as server:
        lookup = s2_lookup(server, tmp_path / "other.jsonl", max_retries=2)
        failed = lookup.second_opinion(verdicts[1])
        assert failed.verdict == "not_found" and "rerun to retry it" in failed.why
        assert "HTTP 429" in failed.why and "apply for a key" in failed.why  # the service's own message
        assert lookup.report()["failed"] == 1 and lookup.report()["failures"][0]["title"] == REFERENCES[1]["title"]
        # The rerun: the failure was not cached, so it is asked again, and this time answered.
        again = s2_lookup(server, tmp_path / "other.jsonl").second_opinion(verdicts[1])
        assert again.verdict == "exists_outside_corpus" and len(server.requests) == 4


def test_the_cache_makes_a_rerun_send_nothing_and_survives_a_cut_line(verdicts, tmp_path):
    cache = tmp_path / "s2.jsonl"
    with SemanticScholarServer({"bert": OUTSIDE}) as server:
        s2_lookup(server, cache).second_opinions(verdicts)
        with cache.open("a", encoding="utf-8") as f:
            f.write('{"url": "http://cut')  # a write a crash cut short
        rerun = s2_lookup(server, cache)
        assert [v.verdict for v in rerun.second_opinions(verdicts)] == ["found", "exists_outside_corpus",
                                                                         "not_found"]
        assert len(server.requests) == 2 and rerun.report()["from_cache"] == 2 and rerun.report()["requests"] == 0
        server.papers = {}  # a new title is asked, and its answer is appended on a line of its own
        s2_lookup(server, cache).client.match_title("A title asked later")
    lines = cache.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 and json.loads(lines[-1])["answer"] is None


def test_an_old_one_object_cache_is_still_read(tmp_path):
    cache = tmp_path / "s2_cache.json"
    with SemanticScholarServer({"bert": OUTSIDE}) as server:
        client = SemanticScholarClient(base_url=f"{server.url}/graph/v1", min_interval=0)
        key = f"{client.base_url}/paper/search/match?query=x&fields=title%2Cauthors%2Cabstract%2Cyear"
        cache.write_text(json.dumps({key: {"data": [OUTSIDE]}}), encoding="utf-8")
        cached = SemanticScholarClient(base_url=f"{server.url}/graph/v1", cache_path=cache, min_interval=0)
        assert cached.match_title("x")[0].id == "s2-bert" and not server.requests


def test_openalex_prices_retries_403_and_stops_at_the_daily_limit(verdicts, tmp_path):
    with OpenAlexServer(WORKS, fail_first=[403]) as server:
        client = OpenAlexClient(base_url=server.url, api_key="sk-oa", cache_path=tmp_path / "oa.jsonl",
                                min_interval=0, backoff=0.01)
        lookup = OnlineLookup(client, "openalex")
        outside = lookup.second_opinion(verdicts[1])  # its title has a colon, others commas: the query is words
        assert outside.verdict == "exists_outside_corpus" and outside.outside["id"] == "W2963341956"
        assert outside.outside["url"] == "https://doi.org/10.18653/v1/N19-1423"
        assert [r["query"]["filter"] for r in server.requests] == [
            "title.search:bert pre training of deep bidirectional transformers for language understanding"] * 2
        assert server.requests[-1]["query"]["api_key"] == "sk-oa"
        assert "sk-oa" not in (tmp_path / "oa.jsonl").read_text()  # a credential never enters the cache
        assert lookup.report()["cost_usd"] == pytest.approx(0.001) and lookup.report()["remaining_usd"] < 1.0

    references = [{"title": f"An invented title, number {i}, about parsing"} for i in range(3)]
    invented = ReferenceResolver(TitleIndex.from_corpus(CORPUS)).resolve(references)
    with OpenAlexServer(WORKS, allowance_usd=0.001) as server:
        lookup = OnlineLookup(OpenAlexClient(base_url=server.url, min_interval=0, backoff=0.01), "openalex")
        checked = lookup.second_opinions(invented)
        assert len(server.requests) == 2  # one answered, one refused (429: the day's allowance), then none
    assert [v.verdict for v in checked] == ["not_found"] * 3
    assert "OpenAlex has no such title either" in checked[0].why
    assert all("not looked up on OpenAlex (its allowance is spent)" in v.why for v in checked[1:])
    report = lookup.report()
    assert report["stopped"] == "its allowance is spent" and report["failed"] == 1
    assert "Daily limit exceeded" in report["failures"][0]["error"]


def test_a_lookup_on_an_unknown_service_is_refused():
    with pytest.raises(ValueError, match="unknown online service 'crossref'"):
        OnlineLookup.for_service("crossref")
    assert issubclass(OpenAlexClient, JsonApiClient)


def test_verify_references_online(mini_sample_folder, tmp_path, capsys, monkeypatch):
    listed = tmp_path / "refs.jsonl"
    listed.write_text("\n".join(json.dumps(r) for r in REFERENCES[1:]) + "\n", encoding="utf-8")
    out = tmp_path / "verdicts.jsonl"
    with SemanticScholarServer({"bert": OUTSIDE}) as server:
        monkeypatch.setenv("S2_API_BASE_URL", f"{server.url}/graph/v1")
        assert main(["verify-references", str(listed), "--source", str(mini_sample_folder), "--out", str(out),
                     "--verify-online", "semantic_scholar", "--online-cache", str(tmp_path / "s2.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert "online second opinion: Semantic Scholar" in printed
    assert "0 found, 0 ambiguous, 1 not_found, 1 exists_outside_corpus, 0 invalid" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["verdict"] == "exists_outside_corpus" and rows[0]["outside"]["id"] == "s2-bert"


def test_evaluate_rwgbench_online_adds_the_outside_column(mini_sample_folder, tmp_path, capsys, monkeypatch):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()[:3]
    direct = [{"paper_id": p["paper_id"], "text": "See [1] and [2].", "candidates": [], "method": "direct",
               "references": [{"n": 1, "title": OUTSIDE["title"]},
                              {"n": 2, "title": "An Invented Survey of Hyperbolic Llama Parsing"}]} for p in papers]
    path, again = tmp_path / "direct.jsonl", tmp_path / "again.jsonl"
    for file in (path, again):
        file.write_text("".join(json.dumps(r) + "\n" for r in direct), encoding="utf-8")
    with SemanticScholarServer({"bert": OUTSIDE}) as server:
        monkeypatch.setenv("S2_API_BASE_URL", f"{server.url}/graph/v1")
        assert main(["evaluate", "rwgbench", "--predictions", str(path), str(again), "--source", str(mini_sample_folder),
                     "--profile", "lite", "--metrics", "precision", "recall", "--out", str(tmp_path / "out"),
                     "--verify-online", "semantic_scholar", "--online-cache", str(tmp_path / "s2.jsonl")]) == 0
        asked = len(server.requests)
    printed = capsys.readouterr().out
    grounding = printed.split("Grounding (beside Table 2")[1]
    assert "online second opinion: Semantic Scholar" in grounding and "Outside" in grounding
    assert "Outside: not in the corpus, found on semantic_scholar" in grounding
    summary = json.loads((tmp_path / "out" / "direct" / "summary.json").read_text())["grounding"]
    assert summary["grounding_outside_rate"] == 0.5 and summary["grounding_hallucination_rate"] == 0.5
    assert summary["counts"]["exists_outside_corpus"] == len(papers) and summary["online"]["looked_up"] == 2 * len(papers)
    assert asked == 2  # one request per distinct title; the other papers' lookups came from the cache
    assert summary["online"]["requests"] == 2 and summary["online"]["from_cache"] == 2 * len(papers) - 2
    second = json.loads((tmp_path / "out" / "again" / "summary.json").read_text())["grounding"]["online"]
    assert (second["looked_up"], second["requests"], second["from_cache"]) == (2 * len(papers), 0, 2 * len(papers))


def test_the_online_cache_lives_beside_sciwrites_other_caches(monkeypatch, tmp_path):
    """`--online-cache` defaults under SCIWRITE_CACHE_DIR, the variable every other cache reads (not a variable of
    its own)."""
    monkeypatch.setenv("SCIWRITE_CACHE_DIR", str(tmp_path / "cache"))
    assert default_cache_path("openalex") == tmp_path / "cache" / "online" / "openalex.jsonl"
