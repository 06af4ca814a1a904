"""The same facts on the Hub as on the board (issue 51): `sciwrite push results` writes into every `.eval_results`
entry's notes the judge with its snapshots and its check's verdict, what the run cost (from the ledgers, "unknown"
and why without one, never 0) and, pushed from the board, its Rank cell with its interval; the `push predictions`
card says what each run's generator cost. Figures worked by hand from the ledger lines of `test_costs`."""

from __future__ import annotations

import hashlib
import json

import yaml
from huggingface_hub import parse_eval_result_entries

from sciwrite.cli import main
from sciwrite.core.costs import RunCost, SideCost
from sciwrite.core.eval_results import run_notes
from sciwrite.core.hub import prediction_card, run_card_fields
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.rank_intervals import NOT_SIGNIFICANT
from sciwrite.core.run_facts import summary_facts
from sciwrite.core.summary import Summary
from sciwrite.core.trust import FAILED_MARK
from sciwrite.leaderboard.hub_results import note_field
from sciwrite.leaderboard.store import FINISHED, ResultsStore
from sciwrite.leaderboard.tables import leaderboard_frame, leaderboard_rows
from tests.leaderboard.test_costs import GEN, JUDGE_TEXT, LEDGERS, _line
from tests.leaderboard.test_trust import CHECK

JUDGE = {"model": "judge-a", "snapshots": {"judge-a-2026-01": 2}, "check": CHECK}


def notes(text: str) -> dict[str, str]:
    """The notes' ``name: value`` fields (each value free of ``;``, so the split is exact)."""
    return dict(field.split(": ", 1) for field in text.split("; "))


def entries(out) -> list:
    [path] = (out / ".eval_results").glob("*.yaml")
    return parse_eval_result_entries(yaml.safe_load(path.read_text(encoding="utf-8")))


def generation(tmp_path, ledger: str | None = GEN):
    """Predictions ``run-a.jsonl`` of p1 and p2 as `sciwrite generate` writes them, with its ledger beside them."""
    folder = tmp_path / "gen"
    folder.mkdir(exist_ok=True)
    predictions = folder / "run-a.jsonl"
    predictions.write_text("".join(json.dumps({"paper_id": p, "text": "See [1].", "candidates": ["d1"],
                                               "benchmark": "rwgbench", "split": "sample", "model": "m",
                                               "method": "rag"}) + "\n" for p in ("p1", "p2")))
    if ledger is not None:
        (folder / "usage.jsonl").write_text(ledger)
    return predictions


def evaluation(tmp_path, predictions):
    """The folder `sciwrite evaluate` writes: precision 0.5 on both papers, judged by judge-a (its check passed),
    the judge's ledger beside the summary."""
    folder = tmp_path / "eval"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps({
        "system": "s", "split": "sample", "n_papers": 2, "precision": 0.5, "predictions": str(predictions),
        "provenance": {"benchmark": "rwgbench", "profile": "lite", "judge": JUDGE}}))
    (folder / "per_paper.jsonl").write_text("".join(json.dumps({"paper_id": p, "precision": 0.5}) + "\n"
                                                    for p in ("p1", "p2")))
    (folder / "usage.jsonl").write_text(JUDGE_TEXT)
    return folder


def test_push_results_notes_carry_the_judge_its_check_and_the_cost_unknown_without_a_ledger(tmp_path, capsys):
    predictions = generation(tmp_path)
    folder = evaluation(tmp_path, predictions)
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out", str(tmp_path / "a")]) == 0
    [entry] = entries(tmp_path / "a")
    said = notes(entry.notes)
    assert said["judge"] == "judge-a (snapshots: judge-a-2026-01)"
    assert said["judge check"] == ("passes: pass rate 0.900 [0.699, 0.972] (95%, 20 pairs, kinds shuffled, swapped, "
                                   "2026-05-01, judge judge-a)")
    # by hand: the generator's $0.045 and the judge's $0.004 over 2 papers
    assert said["cost"] == ("$0.0225/paper (gen) + $0.002/paper (judge) = $0.049 total over 2 papers "
                            "(prices: endpoint (usage.cost))")
    assert "rank" not in said  # ranked only among the board's rows
    assert note_field(entry.notes, "model") == "m" and note_field(entry.notes, "profile") == "lite"

    (predictions.parent / "usage.jsonl").unlink()
    assert main(["push", "results", str(folder), "--model-repo", "org/m", "--dry-run", "--out", str(tmp_path / "b")]) == 0
    cost = notes(entries(tmp_path / "b")[0].notes)["cost"]
    assert cost.startswith("unknown/paper (gen) + $0.002/paper (judge) = unknown total over 2 papers")
    assert "[unknown: generator: no generator ledger came with the run (usage.jsonl beside the predictions)]" in cost
    capsys.readouterr()


def test_a_panel_and_a_failed_check_stay_inside_their_fields():
    summary = Summary.from_json({
        "system": "s", "split": "sample", "n_papers": 2, "run": {"model": "m"},
        "provenance": {"profile": "lite", "judge": {
            "model": "panel(judge-a + judge-b)", "snapshots": {"a-1": 2},
            "snapshots_by_judge": {"judge-a": {"a-1": 2}, "judge-b": {"b-1": 2}},
            "check": {**CHECK, "verdict": "fails", "pass_rate": 0.55, "interval": [0.342, 0.742]}}},
        "judge_panel": {"judges": ["judge-a", "judge-b"], "samples": 1, "criteria": {}}})
    cost = RunCost(2, SideCost(3, 3500, 700, 200, 0.045, "", ("endpoint (usage.cost)",)),
                   SideCost.unknown("no judge ledger"), "endpoint (usage.cost)")
    said = notes(run_notes(summary, summary_facts(summary, cost)))
    assert said["judge"] == f"judge-a (snapshots: a-1), judge-b (snapshots: b-1) {FAILED_MARK}"
    assert said["judge check"].startswith("fails: pass rate 0.550 [0.342, 0.742] (95%, 20 pairs")
    assert said["cost"] == ("$0.0225/paper (gen) + unknown/paper (judge) = unknown total over 2 papers (prices: "
                            "endpoint (usage.cost)) [unknown: judge: no judge ledger]")
    assert said["model"] == "m"


def scored(store, system, values, ledgers=()):
    """A FINISHED board row of `system`: per-paper precision `values` on p1..pN, judged by judge-a."""
    papers = [f"p{i + 1}" for i in range(len(values))]
    summary = Summary.from_json({"n_papers": len(values), "profile": "lite", "precision": sum(values) / len(values),
                                 "provenance": {"profile": "lite", "judge": JUDGE}})
    return store.add_submission(
        benchmark="rwgbench", split="sample", system=system, submitter="t", model="m", method="rag", profile="lite",
        predictions_jsonl="".join(json.dumps({"paper_id": p, "text": "x"}) + "\n" for p in papers),
        sha256=hashlib.sha256(system.encode()).hexdigest(), n_predictions=len(values), status=FINISHED,
        summary=summary, rows=[PaperRow(paper_id=p, values={"precision": v}) for p, v in zip(papers, values)],
        ledgers=ledgers)


def test_a_board_push_carries_the_boards_rank_cell_cost_and_judge(tmp_path, capsys):
    store = ResultsStore(tmp_path / "board.sqlite")
    scored(store, "top", [0.9, 0.8, 0.95, 0.7])
    scored(store, "twin-1", [0.5, 0.4, 0.6, 0.3])
    twin = scored(store, "twin-2", [0.5, 0.4, 0.6, 0.3], ledgers=LEDGERS)
    out = tmp_path / "out"
    assert main(["push", "results", "--store", str(store.path), "--submission", twin.id, "--model-repo", "org/m",
                 "--dry-run", "--out", str(out)]) == 0
    [entry] = entries(out)
    assert (entry.task_id, entry.value) == ("sample_citation_precision", 0.45)
    said = notes(entry.notes)
    # top is above both twins on every paper: rank 1 in every resample; the twins tie in every one: rank 2 both
    assert said["rank"] == (f"3 (2) {NOT_SIGNIFICANT} of 3 in lite \u00b7 judge judge-a on CQ \u00b7 Prec. "
                            "(precision)")
    frame = leaderboard_frame(leaderboard_rows(store, "rwgbench"), "rwgbench")
    assert said["rank"].startswith(frame["Rank"].iloc[frame.attrs["ids"].index(twin.id)] + " of 3")  # the board's
    # by hand: $0.045 (gen) and $0.004 (judge) over the row's 4 papers
    assert said["cost"] == ("$0.01125/paper (gen) + $0.001/paper (judge) = $0.049 total over 4 papers "
                            "(prices: endpoint (usage.cost))")
    assert said["judge"] == "judge-a (snapshots: judge-a-2026-01)" and said["judge check"].startswith("passes: ")
    assert (said["model"], said["method"]) == ("m", "rag")
    top = notes(entries_of(tmp_path, store, "top", capsys))
    assert top["rank"].startswith("1 (1) of 3") and top["cost"].startswith("unknown/paper (gen)")  # no ledger

    assert main(["push", "results", "--store", str(store.path), "--submission", "nope", "--model-repo", "org/m",
                 "--dry-run", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"sciwrite: error: {store.path}, record 'nope', field '--submission': no such submission in the "
                   "store; give the id of a row of the board (its provenance box shows it)")


def entries_of(tmp_path, store, system, capsys) -> str:
    [submission] = [s for s, _ in store.finished("rwgbench") if s.system == system]
    out = tmp_path / system
    assert main(["push", "results", "--store", str(store.path), "--submission", submission.id, "--model-repo",
                 "org/m", "--dry-run", "--out", str(out)]) == 0
    capsys.readouterr()
    return entries(out)[0].notes


def test_the_prediction_card_says_what_the_generator_cost(tmp_path, monkeypatch, capsys):
    other = _line(purpose="generate", run="run-b", paper_id="p9", cost_usd=9.0)  # another run of the same folder
    predictions = generation(tmp_path, GEN + other + "\n")
    fields = run_card_fields(predictions)
    # by hand: 3 requests, $0.045, 3,500 / 700 / 200 tokens over 2 papers; run-b's line is not this run's
    assert {k: fields[k] for k in ("gen_requests", "cost_gen_per_paper", "cost_gen_total", "tokens_in_per_paper",
                                   "tokens_out_per_paper", "tokens_reasoning_per_paper", "price_table")} == {
        "gen_requests": 3, "cost_gen_per_paper": 0.0225, "cost_gen_total": 0.045, "tokens_in_per_paper": 1750,
        "tokens_out_per_paper": 350, "tokens_reasoning_per_paper": 100, "price_table": "endpoint (usage.cost)"}
    card = prediction_card(fields, config_name="run-a", n_rows=2)
    assert ("| `run-a` | rwgbench | rwgbench | sample | m | rag | 2 | 3 | $0.0225 | $0.045 | 1,750 | 350 | 100 | "
            "endpoint (usage.cost) |") in card.text
    assert card.data.sciwrite_runs["run-a"]["cost_gen_total"] == 0.045

    pushed = {}
    monkeypatch.setattr("sciwrite.cli.push.push_predictions",
                        lambda path, repo, fields, **kw: pushed.update(fields) or f"https://hf.co/datasets/{repo}")
    assert main(["push", "predictions", str(predictions), "--push-to-hub", "me/runs"]) == 0
    assert "generator cost $0.045 total, $0.0225/paper (prices: endpoint (usage.cost))" in capsys.readouterr().out

    (predictions.parent / "usage.jsonl").unlink()
    unknown = run_card_fields(predictions)
    assert unknown["cost_gen_total"] == unknown["cost_gen_per_paper"] == unknown["gen_requests"] == "unknown"
    assert ("| 2 | unknown | unknown | unknown (no usage.jsonl beside the predictions) | unknown | unknown | unknown | "
            "unknown |") in prediction_card(unknown, config_name="run-a", n_rows=2).text

    (predictions.parent / "usage.jsonl").write_text(GEN + _line(purpose="generate", paper_id="p1", cost_usd=-1) + "\n")
    assert main(["push", "predictions", str(predictions), "--push-to-hub", "me/runs"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{predictions.parent / 'usage.jsonl'}:4, record 'p1', field 'cost_usd'" in err and "\n" not in err
