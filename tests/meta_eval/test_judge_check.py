"""The judge check: the damage on hand-made texts, the pairs on the mini samples (every kind, deterministic), the card's
counts and digests against the offline samples (building them checks every length-matched pair's length), and
``sciwrite meta-eval judge-check`` over real HTTP against the fake OpenAI server, with a scripted judge that follows
the damage (it passes), one that answers at random (it fails) and one that reads only length (it passes the kinds
that shorten the text and fails once the length-matched kinds are in), by the figures the command prints and
writes."""

from __future__ import annotations

import collections
import json
import re

import pytest
from scipy.stats import binomtest

from sciwrite.benchmarks import get_benchmark
from sciwrite.cli import main
from sciwrite.meta_eval.damage import (
    contradict,
    least_similar,
    remove_author_year,
    remove_markers,
    swap_author_year,
    truncate_half,
    word_overlap,
)
from sciwrite.meta_eval.judge_check import sample_pairs, sample_papers
from sciwrite.meta_eval.judge_pairs import (
    CARD,
    KINDS,
    LENGTH_MATCHED,
    JudgeCheck,
    JudgedText,
    Judgement,
    build_pairs,
    pairs_digest,
)
from sciwrite.rwgbench.metrics.judge import JUDGE_SYSTEM_PROMPT
from tests.fakes.openai_server import ChatServer, like_real_endpoints
from tests.fakes.scripted_judges import FollowingJudge, LengthJudge, RandomJudge

# --- the damage, on hand-made texts -------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected", "rule"), [
    ("Ours is fast. It outperforms BERT and improves recall.", "Ours is fast. It underperforms BERT and improves recall.",
     "outperform"),  # the first rule in order wins, over an earlier copula
    ("It improves recall.", "It does not improve recall.", "improves"),
    ("Recall is higher than before.", "Recall is lower than before.", "comparison"),
    ("Recall is worse than before.", "Recall is better than before.", "comparison"),
    ("Noise decreases recall.", "Noise increases recall.", "direction"),
    ("Pretraining was effective.", "Pretraining was ineffective.", "quality"),
    ("They cannot parse it.", "They can parse it.", "can"),
    ("Parsing is not hard. Parsers were slow.", "Parsing is not hard. Parsers were not slow.", "copula"),
])
def test_contradict_applies_the_first_matching_rule_once(text, expected, rule):
    assert contradict(text) == (expected, rule)


def test_contradict_gives_none_when_no_rule_applies():
    assert contradict("Parsing graphs, in three steps [1].") is None
    assert contradict("It Outperforms everything.") is None  # case-sensitive: lower-case words only


def test_truncate_half_keeps_the_first_half_of_the_words():
    assert truncate_half("one two three four five") == "one two"
    assert truncate_half("one two\n\nthree four") == "one two"
    assert truncate_half("one") is None


def test_citations_removed_and_swapped():
    assert remove_markers("Graphs help [1, 2]. Trees too ([3]). Kim (2018) agrees [4].") == \
        "Graphs help. Trees too. agrees."
    assert remove_author_year("Parsing is hard (Li et al., 2020; Wu, 2021). Kim (2018) agrees.") == \
        "Parsing is hard. agrees."
    ours = "Parsing is hard (Li et al., 2020; Wu, 2021). Li et al. (2020) agree."
    other = "Others (Ng and Ho, 2019; Li et al., 2020; Park, 2017)."
    assert swap_author_year(ours, other) == "Parsing is hard (Ng and Ho, 2019; Park, 2017). Ng and Ho (2019) agree."
    assert swap_author_year(ours, "No citations here.") is None


def test_least_similar_is_the_lowest_word_overlap():
    texts = ["graph parsing with neural networks", "neural graph parsing", "protein folding in cells"]
    assert word_overlap(texts[0], texts[1]) == pytest.approx(3 / 5)  # {graph, parsing, neural} of 5 words
    assert word_overlap(texts[0], texts[2]) == 0.0
    assert least_similar(texts) == [2, 2, 0]  # the third ties with both: the first wins
    assert least_similar(["alone"]) == [None]


# --- the pairs ----------------------------------------------------------------------------------------------------

def _check() -> JudgeCheck:
    return JudgeCheck(side=lambda paper, text: JudgedText(text), remove_citations=lambda s: JudgedText(remove_markers(s.text)),
                      swap_citations=lambda s, o: None, score=lambda *a, **k: [], criteria=("x",))


def test_no_pair_is_made_when_the_damage_changes_nothing():
    papers = [{"paper_id": "a", "text": "It works [1].", "abstract": "It works [1]."},
              {"paper_id": "b", "text": "", "abstract": "skipped: no reference"},
              {"paper_id": "c", "text": "Trees grow slowly.", "abstract": ""}]
    pairs = build_pairs(papers, "text", _check())
    assert {(p.paper_id, p.kind) for p in pairs} == {
        ("a", "truncated_half"), ("a", "citations_removed"), ("a", "off_topic"),
        ("c", "truncated_half"), ("c", "off_topic")}
    assert {p.damaged.text for p in pairs if p.kind == "off_topic"} == {"Trees grow slowly.", "It works [1]."}
    with pytest.raises(ValueError, match="unknown kind"):
        build_pairs(papers, "text", _check(), ["typo"])


def test_a_judgement_overall_is_the_mean_and_none_when_a_score_is_missing():
    assert Judgement({"a": 0.2, "b": 0.6}).overall == pytest.approx(0.4)
    assert Judgement({"a": 0.2, "b": None}).overall is None


@pytest.fixture(scope="module")
def sciig_sample(tmp_path_factory):
    """SciIG's offline sample, built from the packaged aclsum papers (read-only)."""
    from sciwrite.sciig.data.builder import write_sciig_sample

    folder = tmp_path_factory.mktemp("sciig_sample") / "sciig"
    write_sciig_sample(folder)
    return folder


@pytest.mark.parametrize("name", ["rwgbench", "sciig"])
def test_every_kind_on_the_mini_samples_and_the_same_pairs_twice(name, mini_sample_folder, sciig_mini_folder):
    bench = get_benchmark(name)
    papers = sample_papers(bench, str(mini_sample_folder if name == "rwgbench" else sciig_mini_folder))
    pairs = sample_pairs(bench, papers)
    # SciIG's three introductions share no sentence of the same characters and words: no sentence to swap in
    assert {p.kind for p in pairs} == set(KINDS) - ({"sentence_off_topic"} if name == "sciig" else set())
    again = sample_pairs(bench, sample_papers(bench, str(mini_sample_folder if name == "rwgbench" else sciig_mini_folder)))
    assert [p.as_dict() for p in again] == [p.as_dict() for p in pairs] and pairs_digest(again) == pairs_digest(pairs)
    reference = bench.data.answer_fields[0]
    by_id = {p["paper_id"]: p for p in papers}
    for pair in pairs:
        assert pair.good.text == by_id[pair.paper_id][reference] and pair.damaged.key() != pair.good.key()
    first = pairs[0].paper_id
    assert [p.as_dict() for p in sample_pairs(bench, papers, limit=1)] == \
        [p.as_dict() for p in pairs if p.paper_id == first]  # --limit keeps the full set's pairs of those papers
    if name == "rwgbench":  # the swap changes only the candidate list: the judge reads the same text
        swapped = next(p for p in pairs if p.kind == "citations_swapped")
        assert swapped.damaged.text == swapped.good.text
        assert swapped.good.fields["candidates"] == by_id[swapped.paper_id]["citations"]
        assert swapped.damaged.fields["candidates"] != swapped.good.fields["candidates"]


def _card_rows() -> dict[str, list[str]]:
    rows = {}
    for line in CARD.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if cells[0] in ("rwgbench", "sciig", "surge"):
            rows[cells[0]] = cells[1:]
    return rows


@pytest.mark.parametrize("name", ["rwgbench", "sciig", "surge"])
def test_the_card_counts_the_offline_samples_pairs(name, request):
    bench = get_benchmark(name)
    fixture = {"rwgbench": "sample_folder", "sciig": "sciig_sample", "surge": "surge_sample_folder"}[name]
    papers = sample_papers(bench, str(request.getfixturevalue(fixture)))
    pairs = sample_pairs(bench, papers)
    counts = collections.Counter(p.kind for p in pairs)
    expected = [str(len({p.paper_id for p in pairs})), str(len(pairs)), *(str(counts[k]) for k in KINDS),
                pairs_digest(pairs)]
    assert _card_rows()[name] == expected


# --- the command, against the fake server -------------------------------------------------------------------------

LIMIT = 12


def _run(name, folder, answer, judge, out, *extra, limit=LIMIT):
    with ChatServer(like_real_endpoints(answer)) as server:
        status = main(["meta-eval", "judge-check", "--benchmark", name, "--judge", judge, "--source", str(folder),
                       "--limit", str(limit), "--judge-base-url", server.base_url, "--out", str(out), *extra])
        return status, list(server.requests)


def _rows(out):
    return {r["kind"]: r for r in json.loads((out / "judge_check.json").read_text()) if r["criterion"] == "overall"}


@pytest.mark.parametrize("name", ["rwgbench", "sciig"])
def test_a_judge_that_follows_the_damage_passes_and_a_random_one_fails(name, sample_folder, sciig_sample, tmp_path,
                                                                      monkeypatch, capsys):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    bench = get_benchmark(name)
    folder = sample_folder if name == "rwgbench" else sciig_sample
    references = {p["title"]: p[bench.data.answer_fields[0]] for p in sample_papers(bench, str(folder))}

    status, requests = _run(name, folder, FollowingJudge(references), "acme/judge-follow", tmp_path / "follow")
    printed = capsys.readouterr().out
    assert status == 0 and "verdict: passes" in printed
    rows = _rows(tmp_path / "follow")
    outside = bench.studies.judge_check.outside_rubric
    for kind in KINDS:
        row = rows[kind]
        assert row["n_pairs"] == row["n_judged"] and row["unjudged"] == 0
        if kind == "citations_swapped" and name == "rwgbench":  # the same request twice: a tie, which fails
            assert row["passed"] == 0 and row["ties"] == row["n_pairs"] == LIMIT and row["above_chance"] is False
        else:
            assert row["pass_rate"] == 1.0 and row["above_chance"] is True
        assert row["in_rubric"] is (kind not in outside)
        # the Wilson interval: scipy's, and by hand for all passed (low = n / (n + z^2), z = 1.959964)
        interval = binomtest(row["passed"], row["n_judged"]).proportion_ci(method="wilson")
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((interval.low, interval.high))
    n = rows["truncated_half"]["n_judged"]
    assert rows["truncated_half"]["ci_low"] == pytest.approx(n / (n + 1.959964 ** 2), abs=1e-6)
    assert rows["in rubric"]["pass_rate"] == 1.0
    assert re.search(rf"^truncated_half\s+True\s+{n}\s+{n}\s+0\s+0\s+1\.0000", printed, re.M)

    # every request was the benchmark's own judge prompt, through sciwrite's client (seed, ledger, cost)
    assert all(body["seed"] == 42 for body in requests)
    if name == "rwgbench":
        assert all(body["messages"][0]["content"] == JUDGE_SYSTEM_PROMPT for body in requests)
    else:
        assert all(body["messages"][-1]["content"].startswith('Generated Introduction:\n"""') for body in requests)
    summary = json.loads((tmp_path / "follow" / "summary.json").read_text())
    ledger = [json.loads(line) for line in (tmp_path / "follow" / "usage.jsonl").read_text().splitlines()]
    assert summary["llm_usage"]["requests"] == len(ledger) == len(requests)
    assert summary["llm_usage"]["cost_usd"] == pytest.approx(sum(line["cost_usd"] for line in ledger))
    assert summary["llm_usage"]["cost_usd"] > 0
    assert f"LLM usage: {len(requests)} requests" in printed
    assert summary["verdict"] == "passes" and len(summary["pair_set_digest"]) == 64
    pairs = [json.loads(line) for line in (tmp_path / "follow" / "pairs.jsonl").read_text().splitlines()]
    assert len(pairs) == summary["n_pairs"] == sum(rows[k]["n_pairs"] for k in KINDS)

    # a thinking model answering at random: its traces stripped, every score read, and it fails
    status, _ = _run(name, folder, RandomJudge(seed=0), "qwen3-judge", tmp_path / "random")
    printed = capsys.readouterr().out
    assert status == 0 and "verdict: fails" in printed
    rows = _rows(tmp_path / "random")
    assert all(rows[k]["unjudged"] == 0 for k in KINDS)
    assert any(not rows[k]["above_chance"] for k in KINDS if k not in outside)
    assert rows["in rubric"]["pass_rate"] < 0.75 and rows["in rubric"]["ci_low"] < 0.65


SAMPLES = {"rwgbench": "sample_folder", "sciig": "sciig_sample", "surge": "surge_sample_folder"}


@pytest.mark.parametrize("name", ["rwgbench", "sciig", "surge"])
def test_a_length_only_judge_fails_once_the_length_matched_kinds_are_in(name, request, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    folder = request.getfixturevalue(SAMPLES[name])
    status, _ = _run(name, folder, LengthJudge(), "acme/judge-length", tmp_path / "length")
    printed = capsys.readouterr().out
    assert status == 0 and "verdict: fails" in printed
    rows = _rows(tmp_path / "length")
    for kind in LENGTH_MATCHED:
        row = rows[kind]
        assert row["in_rubric"] is True and row["n_pairs"] >= LIMIT - 1 and row["unjudged"] == 0
        assert row["above_chance"] is False and kind in printed.split("verdict: fails")[1].splitlines()[0]
    if name != "surge":  # the judge reads the whole text: as many words, the same score, a tie on every pair
        assert all(rows[k]["ties"] == rows[k]["n_pairs"] and rows[k]["passed"] == 0 for k in LENGTH_MATCHED)
    else:  # SurGE's judges read each section's first 1,000 characters, cut at a "." that a reversal may move
        assert rows["sentence_off_topic"]["passed"] == 0
        assert rows["sentences_reversed"]["passed"] < rows["sentences_reversed"]["n_pairs"] / 2


def test_a_length_only_judge_passes_rwgbench_without_the_length_matched_kinds(sample_folder, tmp_path, monkeypatch,
                                                                            capsys):
    """The shortcut the length-matched kinds close: every other in-rubric kind shortens the text."""
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    before = [k for k in KINDS if k not in LENGTH_MATCHED]
    status, _ = _run("rwgbench", sample_folder, LengthJudge(), "acme/judge-length", tmp_path / "before", "--kinds",
                     *before, limit=40)
    assert status == 0 and "verdict: passes" in capsys.readouterr().out
    status, _ = _run("rwgbench", sample_folder, LengthJudge(), "acme/judge-length", tmp_path / "after", limit=40)
    assert status == 0 and "verdict: fails: not above chance on sentences_reversed, sentence_off_topic" in \
        capsys.readouterr().out
    assert {k: r["passed"] for k, r in _rows(tmp_path / "before").items() if k in before} == \
        {k: r["passed"] for k, r in _rows(tmp_path / "after").items() if k in before}  # the same pairs, judged alike


def test_the_judge_cache_resumes_and_the_budget_stops(mini_sample_folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    cache = tmp_path / "cache.jsonl"
    answer = RandomJudge(seed=1)
    first, sent = _run("rwgbench", mini_sample_folder, answer, "judge-x", tmp_path / "a", "--judge-cache", str(cache))
    again, resent = _run("rwgbench", mini_sample_folder, answer, "judge-x", tmp_path / "b", "--judge-cache", str(cache))
    assert first == again == 0 and sent and not resent
    assert json.loads((tmp_path / "a" / "judge_check.json").read_text()) == \
        json.loads((tmp_path / "b" / "judge_check.json").read_text())
    capsys.readouterr()
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  judge-x: {input: 1000, output: 1000}\n")
    status, requests = _run("rwgbench", mini_sample_folder, answer, "judge-x", tmp_path / "c", "--max-cost", "0.0001",
                            "--prices", str(prices))
    printed = capsys.readouterr().out
    assert status == 3 and not requests
    rows = _rows(tmp_path / "c")
    assert rows["all"]["unjudged"] == rows["all"]["n_pairs"] > 0 and rows["all"]["pass_rate"] is None
    assert "pairs unjudged, their requests not sent" in printed and "verdict: fails" in printed
