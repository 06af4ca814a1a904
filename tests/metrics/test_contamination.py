"""The memorisation signal (`sciwrite.metrics.memorisation`) and the before/after-cutoff split
(`sciwrite.metrics.cutoff`), alone and through `sciwrite evaluate`."""

from __future__ import annotations

import json
from datetime import date

import pytest

from sciwrite.cli import main
from sciwrite.core.datasets import remove_stale_parquet, write_split
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Summary
from sciwrite.grounding.scoring import GROUNDING_KEYS
from sciwrite.metrics.cutoff import across_systems, cutoff_comparison, side
from sciwrite.metrics.memorisation import memorisation, summarize_memorisation, words
from sciwrite.rwgbench.data.build_commands import human_gt_records
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.stats import two_sample_comparison


def test_words_drop_markers_and_case():
    assert words("Dense retrieval [1, 2] beats BM25 [3].") == ["dense", "retrieval", "beats", "bm25"]


def test_memorisation_counts_reference_ngrams_that_no_input_holds():
    prediction = "a b c d e f g h i j"  # three 8-grams: a..h, b..i, c..j
    reference = "x a b c d e f g h i j y"
    # b..i is in an input, so only a..h and c..j are recalled: 2 of 3; they cover all 10 words
    assert memorisation(prediction, reference, ["b c d e f g h i"]) == {"memorisation": 2 / 3,
                                                                       "memorised_span_words": 10}
    # nothing of the reference: 0; in the reference but also in the inputs: 0
    assert memorisation(prediction, "q r s t u v w x y z", []) == {"memorisation": 0.0, "memorised_span_words": 0}
    assert memorisation(prediction, reference, [reference])["memorisation"] == 0.0
    # two separate recalled stretches (25 words, 18 8-grams; a..h, k..r and l..s recalled): the longest is reported
    pred = "a b c d e f g h zz yy xx ww vv uu tt ss k l m n o p q r s"
    ref = "a b c d e f g h and then k l m n o p q r s"
    assert memorisation(pred, ref, []) == {"memorisation": 3 / 18, "memorised_span_words": 9}
    assert memorisation("too short", reference, [])["memorisation"] is None


def test_summary_ranks_the_most_recalled_papers():
    rows = typed_rows([{"paper_id": "p1", "memorisation": 0.9, "memorised_span_words": 40},
                       {"paper_id": "p2", "memorisation": 0.1, "memorised_span_words": 8},
                       {"paper_id": "p3", "memorisation": None, "memorised_span_words": 0}])
    summary = summarize_memorisation(rows, n_resamples=200)
    assert summary.n_papers == 2 and summary.mean == pytest.approx(0.5)
    assert summary.max_span_words == 40 and summary.papers_at_least_half == 1
    assert [t["paper_id"] for t in summary.top] == ["p1", "p2"]
    assert summary.top[0]["memorisation"] == 0.9 and summary.top[1]["memorised_span_words"] == 8
    assert summary.interval is not None and summary.interval.low is not None and summary.interval.high is not None
    assert 0.1 <= summary.interval.low <= summary.interval.high <= 0.9
    assert summarize_memorisation(rows[2:], n_resamples=200).n_papers == 0  # no paper long enough: no signal


def test_papers_fall_on_a_side_by_date_else_by_year():
    cutoff = date(2026, 6, 1)
    assert side({"published": "2026-06-01"}, cutoff) == "before"
    assert side({"published": "2026-06-02"}, cutoff) == "after"
    assert side({"year": 2025}, cutoff) == "before" and side({"year": 2027}, cutoff) == "after"
    assert side({"year": 2026}, cutoff) == "undetermined" and side({}, cutoff) == "undetermined"


def test_two_sample_comparison_is_exact_for_small_groups():
    # 6 vs 6 papers: C(12, 6) = 924 labellings <= 1000 resamples, so scipy enumerates them all; the two perfectly
    # separated labellings (this one and its mirror) are the only ones as extreme: p = 2 / 924
    before, after = [0.60, 0.62, 0.64, 0.66, 0.68, 0.70], [0.30, 0.32, 0.34, 0.36, 0.38, 0.40]
    result = two_sample_comparison(before, after, n_resamples=1000)
    assert result["difference"] == pytest.approx(0.35 - 0.65)
    assert result["p_value"] == pytest.approx(2 / 924)
    assert result["ci_low"] <= -0.3 <= result["ci_high"] < 0
    same = two_sample_comparison([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])
    assert same["difference"] == 0.0 and same["p_value"] == pytest.approx(1.0)
    assert two_sample_comparison([0.5], [0.1, 0.2])["p_value"] is None


def test_cutoff_comparison_splits_rows_by_their_papers():
    papers = [{"paper_id": f"p{i}", "published": f"2026-0{m}-15"} for i, m in enumerate([1, 2, 3, 7, 8, 9])]
    papers.append({"paper_id": "old", "year": 2026})
    rows = typed_rows({"precision": v} for v in (0.8, 0.7, 0.9, 0.2, 0.3, 0.1, 0.5))
    split = cutoff_comparison(rows, papers, ["precision", "recall"], date(2026, 6, 1), n_resamples=500)
    assert (split.n_before, split.n_after, split.undetermined) == (3, 3, ("old",))
    assert list(split.metrics) == ["precision"]  # no row holds a recall: left out
    row = split.metrics["precision"]
    assert (row["mean_a"], row["mean_b"]) == (pytest.approx(0.8), pytest.approx(0.2))
    assert row["p_holm"] == row["p_value"]  # one metric: Holm changes nothing


def test_across_systems_pairs_each_systems_means():
    def summary(name, before, after):
        return Summary.from_json({"system": name, "cutoff": {"metrics": {"precision": {"mean_a": before,
                                                                                      "mean_b": after}}}})

    rows = across_systems([summary("a", 0.8, 0.5), summary("b", 0.6, 0.4), summary("c", 0.7, 0.6)], {"precision": "P"})
    [row] = rows
    assert (row["metric"], row["systems"]) == ("P", 3)
    assert row["mean_difference"] == pytest.approx(-0.2)
    # 3 systems: 2^3 = 8 sign flips, enumerated; all differences negative, so only the all-flipped labelling is as
    # extreme on the other side: p = 2 / 8
    assert row["p_value"] == pytest.approx(0.25)
    assert across_systems([summary("a", 0.8, 0.5)], {}) == []


def test_evaluate_reports_memorisation_and_the_cutoff_split(mini_sample_copy, tmp_path, capsys):
    papers = load_rwgbench("sample", source=mini_sample_copy)
    dated = papers.map(lambda p, i: {"year": 2019 + 2 * i}, with_indices=True)  # 2019, 2021, 2023
    remove_stale_parquet(mini_sample_copy, "sample")
    write_split(mini_sample_copy, "sample", "test", dated)
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps(r) + "\n" for r in human_gt_records(papers, "sample")))
    intro = tmp_path / "intro.jsonl"  # the target's own introduction: all of it is an input
    intro.write_text("".join(json.dumps({**r, "text": p["introduction"] + " [1]"}) + "\n"
                             for r, p in zip(human_gt_records(papers, "sample"), papers)))
    cutoff = "2020-12-31"
    out = tmp_path / "eval"
    assert main(["evaluate", "rwgbench", "--predictions", str(human), str(intro), "--source", str(mini_sample_copy),
                 "--profile", "lite", "--metrics", "precision", "recall", "--bootstrap", "200", "--cutoff", cutoff,
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "human" / "summary.json").read_text())
    # the reference sections, scored as predictions, recite the reference: near 1 (what the inputs share is not)
    assert summary["memorisation"]["mean"] > 0.8 and summary["memorisation"]["n_papers"] == len(papers)
    rows = [json.loads(line) for line in (out / "human" / "per_paper.jsonl").read_text().splitlines()]
    assert all(r["memorised_span_words"] >= 8 for r in rows)
    split = summary["cutoff"]
    assert split["cutoff"] == cutoff
    assert (split["n_before"], split["n_after"], split["undetermined"]) == (1, len(papers) - 1, [])
    # the metrics computed, of Table 2 and of the Grounding table (the candidates are the references here)
    assert set(split["metrics"]) == {"precision", "recall", "memorisation", *GROUNDING_KEYS}
    assert "human: memorisation (8-grams of the prediction in the reference but in no input): mean" in printed
    assert f"papers before and after the cutoff {cutoff}" in printed
    table = json.loads((out / "cutoff.json").read_text())
    assert {r["metric"] for r in table} >= {"P", "R", "memorisation"} and {r["system"] for r in table} == {
        "human", "intro"}
    assert json.loads((out / "intro" / "summary.json").read_text())["memorisation"]["mean"] == 0.0
    assert "across the 2 systems (each system's means before and after are a pair" in printed
    assert (out / "cutoff_across_systems.csv").exists()


def test_sciig_reference_introductions_recite_and_an_extractive_copy_does_not(sciig_mini_folder, tmp_path):
    from sciwrite.sciig.data.loading import load_sciig

    test = load_sciig("sample", source=sciig_mini_folder, split="test").to_list()
    recite = tmp_path / "recite.jsonl"
    recite.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": p["introduction"]}) + "\n" for p in test))
    copy = tmp_path / "copy.jsonl"  # the abstract repeated: all of it is in an input
    copy.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": p["abstract"] * 2}) + "\n" for p in test))
    out = tmp_path / "out"
    assert main(["evaluate", "sciig", "--predictions", str(recite), str(copy), "--source", str(sciig_mini_folder),
                 "--metrics", "rouge", "--profile", "lite", "--bootstrap", "0", "--out", str(out)]) == 0
    recited = json.loads((out / "recite" / "summary.json").read_text())["memorisation"]
    copied = json.loads((out / "copy" / "summary.json").read_text())["memorisation"]
    assert recited["mean"] > 0.9 and copied["mean"] == 0.0
