"""Agreement among annotators (`sciwrite.stats_agreement`) against the reference libraries (`krippendorff`,
`sklearn.metrics.cohen_kappa_score`) and hand-worked values, and `sciwrite human-eval analyze`'s agreement report
with two and three people and one ``llm:`` annotator, down to `paper-table ...-table5`."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

krippendorff = pytest.importorskip("krippendorff", reason="Krippendorff's alpha needs the krippendorff package")
sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="Cohen's kappa needs scikit-learn")

from sciwrite.cli import main  # noqa: E402
from sciwrite.human_eval.answers import LLM_ANNOTATOR_PREFIX, is_model_annotator, split_answers  # noqa: E402
from sciwrite.human_eval.tasks import draw_tasks, write_tasks  # noqa: E402
from sciwrite.rwgbench.human_eval import RWGBENCH_STUDY  # noqa: E402
from sciwrite.sciig.human_eval import SCIIG_STUDY  # noqa: E402
from sciwrite.stats_agreement import (  # noqa: E402
    agreement_with_majority,
    alpha,
    alpha_interval,
    cohen_kappa,
    leave_one_out,
    majority,
    pairwise_agreement,
    reliability_matrix,
)

NAN = math.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units, values 1-5,
# missing answers. By hand, nominal: unit 12 has one value and drops out; the coincidences o_ck (each unit adds
# n_c * (n_k - [c == k]) / (m_u - 1)) give the diagonal o11 = 3+2+2 = 7, o22 = 2+4+4 = 10, o33 = 4+4 = 8,
# o44 = 4, o55 = 3 (32 in all) and off the diagonal 8 (units 2, 6 and 8), so n = 40 pairable values with
# n_c = (9, 13, 10, 5, 3). alpha = 1 - (n - 1) * sum_{c!=k} o_ck / sum_{c!=k} n_c n_k
#       = 1 - 39 * 8 / (40**2 - (81 + 169 + 100 + 25 + 9)) = 1 - 312 / 1216 = 904 / 1216 = 0.7434...
KRIPPENDORFF_2011 = [[1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
                     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
                     [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
                     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN]]


def random_matrix(rng, annotators, items, domain, missing):
    """A matrix of codes drawn from `domain`, a share `missing` of it NaN."""
    matrix = rng.choice(np.asarray(domain, dtype=float), size=(annotators, items))
    matrix[rng.random(matrix.shape) < missing] = np.nan
    return matrix


# -- Krippendorff's alpha ------------------------------------------------------------------------------------------

def test_alpha_by_hand_on_krippendorffs_own_example():
    assert alpha(np.array(KRIPPENDORFF_2011), "nominal") == pytest.approx(904 / 1216)
    # the same paper's ordinal figure, 0.815, with and without the scale given
    assert alpha(np.array(KRIPPENDORFF_2011), "ordinal", [1, 2, 3, 4, 5]) == pytest.approx(0.815, abs=5e-4)


def test_alpha_by_hand_on_two_coders():
    # units (1,1) (1,2) (2,2) (2,2) (3,3): o11 = 2, o12 = o21 = 1, o22 = 4, o33 = 2; n_c = (3, 5, 2), n = 10;
    # alpha = 1 - 9 * 2 / (100 - (9 + 25 + 4)) = 1 - 18 / 62 = 44 / 62
    assert alpha(np.array([[1, 1, 2, 2, 3], [1, 2, 2, 2, 3]], dtype=float), "nominal", [1, 2, 3]) == pytest.approx(
        44 / 62)


@pytest.mark.parametrize("level,domain", [("nominal", [0, 1, 2]), ("ordinal", [1, 2, 3, 4, 5])])
@pytest.mark.parametrize("seed", range(5))
def test_alpha_is_the_krippendorff_package_on_matrices_with_missing_answers(level, domain, seed):
    rng = np.random.default_rng(seed)
    matrix = random_matrix(rng, 2 + seed % 3, 30, domain, missing=0.3)
    matrix[:, 0] = np.nan  # an item nobody answered
    matrix[1:, 1] = np.nan  # an item one annotator answered
    expected = krippendorff.alpha(reliability_data=matrix, value_domain=domain, level_of_measurement=level)
    assert alpha(matrix, level, domain) == pytest.approx(expected)


def test_alpha_is_none_where_undefined_and_refuses_values_off_the_scale():
    assert alpha(np.array([[1, 1, 1], [1, 1, 1]], dtype=float), "nominal", [0, 1, 2]) is None  # no variation
    assert alpha(np.array([[1, NAN], [NAN, 2]]), "nominal", [1, 2]) is None  # no item with two answers
    with pytest.raises(ValueError, match="out-of-domain"):
        alpha(np.array([[1, 6], [2, 6]], dtype=float), "ordinal", [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="unknown level"):
        alpha(np.array([[1, 2], [2, 2]], dtype=float), "interval")


def test_the_bootstrap_interval_holds_alpha_and_is_reproducible():
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, size=120).astype(float)
    matrix = np.vstack([np.where(rng.random(120) < 0.7, truth, rng.integers(1, 6, size=120)) for _ in range(3)])
    matrix[0, :10] = np.nan
    first = alpha_interval(matrix, "ordinal", [1, 2, 3, 4, 5], n_resamples=400, seed=3)
    assert first.alpha == pytest.approx(krippendorff.alpha(reliability_data=matrix, value_domain=[1, 2, 3, 4, 5],
                                                           level_of_measurement="ordinal"))
    assert first.low < first.alpha < first.high
    assert (first.n_items, first.n_annotators, first.level, first.n_resamples) == (120, 3, "ordinal", 400)
    assert alpha_interval(matrix, "ordinal", [1, 2, 3, 4, 5], n_resamples=400, seed=3) == first
    other = alpha_interval(matrix, "ordinal", [1, 2, 3, 4, 5], n_resamples=400, seed=4)
    assert (other.low, other.high) != (first.low, first.high) and other.alpha == first.alpha
    none = alpha_interval(matrix, "ordinal", [1, 2, 3, 4, 5], n_resamples=0)
    assert (none.low, none.high, none.alpha) == (None, None, first.alpha)


def test_the_bootstrap_resamples_items_only_among_those_with_two_answers():
    # the interval of a matrix is the interval of its pairable columns: the single answers change nothing
    rng = np.random.default_rng(1)
    matrix = random_matrix(rng, 3, 40, [0, 1, 2], missing=0.0)
    padded = np.hstack([matrix, np.array([[0, NAN, 2], [NAN, 1, NAN], [NAN, NAN, NAN]])])
    assert alpha_interval(padded, "nominal", [0, 1, 2], 200, seed=5) == alpha_interval(matrix, "nominal", [0, 1, 2],
                                                                                         200, seed=5)


# -- Cohen's kappa --------------------------------------------------------------------------------------------------

def test_kappa_by_hand_on_a_two_by_two():
    # yes/yes 4, no/no 3, yes/no 2, no/yes 1: p_o = 0.7; p_e = 0.6 * 0.5 + 0.4 * 0.5 = 0.5; kappa = 0.2 / 0.5
    first = [1] * 4 + [0] * 3 + [1] * 2 + [0]
    second = [1] * 4 + [0] * 3 + [0] * 2 + [1]
    result = cohen_kappa(first, second, "nominal", [0, 1])
    assert (result.kappa, result.n_items, result.weights) == (pytest.approx(0.4), 10, None)


def test_linear_weighted_kappa_by_hand():
    # ratings (1,1) (2,3) (3,3), disagreement weights |i - j|: observed sum w*O = 1; the chance table E = rows (1, 1,
    # 1) x columns (1, 0, 2) / 3 gives sum w*E = 4/3 + 1 + 2/3 = 3; kappa = 1 - 1/3
    result = cohen_kappa([1, 2, 3], [1, 3, 3], "ordinal", [1, 2, 3])
    assert (result.kappa, result.weights) == (pytest.approx(2 / 3), "linear")


@pytest.mark.parametrize("level,domain,weights", [("nominal", [0, 1, 2], None), ("ordinal", [1, 2, 3, 4, 5], "linear")])
@pytest.mark.parametrize("seed", range(4))
def test_kappa_is_sklearns_on_the_items_both_answered(level, domain, weights, seed):
    rng = np.random.default_rng(seed)
    first, second = random_matrix(rng, 2, 50, domain, missing=0.2)
    both = ~np.isnan(first) & ~np.isnan(second)
    expected = sklearn_metrics.cohen_kappa_score(first[both], second[both], labels=domain, weights=weights)
    result = cohen_kappa(first, second, level, domain)
    assert result.kappa == pytest.approx(expected) and result.n_items == both.sum()
    assert cohen_kappa([2, 2, NAN], [2, 2, 1], level, domain).kappa is None  # one label only: undefined


# -- majorities ------------------------------------------------------------------------------------------------------

def test_majorities_and_shares_by_hand():
    assert majority([1, 1, 2]) == 1 and majority([1, 2]) is None and majority([NAN, 2]) == 2
    assert majority([NAN, NAN]) is None
    people = np.array([[0, 0, 1, 2, 0],
                       [0, 1, 1, 2, NAN],
                       [0, 1, 2, 1, NAN]], dtype=float)
    # pairs both answered: item 1: 3 agree of 3; item 2: 1 of 3; item 3: 1 of 3; item 4: 1 of 3; item 5: none
    assert (pairwise_agreement(people, 0).agree, pairwise_agreement(people, 0).n) == (6, 12)
    model = [0, 1, 2, 2, 1]
    # majorities: 0, 1, 1, 2, 0 -> the model agrees on items 1, 2, 4 of 5
    versus = agreement_with_majority(model, people, 0)
    assert (versus.agree, versus.n, versus.ties, versus.share) == (3, 5, 0, 0.6)
    assert agreement_with_majority([0, 1], np.array([[0, 1], [1, 0]], dtype=float), 0).ties == 2
    # leave one out: item 1: every person's others say 0 (3 slots, people 3/3, model 3/3); item 2 (0, 1, 1):
    # person 1's others say 1 (0: no; model 1: yes), persons 2 and 3 each face (0, 1), a tie; item 3 (1, 1, 2):
    # person 3's others say 1 (2: no; model 2: no), two ties; item 4 (2, 2, 1): person 3's others say 2 (1: no;
    # model 2: yes), two ties; item 5: person 1 alone, no others. Slots 6: people 3/6, model 5/6; ties 6.
    fair = leave_one_out(people, model, 0)
    assert (fair.humans.agree, fair.humans.n, fair.humans.ties) == (3, 6, 6)
    assert (fair.model.agree, fair.model.n) == (5, 6) and fair.difference == pytest.approx(2 / 6)


def test_with_two_people_the_others_majority_is_the_other_person():
    rng = np.random.default_rng(2)
    people = random_matrix(rng, 2, 60, [0, 1, 2], missing=0.1)
    alone = leave_one_out(people, n_resamples=0).humans
    both = pairwise_agreement(people, 0)
    assert alone.share == pytest.approx(both.share) and alone.n == 2 * both.n


def test_reliability_matrix_places_answers_and_leaves_gaps():
    matrix = reliability_matrix({"a": {"t1": 1, "t2": 2}, "b": {"t2": 2, "t9": 5}}, ["a", "b"], ["t1", "t2"])
    assert np.array_equal(matrix, np.array([[1, 2], [NAN, 2]]), equal_nan=True)


def test_model_annotators_are_told_by_their_prefix():
    assert LLM_ANNOTATOR_PREFIX == "llm:" and is_model_annotator("llm:openai:gpt-4o")
    assert not is_model_annotator("alice") and not is_model_annotator("allm:x")
    people, models = split_answers([{"annotator": "alice"}, {"annotator": "llm:m"}, {"annotator": "bob"}])
    assert [a["annotator"] for a in people] == ["alice", "bob"] and [a["annotator"] for a in models] == ["llm:m"]


# -- `human-eval analyze` --------------------------------------------------------------------------------------------

def study_folder(study, tmp_path, systems, n_papers=20):
    """A task folder drawn over synthetic papers: (folder, key)."""
    papers = {f"p{i:02d}": {"title": f"Paper {i}", "abstract": "..."} for i in range(n_papers)}
    texts = {s: {pid: f"{s} on {pid}" for pid in papers} for s in systems}
    folder = write_tasks(draw_tasks(study, texts, papers, n_papers, seed=1), tmp_path / "study")
    key = [json.loads(line) for line in (folder / "key.jsonl").read_text().splitlines()]
    return folder, key


def write_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def pairwise_votes(key, annotators, copy, seed):
    """Each annotator votes for "good" with probability `copy[annotator]`, else uniformly over A/B/tie."""
    rng = np.random.default_rng(seed)
    votes = []
    for k in key:
        truth = "A" if k["system_a"] == "good" else "B"
        for annotator in annotators:
            choice = truth if rng.random() < copy[annotator] else str(rng.choice(["A", "B", "tie"]))
            votes.append({"task_id": k["task_id"], "annotator": annotator, "dimension": "writing_quality",
                          "choice": choice})
    return votes


def matrix_of(answers, annotators, field, code):
    tasks = sorted({a["task_id"] for a in answers})
    values = {a: {r["task_id"]: code(r[field]) for r in answers if r["annotator"] == a} for a in annotators}
    return reliability_matrix(values, annotators, tasks)


def test_analyze_reports_three_peoples_alpha_without_the_model_and_the_model_beside_them(tmp_path, capsys):
    folder, key = study_folder(RWGBENCH_STUDY, tmp_path, ["good", "weak"])
    people = ["ann", "bob", "cy"]
    votes = pairwise_votes(key, [*people, "llm:fake-judge"], {"ann": 0.8, "bob": 0.7, "cy": 0.6,
                                                                "llm:fake-judge": 0.3}, seed=0)
    for vote in votes[3::4]:  # the model mostly contradicts the people: its answers would lower their alpha
        vote["choice"] = {"A": "B", "B": "A", "tie": "A"}[vote["choice"]]
    path = write_lines(tmp_path / "votes.jsonl", votes)
    out = tmp_path / "analysis"
    assert main(["human-eval", "analyze", "--benchmark", "rwgbench", "--tasks", str(folder), "--ratings", str(path),
                 "--bootstrap", "300", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    code = ["A", "B", "tie"].index
    humans = [v for v in votes if not v["annotator"].startswith("llm:")]
    expected = krippendorff.alpha(reliability_data=matrix_of(humans, people, "choice", code),
                                  value_domain=[0, 1, 2], level_of_measurement="nominal")
    with_model = krippendorff.alpha(reliability_data=matrix_of(votes, [*people, "llm:fake-judge"], "choice", code),
                                    value_domain=[0, 1, 2], level_of_measurement="nominal")
    assert with_model < expected - 0.05
    assert f"{3 * len(key)} answers to {len(key)} of {len(key)} tasks from 3 annotator(s); set apart: {len(key)} " \
           "answers of model annotator(s) llm:fake-judge (not in Table 5)" in printed
    assert "Agreement among the people (3 annotator(s); Krippendorff's alpha, nominal, A/B/tie per task" in printed
    line = next(ln for ln in printed.splitlines() if ln.startswith("Writing quality") and "llm:" not in ln)
    assert f" {expected:.3f} " in line and f" {len(key)} " in line
    assert "Models beside the people (llm:fake-judge;" in printed
    report = json.loads((out / "agreement.json").read_text())
    row = report["people"][0]
    assert row["alpha"] == pytest.approx(expected) and row["annotators"] == 3 and row["kappa"] is None
    assert row["alpha_low"] < row["alpha"] < row["alpha_high"]
    model = report["models"][0]
    assert model["model"] == "llm:fake-judge" and model["alpha_with_model"] == pytest.approx(with_model)
    assert model["alpha_people"] == pytest.approx(expected)
    assert model["majority_n"] + model["majority_ties"] == len(key)
    # each person's agreement with the others' majority, and the model's with the same, pooled over the same slots
    assert model["people_vs_others_n"] == model["model_vs_others_n"] > 0
    assert model["model_vs_others"] < model["people_vs_others"]  # the model copies the truth less often
    with (out / "agreement.csv").open() as f:
        assert next(csv.DictReader(f))["dimension"] == "writing_quality"
    assert (out / "agreement_models.csv").exists()
    table5 = json.loads((out / "table5.json").read_text())
    assert table5["agreement"]["people"][0]["alpha"] == pytest.approx(expected)
    # Table 5 is the people's: the same rows as from their votes alone
    alone = write_lines(tmp_path / "people.jsonl", humans)
    assert main(["human-eval", "analyze", "--benchmark", "rwgbench", "--tasks", str(folder), "--ratings", str(alone),
                 "--bootstrap", "0", "--out", str(tmp_path / "alone")]) == 0
    assert "Models beside the people" not in capsys.readouterr().out
    assert json.loads((tmp_path / "alone" / "table5.json").read_text())["rows"] == table5["rows"]
    assert main(["paper-table", "rwgbench-table5", "--analysis", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "- Agreement among the people (Krippendorff's alpha, nominal" in printed
    assert f"Writing quality: alpha {expected:.3f} [{row['alpha_low']:.3f}, {row['alpha_high']:.3f}] (3 people" in printed
    assert "llm:fake-judge agrees with the people's majority" in printed


def test_analyze_gives_cohens_kappa_for_two_people_rating_texts(tmp_path, capsys):
    folder, key = study_folder(SCIIG_STUDY, tmp_path, ["zero", "three"], n_papers=15)
    rng = np.random.default_rng(4)
    quality = {k["task_id"]: int(rng.integers(1, 6)) for k in key}
    ratings = []
    for k in key:
        for annotator, noise in (("ann", 0), ("bob", 1), ("llm:m", 2)):
            value = int(np.clip(quality[k["task_id"]] + rng.integers(-noise, noise + 1), 1, 5))
            ratings.append({"task_id": k["task_id"], "annotator": annotator, "dimension": "coverage",
                            "rating": value, "comment": ""})
    path = write_lines(tmp_path / "ratings.jsonl", ratings)
    out = tmp_path / "analysis"
    assert main(["human-eval", "analyze", "--benchmark", "sciig", "--tasks", str(folder), "--ratings", str(path),
                 "--bootstrap", "200", "--bootstrap-seed", "9", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    ann = [r["rating"] for r in ratings if r["annotator"] == "ann"]
    bob = [r["rating"] for r in ratings if r["annotator"] == "bob"]
    kappa = sklearn_metrics.cohen_kappa_score(ann, bob, labels=[1, 2, 3, 4, 5], weights="linear")
    people = [r for r in ratings if r["annotator"] != "llm:m"]
    expected = krippendorff.alpha(reliability_data=matrix_of(people, ["ann", "bob"], "rating", float),
                                  value_domain=[1, 2, 3, 4, 5], level_of_measurement="ordinal")
    assert f"{kappa:.3f} (linear, {len(key)} tasks)" in printed
    assert "Agreement among the people (2 annotator(s); Krippendorff's alpha, ordinal, 1-5 rating per task" in printed
    row = json.loads((out / "agreement.json").read_text())["people"][0]
    assert (row["dimension"], row["annotators"], row["kappa_weights"]) == ("coverage", 2, "linear")
    assert row["kappa"] == pytest.approx(kappa) and row["alpha"] == pytest.approx(expected)
    model = json.loads((out / "agreement.json").read_text())["models"][0]
    # with two people, "the others' majority" of each is the other one: their agreement is the pairwise one
    assert model["people_vs_others"] == pytest.approx(row["pairwise"])
    assert main(["paper-table", "sciig-table5", "--analysis", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"Coverage: alpha {expected:.3f}" in printed and f"Cohen's kappa {kappa:.3f} (linear)" in printed


def test_a_models_only_answer_file_gives_the_models_table5(tmp_path, capsys):
    folder, key = study_folder(SCIIG_STUDY, tmp_path, ["zero"], n_papers=3)
    path = write_lines(tmp_path / "llm.jsonl", [{"task_id": k["task_id"], "annotator": "llm:m", "dimension":
                                                 "coverage", "rating": 4} for k in key])
    assert main(["human-eval", "analyze", "--benchmark", "sciig", "--tasks", str(folder), "--ratings", str(path),
                 "--bootstrap", "0"]) == 0
    printed = capsys.readouterr().out
    assert "4.00 (n=3)" in printed and "no person answered: this Table 5 is the model annotators' llm:m" in printed
    assert "Agreement among the people (0 annotator(s)" in printed


def test_an_old_table5_without_agreement_prints_as_before_and_a_bad_one_is_named(tmp_path, capsys):
    old = tmp_path / "table5.json"
    old.write_text(json.dumps({"benchmark": "sciig", "design": "rating", "choices": [], "rows": [
        {"target": "Coverage", "signal": "zero", "protocol": "mean rating (1-5)", "mean": 4.0, "n": 3}]}))
    assert main(["paper-table", "sciig-table5", "--analysis", str(old)]) == 0
    assert "Agreement among" not in capsys.readouterr().out
    old.write_text(json.dumps({**json.loads(old.read_text()), "agreement": {"people": "no"}}))
    assert main(["paper-table", "sciig-table5", "--analysis", str(old)]) == 2
    assert f"{old}, field 'agreement': must be an object whose 'people' and 'models' are lists" in capsys.readouterr().err
