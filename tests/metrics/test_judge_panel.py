"""Judge panels and repeats in ``sciwrite evaluate``: three judges asked three times each, over real HTTP to the fake
OpenAI server, every request through sciwrite's client; the aggregate, each judge's mean, Krippendorff's alpha
(against the `krippendorff` package), the judge-noise share (worked by hand) and Kendall's tau across systems
(against scipy); one judge asked once is today's path, number for number. A panel never hides a dead judge: a judge
that answers garbage, one under a permanent 429 (OpenAI's documented body) or three of four that answer nothing
readable are counted per judge and paper, the panel is reported incomplete in the summary, the provenance, the report
and the board, and the command exits 4 unless --accept-partial-panel."""

from __future__ import annotations

import json
import statistics

import krippendorff
import numpy as np
import pytest
from scipy import stats

from sciwrite.cli import main
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import JudgePanel, JudgeRecord, PanelJudgePapers, Summary
from sciwrite.metrics.judge_panel import PanelSpec, combine, failed_judges, incomplete_text, noise_share
from tests.fakes.openai_server import ChatServer, like_real_endpoints

#: judge -> the 1-5 score it gives, by the seed of the request (its sample) and the paper (by the text's marker).
SCORES = {"judge-a": lambda seed, paper: 4, "judge-b": lambda seed, paper: 2 + paper,
          "judge-c": lambda seed, paper: 1 + paper + (seed - 42)}


def answer(body) -> str:
    text = body["messages"][-1]["content"]
    paper = 1 if "PAPER-ONE" in text else 2
    return f'{{"score": {SCORES[body["model"]](body["seed"], paper)}, "rationale": "ok"}}'


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def predictions(folder, tmp_path, name, suffix=""):
    from sciwrite.rwgbench.data.loading import load_rwgbench

    papers = list(load_rwgbench("sample", source=str(folder)))[:2]
    marks = ["PAPER-ONE", "PAPER-TWO"]
    return write(tmp_path / f"{name}.jsonl", [
        {"paper_id": p["paper_id"], "text": f"{marks[i]} prior work [1]{suffix}.", "candidates": p["citations"]}
        for i, p in enumerate(papers)])


def evaluate(folder, tmp_path, files, *judge_args, status=0):
    out = tmp_path / "out"
    assert main(["evaluate", "rwgbench", "--predictions", *map(str, files), "--source", str(folder), "--profile",
                 "lite", "--metrics", "precision", "llm_judge", "--bootstrap", "200", *judge_args,
                 "--out", str(out)]) == status
    return out


def test_a_three_judge_three_sample_panel(mini_sample_folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    files = [predictions(mini_sample_folder, tmp_path, "sys1"), predictions(mini_sample_folder, tmp_path, "sys2", "!")]
    with ChatServer(like_real_endpoints(answer)) as server:
        out = evaluate(mini_sample_folder, tmp_path, files, "--judge", "judge-a", "--judge", "judge-b", "--judge",
                       "judge-c", "--judge-samples", "3", "--judge-base-url", server.base_url)
        bodies = list(server.requests)
    # 3 judges x 3 samples per paper, each judge's samples seeded 42, 43, 44, for each of 2 papers and 2 systems
    assert len(bodies) == 3 * 3 * 2 * 2
    for judge in SCORES:
        assert sorted(b["seed"] for b in bodies if b["model"] == judge) == [42, 42, 42, 42, 43, 43, 43, 43, 44, 44,
                                                                             44, 44]
    summary = json.loads((out / "sys1" / "summary.json").read_text())
    norm = lambda s: (s - 1) / 4  # noqa: E731
    # per paper: each judge's mean over its samples, then the mean over judges
    per_judge = {1: [4, 3, statistics.fmean([2, 3, 4])], 2: [4, 4, statistics.fmean([3, 4, 5])]}
    expected = statistics.fmean(norm(statistics.fmean(per_judge[p])) for p in (1, 2))
    assert summary["llm_judge"] == pytest.approx(expected, abs=1e-12)
    panel = summary["judge_panel"]
    assert panel["judges"] == list(SCORES) and panel["samples"] == 3 and panel["aggregate"] == "mean"
    block = panel["criteria"]["llm_judge"]
    assert block["judges"]["judge-b"]["mean"] == pytest.approx(statistics.fmean([norm(3), norm(4)]))
    matrix = np.array([[norm(per_judge[p][j]) for p in (1, 2)] for j in range(3)])
    assert block["krippendorff_alpha_ordinal"] == pytest.approx(krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="ordinal", value_domain=sorted(np.unique(matrix))))
    # judge noise: only judge-c varies (1 point per sample: sd 0.25 on [0, 1]); worked by hand
    within = statistics.fmean([0, 0, 0, 0, statistics.variance([norm(2), norm(3), norm(4)]),
                               statistics.variance([norm(3), norm(4), norm(5)])])
    assert block["within_paper_sd"] == pytest.approx(within ** 0.5)
    papers = [statistics.fmean(norm(v) for v in per_judge[p]) for p in (1, 2)]
    assert block["judge_noise_share"] == pytest.approx(min(1.0, within / 9 / statistics.variance(papers)))
    assert panel["complete"] is True and summary["judge_failures"] == 0
    assert panel["papers_by_judge"] == {judge: {"papers_scored": 2, "papers_failed": 0} for judge in SCORES}
    assert summary["provenance"]["judge"]["panel_complete"] is True
    rows = [json.loads(line) for line in (out / "sys1" / "per_paper.jsonl").read_text().splitlines()]
    assert rows[0]["judge_panel"]["judge-c"]["llm_judge"] == [norm(2), norm(3), norm(4)]
    assert not any("judge_panel_errors" in row for row in rows)  # every judge scored: the rows' layout unchanged
    printed = capsys.readouterr().out
    assert "judge panel, sys1: judge-a, judge-b, judge-c x3" in printed and "Kendall tau" in printed
    across = json.loads((out / "judge_panel_systems.json").read_text())
    assert across["systems"] == ["sys1", "sys2"] and "judge-a | judge-b" in across["criteria"]["llm_judge"]["kendall_tau"]


def test_one_judge_asked_once_is_todays_path(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    files = [predictions(mini_sample_folder, tmp_path, "sys")]
    with ChatServer(like_real_endpoints(answer)) as server:
        via_flag = json.loads((evaluate(mini_sample_folder, tmp_path / "a", files, "--judge", "judge-b", "--judge-base-url",
                                        server.base_url) / "sys" / "summary.json").read_text())
        via_role = json.loads((evaluate(mini_sample_folder, tmp_path / "b", files, "--model-role", "judge=judge-b",
                                        "--judge-base-url", server.base_url) / "sys" / "summary.json").read_text())
        assert len(server.requests) == 4 and {b["seed"] for b in server.requests} == {42}
    assert "judge_panel" not in via_flag and "judge_panel" not in via_role
    assert via_flag["llm_judge"] == via_role["llm_judge"] == pytest.approx(statistics.fmean([(3 - 1) / 4, (4 - 1) / 4]))


def test_combine_and_the_noise_share_by_hand():
    assert combine([1, 2, 6]) == 3 and combine([1, 2, 6], "median") == 2
    assert combine([{"a": 1, "b": 2}, {"a": 3}]) == {"a": 2, "b": 2}
    assert combine([None, None]) is None
    # two papers, one judge, two samples: within-paper variances 0.02 and 0; paper means 0.4 and 0.8
    rows = typed_rows([{"judge_panel": {"j": {"m": [0.3, 0.5]}}}, {"judge_panel": {"j": {"m": [0.8, 0.8]}}}])
    found = noise_share(rows, ["j"], "m", 2)
    assert found["within_paper_sd"] == pytest.approx(0.01 ** 0.5)
    assert found["judge_noise_share"] == pytest.approx((0.01 / 2) / 0.08)
    assert noise_share(rows, ["j"], "m", 1) == {"within_paper_sd": None, "judge_noise_share": None}
    assert PanelSpec(("a",)).is_panel is False and PanelSpec(("a",), 2).is_panel and PanelSpec(("a", "b")).is_panel
    with pytest.raises(ValueError, match="judge-samples"):
        PanelSpec(("a",), 0)
    tau = stats.kendalltau([1, 2, 3], [1, 3, 2]).statistic
    assert tau == pytest.approx(1 / 3)


def test_the_board_shows_a_panel_as_one_condition_naming_its_members(mini_sample_folder, tmp_path, monkeypatch):
    from sciwrite.core.conditions import summary_condition
    from sciwrite.core.results import load_summary

    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    with ChatServer(like_real_endpoints(answer)) as server:
        out = evaluate(mini_sample_folder, tmp_path, [predictions(mini_sample_folder, tmp_path, "sys")], "--judge",
                       "judge-a", "--judge", "judge-b", "--judge-base-url", server.base_url)
    condition = summary_condition(load_summary(out / "sys"))
    assert condition.label == "lite \u00b7 judge panel(judge-a + judge-b)"


def test_the_budget_covers_every_judge_of_a_panel(mini_sample_folder, tmp_path, monkeypatch, capsys):
    """Every judge's requests reserve their worst case in the one ledger: under a budget too small for any, none is
    sent, the judge scores are left out (never 0) and the command exits 3."""
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n" + "".join(f"  {judge}: {{input: 10.0, output: 70.0}}\n" for judge in SCORES))
    files = [predictions(mini_sample_folder, tmp_path, "sys")]
    with ChatServer(like_real_endpoints(answer)) as server:
        out = tmp_path / "out"
        status = main(["evaluate", "rwgbench", "--predictions", *map(str, files), "--source", str(mini_sample_folder),
                       "--profile", "lite", "--metrics", "llm_judge", "--judge", "judge-a", "--judge", "judge-b",
                       "--judge-samples", "2", "--judge-base-url", server.base_url, "--prices", str(prices),
                       "--max-cost", "0.001", "--out", str(out)])
        assert server.requests == []
    assert status == 3
    # 2 judges x 2 samples x 2 papers, each tried twice (the retry pass may fit once reservations have settled)
    assert "--max-cost: 16 judge requests (retries included) not sent" in capsys.readouterr().out
    summary = json.loads((out / "sys" / "summary.json").read_text())
    assert summary["llm_judge"] is None


# --- a panel never hides a dead judge -----------------------------------------------------------------------------

#: OpenAI's documented 429 body (error type ``requests``, code ``rate_limit_exceeded``), sent to every request.
RATE_LIMITED = (429, {"error": {"message": "Rate limit reached for judge-b in organization org-x on requests per min "
                                           "(RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit "
                                           "https://platform.openai.com/account/rate-limits to learn more.",
                                "type": "requests", "param": None, "code": "rate_limit_exceeded"}})


def only_a_answers(dead):
    """judge-a scores every paper 4; every other judge answers `dead` (a reply or an HTTP error) on the papers
    `dead_on` names (all by default)."""
    def respond(body, dead_on=("PAPER-ONE", "PAPER-TWO")):
        paper = next(mark for mark in ("PAPER-ONE", "PAPER-TWO") if mark in body["messages"][1]["content"])
        return '{"score": 4, "rationale": "ok"}' if body["model"] == "judge-a" or paper not in dead_on else dead
    return respond


DEAD_JUDGES = {
    "garbage": (("judge-a", "judge-b"), 1, "As an AI, I enjoyed reading this section!", "unparsable reply"),
    "permanent 429": (("judge-a", "judge-b"), 1, RATE_LIMITED, "HTTP 429: Rate limit reached"),
    "3 of 4 unreadable": (("judge-a", "judge-b", "judge-c", "judge-d"), 3, "no idea", "unparsable reply"),
}


@pytest.mark.parametrize("case", list(DEAD_JUDGES))
def test_a_dead_judge_is_counted_and_the_panel_reported_incomplete(case, mini_sample_folder, tmp_path, monkeypatch,
                                                                   capsys):
    judges, samples, dead, why = DEAD_JUDGES[case]
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    files = [predictions(mini_sample_folder, tmp_path, "sys")]
    with ChatServer(like_real_endpoints(only_a_answers(dead))) as server:
        out = evaluate(mini_sample_folder, tmp_path, files, *(w for j in judges for w in ("--judge", j)),
                       "--judge-samples", str(samples), "--judge-base-url", server.base_url, status=4)
    summary = json.loads((out / "sys" / "summary.json").read_text())
    dead_judges = judges[1:]
    assert summary["llm_judge"] == pytest.approx((4 - 1) / 4)  # the survivor's score stands: no score is changed
    assert summary["judge_failures"] == 2  # both papers: a judge of the panel failed on each
    panel = summary["judge_panel"]
    assert panel["complete"] is False
    assert panel["papers_by_judge"]["judge-a"] == {"papers_scored": 2, "papers_failed": 0}
    for judge in dead_judges:
        papers = panel["papers_by_judge"][judge]
        assert (papers["papers_scored"], papers["papers_failed"]) == (0, 2) and why in papers["failures"][0]
    judge = summary["provenance"]["judge"]
    assert judge["panel_complete"] is False
    assert {j: (p["papers_scored"], p["papers_failed"]) for j, p in judge["judges"].items()} \
        == {"judge-a": (2, 0), **{j: (0, 2) for j in dead_judges}}
    rows = [json.loads(line) for line in (out / "sys" / "per_paper.jsonl").read_text().splitlines()]
    for row in rows:  # every paper says which judges failed on it, and why
        assert set(row["judge_panel_errors"]) == set(dead_judges) and why in row["judge_panel_errors"][judges[1]]
        assert row["judge_error"] is None and row["llm_judge"] == pytest.approx(0.75)
    printed = capsys.readouterr().out
    assert f"sys: judge panel incomplete: {judges[1]} scored 0 of 2 papers" in printed
    assert "judge panel incomplete for sys (exit status 4" in printed


def test_accept_partial_panel_exits_0_and_still_says_incomplete(mini_sample_folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    files = [predictions(mini_sample_folder, tmp_path, "sys")]
    with ChatServer(like_real_endpoints(only_a_answers(RATE_LIMITED))) as server:
        out = evaluate(mini_sample_folder, tmp_path, files, "--judge", "judge-a", "--judge", "judge-b",
                       "--judge-base-url", server.base_url, "--accept-partial-panel")
    assert "sys: judge panel incomplete: judge-b scored 0 of 2 papers" in capsys.readouterr().out
    assert json.loads((out / "sys" / "summary.json").read_text())["judge_panel"]["complete"] is False


def test_a_judge_dead_on_one_paper_counts_that_paper(mini_sample_folder, tmp_path, monkeypatch):
    """A judge that fails on one paper: it scored 1 of 2, `judge_failures` counts that one paper."""
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    answer = only_a_answers("no idea")
    files = [predictions(mini_sample_folder, tmp_path, "sys")]
    with ChatServer(like_real_endpoints(lambda body: answer(body, dead_on=("PAPER-TWO",)))) as server:
        out = evaluate(mini_sample_folder, tmp_path, files, "--judge", "judge-a", "--judge", "judge-b",
                       "--judge-base-url", server.base_url, status=4)
    summary = json.loads((out / "sys" / "summary.json").read_text())
    assert summary["judge_failures"] == 1
    assert summary["judge_panel"]["papers_by_judge"]["judge-b"]["papers_scored"] == 1
    rows = [json.loads(line) for line in (out / "sys" / "per_paper.jsonl").read_text().splitlines()]
    assert ["judge_panel_errors" in row for row in rows] == [False, True]


def test_the_board_marks_an_incomplete_panel(mini_sample_folder, tmp_path, monkeypatch):
    from sciwrite.core.results import load_summary
    from sciwrite.leaderboard.tables import judge_text

    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    files = [predictions(mini_sample_folder, tmp_path, "sys")]
    with ChatServer(like_real_endpoints(only_a_answers("no idea"))) as server:
        out = evaluate(mini_sample_folder, tmp_path, files, "--judge", "judge-a", "--judge", "judge-b",
                       "--judge-base-url", server.base_url, status=4)
    assert judge_text(load_summary(out / "sys")) == ("panel(judge-a + judge-b) (judge-a-2026-04-23); panel "
                                                     "incomplete: judge-b scored 0 of 2 papers")


def test_failed_judges_are_read_from_the_typed_scores():
    rows = typed_rows([
        {"paper_id": "p1", "judge_panel": {"a": {"m": [0.5, None]}, "b": {"m": [None, None]}},
         "judge_panel_errors": {"b": "API error: HTTP 429"}},
        {"paper_id": "p2", "judge_panel": {"a": {"m": [0.5], "n": [None]}}},  # no usable score on one criterion
        {"paper_id": "p3"},  # no panel asked (an empty section): nobody failed
    ])
    assert failed_judges(rows[0]) == {"b": "API error: HTTP 429"}
    assert failed_judges(rows[1], ["a", "b"]) == {"a": "no usable score", "b": "no usable score"}
    assert failed_judges(rows[2], ["a", "b"]) == {}


def test_older_blocks_read_without_completeness_and_write_back_unchanged():
    old_panel = {"judges": ["a", "b"], "samples": 1, "aggregate": "mean", "criteria": {}}
    old_judge = {"model": "panel(a + b)", "snapshots": {"a-1": 2}, "system_fingerprints": {}}
    panel, judge = JudgePanel.from_json(old_panel), JudgeRecord.from_json(old_judge)
    assert panel.complete is None and panel.papers_by_judge == {} and judge.panel_complete is None
    assert panel.to_json() == old_panel and judge.to_json() == old_judge
    built = JudgePanel(judges=("a", "b"), complete=False, papers_by_judge={
        "a": PanelJudgePapers(papers_scored=2, papers_failed=0),
        "b": PanelJudgePapers(papers_scored=0, papers_failed=2, failures=("p1: no usable score",))})
    read = JudgePanel.from_json(built.to_json())
    assert read.complete is False and read.papers_by_judge["b"].failures == ("p1: no usable score",)
    assert built.to_json()["papers_by_judge"]["a"] == {"papers_scored": 2, "papers_failed": 0}
    assert incomplete_text(read.papers_by_judge) == "panel incomplete: b scored 0 of 2 papers (e.g. p1: no usable score)"
    assert incomplete_text(JudgePanel.from_json(old_panel).papers_by_judge) is None
    summary = Summary.from_json({"system": "s", "judge_panel": built.to_json()})
    assert summary.judge_panel is not None and summary.judge_panel.complete is False


def test_the_results_table_marks_a_system_whose_panel_is_incomplete():
    from sciwrite.core.coverage import Coverage
    from sciwrite.core.summary import JudgePanel as PanelBlock
    from sciwrite.core.summary import Summary
    from sciwrite.rwgbench.metrics.report import table2

    complete = Summary(system="full", metrics={"precision": 0.5}, coverage=Coverage(2, 2),
                       judge_panel=PanelBlock(judges=("a", "b"), complete=True))
    partial = Summary(system="part", metrics={"precision": 0.5}, coverage=Coverage(2, 2),
                      judge_panel=PanelBlock(judges=("a", "b"), complete=False))
    older = Summary(system="old", metrics={"precision": 0.5}, coverage=Coverage(2, 2),
                    judge_panel=PanelBlock(judges=("a", "b")))  # a block from before completeness was recorded
    labels = [row.labels[-1] for row in table2([complete, partial, older]).rows]
    assert labels == ["full", "part (panel incomplete)", "old"]
