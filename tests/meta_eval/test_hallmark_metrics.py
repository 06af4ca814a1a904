"""HALLMARK's evaluation (sciwrite.meta_eval.hallmark): the label metrics, tiers, types, calibration and ranking
metrics on an 11-entry fixture worked by hand, ECE's two binnings, AUROC against scikit-learn (ties included),
AUPRC's interpolation, the aggressive treatment, Wilson intervals, the diagnosis scores, the split and predictions
formats' errors and round trip, and the published rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import binomtest, norm
from sklearn.metrics import roc_auc_score

from sciwrite.meta_eval.hallmark import (
    HALLUCINATION_TYPES,
    HallmarkEntry,
    HallmarkPrediction,
    apply_treatment,
    auprc,
    auroc,
    coarse_type_accuracy,
    confusion,
    evaluate,
    expected_calibration_error,
    per_tier_metrics,
    per_type_metrics,
    read_predictions,
    read_published,
    read_split,
    tier_weighted_f1,
    type_accuracy,
    type_confusion,
    wilson_interval,
    write_predictions,
)

H, V, U = "HALLUCINATED", "VALID", "UNCERTAIN"


def entry(key: str, h_type: str | None = None, tier: int | None = None) -> HallmarkEntry:
    return HallmarkEntry(key=key, entry_type="inproceedings", fields={"title": key}, label=H if h_type else V,
                         hallucination_type=h_type, tier=tier)


def pred(key: str, label: str, conf: float, h_type: str | None = None) -> HallmarkPrediction:
    return HallmarkPrediction(bibtex_key=key, label=label, confidence=conf, predicted_hallucination_type=h_type)


# Seven hallucinated entries (tiers 1, 1, 2, 2, 3, 2, 3; h6 and h7 are stress-test types) and four valid ones.
ENTRIES = [entry("h1", "fabricated_doi", 1), entry("h2", "future_date", 1), entry("h3", "wrong_venue", 2),
           entry("h4", "swapped_authors", 2), entry("h5", "near_miss_title", 3), entry("h6", "merged_citation", 2),
           entry("h7", "arxiv_version_mismatch", 3), entry("v1"), entry("v2"), entry("v3"), entry("v4")]
PREDS = [
    pred("h1", H, 0.9, "fabricated_doi"),          # tp, right type
    pred("h2", H, 0.8, "fabricated_doi"),          # tp, wrong type
    pred("h3", H, 0.7),                            # tp, no type
    pred("h4", U, 0.5),                            # UNCERTAIN: left out
    pred("h5", V, 0.6),                            # fn
    # h6: no prediction -> VALID -> fn
    pred("h7", H, 0.95, "arxiv_version_mismatch"),  # tp, right type
    pred("v1", V, 0.9),                            # tn
    pred("v2", H, 0.6, "wrong_venue"),             # fp
    pred("v3", V, 0.8),                            # tn
    pred("v4", U, 0.4),                            # UNCERTAIN: left out
    pred("ghost", V, 0.5),                         # a key not in the split: not coverage
]


def test_headline_metrics_worked_by_hand() -> None:
    # tp = h1 h2 h3 h7 = 4, fn = h5 h6 = 2, fp = v2 = 1, tn = v1 v3 = 2 (h4, v4 UNCERTAIN left out)
    cm = confusion(ENTRIES, PREDS)
    assert (cm.tp, cm.fn, cm.fp, cm.tn) == (4, 2, 1, 2)
    r = evaluate(ENTRIES, PREDS, tool_name="fixture", split="dev")
    assert r.detection_rate == pytest.approx(4 / 6)
    assert r.false_positive_rate == pytest.approx(1 / 3)
    # precision 4/5, recall 2/3: F1 = (16/15) / (22/15) = 8/11
    assert r.f1_hallucination == pytest.approx(8 / 11)
    # MCC = (4*2 - 1*2) / sqrt(5*6*3*4) = 6 / sqrt(360) = 1/sqrt(10)
    assert r.mcc == pytest.approx(1 / math.sqrt(10))
    # VALID class: precision 2/4, recall 2/3 -> F1 4/7; macro = (8/11 + 4/7) / 2 = 50/77
    assert r.macro_f1 == pytest.approx(50 / 77)
    # weighted tp = 1 + 1 + 2 + 3 = 7, fn = 3 (h5) + 2 (h6) = 5, fp = 1: P 7/8, R 7/12 -> F1 = 7/10
    assert r.tier_weighted_f1 == pytest.approx(7 / 10)
    assert tier_weighted_f1(ENTRIES, PREDS) == pytest.approx(7 / 10)
    # uniform weights give back the plain F1
    assert tier_weighted_f1(ENTRIES, PREDS, {1: 1, 2: 1, 3: 1}) == pytest.approx(8 / 11)
    assert (r.num_entries, r.num_hallucinated, r.num_valid, r.num_uncertain) == (11, 7, 4, 2)
    assert r.coverage == pytest.approx(10 / 11)  # h6 missing; "ghost" does not count
    assert r.coverage_adjusted_f1 == pytest.approx(8 / 11 * 10 / 11)


def test_per_tier_uses_all_valid_entries() -> None:
    # every tier is scored with v1..v4: fp = 1 (v2), tn = 2, v4 UNCERTAIN -> FPR 1/3
    tiers = per_tier_metrics(ENTRIES, PREDS)
    assert list(tiers) == [1, 2, 3]
    t1, t2, t3 = tiers[1], tiers[2], tiers[3]
    # tier 1: h1, h2 tp -> DR 1, precision 2/3, F1 = 2 * (2/3) / (5/3) = 0.8
    assert (t1.detection_rate, t1.precision, t1.f1, t1.count) == pytest.approx((1.0, 2 / 3, 0.8, 2))
    # tier 2: h3 tp, h4 UNCERTAIN, h6 fn -> DR 1/2, precision 1/2, F1 1/2; count = 3 hallucinated
    assert (t2.detection_rate, t2.precision, t2.f1, t2.count) == pytest.approx((0.5, 0.5, 0.5, 3))
    # tier 3: h7 tp, h5 fn
    assert (t3.detection_rate, t3.precision, t3.f1, t3.count) == pytest.approx((0.5, 0.5, 0.5, 2))
    assert all(t.false_positive_rate == pytest.approx(1 / 3) and t.num_valid == 4 for t in tiers.values())
    assert t1.as_dict()["num_hallucinated"] == 2 and t1.as_dict()["count"] == 2


def test_per_type_with_wilson_interval() -> None:
    types = per_type_metrics(ENTRIES, PREDS, compute_ci=True)
    assert list(types) == sorted(types)
    for detected in ("fabricated_doi", "future_date", "wrong_venue", "arxiv_version_mismatch"):
        m = types[detected]
        assert (m.detection_rate, m.false_positive_rate, m.f1, m.count) == (1.0, 0.0, 1.0, 1)
        # one hit of one: centre (1 + z^2/2) / (1 + z^2), half (z^2/2) / (1 + z^2) -> [1 / (1 + 1.96^2), 1]
        assert m.dr_ci_lower == pytest.approx(1 / 4.8416) and m.dr_ci_upper == pytest.approx(1.0)
    for missed in ("near_miss_title", "merged_citation"):
        assert (types[missed].detection_rate, types[missed].f1, types[missed].count) == (0.0, 0.0, 1)
    # h4 is UNCERTAIN: nothing decided, so rates 0 and an empty interval
    assert types["swapped_authors"].detection_rate == 0.0
    assert (types["swapped_authors"].dr_ci_lower, types["swapped_authors"].dr_ci_upper) == (0.0, 0.0)
    valid = types["valid"]
    assert (valid.detection_rate, valid.false_positive_rate, valid.f1, valid.count) == pytest.approx((0, 1 / 3, 0, 4))
    assert "dr_ci_lower" not in per_type_metrics(ENTRIES, PREDS)["valid"].as_dict()


def test_wilson_interval_matches_scipy_and_hand_value() -> None:
    z = float(norm.ppf(0.975))
    for k, n in ((3, 5), (0, 7), (12, 40), (40, 40)):
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(k / n, n, z) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert wilson_interval(0.5, 0) == (0.0, 0.0)


def test_ece_adaptive_and_fixed_bins_by_hand() -> None:
    entries = [entry(f"e{i}") for i in range(1, 8)]
    preds = [pred("e1", H, 0.5),   # wrong
             pred("e2", V, 0.6),   # right
             pred("e3", H, 0.7),   # wrong
             pred("e4", V, 0.9),   # right
             pred("e5", V, 0.95),  # right
             pred("e6", U, 0.99)]  # UNCERTAIN skipped; e7 missing skipped
    # adaptive, 2 bins, 5 pairs: sizes 3 and 2 (the first bin takes the remainder)
    # bin 1 {.5 F, .6 T, .7 F}: |1/3 - .6| * 3/5 = 0.16; bin 2 {.9 T, .95 T}: |1 - .925| * 2/5 = 0.03
    assert expected_calibration_error(entries, preds, n_bins=2) == pytest.approx(0.19)
    # fixed, 2 bins: all five in [0.5, 1]: |3/5 - 3.65/5| = 0.13
    assert expected_calibration_error(entries, preds, n_bins=2, adaptive=False) == pytest.approx(0.13)
    # fixed, 10 bins: bins 5, 6, 7 hold one each (.5, .4, .7 off) and bin 9 holds .9, .95 (|1 - .925| * 2/5)
    assert expected_calibration_error(entries, preds, adaptive=False) == pytest.approx(1.6 / 5 + 0.03)
    assert expected_calibration_error(entries, [pred("e1", U, 0.9)]) == 0.0
    assert expected_calibration_error(entries, []) == 0.0


def ranking_case() -> tuple[list[HallmarkEntry], list[HallmarkPrediction], list[int], list[float]]:
    """30 entries with scores on a coarse grid (many ties), a few UNCERTAIN and missing ones left out."""
    entries, preds, y_true, y_score = [], [], [], []
    grid = [0.5, 0.6, 0.7, 0.8, 0.9]
    for i in range(30):
        hallucinated = i % 3 != 0
        e = entry(f"k{i}", "fabricated_doi" if hallucinated else None, 1 if hallucinated else None)
        entries.append(e)
        if i % 11 == 5:
            continue  # missing
        conf = grid[(i * 7) % 5]
        label = H if (i * 5) % 4 else V
        if i % 13 == 4:
            preds.append(pred(e.key, U, conf))
            continue
        preds.append(pred(e.key, label, conf))
        y_true.append(int(hallucinated))
        y_score.append(conf if label == H else 1 - conf)
    return entries, preds, y_true, y_score


def test_auroc_equals_sklearn_with_ties() -> None:
    entries, preds, y_true, y_score = ranking_case()
    assert len(set(y_score)) < len(y_score)  # ties present
    assert auroc(entries, preds) == pytest.approx(roc_auc_score(y_true, y_score), abs=1e-12)
    only_valid = [e for e in entries if not e.hallucinated]
    assert auroc(only_valid, preds) is None
    assert auprc(only_valid, preds) is None


def test_auprc_interpolated_by_hand() -> None:
    entries = [entry("p1", "fabricated_doi", 1), entry("n1"), entry("p2", "fabricated_doi", 1),
               entry("p3", "fabricated_doi", 1), entry("n2")]
    preds = [pred("p1", H, 0.9),  # score .9, positive
             pred("n1", H, 0.8),  # score .8, negative
             pred("p2", V, 0.2),  # score 1 - .2 = .8, positive (tied with n1)
             pred("p3", H, 0.6),  # score .6, positive
             pred("n2", V, 0.7)]  # score .3, negative
    # points (recall, precision): (1/3, 1), (2/3, 2/3), (1, 3/4), (1, 3/5); envelope 1, 3/4, 3/4, 3/5
    # area = 1 * 1/3 + 3/4 * 1/3 + 3/4 * 1/3 + 3/5 * 0 = 5/6
    assert auprc(entries, preds) == pytest.approx(5 / 6)


def test_aggressive_turns_uncertain_into_hallucinated() -> None:
    treated = apply_treatment(PREDS, "aggressive")
    assert [(p.bibtex_key, p.label, p.confidence) for p in treated if p.bibtex_key in ("h4", "v4")] == \
        [("h4", H, 0.55), ("v4", H, 0.55)]
    assert apply_treatment(PREDS, "conservative") == PREDS
    cons = evaluate(ENTRIES, PREDS, treatment="conservative")
    aggr = evaluate(ENTRIES, PREDS, treatment="aggressive")
    # h4 becomes tp, v4 fp: tp 5, fn 2, fp 2, tn 2
    assert (aggr.detection_rate, aggr.false_positive_rate, aggr.f1_hallucination) == \
        pytest.approx((5 / 7, 1 / 2, 5 / 7))
    # weighted tp 7 + 2 = 9, fn 5, fp 2: P 9/11, R 9/14 -> F1 = 162/225
    assert aggr.tier_weighted_f1 == pytest.approx(162 / 225)
    assert (cons.num_uncertain, aggr.num_uncertain) == (2, 0)
    assert aggr.type_confusion["swapped_authors"]["HALLUCINATED_unknown"] == 1
    assert cons.type_confusion["swapped_authors"]["UNCERTAIN"] == 1
    assert aggr.as_dict()["_provenance"] == {"eval_mode": "aggressive"}
    with pytest.raises(ValueError, match="unknown treatment 'bold'"):
        apply_treatment(PREDS, "bold")


def test_type_accuracy_and_confusion() -> None:
    acc = type_accuracy(ENTRIES, PREDS)
    # scored: h1 (right, tier 1, main), h2 (wrong, tier 1, main), h7 (right, tier 3, stress); h3 has no type
    assert (acc.overall.evaluated, acc.overall.correct) == (3, 2)
    assert acc.main_types_only.accuracy == pytest.approx(0.5)
    assert acc.stress_test_only.accuracy == 1.0
    assert (acc.per_tier[1].accuracy, acc.per_tier[2].accuracy, acc.per_tier[3].accuracy) == (0.5, None, 1.0)
    flat = acc.as_dict()
    assert flat["num_evaluated"] == 3.0 and flat["num_correct"] == 2.0 and math.isnan(flat["tier_2"])
    table = type_confusion(ENTRIES, PREDS)
    assert list(table) == [*HALLUCINATION_TYPES, "valid"]
    assert list(table["valid"])[-3:] == ["VALID", "UNCERTAIN", "HALLUCINATED_unknown"]
    nonzero = {row: {c: n for c, n in cols.items() if n} for row, cols in table.items()}
    assert {row: cols for row, cols in nonzero.items() if cols} == {
        "fabricated_doi": {"fabricated_doi": 1}, "future_date": {"fabricated_doi": 1},
        "wrong_venue": {"HALLUCINATED_unknown": 1}, "swapped_authors": {"UNCERTAIN": 1},
        "near_miss_title": {"VALID": 1}, "merged_citation": {"VALID": 1},
        "arxiv_version_mismatch": {"arxiv_version_mismatch": 1},
        "valid": {"VALID": 2, "wrong_venue": 1, "UNCERTAIN": 1}}


def test_coarse_type_accuracy_with_a_callers_mapping() -> None:
    expected = {"fabricated_doi": "identifier", "future_date": "date", "wrong_venue": {"venue", "metadata"}}
    classes = {"fabricated_doi": "identifier", "arxiv_version_mismatch": "version"}

    def coarse(p: HallmarkPrediction) -> str | None:
        return classes.get(p.predicted_hallucination_type or "", "metadata")

    result = coarse_type_accuracy(ENTRIES, PREDS, expected, coarse)
    # h1 identifier (right), h2 identifier for a future_date (wrong), h3 metadata in {venue, metadata} (right);
    # h7's type is not in the mapping: unmapped
    assert (result.overall.evaluated, result.overall.correct, result.unmapped) == (3, 2, 1)
    assert result.per_type["future_date"].accuracy == 0.0
    assert result.confusion["future_date"] == {"identifier": 1}
    # every prediction, not only detections: h5 (VALID) is scored too
    wide = coarse_type_accuracy(ENTRIES, PREDS, {**expected, "near_miss_title": "title"}, coarse, detected_only=False)
    assert wide.per_type["near_miss_title"].evaluated == 1


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def row(key: str, label: str = V, **extra: object) -> str:
    return json.dumps({"bibtex_key": key, "bibtex_type": "article", "fields": {"title": "T"}, "label": label,
                       **extra})


def test_read_split_reads_entries_and_drops_canaries(tmp_path: Path) -> None:
    write_lines(tmp_path / "dev.jsonl", [
        row("a"), "",
        row("b", H, hallucination_type="near_miss_title", difficulty_tier=3, generation_method="perturbation"),
        row("__canary__x")])
    entries = read_split(tmp_path, "dev")
    assert [e.key for e in entries] == ["a", "b"]
    assert (entries[1].tier, entries[1].hallucination_type, entries[1].generation_method) == \
        (3, "near_miss_title", "perturbation")
    assert entries[0].fields["title"] == "T" and entries[0].tier is None


@pytest.mark.parametrize(("line", "words"), [
    ("{not json", ["not valid JSON"]),
    (json.dumps({"label": V, "fields": {}}), ["bibtex_key"]),
    (json.dumps({"bibtex_key": "k", "fields": {}}), ["'k'", "label", "missing"]),
    (json.dumps({"bibtex_key": "k", "label": V}), ["'k'", "fields"]),
    (row("k", "MAYBE"), ["'k'", "label", "MAYBE"]),
    (row("k", H), ["'k'", "hallucination_type"]),
    (row("k", H, hallucination_type="typo"), ["'k'", "hallucination_type", "typo"]),
    (row("k", H, hallucination_type="future_date", difficulty_tier=7), ["'k'", "difficulty_tier"]),
])
def test_read_split_errors_name_the_line_record_and_field(tmp_path: Path, line: str, words: list[str]) -> None:
    path = write_lines(tmp_path / "dev.jsonl", [row("ok"), line])
    with pytest.raises(ValueError) as err:
        read_split(tmp_path, "dev")
    message = str(err.value)
    assert f"{path}:2" in message and "\n" not in message
    assert all(w in message for w in words), message


def test_read_split_unknown_split_and_duplicates(tmp_path: Path) -> None:
    write_lines(tmp_path / "dev.jsonl", [row("a"), row("b"), row("a")])
    write_lines(tmp_path / "test.jsonl", [row("a")])
    with pytest.raises(ValueError, match=r"unknown HALLMARK split 'nope'.*dev, test"):
        read_split(tmp_path, "nope")
    with pytest.raises(ValueError, match=r"dev.jsonl:3: record 'a'.*duplicate of .*dev.jsonl:1"):
        read_split(tmp_path, "dev")


def test_predictions_round_trip(tmp_path: Path) -> None:
    full = HallmarkPrediction(bibtex_key="k1", label=H, confidence=0.75, reason="DOI does not resolve",
                              subtest_results={"doi_resolves": False, "title_exists": None},
                              api_sources_queried=("crossref", "openalex"), wall_clock_seconds=1.5, api_calls=2,
                              predicted_hallucination_type="fabricated_doi")
    preds = [full, pred("k2", U, 0.5), pred("k3", V, 1.0)]
    path = tmp_path / "preds.jsonl"
    write_predictions(path, preds)
    assert read_predictions(path) == preds
    first = json.loads(path.read_text().splitlines()[0])
    assert first == full.as_dict()
    assert set(first) == {"bibtex_key", "label", "confidence", "reason", "subtest_results", "api_sources_queried",
                          "wall_clock_seconds", "api_calls", "predicted_hallucination_type"}
    assert first["api_sources_queried"] == ["crossref", "openalex"]


@pytest.mark.parametrize(("record", "words"), [
    ({"bibtex_key": "k", "label": "MAYBE", "confidence": 0.5}, ["'k'", "label"]),
    ({"bibtex_key": "k", "label": H, "confidence": 1.5}, ["'k'", "confidence"]),
    ({"bibtex_key": "k", "label": H}, ["'k'", "confidence"]),
    ({"bibtex_key": "k", "label": H, "confidence": 0.5, "predicted_hallucination_type": "odd"},
     ["'k'", "predicted_hallucination_type"]),
    ({"bibtex_key": "k1", "label": H, "confidence": 0.5}, ["'k1'", "duplicate", ":1"]),
])
def test_read_predictions_errors(tmp_path: Path, record: dict[str, object], words: list[str]) -> None:
    path = write_lines(tmp_path / "p.jsonl", [json.dumps({"bibtex_key": "k1", "label": V, "confidence": 0.5}),
                                              json.dumps(record)])
    with pytest.raises(ValueError) as err:
        read_predictions(path)
    assert f"{path}:2" in str(err.value) and all(w in str(err.value) for w in words), str(err.value)


def published(folder: Path, stem: str, **over: object) -> None:
    data: dict[str, object] = {"tool_name": stem, "split_name": "dev", "num_entries": 11, "detection_rate": 0.5,
                               "false_positive_rate": 0.1, "f1_hallucination": 0.6, "tier_weighted_f1": 0.7,
                               "ece": 0.2, "per_type_metrics": {"fabricated_doi": {"detection_rate": 1.0}}}
    data.update(over)
    (folder / f"{stem}_dev.json").write_text(json.dumps({k: v for k, v in data.items() if v is not None}))


def test_read_published_rows(tmp_path: Path) -> None:
    folder = tmp_path / "baseline_results"
    folder.mkdir()
    published(folder, "doi_only", auroc=0.6, num_uncertain=0)
    published(folder, "cascade_aggressive", _provenance={"kind": "cascade", "endpoint_stage2": "some-llm"})
    published(folder, "llm_openrouter_claude_opus_4_7", _provenance={"eval_mode": "aggressive"})
    (folder / "doi_only_test.json").write_text("{}")  # another split: not read
    rows = read_published(tmp_path, "dev")
    assert [r.name for r in rows] == ["cascade_aggressive", "doi_only", "llm_openrouter_claude_opus_4_7"]
    assert [r.treatment for r in rows] == ["aggressive", "conservative", "aggressive"]
    doi = rows[1]
    assert (doi.f1_hallucination, doi.auroc, doi.num_uncertain, doi.auprc) == (0.6, 0.6, 0, None)
    assert doi.per_type_detection == {"fabricated_doi": 1.0}
    assert all(r.open_world and r.how and r.description for r in rows)
    assert "some-llm" in rows[0].how
    assert "claude opus 4.7" in rows[2].description
    assert read_published(folder, "dev") == rows  # the results folder itself works too


def test_read_published_reads_evaluate_output(tmp_path: Path) -> None:
    result = evaluate(ENTRIES, PREDS, tool_name="sciwrite", split="dev", treatment="aggressive")
    (tmp_path / "sciwrite_aggressive_dev.json").write_text(json.dumps(result.as_dict()))
    (only,) = read_published(tmp_path, "dev")
    assert (only.tool_name, only.treatment, only.f1_hallucination) == ("sciwrite", "aggressive", pytest.approx(5 / 7))


def test_read_published_errors_name_file_and_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no published HALLMARK results for split 'dev'"):
        read_published(tmp_path, "dev")
    published(tmp_path, "broken", tier_weighted_f1=None)
    with pytest.raises(ValueError, match=r"broken_dev\.json: missing headline key 'tier_weighted_f1'"):
        read_published(tmp_path, "dev")
    (tmp_path / "broken_dev.json").write_text("{oops")
    with pytest.raises(ValueError, match=r"broken_dev\.json: not a JSON file"):
        read_published(tmp_path, "dev")
    published(tmp_path, "broken", ece="high")
    with pytest.raises(ValueError, match=r"broken_dev\.json: key 'ece' is 'high', not a number"):
        read_published(tmp_path, "dev")
