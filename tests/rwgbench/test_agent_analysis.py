"""The agent's search analysis: hand-counted figures per paper, their means, and the summary block
``sciwrite evaluate`` writes for predictions that carry an agent record (none for RAG's)."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.agent_analysis import agent_analysis, paper_analysis


def test_paper_figures_by_hand():
    agent = {"tool_calls": 4, "searched": ["a", "b", "c", "d"], "read": ["a", "a", "e"], "seen": ["a", "b", "c", "d", "e"]}
    found = paper_analysis(agent, candidates=["a", "e"], gold=["a", "b", "x", "y"])
    # cited a (searched) and e (read by id only): 1 of 2 found by search; gold seen: a, b of 4; cited: a of 4
    assert found == {"tool_calls": 4, "papers_read": 2, "cited_found_by_search": 0.5, "gold_recall_seen": 0.5,
                     "gold_recall_cited": 0.25}
    assert paper_analysis({}, [], ["g"])["cited_found_by_search"] is None


def test_means_and_counts_over_the_agents_papers_only():
    records = [{"agent": {"tool_calls": 2, "searched": ["a"], "seen": ["a"], "no_tool_calls": False},
                "candidates": ["a"]},
               {"agent": {"tool_calls": 0, "no_tool_calls": True, "budget_exhausted": False, "malformed_calls": 1},
                "candidates": []},
               {"candidates": ["z"]}]  # a line without an agent record is left out
    targets = [{"citations": ["a", "b"]}, {"citations": ["c"]}, {"citations": ["z"]}]
    block = agent_analysis(records, targets)
    assert block["n_papers"] == 2 and block["tool_calls_per_paper"] == 1.0
    assert block["gold_recall_seen"] == pytest.approx((0.5 + 0.0) / 2)
    assert block["cited_found_by_search"] == 1.0  # the second paper cited nothing: left out of this mean
    assert (block["n_no_tool_calls"], block["malformed_calls"]) == (1, 1)
    assert agent_analysis([{"candidates": []}], [{"citations": []}]) is None


def test_evaluate_writes_the_agent_block(mini_sample_folder, tmp_path):
    papers = load_rwgbench("sample", source=mini_sample_folder).to_list()
    scorable = [p for p in papers if p["citations"]][:2]
    lines = []
    for paper in scorable:
        gold = list(paper["citations"])
        lines.append({"paper_id": paper["paper_id"], "text": "Prior work [1].", "candidates": gold[:1],
                      "agent": {"tool_calls": 3, "searched": gold[:2], "read": gold[:1], "seen": gold[:2]}})
    path = tmp_path / "agent.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["evaluate", "rwgbench", "--predictions", str(path), "--source", str(mini_sample_folder),
                 "--profile", "lite", "--no-judge", "--metrics", "precision", "recall", "--out",
                 str(tmp_path / "out")]) == 0
    summary = json.loads((tmp_path / "out" / "agent" / "summary.json").read_text())
    block = summary["agent"]
    expected_seen = sum(min(2, len(p["citations"])) / len(set(p["citations"])) for p in scorable) / 2
    assert block["gold_recall_seen"] == pytest.approx(expected_seen)
    assert block["gold_recall_cited"] == pytest.approx(summary["recall"])
