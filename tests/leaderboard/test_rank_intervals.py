"""Rank intervals (`sciwrite.core.rank_intervals`; the board's cells: `sciwrite.leaderboard.rank_cells`): checked
against cases worked by hand, against ``sciwrite compare``'s own paired interval, against the exact bootstrap distribution (all n^n resamples of 3 papers, counted
by brute force) and on simulated scores with a known order; then the board's Rank cells and the store being read
once per scored version."""

from __future__ import annotations

import hashlib
import itertools
import json

import numpy as np
import pytest

from sciwrite.cli import main
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.rank_intervals import NOT_SIGNIFICANT, SIGNIFICANT, competition_ranks, rank_bounds, rank_intervals
from sciwrite.core.summary import Summary
from sciwrite.leaderboard import rank_cells as ri
from sciwrite.leaderboard.rank_cells import NO_SCORES, PAPER_SCORES, rank_cells
from sciwrite.leaderboard.store import FINISHED, ResultsStore
from sciwrite.leaderboard.tables import leaderboard_frame, leaderboard_rows
from sciwrite.stats import paired_results


def by_paper(values):
    return {f"p{i}": v for i, v in enumerate(values)}


# -- worked by hand -------------------------------------------------------------------------------------------------

def test_ties_share_the_better_rank():
    means = np.array([[0.5, 0.9, 0.5, 0.1],   # B first, A and C tie for 2nd, D after both: 2 2 -> 4 (1224)
                      [3.0, 3.0, 3.0, 3.0]])  # all tied: everyone 1st
    assert competition_ranks(means).tolist() == [[2, 1, 2, 4], [1, 1, 1, 1]]


def test_rank_bounds_are_the_inverted_cdf_quantiles():
    # 100 replicates each. 95%: the ends are where the share at or below first reaches 2.5% and 97.5%.
    ranks = np.array([[1] * 2 + [2] * 90 + [3] * 8,     # 2% at 1 < 2.5%: low 2; 92% at or below 2: high 3
                      [1] * 5 + [2] * 95 + [3] * 0,     # 5% at 1 >= 2.5%: low 1; high 2
                      [1] * 1 + [2] * 99 + [3] * 0]).T  # 1% at 1: low 2; high 2
    assert rank_bounds(ranks, 0.95).tolist() == [[2, 1, 2], [3, 2, 2]]
    assert rank_bounds(ranks, 0.5).tolist() == [[2, 2, 2], [2, 2, 2]]  # 25% / 75% quantiles


def test_a_dominant_system_ranks_1_exactly_and_identical_systems_are_never_told_apart():
    scores = {"A": by_paper([0.9, 0.8, 0.95, 0.7]),   # best on every paper
              "B": by_paper([0.5, 0.4, 0.60, 0.3]),   # B and C the same on every paper
              "C": by_paper([0.5, 0.4, 0.60, 0.3])}
    found = rank_intervals(scores, n_resamples=200)
    assert [(s.system, s.rank, s.interval) for s in found.systems] == [("A", 1, "1"), ("B", 2, "2"), ("C", 2, "2")]
    b, c = found.vs_above("B"), found.vs_above("C")
    # mean(A) - mean(B) = (0.4 + 0.4 + 0.35 + 0.4) / 4 = 0.3875; A is above B in every replicate
    assert b.above == "A" and b.difference == pytest.approx(0.3875) and b.significant and b.flip_share == 0
    assert 0.35 <= b.ci_low <= b.ci_high <= 0.4  # a mean of per-paper differences in [0.35, 0.4]
    assert (c.above, c.difference, c.ci_low, c.ci_high, c.significant, c.flip_share) == ("B", 0, 0, 0, False, 0)
    assert found.vs_above("A") is None and found.n_papers == 4


def test_lower_is_better_flips_the_order():
    found = rank_intervals({"A": by_paper([1, 2, 3]), "B": by_paper([5, 6, 7])}, higher_is_better=False)
    assert [(s.system, s.interval) for s in found.systems] == [("A", "1"), ("B", "2")]


def test_two_papers_one_each_worked_out():
    # A wins paper 0 by 1, B wins paper 1 by 1. The 4 resamples: (0,0) A ahead, (0,1) and (1,0) tied (both rank 1),
    # (1,1) B ahead; so each ranks 2 in 1/4 of the replicates: intervals 1–2, and the difference's interval is
    # [-1, 1]: not significant; B is strictly ahead in 1/4.
    found = rank_intervals({"A": {"x": 1.0, "y": 0.0}, "B": {"x": 0.0, "y": 1.0}}, n_resamples=4000, rng=3)
    assert [s.interval for s in found.systems] == ["1\u20132", "1\u20132"]
    diff = found.vs_above(found.systems[1].system)
    assert (diff.ci_low, diff.ci_high, diff.significant) == (-1.0, 1.0, False)
    assert diff.flip_share == pytest.approx(0.25, abs=0.03)


def test_only_papers_every_system_scored_count():
    found = rank_intervals({"A": {"x": 1.0, "y": 2.0, "z": None, "w": 9.0}, "B": {"x": 0.0, "y": 1.0, "z": 5.0}})
    assert found.n_papers == 2 and found.rank("A").mean == 1.5  # z (None for A) and w (absent for B) left out
    alone = rank_intervals({"A": {"x": 1.0}, "B": {"x": 2.0}})
    assert alone.n_papers == 1 and alone.systems[0].interval == "" and not alone.differences[0].significant


def test_a_bad_order_names_the_systems():
    with pytest.raises(ValueError, match=r"rank order \['A', 'Z'\] is not the ranked systems \['A', 'B'\]"):
        rank_intervals({"A": {"x": 1.0}, "B": {"x": 2.0}}, order=["A", "Z"])


# -- against compare, an exact count, and a simulation ----------------------------------------------------------------

def test_the_difference_interval_is_compares_paired_interval():
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.5, 0.2, 30), rng.normal(0.45, 0.2, 30)
    found = rank_intervals({"A": by_paper(a), "B": by_paper(b)}, order=["A", "B"], n_resamples=500, rng=[11, 0])
    compared = paired_results({f"p{i}": {"m": v} for i, v in enumerate(b)},
                              {f"p{i}": {"m": v} for i, v in enumerate(a)}, ["m"], n_resamples=500, seed=11)["m"]
    diff = found.vs_above("B")  # mean(A) - mean(B): compare's "system - baseline" with B the baseline
    assert (diff.difference, diff.ci_low, diff.ci_high) == pytest.approx(
        (compared.difference, compared.ci_low, compared.ci_high), abs=1e-12)


def exact_rank_distribution(columns):
    """Brute force: every one of the n^n resamples of n papers (equally likely), each system's rank in it (ties
    share the better rank), counted by hand."""
    n = len(columns[0])
    counts = [dict() for _ in columns]
    for draw in itertools.product(range(n), repeat=n):
        means = [sum(col[i] for i in draw) / n for col in columns]
        for j, m in enumerate(means):
            rank = 1 + sum(other > m for other in means)
            counts[j][rank] = counts[j].get(rank, 0) + 1
    return [{r: c / n ** n for r, c in sorted(found.items())} for found in counts]


def exact_bounds(distribution, confidence):
    alpha = (1 - confidence) / 2
    cumulative, bounds = 0.0, []
    for level in (alpha, 1 - alpha):
        cumulative = 0.0
        for rank, p in distribution.items():
            cumulative += p
            if cumulative >= level:
                bounds.append(rank)
                break
    return tuple(bounds)


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95])
def test_intervals_match_the_exact_bootstrap_over_all_resamples(confidence):
    # 27 equally likely resamples: every share is a multiple of 1/27, never at 2.5%, 10%, 25%, 75%, 90% or 97.5%
    columns = [[3.0, 0.0, 1.0], [1.0, 2.0, 0.0], [0.0, 1.0, 2.5]]
    exact = exact_rank_distribution(columns)
    found = rank_intervals({name: by_paper(col) for name, col in zip("ABC", columns)}, order=list("ABC"),
                           n_resamples=40_000, confidence=confidence, rng=5)
    assert [(s.low, s.high) for s in found.systems] == [exact_bounds(d, confidence) for d in exact]
    # the order flips (B strictly ahead of A) in the share of resamples the exact count gives
    n = 3
    flips = sum(sum(columns[1][i] for i in d) > sum(columns[0][i] for i in d)
                for d in itertools.product(range(n), repeat=n)) / n ** n
    assert found.vs_above("B").flip_share == pytest.approx(flips, abs=0.01)


def test_simulated_scores_with_a_known_order():
    rng = np.random.default_rng(2024)
    paper = rng.normal(0, 0.3, 80)  # a paper effect every system shares (what pairing removes)
    true = {"A": 0.8, "B": 0.3, "C": 0.3}  # A far ahead, B and C the same system quality
    scores = {s: by_paper(paper + mu + rng.normal(0, 0.2, 80)) for s, mu in true.items()}
    found = rank_intervals(scores, n_resamples=1000)
    assert found.systems[0].system == "A" and found.systems[0].interval == "1"
    assert found.vs_above(found.systems[1].system).significant  # the runner-up is clearly below A
    b, c = found.rank("B"), found.rank("C")
    assert max(b.low, c.low) <= min(b.high, c.high) and (b.low, b.high) == (c.low, c.high) == (2, 3)
    assert not found.vs_above(found.systems[2].system).significant


# -- the board --------------------------------------------------------------------------------------------------------

def board_row(system, profile="lite", scores=None):
    return {"id": system, "system": system, "profile": profile, "judge_model": "",
            PAPER_SCORES: {} if scores is None else {"precision": scores}}


def test_rank_cells_say_the_interval_the_significance_and_why_not():
    top, same = by_paper([0.9, 0.8, 0.95, 0.7]), by_paper([0.5, 0.4, 0.6, 0.3])
    ranked = [(1, board_row("A", scores=top)), (2, board_row("B", scores=same)), (3, board_row("C", scores=same)),
              (4, board_row("D")),  # no per-paper scores
              (1, board_row("E", profile="paper", scores=top)),  # alone in its condition
              (1, board_row("F", profile="")),  # alone, and without scores: nothing to say either
              (1, board_row("G", profile="other", scores=top)), (2, board_row("H", profile="other"))]
    assert rank_cells(ranked, "precision", True, n_resamples=200) == [
        "1 (1)", f"2 (2) {SIGNIFICANT}", f"3 (2) {NOT_SIGNIFICANT}", f"4 ({NO_SCORES})", "1", "1", "1",
        f"2 ({NO_SCORES})"]


def add_scored(store, system, values, profile="lite"):
    rows = [PaperRow(paper_id=f"p{i}", values={"precision": v}) for i, v in enumerate(values)]
    summary = Summary.from_json({"n_papers": len(rows), "profile": profile, "precision": float(np.mean(values))})
    return store.add_submission(benchmark="rwgbench", split="sample", system=system, submitter="tester",
                                predictions_jsonl=system, sha256=hashlib.sha256(system.encode()).hexdigest(),
                                n_predictions=len(rows), status=FINISHED, summary=summary, rows=rows, profile=profile)


def test_the_board_shows_rank_intervals_and_reads_the_scores_once(tmp_path, monkeypatch):
    store = ResultsStore(tmp_path / "board.sqlite")
    top = add_scored(store, "top", [0.9, 0.8, 0.95, 0.7])
    add_scored(store, "twin-1", [0.5, 0.4, 0.6, 0.3])
    add_scored(store, "twin-2", [0.5, 0.4, 0.6, 0.3])
    reads = []
    original = ResultsStore.paper_rows
    monkeypatch.setattr(ResultsStore, "paper_rows", lambda self, sid: reads.append(sid) or original(self, sid))
    rows = leaderboard_rows(store, "rwgbench")
    frame = leaderboard_frame(rows, "rwgbench", sort_by="precision")
    assert list(frame["System"]) == ["top", "twin-1", "twin-2"]
    assert list(frame["Rank"]) == ["1 (1)", f"2 (2) {SIGNIFICANT}", f"3 (2) {NOT_SIGNIFICANT}"]
    assert frame.attrs["ranks"] == [1, 2, 3]
    filtered = leaderboard_frame(leaderboard_rows(store, "rwgbench"), "rwgbench", sort_by="precision", search="twin-2")
    assert list(filtered["Rank"]) == [f"3 (2) {NOT_SIGNIFICANT}"]  # ranked before the filter, as the bare rank
    assert len(reads) == len(set(reads)) == 3  # each submission's scores read once over both refreshes
    assert ri.stored_paper_scores(store, store.get(top.id), ["precision"])["precision"]["p2"] == 0.95


# -- sciwrite compare ------------------------------------------------------------------------------------------------

def per_paper_folder(tmp_path, name, rouge):
    folder = tmp_path / name
    folder.mkdir()
    rows = [{"system": name, "paper_id": f"p{i}", "rougeL": v, "bertscore_f1": 0.5} for i, v in enumerate(rouge)]
    (folder / "per_paper.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "summary.json").write_text(json.dumps({"system": name}))
    return str(folder)


def test_compare_prints_each_systems_rank_interval(tmp_path, capsys):
    base = per_paper_folder(tmp_path, "base", [0.1, 0.2, 0.3, 0.2])
    top = per_paper_folder(tmp_path, "top", [0.4, 0.5, 0.6, 0.5])    # above base on every paper, by 0.3
    twin = per_paper_folder(tmp_path, "twin", [0.1, 0.2, 0.3, 0.2])  # base's scores exactly
    assert main(["compare", base, top, twin, "--metrics", "rougeL", "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    ranks = out[out.index("Ranks on rougeL over the 4 papers every system scored"):].split("\n\n")[0].splitlines()
    cells = [line.split() for line in ranks[3:]]  # the ranks block, up to the cost and judge table
    # top ranks 1 in every resample; base and twin tie in every one: both 2; the per-paper differences are all
    # 0.3 (top - base) and 0 (base - twin), so the intervals are those points
    assert cells == [["top", "1", "1"], ["base", "2", "2", "sig.", "[0.300,", "0.300]", "0.000"],
                     ["twin", "2", "2", "n.s.", "[0.000,", "0.000]", "0.000"]]


def test_compare_ranks_two_systems_with_the_tables_own_interval(tmp_path, capsys):
    rng = np.random.default_rng(3)
    base = per_paper_folder(tmp_path, "base", list(rng.uniform(0.1, 0.3, 12)))
    other = per_paper_folder(tmp_path, "other", list(rng.uniform(0.15, 0.35, 12)))
    assert main(["compare", base, other, "--metrics", "rougeL", "--bootstrap", "300", "--bootstrap-seed", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    table = next(line.split() for line in out if line.startswith("other "))  # other - base, its paired interval
    start = out.index(next(line for line in out if line.startswith("Ranks on")))
    ranks = out[start + 3:out.index("", start)]  # the ranks block, up to the cost and judge table
    assert [line.split()[0] for line in ranks] == ["other", "base"]
    low, high = ranks[1].split()[4:6]
    assert (float(low.strip("[,")), float(high.strip("]"))) == pytest.approx((float(table[7]), float(table[8])),
                                                                             abs=6e-4)
