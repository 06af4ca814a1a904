"""Metric-human agreement (Kendall tau / Spearman at system and item level, bootstrap intervals) on synthetic
ratings with a known relation, judge agreement (Goodman-Kruskal gamma, pairwise-order agreement) on hand-worked
lists and against a brute-force count, ties, the ratings format's errors, and the CLI commands."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from sciwrite.cli import main
from sciwrite.core.paper_row import PaperRow
from sciwrite.meta_eval.agreement import (
    correlate,
    goodman_kruskal_gamma,
    judge_agreement,
    metric_agreement,
    metric_scores,
    pair_counts,
    pairwise_agreement,
    read_per_paper,
    read_ratings,
)
from tests.exact_bootstrap import distribution, level_intervals, resamples

SYSTEMS = [f"sys{i}" for i in range(8)]
PAPERS = [f"p{i:02d}" for i in range(25)]


def synthetic_human(seed: int = 1) -> dict[tuple[str, str], float]:
    """Human scores: a system's quality plus per-output spread, so both levels have a signal."""
    rng = np.random.default_rng(seed)
    quality = {s: i / 2 for i, s in enumerate(SYSTEMS)}
    return {(p, s): quality[s] + rng.normal(0, 1.0) for p in PAPERS for s in SYSTEMS}


def by_level(rows):
    return {row["level"]: row for row in rows}


def test_metric_tracking_humans_correlates_near_one():
    human = synthetic_human()
    rng = np.random.default_rng(2)
    metric = {item: score + rng.normal(0, 0.05) for item, score in human.items()}
    rows = by_level(correlate(human, metric, n_resamples=300, seed=0))
    item, system = rows["item"], rows["system"]
    assert item["n"] == len(PAPERS) * len(SYSTEMS) and system["n"] == len(SYSTEMS)
    assert item["kendall_tau"] > 0.95 and item["spearman"] > 0.99
    assert 0.8 < item["tau_low"] <= item["kendall_tau"] <= item["tau_high"] <= 1.0
    assert system["kendall_tau"] == pytest.approx(1.0) and system["spearman"] == pytest.approx(1.0)
    assert system["tau_low"] > 0.8


def test_independent_metric_interval_contains_zero():
    human = synthetic_human()
    rng = np.random.default_rng(3)
    metric = {item: rng.normal() for item in human}
    item = by_level(correlate(human, metric, n_resamples=300, seed=0))["item"]
    assert abs(item["kendall_tau"]) < 0.15
    assert item["tau_low"] < 0 < item["tau_high"] and item["spearman_low"] < 0 < item["spearman_high"]


def test_reversed_metric_is_minus_one_and_seeded():
    human = synthetic_human()
    metric = {item: -score for item, score in human.items()}
    rows = correlate(human, metric, n_resamples=100, seed=7)
    for row in rows:
        assert row["kendall_tau"] == pytest.approx(-1.0) and row["spearman"] == pytest.approx(-1.0)
        assert row["tau_high"] == pytest.approx(-1.0)
    assert rows == correlate(human, metric, n_resamples=100, seed=7)


def test_constant_metric_is_undefined():
    human = synthetic_human()
    rows = correlate(human, {item: 0.5 for item in human}, n_resamples=50)
    assert all(row["kendall_tau"] is None and row["tau_low"] is None and row["spearman"] is None for row in rows)


def test_only_shared_items_count():
    human = {("p1", "a"): 1.0, ("p2", "a"): 2.0, ("p1", "b"): 3.0, ("p2", "b"): 4.0, ("p3", "b"): 9.0}
    metric = {("p1", "a"): 0.1, ("p2", "a"): 0.2, ("p1", "b"): 0.3, ("p2", "b"): 0.4, ("p9", "c"): 0.0}
    rows = by_level(correlate(human, metric, n_resamples=20))
    assert rows["item"]["n"] == 4 and rows["item"]["kendall_tau"] == pytest.approx(1.0)
    assert rows["system"]["n"] == 2


def test_hand_worked_gamma_and_agreement():
    counts = pair_counts([1, 2, 3, 4], [1, 3, 2, 4])
    assert (counts.concordant, counts.discordant, counts.pairs) == (5, 1, 6)
    assert goodman_kruskal_gamma([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    assert pairwise_agreement([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(5 / 6)
    assert goodman_kruskal_gamma([1, 2, 3], [3, 2, 1]) == -1.0


def test_ties_are_left_out():
    # pairs: (0,1) tied in a; (1,2) tied in b; the other four concordant
    counts = pair_counts([1, 1, 2, 3], [1, 2, 2, 3])
    assert (counts.concordant, counts.discordant, counts.tied_a, counts.tied_b, counts.tied_both) == (4, 0, 1, 1, 0)
    assert counts.gamma == 1.0 and counts.agreement == 1.0 and counts.coverage == pytest.approx(4 / 6)
    both = pair_counts([1, 1], [2, 2])
    assert both.tied_both == 1 and both.gamma is None and both.agreement is None and both.coverage == 0.0
    assert pair_counts([], []).coverage is None
    with pytest.raises(ValueError, match="equally long"):
        pair_counts([1, 2], [1])


def brute_force(a, b):
    c = d = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        s = (a[i] - a[j]) * (b[i] - b[j])
        c, d = c + (s > 0), d + (s < 0)
    return c, d


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_counts_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(1, 6, 60).tolist(), rng.integers(1, 6, 60).tolist()  # many ties
    c, d = brute_force(a, b)
    for block in (7, 2048):  # a block smaller than n exercises the chunking
        counts = pair_counts(a, b, block=block)
        assert (counts.concordant, counts.discordant) == (c, d)
        assert counts.concordant + counts.discordant + counts.tied_a + counts.tied_b + counts.tied_both == 60 * 59 // 2
    assert goodman_kruskal_gamma(a, b) == pytest.approx((c - d) / (c + d))
    assert pairwise_agreement(a, b) == pytest.approx(c / (c + d))


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_read_ratings_averages_raters(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [
        {"paper_id": "p1", "system": "a", "criterion": "coherence", "score": 4, "rater": "r1"},
        {"paper_id": "p1", "system": "a", "criterion": "coherence", "score": 2, "rater": "r2"},
        "",
        {"paper_id": "p1", "system": "b", "criterion": "fluency", "score": 3.5}])
    assert read_ratings(path) == {"coherence": {("p1", "a"): 3.0}, "fluency": {("p1", "b"): 3.5}}


@pytest.mark.parametrize("line, message", [
    ('{"paper_id": "p", "system": "a", "criterion": "c"}', "r\\.jsonl:2: field 'score'"),
    ('{"paper_id": "p", "system": "a", "criterion": "c", "score": true}', "r\\.jsonl:2: field 'score'"),
    ('{"paper_id": "p", "system": "", "criterion": "c", "score": 1}', "r\\.jsonl:2: field 'system'"),
    ('{"paper_id": 3, "system": "a", "criterion": "c", "score": 1}', "r\\.jsonl:2: field 'paper_id'"),
    ('{"paper_id": "p", "system": "a", "criterion": "c", "score": 1, "rater": 5}', "r\\.jsonl:2: field 'rater'"),
    ('{"paper_id": "p", "system": "a", "criterion": ', "r\\.jsonl:2: not valid JSON"),
    ('[1, 2]', "r\\.jsonl:2: not a JSON object"),
])
def test_bad_ratings_name_line_and_field(tmp_path, line, message):
    good = '{"paper_id": "p", "system": "a", "criterion": "c", "score": 1}'
    path = write_jsonl(tmp_path / "r.jsonl", [good, line])
    with pytest.raises(ValueError, match=message):
        read_ratings(path)


def test_metric_scores_from_per_paper(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [{"paper_id": "p1", "system": "a", "recall": 0.5, "judge": None,
                                            "only_a": 1, "note": "x"},
                                           {"paper_id": "p2", "system": "a", "recall": 0.7, "judge": 0.2}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"paper_id": "p1", "system": "b", "recall": 0.1, "judge": 0.9}])
    per_paper = read_per_paper({"a": a, "b": b})
    assert [row.paper_id for row in per_paper["a"]] == ["p1", "p2"] and per_paper["b"][0].system == "b"
    assert all(isinstance(row, PaperRow) for rows in per_paper.values() for row in rows)
    scores = metric_scores(per_paper)
    assert scores == {"recall": {("p1", "a"): 0.5, ("p2", "a"): 0.7, ("p1", "b"): 0.1},
                      "judge": {("p2", "a"): 0.2, ("p1", "b"): 0.9}}
    assert list(scores) == ["recall", "judge"]
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"recall": 1}])
    with pytest.raises(ValueError, match=r"bad\.jsonl:1: field 'paper_id'"):
        read_per_paper({"x": bad})
    numbered = write_jsonl(tmp_path / "numbered.jsonl", [{"paper_id": 3, "recall": 1}])
    with pytest.raises(ValueError, match=r"numbered\.jsonl:1: field 'paper_id' missing or not a string"):
        read_per_paper({"x": numbered})


def test_metric_scores_of_typed_rows_keep_the_rows_key_order():
    """The default metrics come in the order the rows first name them, a row where a key holds text included;
    a non-finite value, or a key a system never scores, leaves the item (or the metric) out."""
    a = [PaperRow.from_json({"paper_id": "p1", "z": "n/a", "y": 0.1, "nan": float("nan")}),
         PaperRow.from_json({"paper_id": "p2", "y": 0.2, "z": 3, "nan": 0.5, "only_a": 1})]
    b = [PaperRow.from_json({"paper_id": "p1", "system": "b", "y": 0.3, "z": 4, "nan": 0.1})]
    scores = metric_scores({"a": a, "b": b})
    assert list(scores) == ["z", "y", "nan"]
    assert scores["z"] == {("p2", "a"): 3.0, ("p1", "b"): 4.0}
    assert scores["nan"] == {("p2", "a"): 0.5, ("p1", "b"): 0.1}
    assert metric_scores({"a": a}, ["y", "missing"]) == {"y": {("p1", "a"): 0.1, ("p2", "a"): 0.2}, "missing": {}}


def test_judge_agreement_per_criterion():
    a = {"c1": {("p", "s1"): 1, ("p", "s2"): 2, ("p", "s3"): 3, ("p", "s4"): 4, ("q", "s1"): 5}, "c2": {}}
    b = {"c1": {("p", "s1"): 1, ("p", "s2"): 3, ("p", "s3"): 2, ("p", "s4"): 4}}
    [row] = judge_agreement(a, b)
    assert row["criterion"] == "c1" and row["n_items"] == 4 and row["only_a"] == 1 and row["only_b"] == 0
    assert row["gamma"] == pytest.approx(4 / 6) and row["pairwise_agreement"] == pytest.approx(5 / 6)
    assert row["coverage"] == 1.0
    with pytest.raises(ValueError, match="share no criterion"):
        judge_agreement({"x": {}}, {"y": {}})


def test_cli_agreement_and_judges(tmp_path, capsys):
    human = synthetic_human()
    ratings = [{"paper_id": p, "system": s, "criterion": "quality", "score": round(v, 3)} for (p, s), v in human.items()]
    write_jsonl(tmp_path / "ratings.jsonl", ratings)
    specs = []
    for s in SYSTEMS:
        rows = [{"paper_id": p, "system": s, "good": human[p, s] * 2, "bad": -human[p, s]} for p in PAPERS]
        specs.append(f"{s}={write_jsonl(tmp_path / f'{s}.jsonl', rows)}")
    stem = tmp_path / "out" / "agreement"
    assert main(["meta-eval", "agreement", "--ratings", str(tmp_path / "ratings.jsonl"),
                 "--predictions-per-paper", *specs, "--bootstrap", "50", "--out", str(stem)]) == 0
    assert "kendall_tau" in capsys.readouterr().out
    rows = json.loads(stem.with_suffix(".json").read_text())
    tau = {(r["metric"], r["level"]): r["kendall_tau"] for r in rows}
    assert len(rows) == 4 and tau["good", "item"] > 0.99 and tau["bad", "system"] == pytest.approx(-1.0)
    assert stem.with_suffix(".csv").exists()

    other = [{**r, "score": r["score"] + (1 if r["system"] == "sys0" else 0)} for r in ratings]
    write_jsonl(tmp_path / "judge_b.jsonl", other)
    judges = tmp_path / "judges"
    assert main(["meta-eval", "judges", "--judge-a", str(tmp_path / "ratings.jsonl"), "--judge-b",
                 str(tmp_path / "judge_b.jsonl"), "--out", str(judges)]) == 0
    assert "gamma" in capsys.readouterr().out
    [row] = json.loads(judges.with_suffix(".json").read_text())
    assert row["criterion"] == "quality" and row["n_items"] == len(ratings) and 0.8 < row["gamma"] < 1.0

    assert main(["meta-eval", "agreement", "--ratings", str(tmp_path / "ratings.jsonl"),
                 "--predictions-per-paper", "nosign"]) == 2
    assert "SYSTEM=PATH" in capsys.readouterr().err


def test_metric_agreement_one_row_per_criterion_metric_level():
    human = synthetic_human()
    ratings = {"quality": human, "fluency": {item: -v for item, v in human.items()}}
    scores = {"m": dict(human)}
    rows = metric_agreement(ratings, scores, n_resamples=20)
    keys = [(r["criterion"], r["metric"], r["level"]) for r in rows]
    assert keys == [("quality", "m", "item"), ("quality", "m", "system"), ("fluency", "m", "item"),
                    ("fluency", "m", "system")]
    assert rows[0]["kendall_tau"] == pytest.approx(1.0) and rows[3]["spearman"] == pytest.approx(-1.0)


def test_per_paper_errors_count_blank_lines(tmp_path):
    """The line named is the file's line, blank lines counted, as every other reader names it."""
    from sciwrite.meta_eval.agreement import read_per_paper

    path = tmp_path / "per_paper.jsonl"
    path.write_text('{"paper_id": "p1", "m": 1}\n\n{"m": 2}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"per_paper\.jsonl:3: field 'paper_id' missing"):
        read_per_paper({"a": path})


#: Resamples for the exact cases (each costs a Kendall tau and a Spearman rho): the cases' CDFs stay at least 3.5
#: standard errors of an empirical CDF away from the levels, so another seed would settle the same quantiles too.
EXACT_RESAMPLES = 6000


def _tau_rho(x, y) -> tuple[float | None, float | None]:
    """scipy's Kendall tau-b and Spearman rho, rounded so equal values group; None when a side is constant."""
    if len(set(x)) < 2 or len(set(y)) < 2:
        return None, None
    return round(float(stats.kendalltau(x, y).statistic), 12), round(float(stats.spearmanr(x, y).statistic), 12)


def _exact(outcomes: list[tuple[float | None, float | None]]) -> tuple[dict, dict]:
    """Exact 90 % / 95 % intervals of tau and of rho over equally likely resamples (undefined ones left out)."""
    return tuple(level_intervals(distribution(o[k] for o in outcomes), EXACT_RESAMPLES, min_z=3.5) for k in (0, 1))


def _assert_row_interval(row, tau, rho):
    assert (row["tau_low"], row["tau_high"]) == pytest.approx(tau, abs=1e-9)
    assert (row["spearman_low"], row["spearman_high"]) == pytest.approx(rho, abs=1e-9)


def test_item_level_interval_is_the_exact_95_percent_one():
    """Five items, all 5^5 resamples enumerated (ties and constant resamples included: tau-b, rho, left out)."""
    h, m = [1, 2, 3, 4, 5], [4, 5, 3, 2, 1]
    tau, rho = _exact([_tau_rho([h[i] for i in r], [m[i] for i in r]) for r in resamples(len(h))])
    # One system: the system level is undefined, so only the item level draws resamples.
    human = {(f"p{i}", "s"): float(v) for i, v in enumerate(h)}
    metric = {(f"p{i}", "s"): float(v) for i, v in enumerate(m)}
    rows = by_level(correlate(human, metric, n_resamples=EXACT_RESAMPLES))
    _assert_row_interval(rows["item"], tau[0.95], rho[0.95])
    assert rows["system"]["tau_low"] is None


# Four papers x four systems, chosen so that no resample of the papers ties two systems (the implementation's float
# means then order the systems exactly as these integer sums do).
GRID_HUMAN = [[59, 80, 11, 12], [49, 8, 68, 4], [56, 47, 31, 14], [51, 82, 96, 23]]
GRID_METRIC = [[77, 44, 12, 27], [50, 19, 60, 94], [85, 7, 20, 73], [8, 25, 82, 10]]


@pytest.mark.slow
def test_system_level_interval_is_the_exact_95_percent_one():
    """All 4^4 resamples of the papers: each system's mean over the drawn papers (with repeats), then tau/rho."""
    outcomes = []
    for r in resamples(len(GRID_HUMAN)):
        drawn = Counter(r)
        hs = [sum(k * GRID_HUMAN[p][s] for p, k in drawn.items()) for s in range(4)]  # 4 x the system means
        ms = [sum(k * GRID_METRIC[p][s] for p, k in drawn.items()) for s in range(4)]
        assert len(set(hs)) == len(set(ms)) == 4
        outcomes.append(_tau_rho(hs, ms))
    tau, rho = _exact(outcomes)
    human = {(f"p{p}", f"s{s}"): float(GRID_HUMAN[p][s]) for p in range(4) for s in range(4)}
    metric = {(f"p{p}", f"s{s}"): float(GRID_METRIC[p][s]) for p in range(4) for s in range(4)}
    _assert_row_interval(by_level(correlate(human, metric, n_resamples=EXACT_RESAMPLES))["system"], tau[0.95],
                         rho[0.95])


def _tau_and_rho(x, y) -> np.ndarray:
    return np.array([stats.kendalltau(x, y).statistic, stats.spearmanr(x, y).statistic])


@pytest.mark.slow
def test_intervals_match_scipy_percentile_bootstrap():
    """Both levels against `scipy.stats.bootstrap(method="percentile")`: items resampled in pairs; papers
    resampled for the system level (a system's outputs on a paper move together). With B = 2,000 draws each, an
    interval end wanders about 0.06 bootstrap standard errors (SE): the two agree within 0.25 SE. (The exact
    cases above pin the level; this checks the resampling unit and pairing on realistic data.)"""
    rng = np.random.default_rng(9)
    n_papers, n_systems, n_resamples = 10, 40, 2000
    quality = rng.normal(0, 1, n_systems)
    h = quality[None, :] + rng.normal(0, 1, (n_papers, n_systems))
    m = h + rng.normal(0, 1.5, (n_papers, n_systems))
    human = {(f"p{p}", f"s{s}"): h[p, s] for p in range(n_papers) for s in range(n_systems)}
    metric = {(f"p{p}", f"s{s}"): m[p, s] for p in range(n_papers) for s in range(n_systems)}
    rows = by_level(correlate(human, metric, n_resamples=n_resamples, seed=3))

    def check(row, ref):
        low, high, se = ref.confidence_interval.low, ref.confidence_interval.high, ref.standard_error
        assert (row["tau_low"], row["tau_high"]) == pytest.approx((low[0], high[0]), abs=0.25 * se[0])
        assert (row["spearman_low"], row["spearman_high"]) == pytest.approx((low[1], high[1]), abs=0.25 * se[1])

    items = sorted(human)  # the implementation's item order; pairs stay together either way
    check(rows["item"], stats.bootstrap(([human[i] for i in items], [metric[i] for i in items]), _tau_and_rho,
                                        paired=True, vectorized=False, method="percentile", n_resamples=n_resamples,
                                        rng=np.random.default_rng(4)))
    check(rows["system"], stats.bootstrap((np.arange(n_papers),), lambda drawn: _tau_and_rho(h[drawn].mean(axis=0),
                                                                                             m[drawn].mean(axis=0)),
                                          vectorized=False, method="percentile", n_resamples=n_resamples,
                                          rng=np.random.default_rng(5)))
