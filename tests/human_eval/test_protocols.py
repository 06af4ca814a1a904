"""The human-evaluation kit's protocols on synthetic votes whose Table 5 cells were worked out by hand (ties, a
three-three split, a pair whose majority flips with the presentation order, a metric tie), the SciIG means, the
task draw, and the answers' checks."""

from __future__ import annotations

import json
import math

import pytest

from sciwrite.human_eval.answers import read_answers
from sciwrite.human_eval.pairwise import Consistency, agreement, comparisons, consistency, majority, pairs_of
from sciwrite.human_eval.tasks import draw_tasks
from sciwrite.rwgbench.human_eval import RWGBENCH_STUDY, agreement_cell
from sciwrite.rwgbench.human_eval import analyze as analyze_rwgbench
from sciwrite.sciig.human_eval import SCIIG_STUDY
from sciwrite.sciig.human_eval import analyze as analyze_sciig

#: pair -> (paper, first system (A in order 1), second system, order-1 choices, order-2 choices), six annotators.
PAIRS = {
    # order 1: alpha 3, beta 1, tie 2; order 2 (A = beta): alpha 2, beta 1, tie 3 -> alpha 5-2 (5/7), kept
    "P1": ("p1", "alpha", "beta", "AAAB..", "BBA..."),
    # 3-3, then six ties: no majority
    "P2": ("p2", "alpha", "beta", "AAABBB", "......"),
    # order 1: beta 4-1; order 2 (A = gamma): gamma 3-1 -> pooled beta 5-4 (5/9), flips with the order
    "P3": ("p3", "beta", "gamma", "AAAAB.", "AAAB.."),
    # order 1: alpha 5-1; order 2 (A = gamma): alpha 6-0 -> alpha 11-1 (11/12), kept
    "P4": ("p4", "alpha", "gamma", "AAAAAB", "BBBBBB"),
    # order 1 (A = beta): beta 4-0; order 2 (A = alpha): beta 3-0 -> beta 7-0 (7/7), kept
    "P5": ("p5", "beta", "alpha", "AAAA..", "BBB..."),
}
#: Per-paper LLM-judge values: P1 alpha (agrees, margin 0.2), P3 gamma (disagrees, 0.2), P4 a tie, P5 beta (agrees,
#: 0.05). gamma is a Direct run.
VALUES = {("alpha", "p1"): 0.8, ("beta", "p1"): 0.6, ("alpha", "p2"): 0.1, ("beta", "p2"): 0.2,
          ("beta", "p3"): 0.5, ("gamma", "p3"): 0.7, ("alpha", "p4"): 0.9, ("gamma", "p4"): 0.9,
          ("alpha", "p5"): 0.7, ("beta", "p5"): 0.75}


def study_of(pairs=PAIRS, dimension="writing_quality"):
    """(key, answers) of `pairs`: two tasks each, one per presentation order; "." is a tie."""
    key, answers = [], []
    for pair_id, (paper, first, second, one, two) in pairs.items():
        for order, (a, b, choices) in enumerate(((first, second, one), (second, first, two)), start=1):
            task_id = f"{pair_id}-{order}"
            key.append({"task_id": task_id, "paper_id": paper, "pair_id": pair_id, "order": order,
                        "system_a": a, "system_b": b})
            answers += [{"task_id": task_id, "annotator": f"ann{i}", "dimension": dimension,
                         "choice": "tie" if c == "." else c} for i, c in enumerate(choices)]
    return key, answers


def test_majorities_shares_and_presentation_order_by_hand():
    key, answers = study_of()
    pairs = {p.pair_id: p for p in pairs_of(key, answers, "writing_quality")}
    assert majority(pairs["P1"].counts(), pairs["P1"].systems) == ("alpha", 5 / 7)
    assert majority(pairs["P2"].counts(), pairs["P2"].systems) == (None, None)  # three-three
    assert majority(pairs["P3"].counts(), pairs["P3"].systems) == ("beta", 5 / 9)
    assert majority(pairs["P3"].counts(2), pairs["P3"].systems) == ("gamma", 3 / 4)  # the flip
    stats = consistency(list(pairs.values()))
    assert stats == Consistency(n_pairs=5, unique_majorities=4,
                                mean_winning_share=pytest.approx((5 / 7 + 5 / 9 + 11 / 12 + 1) / 4),
                                kept_across_orders=3, n_pairs_in_both_orders=5, n_votes=60)


def test_metric_alignment_cells_by_hand():
    key, answers = study_of()
    compared = comparisons(pairs_of(key, answers, "writing_quality"), VALUES, direct={"gamma"})
    rows = {r["protocol"]: r for r in agreement(compared)}
    cells = {name: (r["agree"], r["n"]) for name, r in rows.items()}
    assert cells == {
        "decisive": (2, 3),  # P1, P3 (disagrees), P5; P4 is a metric tie
        "clear_margin": (1, 2),  # the cut is the largest margin, 0.2: P1 and P3 (0.8-0.6 and 0.7-0.5 are one margin)
        "non_direct": (2, 2),  # P1, P5
        "non_direct_clear_margin": (1, 1),
        "high_consensus": (1, 1),  # P4 (tie) and P5 reach 75%
        "high_consensus_clear_margin": (0, 0),
        "non_direct_high_consensus": (1, 1),
        "non_direct_high_consensus_clear_margin": (0, 0),
        "order_consistent": (2, 2),  # P1, P4 (tie), P5
        "order_consistent_clear_margin": (1, 1),
        "order_consistent_non_direct": (2, 2),
        "order_consistent_non_direct_clear_margin": (1, 1),
    }
    assert rows["decisive"]["metric_ties"] == 1 and rows["non_direct"]["metric_ties"] == 0
    assert rows["clear_margin"]["clear_margin_cut"] == pytest.approx(0.2)
    assert rows["non_direct_high_consensus"]["label"] == "non-direct high-consensus"  # Table 5's words
    assert rows["order_consistent_non_direct"]["label"] == "presentation-order sensitivity, non-direct"


def test_comparisons_of_a_missing_value_a_nan_and_a_metric_tie():
    key, answers = study_of()
    pairs = pairs_of(key, answers, "writing_quality")
    values = {**VALUES, ("beta", "p3"): None, ("alpha", "p5"): math.nan}
    compared = {c.pair_id: c for c in comparisons(pairs, values, direct=())}
    assert set(compared) == {"P1", "P3", "P4", "P5"}  # P2 has no unique majority
    outcome = {pair_id: (c.metric_winner, c.margin, c.missing) for pair_id, c in compared.items()}
    assert outcome["P3"] == outcome["P5"] == (None, None, True)  # a value missing, a value NaN
    assert outcome["P4"] == (None, None, False)  # 0.9 and 0.9: a metric tie, not a missing value
    assert outcome["P1"] == ("alpha", pytest.approx(0.2), False)
    lower = {c.pair_id: c for c in comparisons(pairs, values, direct=(), higher_is_better=False)}
    assert lower["P1"].metric_winner == "beta" and lower["P1"].margin == pytest.approx(0.2)


def evals(tmp_path, values=VALUES, direct=("gamma",)):
    folders = []
    for system in sorted({s for s, _ in values}):
        folder = tmp_path / "evals" / system
        folder.mkdir(parents=True)
        method = "direct" if system in direct else "rag"
        (folder / "summary.json").write_text(json.dumps({"system": system, "run": {"method": method}}))
        (folder / "per_paper.jsonl").write_text("".join(
            json.dumps({"paper_id": p, "llm_judge": v}) + "\n" for (s, p), v in values.items() if s == system))
        folders.append(folder)
    return folders


def test_rwgbench_table5_rows_and_cells(tmp_path):
    key, answers = study_of()
    rows = analyze_rwgbench([], key, answers, evals=evals(tmp_path), align={"writing_quality": "llm"})
    summary = rows[0]
    assert (summary["target"], summary["protocol"]) == ("Human consistency", "presentation-order sensitivity")
    assert agreement_cell(summary) == "4/5; 79.7%"  # the one answered dimension (the others have no votes)
    assert [r["signal"] for r in rows if r["protocol"] == "unique majority"] == ["Writing quality"]
    writing = next(r for r in rows if r["target"] == "Human consistency" and r["signal"] == "Writing quality")
    assert agreement_cell(writing) == "4/5; 79.7% mean winning share; kept across orders 3/5"
    aligned = {r["protocol"]: agreement_cell(r) for r in rows if r["signal"] == "LLM-as-Judge"}
    assert aligned["decisive preference"] == "2/3; 66.7%"
    assert aligned["non-direct clear-margin"] == "1/1; 100.0%"
    assert aligned["high-consensus, clear-margin"] == "0/0; \u2013"
    # a second dimension where P2 is unanimous: 5/5 majorities, (5/7 + 1 + 5/9 + 11/12 + 1) / 5 = 83.7%
    _, more = study_of({**PAIRS, "P2": ("p2", "alpha", "beta", "AAAAAA", "......")}, "scholarly_positioning")
    both = analyze_rwgbench([], key, answers + more)
    assert agreement_cell(both[0]) == "4 to 5/5; 79.7 to 83.7%"
    with pytest.raises(ValueError, match="--align needs --evals"):
        analyze_rwgbench([], key, answers, align={"writing_quality": "llm"})
    with pytest.raises(ValueError, match="unknown dimension 'style'"):
        analyze_rwgbench([], key, answers, evals=evals(tmp_path / "z"), align={"style": "llm"})
    with pytest.raises(ValueError, match="cannot be aligned"):
        analyze_rwgbench([], key, answers, evals=evals(tmp_path / "x"), align={"writing_quality": "citation_density"})
    with pytest.raises(ValueError, match=r"no --evals folder holds: \['gamma'\]"):
        analyze_rwgbench([], key, answers, evals=evals(tmp_path / "y", {k: v for k, v in VALUES.items()
                                                                         if k[0] != "gamma"}),
                         align={"writing_quality": "llm"})


def test_sciig_means_by_hand():
    key = [{"task_id": f"t{i}", "paper_id": f"p{i // 2}", "system": "3-shot" if i % 2 else "0-shot"}
           for i in range(4)]
    answers = [{"task_id": "t0", "annotator": "a", "dimension": "faithfulness", "rating": 4},
               {"task_id": "t2", "annotator": "a", "dimension": "faithfulness", "rating": 5},
               {"task_id": "t1", "annotator": "a", "dimension": "faithfulness", "rating": 3, "comment": "thin"},
               {"task_id": "t1", "annotator": "b", "dimension": "hallucinated_citations", "rating": 5}]
    rows = {(r["target"], r["signal"]): r for r in analyze_sciig([], key, answers)}
    assert (rows["Faithfulness", "0-shot"]["mean"], rows["Faithfulness", "0-shot"]["n"]) == (4.5, 2)
    assert (rows["Faithfulness", "3-shot"]["mean"], rows["Faithfulness", "3-shot"]["n"]) == (3.0, 1)
    assert rows["Hallucination Resistance", "3-shot"]["mean"] == 5.0  # Table 5's name for Table 7's criterion
    assert rows["Content Coverage", "0-shot"]["mean"] is None
    assert len(rows) == 20  # ten criteria x two systems
    table = SCIIG_STUDY.table({"rows": list(rows.values()), "choices": []})
    assert table.rows[0].cells == {"0-shot": "4.50 (n=2)", "3-shot": "3.00 (n=1)"}


def test_the_draw_is_seeded_blinded_and_writes_both_orders():
    texts = {s: {f"p{i}": f"{s} text {i}" for i in range(5)} for s in ("alpha", "beta", "gamma")}
    papers = {f"p{i}": {"title": f"T{i}", "abstract": "..."} for i in range(6)}
    drawn = draw_tasks(RWGBENCH_STUDY, texts, papers, n_papers=3, seed=7)
    again = draw_tasks(RWGBENCH_STUDY, texts, papers, n_papers=3, seed=7)
    assert drawn == again and drawn != draw_tasks(RWGBENCH_STUDY, texts, papers, n_papers=3, seed=8)
    assert len(drawn.tasks) == 6 and len({t["task_id"] for t in drawn.tasks}) == 6
    for task in drawn.tasks:
        assert set(task) == {"task_id", "paper_id", "title", "abstract", "section_a", "section_b"}
        assert not any(name in str(task[field]) for field in ("task_id", "paper_id", "title", "abstract")
                       for name in ("alpha", "beta", "gamma"))  # only the texts themselves
    by_pair = {}
    for k in drawn.key:
        by_pair.setdefault(k["pair_id"], []).append((k["order"], k["system_a"], k["system_b"]))
    for orders in by_pair.values():
        (o1, a1, b1), (o2, a2, b2) = sorted(orders)
        assert (o1, o2) == (1, 2) and (a1, b1) == (b2, a2)  # the same pair, both presentation orders
    task = {t["task_id"]: t for t in drawn.tasks}
    for k in drawn.key:
        assert task[k["task_id"]]["section_a"] == texts[k["system_a"]][k["paper_id"]]
    rated = draw_tasks(SCIIG_STUDY, texts, papers, n_papers=2, seed=0)
    assert len(rated.tasks) == 6 and {"text"} <= set(rated.tasks[0]) and "section_a" not in rated.tasks[0]
    assert rated.study["dimensions"][5]["name"] == "Hallucinated Citations"
    with pytest.raises(ValueError, match="5 papers are predicted by every system"):
        draw_tasks(RWGBENCH_STUDY, texts, papers, n_papers=6)
    with pytest.raises(ValueError, match="cannot be named 'tie'"):
        draw_tasks(RWGBENCH_STUDY, {**texts, "tie": texts["alpha"]}, papers, n_papers=1)


def test_bad_answers_are_named_by_line(tmp_path):
    votes = tmp_path / "votes.jsonl"
    votes.write_text("\n".join([
        json.dumps({"task_id": "P1-1", "annotator": "a", "dimension": "writing_quality", "choice": "A"}),
        json.dumps({"task_id": "nope", "annotator": "a", "dimension": "writing_quality", "choice": "A"}),
        json.dumps({"task_id": "P1-1", "annotator": "b", "dimension": "writing_quality", "choice": "C"}),
        json.dumps({"task_id": "P1-1", "annotator": "a", "dimension": "writing_quality", "choice": "B"}),
        json.dumps({"task_id": "P1-1", "annotator": "a", "dimension": "writing_quality", "choice": "A"}),
        "{oops",
    ]) + "\n")
    dimensions = [d.key for d in RWGBENCH_STUDY.dimensions]
    with pytest.raises(ValueError, match=r"4 answer\(s\) cannot be read") as err:
        read_answers(votes, "pairwise", {"P1-1", "P1-2"}, dimensions)
    text = str(err.value)
    assert "4 answer(s) cannot be read" in text
    assert f"{votes}:2: unknown task_id 'nope'" in text
    assert f"{votes}:3: field 'choice' must be one of ['A', 'B', 'tie'], got 'C'" in text
    assert f"{votes}:4: annotator 'a' answered task 'P1-1' (writing_quality) differently on line 1" in text
    assert f"{votes}:6: not valid JSON" in text
    ratings = tmp_path / "ratings.jsonl"
    ratings.write_text(json.dumps({"task_id": "t0", "annotator": "a", "dimension": "faithfulness", "rating": 6}) + "\n")
    with pytest.raises(ValueError, match=r"ratings.jsonl:1: field 'rating' must be a whole number from 1 to 5, got 6"):
        read_answers(ratings, "rating", {"t0"}, [d.key for d in SCIIG_STUDY.dimensions])
