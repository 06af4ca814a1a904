"""`sciwrite generate --max-cost` against the fake OpenAI-compatible server at concurrency 16: the spend never
passes the budget (each request reserves its worst case before it is sent), the run stops with exit 3 saying what
was spent and what is left undone, a rerun does exactly the papers left; budgets and models that cannot be kept are
refused before anything is sent, and malformed or non-JSON replies are handled as the services send them. An
endpoint that bills past a request's reservation (more tokens than it allowed, a usage.cost above the table's) stops
the run at once with exit 3, its replies in flight kept, the last line saying by how much and why; one that bills
above the table within the reservation makes the next reservations as dear."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.llm.client import ChatClient
from sciwrite.llm.ledger import PriceTable, UsageLedger, usd
from tests.fakes.openai_server import Reply, chat_server, completion, isolate_from_real_endpoints, like_real_endpoints

MODEL = "budget-model"
#: USD per million tokens: a request with the whole 2,048-token limit spent costs about $0.15.
PRICES = f"models:\n  {MODEL}: {{input: 10.0, output: 70.0}}\n"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    isolate_from_real_endpoints(monkeypatch)
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "EMPTY")


def greedy(delay: float = 0.05):
    """A model that spends its whole completion limit and bills the prompt at a token per four bytes."""

    def answer(body):
        prompt = "".join(str(m.get("content", "")) for m in body["messages"])
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        return Reply("Prior work studied this problem [1].", delay=delay, prompt_tokens=len(prompt.encode()) // 4,
                     completion_tokens=limit)

    return answer


def generate(server, source, out, *extra, model=MODEL, prices=None, limit=40, concurrency=16):
    argv = ["generate", "rwgbench", "--model", model, "--base-url", server.base_url, "--method", "direct",
            "--split", "sample", "--source", str(source), "--out", str(out), "--limit", str(limit),
            "--concurrency", str(concurrency), *extra]
    return main([*argv, "--prices", str(prices)] if prices else argv)


def price_file(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text(PRICES)
    return path


def ledger_lines(out):
    return [json.loads(x) for x in (out / "usage.jsonl").read_text().splitlines()]


def written(out):
    [path] = [p for p in out.glob("*.jsonl") if p.name != "usage.jsonl" and not p.name.startswith("failed_")]
    return [json.loads(x)["paper_id"] for x in path.read_text().splitlines()]


def test_the_spend_never_passes_the_budget_and_a_rerun_does_what_was_left(sample_folder, tmp_path, capsys):
    out, prices = tmp_path / "gen", price_file(tmp_path)
    with chat_server(greedy()) as server:
        assert generate(server, sample_folder, out, "--max-cost", "1.00", prices=prices) == 3
        first = written(out)
        sent_first = len(server.requests)
        spent = sum(x["cost_usd"] for x in ledger_lines(out))
        assert spent <= 1.00 and len(first) == sent_first and 0 < len(first) < 40
        assert server.max_in_flight > 1  # requests still run at once while the budget has room
        printed = capsys.readouterr().out
        assert f"stopped at the budget: spent ${spent:.4f} of $1.00" in printed
        assert f"{40 - len(first)} papers left undone (not sent)" in printed and "may cost up to $" in printed
        assert not list(out.glob("failed_samples_*"))  # a budget stop is not a failure
        assert generate(server, sample_folder, out, "--max-cost", "100", prices=prices) == 0
    assert len(server.requests) - sent_first == 40 - len(first)  # the rerun sent exactly the papers left undone
    final = written(out)
    assert len(final) == len(set(final)) == 40 and final[:len(first)] == first


def test_the_issue_figures_sixteen_in_flight_and_half_a_dollar(sample_folder, tmp_path, capsys):
    out, prices = tmp_path / "gen", price_file(tmp_path)
    with chat_server(greedy(delay=0.2)) as server:
        assert generate(server, sample_folder, out, "--max-cost", "0.50", prices=prices, limit=16) == 3
    assert sum(x["cost_usd"] for x in ledger_lines(out)) <= 0.50
    assert "stopped at the budget" in capsys.readouterr().out


def test_full_concurrency_when_the_budget_allows(sample_folder, tmp_path):
    out, prices = tmp_path / "gen", price_file(tmp_path)
    with chat_server(greedy(delay=0.3)) as server:
        assert generate(server, sample_folder, out, "--max-cost", "100", prices=prices, limit=16) == 0
    assert server.max_in_flight == 16 and len(written(out)) == 16


@pytest.mark.parametrize("budget", ["nan", "inf", "-1", "five"])
def test_a_budget_that_is_not_a_finite_amount_is_refused(sample_folder, tmp_path, capsys, budget):
    with chat_server(greedy()) as server, pytest.raises(SystemExit) as stop:
        generate(server, sample_folder, tmp_path / "gen", "--max-cost", budget)
    assert stop.value.code == 2 and not server.requests
    assert f"expected a finite number of USD >= 0, e.g. 5 or 0.50, got '{budget}'" in capsys.readouterr().err


def test_an_unpriced_model_is_refused_naming_it_and_prices(sample_folder, tmp_path, capsys):
    with chat_server(greedy()) as server:
        assert generate(server, sample_folder, tmp_path / "gen", "--max-cost", "1", model="mystery-model") == 2
    err = capsys.readouterr().err
    assert not server.requests and "model 'mystery-model' has no price" in err and "--prices FILE" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_request_without_a_completion_limit_is_refused(sample_folder, tmp_path, capsys):
    with chat_server(greedy()) as server:
        assert generate(server, sample_folder, tmp_path / "gen", "--max-cost", "1", "--model-option",
                        "max_tokens=null", prices=price_file(tmp_path)) == 2
    assert not server.requests and "is sent no completion limit" in capsys.readouterr().err


def test_an_unpriced_openrouter_model_goes_one_request_at_a_time(sample_folder, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    answer = like_real_endpoints(lambda body: Reply("Prior work [1].", delay=0.05, prompt_tokens=1000,
                                                    completion_tokens=1000), cost_per_token=1e-4)  # $0.20 a request
    with chat_server(answer) as server:
        assert generate(server, sample_folder, tmp_path / "gen", "--max-cost", "0.50",
                        model="openrouter:vendor/unpriced-model", limit=8) == 3
    assert server.max_in_flight == 1 and len(server.requests) == 3  # sent while under the budget: 0, 0.2, 0.4
    assert sum(x["cost_usd"] for x in ledger_lines(tmp_path / "gen")) == pytest.approx(0.60)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("budget exceeded by $0.1000: openrouter:vendor/unpriced-model has no price, so each "
                           "request's cost was known only once it came back (pass --prices FILE")


def test_malformed_usage_keeps_the_text_and_charges_the_worst_case(sample_folder, tmp_path, caplog):
    out, prices = tmp_path / "gen", price_file(tmp_path)
    bad = {"prompt_tokens": -1_000_000, "completion_tokens": "many", "total_tokens": None}
    with chat_server(lambda body: Reply("Prior work [1].", usage=bad)) as server:
        assert generate(server, sample_folder, out, "--max-cost", "1.00", prices=prices, limit=12) == 3
    lines = ledger_lines(out)
    assert len(written(out)) == len(lines) == len(server.requests) > 0  # every paid reply's text is kept
    for line in lines:
        assert line["cost_source"] == "worst case" and line["cost_usd"] > 0.15
        assert line["usage_problem"] == "usage.prompt_tokens=-1000000; usage.completion_tokens='many'"
        assert line["prompt_tokens"] is None and line["completion_tokens"] is None
    assert sum(x["cost_usd"] for x in lines) <= 1.00  # negative usage never frees budget
    assert "the reply's usage is malformed" in caplog.text


def test_an_html_page_with_status_200_fails_each_paper_saying_so(sample_folder, tmp_path):
    page = "<!DOCTYPE html><html><head><title>Sign in</title></head></html>"
    with chat_server(lambda body: Reply(body=page, headers={"Content-Type": "text/html; charset=utf-8"})) as server:
        assert generate(server, sample_folder, tmp_path / "gen", limit=2, concurrency=2) == 4
    [failures] = list((tmp_path / "gen").glob("failed_samples_*"))
    errors = [json.loads(x)["error"] for x in failures.read_text().splitlines()]
    assert len(errors) == 2
    for error in errors:
        assert "sent non-JSON with HTTP 200, Content-Type 'text/html; charset=utf-8', starting '<!DOCTYPE html>" \
               in error and "JSONDecodeError" not in error


def test_gpt5_spending_its_limit_on_reasoning_fails_the_paper_saying_what_to_raise(sample_folder, tmp_path):
    with chat_server(like_real_endpoints(greedy(delay=0))) as server:
        assert generate(server, sample_folder, tmp_path / "gen", "--model-option", "max_completion_tokens=30",
                        model="gpt-5.5", limit=2, concurrency=2) == 4
    assert all(r["max_completion_tokens"] == 30 for r in server.requests)
    [failures] = list((tmp_path / "gen").glob("failed_samples_*"))
    errors = [json.loads(x)["error"] for x in failures.read_text().splitlines()]
    assert len(errors) == 2 and written(tmp_path / "gen") == []  # no empty text is written (or scored)
    for error in errors:
        assert "the completion limit max_completion_tokens=30 was spent before any answer (30 of its 30 " \
               "completion tokens were reasoning): raise it above 30" in error


def refusing_max_tokens(instead: str = ""):
    """An endpoint that refuses ``max_tokens`` (naming a replacement only when `instead` is given) and, sent no
    completion limit, bills 20,000 completion tokens (about $1.40 a request at `PRICES`)."""

    def answer(body):
        if "max_tokens" in body:
            message = "Unsupported parameter: 'max_tokens' is not supported with this model." + instead
            return 400, {"error": {"message": message, "type": "invalid_request_error", "param": "max_tokens",
                                   "code": "unsupported_parameter"}}
        limit = body.get("max_completion_tokens")
        return Reply("Prior work studied this problem [1].", prompt_tokens=1000, completion_tokens=limit or 20_000)

    return answer


def test_a_refused_completion_limit_is_never_dropped_under_a_budget(sample_folder, tmp_path):
    out = tmp_path / "gen"
    with chat_server(refusing_max_tokens()) as server:
        assert generate(server, sample_folder, out, "--max-cost", "0.50", prices=price_file(tmp_path), limit=6,
                        concurrency=3) == 4
    assert server.requests and all(r.get("max_tokens") == 2048 for r in server.requests)  # never sent without it
    assert not (out / "usage.jsonl").exists() or sum(x["cost_usd"] for x in ledger_lines(out)) <= 0.50
    [failures] = list(out.glob("failed_samples_*"))
    errors = [json.loads(x)["error"] for x in failures.read_text().splitlines()]
    assert len(errors) == 6
    for error in errors:
        assert "the endpoint refused the completion limit max_tokens=2048" in error
        assert "--max-cost cannot be kept" in error and "Run without --max-cost" in error
        assert "max_completion_tokens" in error and "has no price" not in error


def test_a_completion_limit_renamed_by_the_endpoint_still_runs_under_a_budget(sample_folder, tmp_path):
    out = tmp_path / "gen"
    with chat_server(refusing_max_tokens(" Use 'max_completion_tokens' instead.")) as server:
        assert generate(server, sample_folder, out, "--max-cost", "100", prices=price_file(tmp_path), limit=4,
                        concurrency=1) == 0
    assert len(written(out)) == 4
    assert [r.get("max_completion_tokens") for r in server.requests[1:]] == [2048] * 4
    assert all(x["cost_source"] == "price table" and x["completion_tokens"] == 2048 for x in ledger_lines(out))


def test_chat_client_says_the_endpoint_refused_the_limit_not_that_the_model_has_no_price(tmp_path):
    ledger = UsageLedger(tmp_path / "usage.jsonl", prices=PriceTable.load(price_file(tmp_path)), max_cost=0.50)
    with chat_server(refusing_max_tokens()) as server:
        client = ChatClient(MODEL, base_url=server.base_url, api_key="EMPTY", ledger=ledger, max_retries=0)
        results = [*client.complete([[{"role": "user", "content": "a"}]], show_progress=False),
                   *client.complete([[{"role": "user", "content": "b"}]], show_progress=False)]
    assert len(server.requests) == 2 and all(r.get("max_tokens") == 1024 for r in server.requests)
    for result in results:
        assert not result.ok and "the endpoint refused the completion limit max_tokens=1024" in result.error
        assert "has no price" not in result.error and "--prices" not in result.error
    assert ledger.total.cost_usd == 0


def test_a_reply_without_usage_is_charged_its_worst_case(sample_folder, tmp_path):
    out, prices = tmp_path / "gen", price_file(tmp_path)

    def answer(body):
        reply = completion(body, Reply("Prior work [1]."))
        del reply["usage"]
        return Reply(body=json.dumps(reply))

    with chat_server(answer) as server:
        assert generate(server, sample_folder, out, "--max-cost", "1.00", prices=prices, limit=12) == 3
    lines = ledger_lines(out)
    assert len(written(out)) == len(lines) == len(server.requests) > 0
    for line in lines:
        assert line["cost_source"] == "worst case" and line["cost_usd"] > 0.14
        assert line["usage_problem"] == "no usage in the reply"
    assert sum(x["cost_usd"] for x in lines) <= 1.00


def test_the_endpoint_cost_is_charged_even_when_another_usage_field_is_malformed(sample_folder, tmp_path):
    out = tmp_path / "gen"
    usage = {"prompt_tokens": -5, "completion_tokens": 10, "cost": 0.01}
    with chat_server(lambda body: Reply("Prior work [1].", usage=usage)) as server:
        assert generate(server, sample_folder, out, "--max-cost", "100", prices=price_file(tmp_path), limit=3) == 0
    lines = ledger_lines(out)
    assert len(lines) == len(written(out)) == 3
    for line in lines:
        assert line["cost_source"] == "endpoint" and line["cost_usd"] == 0.01
        assert line["usage_problem"] == "usage.prompt_tokens=-5"


@pytest.mark.parametrize("value", [".nan", ".inf", ".NaN"])
def test_a_price_that_is_not_a_finite_number_is_refused(sample_folder, tmp_path, capsys, value):
    prices = tmp_path / "prices.yaml"
    prices.write_text(f"models:\n  {MODEL}: {{input: 10.0, output: {value}}}\n")
    with chat_server(greedy()) as server:
        assert generate(server, sample_folder, tmp_path / "gen", "--max-cost", "0.50", prices=prices) == 2
    err = capsys.readouterr().err
    assert not server.requests and not (tmp_path / "gen" / "usage.jsonl").exists()
    assert f"price table {prices}: model '{MODEL}': field 'output' must be a finite number >= 0" in err


def test_amounts_print_as_a_person_reads_them():
    assert [usd(a) for a in (0.5, 0.045, 0.0, 1e-7, 2.3456789)] == ["$0.50", "$0.045", "$0.00", "$0.0000001",
                                                                    "$2.3456789"]


def lying(kind: str, *, delay: float = 0.1, cost: float = 1.5, times_the_limit: int = 2_441):
    """An endpoint that bills each request past what it allowed: ``tokens`` reports `times_the_limit` times its
    completion limit (5M for 2,048) and as many prompt tokens; ``cost`` reports 1,000 + 100 tokens (about $0.017
    at `PRICES`) and a ``usage.cost`` of `cost` USD."""

    def answer(body):
        if kind == "tokens":
            limit = body.get("max_tokens") or body.get("max_completion_tokens")
            return Reply("Prior work studied this problem [1].", delay=delay, prompt_tokens=limit * times_the_limit,
                         completion_tokens=limit * times_the_limit)
        return Reply("Prior work studied this problem [1].", delay=delay, prompt_tokens=1000, completion_tokens=100,
                     cost=cost)

    return answer


@pytest.mark.parametrize("kind", ["tokens", "cost"])
def test_replies_billed_past_their_reservation_exit_3_when_every_paper_fit_the_first_batch(
        sample_folder, tmp_path, capsys, caplog, kind):
    out = tmp_path / "gen"
    with chat_server(lying(kind, delay=0.3)) as server:
        assert generate(server, sample_folder, out, "--max-cost", "1.00", prices=price_file(tmp_path), limit=4) == 3
    lines = ledger_lines(out)
    # the four were in flight together: each is settled, recorded with both amounts, and its paper written
    assert len(server.requests) == len(lines) == len(written(out)) == 4 and server.max_in_flight == 4
    assert all(0 < x["reserved_usd"] < x["cost_usd"] for x in lines)
    why = "completion tokens for a limit of 2048" if kind == "tokens" else "its usage.cost $1.5000 is "
    assert all(why in x["overrun"] for x in lines)
    spent = sum(x["cost_usd"] for x in lines)
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"budget exceeded by ${spent - 1:.4f}: 4 replies were charged $") and why in last
    warnings = [r.getMessage() for r in caplog.records if r.getMessage().startswith("over budget:")]
    assert warnings and "generate request to budget-model (paper " in warnings[0]
    assert "reserved $" in warnings[0] and "and was charged $" in warnings[0]


@pytest.mark.parametrize("kind", ["tokens", "cost"])
def test_nothing_is_sent_after_a_reply_billed_past_its_reservation(sample_folder, tmp_path, capsys, kind):
    """One paper at a time, each reply about twice its reservation: the spend stays within the budget, but the
    reservation was broken, so nothing more is sent."""
    out = tmp_path / "gen"
    with chat_server(lying(kind, delay=0, cost=0.4, times_the_limit=3)) as server:
        assert generate(server, sample_folder, out, "--max-cost", "1.00", prices=price_file(tmp_path), limit=8,
                        concurrency=1) == 3
    [line] = ledger_lines(out)
    assert len(server.requests) == 1 and line["cost_usd"] > line["reserved_usd"] and line["cost_usd"] < 1
    printed = capsys.readouterr().out.strip().splitlines()
    assert "7 papers left undone (not sent)" in "\n".join(printed)
    assert "nothing more is sent once a reply costs more than its reservation: generate request to" in "\n".join(printed)
    assert printed[-1].startswith(f"budget kept (spent ${line['cost_usd']:.4f} of $1.00 in ")
    assert printed[-1].endswith("; nothing more was sent") and f"paper {written(out)[0]}" in printed[-1]


def test_an_endpoint_billing_above_the_table_makes_the_next_reservations_as_dear(sample_folder, tmp_path, capsys):
    """Each reply costs five times the table's price for its tokens, far within its reservation: the next
    reservation is priced five times the table too, and no longer fits the budget."""
    out = tmp_path / "gen"
    table = (100 * 10.0 + 10 * 70.0) / 1e6

    def answer(body):
        return Reply("Prior work studied this problem [1].", prompt_tokens=100, completion_tokens=10, cost=5 * table)

    with chat_server(answer) as server:
        assert generate(server, sample_folder, out, "--max-cost", "0.60", prices=price_file(tmp_path), limit=8,
                        concurrency=1) == 3
    [line] = ledger_lines(out)
    assert len(server.requests) == 1 and line["cost_usd"] < line["reserved_usd"] and "overrun" not in line
    printed = capsys.readouterr().out
    assert "priced 5.00 times the table as its endpoint bills" in printed and "budget exceeded" not in printed
