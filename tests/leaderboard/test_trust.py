"""The trust card of a leaderboard row, from its summary alone: a single judge without a check, a panel whose judge
passed its check, an older summary (snapshots unknown), and a row whose judge failed its check, marked in its Judge
cell and its provenance box."""

from __future__ import annotations

import hashlib

from sciwrite.benchmarks import get_benchmark
from sciwrite.core.conditions import summary_condition
from sciwrite.core.summary import Summary
from sciwrite.core.trust import FAILED_MARK, trust_card
from sciwrite.leaderboard.app import submission_provenance
from sciwrite.leaderboard.service import Leaderboard
from sciwrite.leaderboard.store import FINISHED, ResultsStore
from sciwrite.leaderboard.tables import leaderboard_rows

CHECK = {"judge": "judge-a", "benchmark": "rwgbench", "verdict": "passes", "pass_rate": 0.9,
         "interval": [0.699, 0.972], "confidence": 0.95, "kinds": ["shuffled", "swapped"], "n_pairs": 20,
         "pair_set_digest": "abc", "date": "2026-05-01", "source": "outputs/judge-check/rwgbench"}


def summary(judge=None, panel=None, profile="lite"):
    """A RWGBench summary whose provenance's judge record is `judge` (None: no judge ran) and judge panel `panel`."""
    data = {"system": "sys", "n_papers": 3, "profile": profile,
            **{m: None for m in get_benchmark("rwgbench").suite.metrics},
            "provenance": {"sciwrite_version": "0", "git_commit": None, "profile": profile, "judge": judge}}
    if panel is not None:
        data["judge_panel"] = panel
    return Summary.from_json(data)


def card(s):
    return trust_card(s, summary_condition(s)).as_text()


def test_a_single_judge_without_a_check():
    s = summary({"model": "gpt-x", "snapshots": {"gpt-x-2026-04-23": 3}})
    assert card(s) == ("Trust card\n"
                       "  scored under: lite \u00b7 judge gpt-x\n"
                       "  judge: gpt-x (snapshots: gpt-x-2026-04-23)\n"
                       "  judge check: no check recorded\n"
                       "  panel: single judge\n"
                       "  agreement with people: no human study recorded")
    assert not trust_card(s, summary_condition(s)).failed_check


def test_a_panel_whose_judge_passed_its_check():
    judge = {"model": "panel(judge-a + judge-b)", "snapshots": {"a-1": 3}, "panel_complete": True,
             "snapshots_by_judge": {"judge-a": {"a-1": 3}, "judge-b": {"b-1": 2, "b-2": 1}}, "check": CHECK}
    panel = {"judges": ["judge-a", "judge-b"], "samples": 3, "aggregate": "mean", "complete": True,
             "criteria": {"llm_judge": {"judges": {}, "krippendorff_alpha_ordinal": 0.5, "within_paper_sd": 0.1,
                                        "judge_noise_share": 0.25}}}
    assert card(summary(judge, panel)) == (
        "Trust card\n"
        "  scored under: lite \u00b7 judge panel(judge-a + judge-b)\n"
        "  judges: judge-a (snapshots: a-1); judge-b (snapshots: b-1, b-2)\n"
        "  judge check: passes: pass rate 0.900 [0.699, 0.972] (95%; 20 pairs; kinds shuffled, swapped; 2026-05-01; "
        "judge judge-a)\n"
        "  panel: 2 judges x3 samples, mean\n"
        "    llm_judge: alpha 0.500, judge-noise share 0.250\n"
        "  agreement with people: no human study recorded")


def test_an_older_panel_record_says_which_snapshots_are_unknown():
    judge = {"model": "panel(judge-a + judge-b)", "snapshots": {"a-1": 3}}
    panel = {"judges": ["judge-a", "judge-b"], "samples": 1, "criteria": {}}
    text = card(summary(judge, panel))
    assert "  judges: judge-a (snapshots: a-1); judge-b (snapshots: unknown)\n" in text
    assert "  panel: 2 judges\n" in text


def test_no_judge_and_no_provenance():
    assert "  judge: none (no LLM judge ran)\n" in card(summary(None))


def test_a_row_whose_judge_failed_its_check_is_marked(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    failed = summary({"model": "gpt-x", "snapshots": {"gpt-x-1": 3}, "check": {**CHECK, "judge": "gpt-x",
                                                                               "verdict": "fails"}})
    passed = summary({"model": "gpt-x", "snapshots": {"gpt-x-1": 3}, "check": {**CHECK, "judge": "gpt-x"}})
    ids = {}
    for name, s in (("bad", failed), ("good", passed)):
        ids[name] = store.add_submission(
            benchmark="rwgbench", split="sample", system=name, submitter="t", predictions_jsonl=name,
            sha256=hashlib.sha256(name.encode()).hexdigest(), n_predictions=3, status=FINISHED, summary=s, rows=(),
            profile="lite").id
    judges = {row["system"]: row["judge"] for row in leaderboard_rows(store, "rwgbench", "sample")}
    assert judges == {"bad": f"gpt-x (gpt-x-1) {FAILED_MARK}", "good": "gpt-x (gpt-x-1)"}
    shown = submission_provenance(Leaderboard(store), ids["bad"])
    assert shown.splitlines()[1] == f"Trust card \u2014 {FAILED_MARK}"
    assert "  judge check: fails: pass rate 0.900 [0.699, 0.972]" in shown and shown.count(FAILED_MARK) == 2
    assert '"provenance"' in shown  # the provenance block follows the card
    assert FAILED_MARK not in submission_provenance(Leaderboard(store), ids["good"])
