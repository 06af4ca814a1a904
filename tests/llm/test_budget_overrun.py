"""A budget is a promise even when the endpoint lies: a reply charged more than its reservation (more tokens than the
request allowed, or a ``usage.cost`` above the price table's) is recorded with both amounts, named in a warning, and
no request is sent after it; an endpoint seen billing above the table makes later reservations as dear; and the
ledger says afterwards by how much and why the budget was not kept. The judge's client (`ChatClient`) over real
HTTP to the fake server, and ``sciwrite evaluate --judge``."""

from __future__ import annotations

import json
import logging

import pytest

from sciwrite.cli import main
from sciwrite.llm.client import ChatClient
from sciwrite.llm.ledger import Price, PriceTable, Reservation, Totals, UsageLedger, breach_line
from sciwrite.llm.types import Completion
from tests.fakes.openai_server import Reply, chat_server, isolate_from_real_endpoints

MODEL = "judge-model"
#: USD per million tokens: 5M + 5M tokens cost $400 at this price.
PRICE = Price(input=10.0, output=70.0)
MESSAGE = [{"role": "user", "content": "Rate text 10."}]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch):
    isolate_from_real_endpoints(monkeypatch)
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "EMPTY")


def ledger_at(path, max_cost: float | None = 1.0) -> UsageLedger:
    return UsageLedger(path, prices=PriceTable({MODEL: PRICE}, ["test"]), max_cost=max_cost)


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


# ------------------------------------------------------------------------------------------------ the ledger


def test_a_reply_over_its_reservation_is_recorded_with_both_amounts_and_closes_the_ledger(tmp_path, caplog):
    ledger = ledger_at(tmp_path / "usage.jsonl")
    reservation = ledger.worst_case(MODEL, MESSAGE, 100)
    assert ledger.reserve(reservation) is True
    lying = Completion("4", MODEL, prompt_tokens=5_000_000, completion_tokens=5_000_000)
    with caplog.at_level(logging.WARNING, logger="sciwrite.llm.ledger"):
        entry = ledger.record(lying, model=MODEL, purpose="judge", reservation=reservation, paper_id="P1")
    ledger.release(reservation)
    assert entry["reserved_usd"] == reservation.cost_usd and entry["cost_usd"] == 400.0
    assert entry["overrun"] == (f"the endpoint reported 5000000 completion tokens for a limit of 100; 5000000 prompt "
                                f"tokens for a prompt of at most {reservation.prompt_tokens}")
    assert lines(tmp_path / "usage.jsonl") == [entry]
    warning = caplog.records[-1].getMessage()
    assert f"judge request to {MODEL} (paper P1) reserved ${reservation.cost_usd:.4f} and was charged $400.0000" \
        in warning and "nothing more is sent" in warning
    # nothing more is sent, however small, once a reply broke its reservation
    assert ledger.exhausted and ledger.reserve(Reservation(0.0)) is None
    assert ledger.total.overruns == 1 and ledger.total.overrun_usd == pytest.approx(400.0 - reservation.cost_usd)
    assert Totals.from_file(tmp_path / "usage.jsonl").as_dict() == ledger.total.as_dict()


def test_the_breach_says_by_how_much_and_why(tmp_path):
    ledger = ledger_at(tmp_path / "usage.jsonl")
    reservation = ledger.worst_case(MODEL, MESSAGE, 100)
    ledger.reserve(reservation)
    ledger.record(Completion("4", MODEL, 10, 10, cost=6.0), model=MODEL, purpose="judge", reservation=reservation)
    line = breach_line(ledger)
    assert line is not None and line.startswith("budget exceeded by $5.0000: a reply was charged more than its "
                                                "reservation: judge request to judge-model reserved $")
    assert "its usage.cost $6.0000 is " in line and "the price table's $0.0008 for the tokens it reported" in line
    assert line.endswith(f"(spent $6.0000 of $1.00 in {tmp_path / 'usage.jsonl'})")
    # a later run on the same folder is refused at once, and says why the budget was already passed
    again = ledger_at(tmp_path / "usage.jsonl")
    assert again.exhausted and again.reserve(reservation) is None
    assert "the ledger already held $6.0000 when this run began" in (breach_line(again) or "")


def test_a_reply_within_its_reservation_keeps_the_budget(tmp_path):
    ledger = ledger_at(tmp_path / "usage.jsonl")
    reservation = ledger.worst_case(MODEL, MESSAGE, 100)
    ledger.reserve(reservation)
    entry = ledger.record(Completion("4", MODEL, 10, 100), model=MODEL, purpose="judge", reservation=reservation)
    assert entry["cost_usd"] <= entry["reserved_usd"] == reservation.cost_usd and "overrun" not in entry
    assert ledger.breach() is None and not ledger.overruns


def test_no_request_is_sent_once_the_spend_reaches_the_budget(tmp_path):
    ledger = ledger_at(tmp_path / "usage.jsonl", max_cost=0.5)
    ledger.record(Completion("4", MODEL, cost=0.5), model=MODEL, purpose="judge")
    assert ledger.reserve(Reservation(0.0)) is None  # even a request that would cost nothing
    assert breach_line(ledger) is None  # reached, not passed


def test_an_endpoint_billing_above_the_table_makes_later_reservations_as_dear(tmp_path):
    ledger = ledger_at(tmp_path / "usage.jsonl", max_cost=100.0)
    before = ledger.worst_case(MODEL, MESSAGE, 100)
    table = PRICE.cost(10, 10)
    ledger.reserve(before)
    entry = ledger.record(Completion("4", MODEL, 10, 10, cost=3 * table), model=MODEL, purpose="judge",
                          reservation=before)
    assert entry["cost_usd"] < entry["reserved_usd"] and not ledger.overruns  # within its reservation
    after = ledger.worst_case(MODEL, MESSAGE, 100)
    assert ledger.price_scale(MODEL) == pytest.approx(3.0)
    assert after.price_scale == pytest.approx(3.0) and after.cost_usd == pytest.approx(3 * before.cost_usd, rel=1e-6)
    # a ledger opened on the same file (a rerun) learns the same from its lines
    assert ledger_at(tmp_path / "usage.jsonl").worst_case(MODEL, MESSAGE, 100) == after
    # an endpoint billing at or below the table changes nothing
    cheap = ledger_at(tmp_path / "cheap.jsonl")
    cheap.record(Completion("4", MODEL, 10, 10, cost=table / 2), model=MODEL, purpose="judge")
    assert cheap.worst_case(MODEL, MESSAGE, 100) == before


# ------------------------------------------------------------------------------------------ the judge's client


def conversations(n: int):
    """`n` distinct requests of the same length (so that each reserves the same)."""
    return [[{"role": "user", "content": f"Rate text {10 + i}."}] for i in range(n)]


@pytest.mark.parametrize("lie", ["tokens", "cost"])
def test_the_judge_client_sends_nothing_after_a_reply_over_its_reservation(tmp_path, lie):
    ledger = ledger_at(tmp_path / "usage.jsonl")
    reservation = ledger.worst_case(MODEL, conversations(1)[0], 1024)
    fit = int(1.0 // reservation.cost_usd)  # the requests the budget holds at once
    assert 1 < fit < 24

    def answer(body):
        if lie == "tokens":
            return Reply('{"score": 4}', delay=0.1, prompt_tokens=5_000_000, completion_tokens=5_000_000)
        return Reply('{"score": 4}', delay=0.1, prompt_tokens=10, completion_tokens=10, cost=1.5)

    with chat_server(answer) as server:
        client = ChatClient(MODEL, base_url=server.base_url, max_retries=0, ledger=ledger, purpose="judge")
        results = client.complete(conversations(24), max_tokens=1024, workers=24, show_progress=False)
    recorded = lines(tmp_path / "usage.jsonl")
    # the first batch was in flight together; each of its replies is kept and recorded; none was sent after
    assert len(server.requests) == len(recorded) == fit == sum(r.ok for r in results)
    assert all(x["cost_usd"] > x["reserved_usd"] and x["overrun"] and x["prompt_id"] for x in recorded)
    refused = [r.error for r in results if not r.ok]
    assert all(e.startswith("not sent: nothing more is sent once a reply costs more than its reservation: judge "
                            f"request to {MODEL} (prompt ") for e in refused)
    assert client.provenance()["not_sent_over_budget"] == 24 - fit
    line = breach_line(ledger) or ""
    assert line.startswith(f"budget exceeded by ${ledger.total.cost_usd - 1.0:.4f}: {fit} replies were charged $")


def test_evaluate_with_a_judge_that_bills_past_its_reservation_exits_3_saying_why(mini_sample_folder, tmp_path,
                                                                                   capsys):
    """Every judge request fits the budget's first batch, so nothing is refused: the breach alone makes it exit 3,
    and the last line says by how much and why."""
    from sciwrite.rwgbench.data.loading import load_rwgbench

    prices = tmp_path / "prices.yaml"
    prices.write_text(f"models:\n  {MODEL}: {{input: 10.0, output: 70.0}}\n")
    papers = list(load_rwgbench("sample", source=str(mini_sample_folder)))[:2]
    predictions = tmp_path / "sys.jsonl"
    predictions.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": f"Prior work [1] ({i}).",
                                               "candidates": p["citations"]}) + "\n" for i, p in enumerate(papers)))
    out = tmp_path / "out"
    answer = lambda body: Reply('{"score": 4, "rationale": "ok"}', prompt_tokens=10, completion_tokens=10, cost=1.5)
    with chat_server(answer) as server:
        status = main(["evaluate", "rwgbench", "--predictions", str(predictions), "--source", str(mini_sample_folder),
                       "--profile", "lite", "--metrics", "llm_judge", "--judge", MODEL, "--judge-base-url",
                       server.base_url, "--prices", str(prices), "--max-cost", "1.00", "--bootstrap", "0",
                       "--out", str(out)])
    recorded = lines(out / "usage.jsonl")
    assert status == 3 and len(server.requests) == len(recorded) == 2
    assert all(x["cost_usd"] == 1.5 and x["reserved_usd"] < 1.5 for x in recorded)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("budget exceeded by $2.0000: 2 replies were charged $") and "its usage.cost $1.5000" in last
