"""Cost on every row (issue 51): the generator's and the judge's dollars and tokens from a run's usage ledgers, per
paper and in all, "unknown" (never 0) without a ledger, sortable with unknown last, and a ledger that disagrees with
its predictions refused in one line naming the file and line, the submission kept for a fix."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage

from sciwrite.core.costs import (
    BOARD_PRICED,
    GENERATOR,
    JUDGE,
    UNKNOWN,
    LedgerFile,
    ModelCall,
    check_ledger,
    priced_ledgers,
    run_cost,
    run_lines,
)
from sciwrite.core.errors import InputError
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.summary import Summary
from sciwrite.harness.inspect_logs import model_calls
from sciwrite.leaderboard.runs import read_evaluation
from sciwrite.leaderboard.service import NEEDS_FIX, BoardSettings, Leaderboard
from sciwrite.leaderboard.store import FAILED, FINISHED, PENDING, ResultsStore
from sciwrite.leaderboard.submission import SubmissionForm
from sciwrite.leaderboard.tables import leaderboard_frame, leaderboard_rows
from sciwrite.leaderboard.worker import Worker
from sciwrite.llm.ledger import Price, PriceTable

PAPERS = {"p1", "p2"}


def _line(**fields) -> str:
    return json.dumps(fields)


#: By hand: the generator's 3 requests cost 0.010 + 0.005 + 0.030 = $0.045 for 1000 + 500 + 2000 = 3,500 input,
#: 200 + 100 + 400 = 700 output and 50 + 0 + 150 = 200 reasoning tokens; over 2 papers $0.0225, 1,750 / 350 / 100 a
#: paper. The judge's 2 cost 0.001 + 0.003 = $0.004, $0.002 a paper. In all $0.049.
GEN = "\n".join([
    _line(purpose="generate", model="m", run="run-a", paper_id="p1", prompt_tokens=1000, completion_tokens=200,
          reasoning_tokens=50, cost_usd=0.010, cost_source="endpoint"),
    _line(purpose="generate", model="m", run="run-a", paper_id="p1", prompt_tokens=500, completion_tokens=100,
          reasoning_tokens=0, cost_usd=0.005, cost_source="endpoint"),
    _line(purpose="generate", model="m", run="run-a", paper_id="p2", prompt_tokens=2000, completion_tokens=400,
          reasoning_tokens=150, cost_usd=0.030, cost_source="endpoint"),
]) + "\n"
JUDGE_TEXT = "\n".join([
    _line(purpose="judge", model="j", run="evaluate-1", prompt_tokens=300, completion_tokens=20, cost_usd=0.001,
          cost_source="endpoint"),
    _line(purpose="judge", model="j", run="evaluate-1", prompt_tokens=300, completion_tokens=20, cost_usd=0.003,
          cost_source="endpoint"),
]) + "\n"
LEDGERS = (LedgerFile(GENERATOR, "usage.jsonl", GEN), LedgerFile(JUDGE, "usage.jsonl", JUDGE_TEXT))
SUMMARY = Summary.from_json({"system": "s", "split": "sample", "n_papers": 2, "precision": 0.5})
PREDICTIONS = "".join(json.dumps({"paper_id": p, "text": "x", "candidates": ["d1"]}) + "\n" for p in sorted(PAPERS))


def test_a_hand_worked_ledger_gives_the_exact_per_paper_and_total_figures():
    cost = run_cost(LEDGERS, SUMMARY, PAPERS)
    gen, judge = cost.generator, cost.judge
    assert (gen.requests, gen.input_tokens, gen.output_tokens, gen.reasoning_tokens) == (3, 3500, 700, 200)
    assert gen.cost_usd == pytest.approx(0.045) and judge.cost_usd == pytest.approx(0.004)
    fields = cost.fields()
    assert fields["cost_gen_per_paper"] == pytest.approx(0.0225)
    assert fields["cost_judge_per_paper"] == pytest.approx(0.002)
    assert fields["cost_total"] == pytest.approx(0.049)
    assert (fields["tokens_in_per_paper"], fields["tokens_out_per_paper"], fields["tokens_reasoning_per_paper"]) == (
        1750, 350, 100)
    assert fields["price_table"] == "endpoint (usage.cost)" and fields["cost_unknown"] == ""


def _finished(store: ResultsStore, system: str, ledgers=(), summary: Summary = SUMMARY, sha: str | None = None):
    return store.add_submission(benchmark="rwgbench", split="sample", system=system, submitter="ann",
                                predictions_jsonl=PREDICTIONS, sha256=sha or system, n_predictions=2,
                                status=FINISHED, summary=summary.with_(system=system),
                                rows=typed_rows([{"paper_id": "p1", "precision": 0.5}]), ledgers=ledgers)


def test_the_table_shows_costs_after_the_scores_unknown_never_zero_and_sorts_unknown_last(tmp_path):
    store = ResultsStore(tmp_path / "lb.sqlite")
    _finished(store, "no ledger")
    _finished(store, "costed", LEDGERS)
    cheap = LEDGERS[0].text.replace("0.03", "0.0")  # $0.015 for the generator
    _finished(store, "cheaper", (LedgerFile(GENERATOR, "usage.jsonl", cheap), LEDGERS[1]))
    rows = leaderboard_rows(store, "rwgbench")
    frame = leaderboard_frame(rows, "rwgbench", sort_by="cost_total")
    columns = list(frame.columns)
    assert columns.index("$/paper (gen)") > columns.index("CQ \u00b7 Prec.") and columns[-1] == "Price table"
    by_system = frame.set_index("System")
    assert list(by_system.loc["costed", ["$/paper (gen)", "$/paper (judge)", "$ total", "Tokens/paper in (gen)",
                                         "Tokens/paper out (gen)", "Tokens/paper reasoning (gen)"]]) == [
        "$0.0225", "$0.002", "$0.049", "1,750", "350", "100"]
    assert (by_system.loc["no ledger", "$/paper (gen)"], by_system.loc["no ledger", "$ total"]) == (UNKNOWN, UNKNOWN)
    assert list(frame["System"]) == ["cheaper", "costed", "no ledger"]  # cheapest first, unknown last
    worst_first = leaderboard_frame(rows, "rwgbench", sort_by="cost_total", descending=True)
    assert list(worst_first["System"]) == ["costed", "cheaper", "no ledger"]  # unknown last either way


def test_a_judge_that_did_not_run_costs_nothing_and_one_without_a_record_is_unknown():
    no_judge = Summary.from_json({"system": "s", "split": "sample", "n_papers": 2,
                                  "provenance": {"profile": "lite", "judge": None}})
    cost = run_cost(LEDGERS[:1], no_judge, PAPERS)
    assert cost.judge.cost_usd == 0.0 and cost.total_usd == pytest.approx(0.045)
    unknown = run_cost(LEDGERS[:1], SUMMARY, PAPERS)
    assert unknown.judge.cost_usd is None and unknown.total_usd is None and "judge:" in unknown.why_unknown


def test_an_unpriced_request_makes_the_cost_unknown_but_keeps_the_tokens():
    text = GEN + _line(purpose="generate", model="m", paper_id="p2", prompt_tokens=10, completion_tokens=5,
                       cost_usd=None, cost_source=None) + "\n"
    gen = run_cost([LedgerFile(GENERATOR, "usage.jsonl", text)], SUMMARY, PAPERS).generator
    assert gen.cost_usd is None and gen.input_tokens == 3510 and "1 of the generator's 4 requests" in gen.why


@pytest.mark.parametrize(("line", "field", "said"), [
    ({"paper_id": "p9", "cost_usd": 0.1}, "paper_id", "no prediction of this paper"),
    ({"paper_id": "p1", "cost_usd": -0.5}, "cost_usd", "got -0.5"),
    ({"paper_id": "p1", "cost_usd": float("nan")}, "cost_usd", "got nan"),
    ({"paper_id": "p1", "cost_usd": "0.10"}, "cost_usd", "got '0.10'"),
    ({"paper_id": "p1", "cost_usd": 0.1, "prompt_tokens": -3}, "prompt_tokens", "got -3"),
])
def test_a_bad_ledger_line_is_refused_in_one_line_naming_file_and_line(line, field, said):
    text = _line(purpose="generate", paper_id="p2", cost_usd=0.2) + "\n" + json.dumps({"purpose": "generate", **line})
    with pytest.raises(InputError) as refused:
        check_ledger(LedgerFile(GENERATOR, "usage.jsonl", text), PAPERS)
    message = str(refused.value)
    assert message.startswith(f"usage.jsonl:2, record '{line['paper_id']}', field '{field}': ")
    assert said in message and "\n" not in message


@pytest.fixture
def board(tmp_path, monkeypatch):
    b = Leaderboard(ResultsStore(tmp_path / "lb.sqlite"), BoardSettings())
    monkeypatch.setattr(b, "split_ids", lambda benchmark: (tuple(sorted(PAPERS)), {}))
    return b


def test_a_submission_with_a_bad_ledger_is_kept_for_a_fix_then_scored_with_its_cost(board):
    form = SubmissionForm(benchmark="rwgbench", system="sys", submitter="ann")
    bad = GEN.replace("0.005", "-0.005").encode()
    outcome = board.submit(form, PREDICTIONS.encode(), ledger=bad)
    kept = outcome.submission
    assert kept is not None and kept.status == FAILED and kept.error.startswith(NEEDS_FIX)
    assert outcome.problems == [kept.error] and "usage.jsonl:2, record 'p1', field 'cost_usd'" in kept.error
    assert board.fix_ledger(kept.id, GEN.encode(), submitter="bob") == [f"submission {kept.id} is another submitter's"]
    assert board.fix_ledger(kept.id, GEN.replace("p2", "p7").encode(), submitter="ann")[0].startswith("usage.jsonl:3")
    assert board.store.get(kept.id).status == FAILED
    assert board.fix_ledger(kept.id, GEN.encode(), submitter="ann") == []
    assert board.store.get(kept.id).status == PENDING and board.store.ledgers(kept.id)[0].text == GEN
    scored = (SUMMARY, typed_rows([{"paper_id": "p1", "precision": 0.5}, {"paper_id": "p2", "precision": 0.5}]))
    Worker(board.store, lambda submission, predictions: scored, heartbeat_s=0.01, stale_after_s=60).run_once()
    cost = board.store.costs("rwgbench")[kept.id]
    assert board.store.get(kept.id).status == FINISHED and cost.generator.cost_usd == pytest.approx(0.045)


def test_an_imported_folder_brings_this_runs_generator_lines_and_its_judge_ledger(tmp_path):
    run = tmp_path / "gen"
    run.mkdir()
    (run / "run-a.jsonl").write_text(PREDICTIONS)
    other = _line(purpose="generate", run="run-b", paper_id="p9", cost_usd=9.0)  # another run in the same folder
    (run / "usage.jsonl").write_text(GEN + other + "\n")
    assert run_lines(GEN + other + "\n", "run-a") == GEN
    folder = tmp_path / "eval"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps({**SUMMARY.to_json(), "predictions": str(run / "run-a.jsonl")}))
    (folder / "per_paper.jsonl").write_text(json.dumps({"paper_id": "p1", "precision": 0.5}) + "\n"
                                            + json.dumps({"paper_id": "p2", "precision": 0.5}) + "\n")
    (folder / "usage.jsonl").write_text(JUDGE_TEXT)
    ledgers = read_evaluation("rwgbench", folder).ledgers
    assert [(ledger.role, ledger.name, ledger.text) for ledger in ledgers] == [
        (GENERATOR, "usage.jsonl", GEN), (JUDGE, "usage.jsonl", JUDGE_TEXT)]
    (folder / "usage.jsonl").write_text(JUDGE_TEXT + _line(purpose="judge", cost_usd="free") + "\n")
    with pytest.raises(InputError, match=r"eval/usage.jsonl:3, field 'cost_usd'"):
        read_evaluation("rwgbench", folder)


def test_an_inspect_logs_usage_is_priced_with_the_boards_table_and_says_so():
    prices = PriceTable({"gen-model": Price(input=2.0, output=10.0)}, ["prices.yaml"])
    calls = [ModelCall("p1", GENERATOR, "gen-model", 1000, 100), ModelCall("p2", GENERATOR, "gen-model", 3000, 300),
             ModelCall("p1", JUDGE, "grader", 50, 5, cost_usd=0.25)]  # the log reported this call's cost
    ledgers = priced_ledgers(calls, prices)
    cost = run_cost(ledgers, SUMMARY, PAPERS, prices)
    # by hand: (1000 * 2 + 100 * 10) / 1e6 = 0.003 and (3000 * 2 + 300 * 10) / 1e6 = 0.009
    assert cost.generator.cost_usd == pytest.approx(0.012) and cost.judge.cost_usd == pytest.approx(0.25)
    assert json.loads(ledgers[0].text.splitlines()[0])["cost_source"] == BOARD_PRICED
    assert "priced by the board from the Inspect log's token usage" in cost.price_table
    unpriced = run_cost(priced_ledgers([ModelCall("p1", GENERATOR, "no-price", 10, 1)], prices), SUMMARY, PAPERS,
                        prices)
    assert unpriced.generator.cost_usd is None and unpriced.generator.input_tokens == 10


def _model_event(role: str | None, tokens: int) -> ModelEvent:
    output = ModelOutput.from_content("gen-model", "reply")
    output.usage = ModelUsage(input_tokens=tokens, output_tokens=tokens // 10, total_tokens=tokens + tokens // 10)
    return ModelEvent(model="gen-model", role=role, input=[], tools=[], tool_choice="none", config=GenerateConfig(),
                      output=output)


def test_an_inspect_samples_model_calls_are_the_generators_and_a_graders_the_judges():
    sample = EvalSample(id="s1", epoch=1, input="", target="", metadata={"paper_id": "p1"},
                        events=[_model_event(None, 1000), _model_event("grader", 50)])
    calls = model_calls(SimpleNamespace(samples=[sample]))  # only the samples are read
    assert [(c.paper_id, c.role, c.input_tokens, c.output_tokens) for c in calls] == [
        ("p1", GENERATOR, 1000, 100), ("p1", JUDGE, 50, 5)]
