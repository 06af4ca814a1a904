"""The judge's agreement with people on a row's trust card: ``sciwrite meta-eval agreement --record DIR`` writes it
(the judge and benchmark read from the summaries beside the per-paper files, only the judge's metrics kept),
``sciwrite evaluate --human-agreement DIR`` records it in each summary's provenance (one of another judge or
benchmark refused in one line) and prints it with the judge check's verdict, and the card shows it."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from scipy import stats

from sciwrite.cli import main
from sciwrite.core.conditions import summary_condition
from sciwrite.core.errors import InputError
from sciwrite.core.results import load_summary
from sciwrite.core.summary import HumanAgreementRecord, JudgeRecord
from sciwrite.core.trust import FAILED_MARK, NO_HUMAN_STUDY, trust_card
from sciwrite.meta_eval.agreement import metric_agreement
from sciwrite.meta_eval.human_agreement_file import RECORD_FILE, agreement_for_run, read_human_agreement
from tests.fakes.openai_server import ChatServer, like_real_endpoints
from tests.metrics.test_judge_panel import evaluate, predictions
from tests.metrics.test_judge_trust_record import answer, check_folder

PAPERS = ["p1", "p2", "p3", "p4"]
#: system -> (people's quality rating, the judge's llm_judge score, precision) per paper of `PAPERS`
RUNS = {"A": ([1, 2, 3, 2], [0.2, 0.3, 0.5, 0.1], [0.1, 0.9, 0.4, 0.3]),
        "B": ([3, 3, 4, 5], [0.4, 0.6, 0.5, 0.9], [0.2, 0.2, 0.8, 0.5]),
        "C": ([4, 5, 5, 4], [0.8, 0.7, 1.0, 0.6], [0.7, 0.1, 0.6, 0.4])}


def lines(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def study_inputs(tmp_path, judges=("judge-a",)):
    """The ratings file and, per system, an evaluation folder: per_paper.jsonl and the summary.json beside it (its
    provenance naming the benchmark and the judge)."""
    ratings = lines(tmp_path / "study-1.jsonl", [
        {"paper_id": p, "system": s, "criterion": "quality", "score": human[i], "rater": "r1"}
        for s, (human, _, _) in RUNS.items() for i, p in enumerate(PAPERS)])
    specs = []
    for system, (_, judge, precision) in RUNS.items():
        rows = lines(tmp_path / "evals" / system / "per_paper.jsonl", [
            {"paper_id": p, "llm_judge": judge[i], "precision": precision[i]} for i, p in enumerate(PAPERS)])
        panel = {"judge_panel": {"judges": list(judges), "samples": 1}} if len(judges) > 1 else {}
        (rows.parent / "summary.json").write_text(json.dumps({
            "system": system, **panel, "provenance": {"benchmark": "rwgbench", "judge": {"model": judges[0]}}}))
        specs.append(f"{system}={rows}")
    return ratings, specs


def record_study(tmp_path, capsys, judges=("judge-a",)):
    ratings, specs = study_inputs(tmp_path, judges)
    folder = tmp_path / "agreement"
    assert main(["meta-eval", "agreement", "--ratings", str(ratings), "--predictions-per-paper", *specs,
                 "--bootstrap", "100", "--record", str(folder), "--study", "S"]) == 0
    return folder, capsys.readouterr().out


def test_record_holds_the_judge_metric_with_scipys_kendall_tau(tmp_path, capsys):
    folder, out = record_study(tmp_path, capsys)
    data = json.loads((folder / RECORD_FILE).read_text())
    assert (data["benchmark"], data["judges"], data["study"], data["ratings"]) == ("rwgbench", ["judge-a"], "S",
                                                                                  "study-1.jsonl")
    assert data["date"] == dt.datetime.now(dt.timezone.utc).date().isoformat()
    assert data["bootstrap"] == {"resamples": 100, "seed": 0} and data["confidence"] == 0.95
    # precision is compared in the table but is no judge metric of RWGBench: the record keeps llm_judge only
    assert {(r["metric"], r["level"]) for r in data["rows"]} == {("llm_judge", "item"), ("llm_judge", "system")}
    assert "left out, not judge metrics: precision" in out
    item, system = sorted(data["rows"], key=lambda r: r["level"])
    human = [h for s in RUNS for h in RUNS[s][0]]
    judge = [j for s in RUNS for j in RUNS[s][1]]
    assert item["n"] == 12 and item["kendall_tau"] == pytest.approx(stats.kendalltau(human, judge).statistic)
    assert item["spearman"] == pytest.approx(stats.spearmanr(human, judge).statistic)
    assert item["tau_low"] < item["kendall_tau"] < item["tau_high"]
    # system means: people 2.0, 3.75, 4.5; the judge 0.275, 0.6, 0.775: the same order, tau 1
    assert system["n"] == 3 and system["kendall_tau"] == pytest.approx(1.0)


def test_evaluate_records_the_agreement_and_prints_the_trust_facts(mini_sample_folder, tmp_path, capsys,
                                                                    monkeypatch):
    folder, _ = record_study(tmp_path, capsys)
    expected = json.loads((folder / RECORD_FILE).read_text())["rows"]
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    with ChatServer(like_real_endpoints(answer)) as server:
        out = evaluate(mini_sample_folder, tmp_path, [predictions(mini_sample_folder, tmp_path, "sys")], "--judge",
                       "judge-a", "--judge-base-url", server.base_url, "--judge-check",
                       str(check_folder(tmp_path, verdict="fails")), "--human-agreement", str(folder))
    printed = capsys.readouterr().out
    record = json.loads((out / "sys" / "summary.json").read_text())["provenance"]["judge"]["human_agreement"]
    assert (record["judges"], record["benchmark"], record["study"], record["source"]) == (
        ["judge-a"], "rwgbench", "S", str(folder))
    item = next(r for r in record["rows"] if r["level"] == "item")
    want = next(r for r in expected if r["level"] == "item")
    assert item == {"criterion": "quality", "metric": "llm_judge", "level": "item", "n": 12,
                    "kendall_tau": want["kendall_tau"], "tau_interval": [want["tau_low"], want["tau_high"]],
                    "spearman": want["spearman"], "spearman_interval": [want["spearman_low"], want["spearman_high"]]}
    summary = load_summary(out / "sys")
    card = trust_card(summary, summary_condition(summary))
    tau = f"{want['kendall_tau']:.3f} [{want['tau_low']:.3f}, {want['tau_high']:.3f}]"
    text = card.as_text()
    assert (f"  agreement with people: study S (study-1.jsonl, {record['date']}; judge judge-a; "
            "95% intervals)") in text
    assert f"    quality ~ llm_judge: Kendall tau {tau}, Spearman " in text and "over 12 items" in text
    assert "over 3 systems" in text
    # evaluate says what it recorded: the check's verdict with the failed mark, and the agreement
    assert "sys: judge check recorded: fails: pass rate 0.900 [0.699, 0.972]" in printed
    assert printed.count(FAILED_MARK) == 1
    assert "sys: agreement with people recorded: study S (" in printed and f"Kendall tau {tau}" in printed


@pytest.mark.parametrize(("judges", "benchmark", "says"), [
    (("judge-z",), "rwgbench", "the agreement is of judge 'judge-z', this run's judge is 'judge-a'"),
    (("judge-a", "judge-b"), "rwgbench", "the agreement is of judge 'judge-a + judge-b', this run's judge is "
                                         "'judge-a'"),
    (("judge-a",), "surge", "the agreement is of benchmark 'surge', this run scores 'rwgbench'"),
])
def test_evaluate_refuses_another_judges_or_benchmarks_agreement(mini_sample_folder, tmp_path, capsys, judges,
                                                                benchmark, says):
    folder, _ = record_study(tmp_path, capsys, judges=judges)
    path = folder / RECORD_FILE
    path.write_text(json.dumps({**json.loads(path.read_text()), "benchmark": benchmark}))
    evaluate(mini_sample_folder, tmp_path, [predictions(mini_sample_folder, tmp_path, "sys")], "--judge", "judge-a",
             "--judge-base-url", "http://127.0.0.1:9/v1", "--human-agreement", str(folder), status=2)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and str(folder) in err[0]
    assert not (tmp_path / "out" / "sys").exists()  # refused before anything was scored


def test_a_record_needs_a_judge_metric_and_one_judge(tmp_path, capsys):
    ratings, specs = study_inputs(tmp_path)
    assert main(["meta-eval", "agreement", "--ratings", str(ratings), "--predictions-per-paper", *specs,
                 "--metrics", "precision", "--bootstrap", "0", "--record", str(tmp_path / "r")]) == 2
    assert "none of the metrics compared (precision) is a judge score of rwgbench" in capsys.readouterr().err
    assert main(["meta-eval", "agreement", "--ratings", str(ratings), "--predictions-per-paper", *specs,
                 "--judge", "judge-z", "--bootstrap", "0", "--record", str(tmp_path / "r")]) == 2
    assert "--judge judge-z: the per_paper files were scored by judge-a" in capsys.readouterr().err
    summary = tmp_path / "evals" / "C" / "summary.json"
    summary.write_text(json.dumps({"system": "C", "provenance": {"benchmark": "rwgbench",
                                                                 "judge": {"model": "judge-b"}}}))
    assert main(["meta-eval", "agreement", "--ratings", str(ratings), "--predictions-per-paper", *specs,
                 "--bootstrap", "0", "--record", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"{summary}: was scored by judge-b on rwgbench, but" in err and "one record is of one judge" in err
    assert not (tmp_path / "r").exists()


def test_a_bad_record_row_names_the_row_and_field(tmp_path, capsys):
    folder, _ = record_study(tmp_path, capsys)
    path = folder / RECORD_FILE
    data = json.loads(path.read_text())
    data["rows"][1]["kendall_tau"] = "high"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"human_agreement\.json, record 'rows\[1\]', field 'kendall_tau': must be "
                                         r"a number or null, got 'high'"):
        read_human_agreement(folder)


def test_a_card_without_a_study_and_an_older_record_unchanged():
    older = {"model": "judge-a", "snapshots": {"judge-a-1": 2}, "system_fingerprints": {}}
    record = JudgeRecord.from_json(older)
    assert record.human_agreement is None and record.to_json() == older
    built = JudgeRecord(model="judge-a")
    assert "human_agreement" not in built.to_json()  # serialised only when set
    assert NO_HUMAN_STUDY == "no human study recorded"


def test_a_metric_no_row_scores_gives_empty_rows_not_a_crash():
    """A metric asked for that no per-paper row holds (np.bincount once met an empty float array and crashed)."""
    human = {("p1", "A"): 1.0, ("p2", "B"): 2.0}
    rows = metric_agreement({"quality": human}, {"missing": {}}, n_resamples=10)
    assert [(r["level"], r["n"], r["kendall_tau"], r["tau_low"]) for r in rows] == [("item", 0, None, None),
                                                                                   ("system", 0, None, None)]


def test_the_records_judges_must_be_the_runs_judges_exactly():
    one = HumanAgreementRecord(judges=("judge-a",), benchmark="rwgbench", study="S", source="rec")
    panel = HumanAgreementRecord(judges=("judge-a", "judge-b"), benchmark="rwgbench", study="S", source="rec")
    assert agreement_for_run(panel, ["judge-b", "judge-a"], "rwgbench") is panel  # the same panel, any order
    with pytest.raises(InputError, match="the agreement is of judge 'judge-a', this run's judge is 'judge-a' \\+ "
                                         "'judge-b'"):
        agreement_for_run(one, ["judge-a", "judge-b"], "rwgbench")  # one judge's agreement is not the panel's
    with pytest.raises(InputError, match="this run's judge is 'judge-a'"):
        agreement_for_run(panel, ["judge-a"], "rwgbench")
