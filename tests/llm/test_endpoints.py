"""The LLM layer against endpoints that answer as the real providers do (`fakes.openai_server.like_real_endpoints`):
OpenAI's reasoning families refusing max_tokens and non-default temperatures, thinking models' traces, OpenRouter's
cost and in-body errors, dated snapshots; the capability table, the 400-and-retry path, and the usage ledger."""

from __future__ import annotations

import asyncio
import json

import pytest

from sciwrite.llm.backends import APIBackend, make_backend, parse_model_id, policy_for
from sciwrite.llm.capabilities import (
    CHAT,
    OPENAI_REASONING,
    RequestPolicy,
    capabilities_for,
    parse_model_option,
)
from sciwrite.llm.client import ChatClient
from sciwrite.llm.ledger import Price, PriceTable, Totals, UsageLedger
from sciwrite.llm.reasoning import split_reasoning
from sciwrite.llm.types import GenerationError, GenerationSettings
from tests.fakes.openai_server import SNAPSHOT_DATE, Reply, chat_server, completion, like_real_endpoints

KEY = "sk-test-SECRET-77aa11bb22"
FAST = GenerationSettings(backoff_base=0.01, backoff_max=0.05, max_retries=2, timeout=10)
MESSAGES = [{"role": "user", "content": "Write the related work."}]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    for name in ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "SCIWRITE_LLM_BASE_URL", "SCIWRITE_PRICES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", KEY)


def complete(backend: APIBackend, messages=MESSAGES, settings=FAST, n: int = 1):
    async def main():
        try:
            return [await backend.complete(messages, settings) for _ in range(n)]
        finally:
            await backend.aclose()

    return asyncio.run(main())


# ------------------------------------------------------------------------------------------- capability table


@pytest.mark.parametrize(("name", "family"), [
    ("gpt-5.5", OPENAI_REASONING), ("gpt-5", OPENAI_REASONING), ("gpt-5-mini", OPENAI_REASONING),
    ("o1", OPENAI_REASONING), ("o3-mini", OPENAI_REASONING), ("openai/o4-mini", OPENAI_REASONING),
    ("openai/gpt-5.5", OPENAI_REASONING), ("gpt-5-chat-latest", CHAT), ("gpt-4o", CHAT), ("gpt-4.1", CHAT),
    ("deepseek/deepseek-r1", CHAT), ("meta-llama/llama-4-maverick", CHAT), ("o1x", CHAT), ("gpt-50", CHAT),
])
def test_family_table(name, family):
    assert capabilities_for(name) is family


def test_reasoning_request_body_and_what_was_not_applied(caplog):
    policy = RequestPolicy("openai:gpt-5.5", "gpt-5.5", provider="openai")
    body = policy.request(MESSAGES, GenerationSettings(temperature=0.7, max_tokens=2048, seed=42), {"top_p": 0.9})
    assert body == {"model": "gpt-5.5", "messages": MESSAGES, "seed": 42, "max_completion_tokens": 25_000}
    policy.request(MESSAGES, GenerationSettings(temperature=0.7, max_tokens=2048, seed=42), {"top_p": 0.9})
    adjusted = {a["parameter"]: a for a in policy.adjustments()}
    assert set(adjusted) == {"temperature", "top_p", "max_tokens"}
    assert adjusted["temperature"]["requested"] == 0.7 and adjusted["temperature"]["sent"] is None
    assert (adjusted["max_tokens"]["sent_as"], adjusted["max_tokens"]["sent"]) == ("max_completion_tokens", 25_000)
    assert sum("temperature=0.7" in r.getMessage() for r in caplog.records) == 1  # printed once, not per request
    # the default temperature is no adjustment
    assert "temperature" not in policy.request(MESSAGES, GenerationSettings(temperature=1.0), None)


def test_model_options_override_the_table():
    options = dict(map(parse_model_option, ["reasoning_effort=high", "max_completion_tokens=4000", "temperature=1"]))
    body = RequestPolicy("openai:gpt-5.5", "gpt-5.5", options=options).request(MESSAGES, GenerationSettings(), None)
    assert (body["reasoning_effort"], body["max_completion_tokens"], body["temperature"]) == ("high", 4000, 1)
    assert "max_tokens" not in body
    classic = RequestPolicy("x", "gpt-4o", options={"temperature": None}).request(MESSAGES, GenerationSettings(), None)
    assert "temperature" not in classic and classic["max_tokens"] == 2048
    forced = RequestPolicy("x", "my-proxy-model", options={"family": "openai-reasoning"})
    assert "max_completion_tokens" in forced.request(MESSAGES, GenerationSettings(), None)
    routed = RequestPolicy("openrouter:openai/gpt-5.5", "openai/gpt-5.5", provider="openrouter",
                           options=dict([parse_model_option("provider={order: [openai], allow_fallbacks: false}"),
                                         parse_model_option("reasoning_effort=low")]))
    body = routed.request(MESSAGES, GenerationSettings(), None)
    assert body["provider"] == {"order": ["openai"], "allow_fallbacks": False}
    assert body["reasoning"] == {"effort": "low"} and body["max_tokens"] == 25_000 and "temperature" not in body


@pytest.mark.parametrize("text", ["no-equals", "=1", "bad key=1", "family=gpt"])
def test_bad_model_options_are_named(text):
    with pytest.raises(ValueError, match="model option"):
        parse_model_option(text)


# ------------------------------------------------------------------------------------- against the fake endpoints


def test_reasoning_model_answers_first_time_with_the_table():
    with chat_server(like_real_endpoints(lambda r: Reply("Prior work [1].", prompt_tokens=50, completion_tokens=10))) \
            as server:
        [result] = complete(make_backend("gpt-5.5", base_url=server.base_url))
    [sent] = server.requests
    assert "max_tokens" not in sent and "temperature" not in sent and sent["max_completion_tokens"] == 25_000
    assert result.text == "Prior work [1]." and result.snapshot == f"gpt-5.5-{SNAPSHOT_DATE}"
    assert (result.reasoning_tokens, result.completion_tokens, result.system_fingerprint) == (40, 50, "fp_2026a")


def test_without_the_table_the_endpoint_teaches_the_client_once(caplog):
    answer = like_real_endpoints(lambda r: "Prior work [1].")
    with chat_server(answer) as server:
        spec = parse_model_id("gpt-5.5", server.base_url)
        backend = APIBackend(spec, policy=policy_for(spec, families=()))
        results = complete(backend, n=3)
    assert [r.text for r in results] == ["Prior work [1]."] * 3
    # 400 max_tokens -> renamed, 400 temperature -> dropped, then it answers; later requests go right at once
    assert len(server.requests) == 3 + 2
    assert "max_tokens" in server.requests[0] and "max_completion_tokens" in server.requests[1]
    assert "temperature" not in server.requests[2] and results[0].attempts == 3 and results[1].attempts == 1
    learned = {a["parameter"]: a for a in backend.policy.adjustments()}
    assert learned["temperature"]["source"] == "endpoint" and "unsupported_value" in learned["temperature"]["reason"]
    assert learned["max_tokens"]["sent_as"] == "max_completion_tokens"
    assert "unsupported_parameter" in caplog.text and KEY not in caplog.text  # logged once, without the key


def test_a_refusal_that_cannot_be_adapted_fails_with_the_message():
    body = {"error": {"message": "Invalid 'messages[0].role': 'system' is not supported.", "type":
                      "invalid_request_error", "param": "messages[0].role", "code": "unsupported_value"}}
    with chat_server(lambda r: (400, body)) as server:
        with pytest.raises(GenerationError, match="HTTP 400: Invalid 'messages") as err:
            complete(make_backend("gpt-4o", base_url=server.base_url))
    assert len(server.requests) == 1 and err.value.status == 400


def test_thinking_model_trace_is_kept_apart():
    with chat_server(like_real_endpoints(lambda r: "The answer [2].")) as server:
        [result] = complete(make_backend("deepseek/deepseek-r1", base_url=server.base_url))
    assert result.text == "The answer [2]." and "<think>" not in result.text
    assert "[1] and [2]" in result.reasoning and result.cost is not None  # an OpenRouter-style id: usage.cost


def test_openrouter_sends_the_trace_in_reasoning_and_reasoning_details():
    with chat_server(like_real_endpoints(lambda r: "The answer [2].", trace="Weighing [1] against [2].")) as server:
        [result] = complete(make_backend("deepseek/deepseek-r1", base_url=server.base_url))
    message = server_reply(server)["choices"][0]["message"]
    assert message["content"] == "The answer [2]." and message["reasoning"] == "Weighing [1] against [2]."
    assert message["reasoning_details"][0] == {"type": "reasoning.text", "text": "Weighing [1] against [2].",
                                               "format": "unknown", "index": 0}
    assert result.text == "The answer [2]." and result.reasoning == "Weighing [1] against [2]."
    # a reply whose trace is only in reasoning_details (a summary, an encrypted part) still keeps it apart
    details = [{"type": "reasoning.summary", "summary": "Compared the candidates."},
               {"type": "reasoning.encrypted", "data": "gAAAAB..."}]
    with chat_server(lambda r: Reply("The answer [2].", reasoning_details=details)) as server:
        [result] = complete(make_backend("vendor/model", base_url=server.base_url))
    assert result.text == "The answer [2]." and result.reasoning == "Compared the candidates."


def server_reply(server) -> dict:
    """The JSON the fake answered the first request with (rebuilt from its script)."""
    body = server.requests[0]
    reply = server.answer(body)
    return completion(body, reply if isinstance(reply, Reply) else Reply(reply))


def test_a_reply_that_is_only_reasoning_says_so():
    trace = "<think>I will consider every candidate in turn and"
    with chat_server(lambda r: Reply(trace, finish_reason="length", completion_tokens=300)) as server:
        with pytest.raises(GenerationError, match="limit max_tokens=2048 was spent before any answer .the reply holds "
                                                  "only a reasoning trace.: raise it above 2048") as err:
            complete(make_backend("qwen3-32b", base_url=server.base_url))
    assert err.value.completion.completion_tokens == 300  # billed tokens are still known


@pytest.mark.parametrize(("content", "fields", "answer", "reasoning"), [
    ("<think>a [1]</think>\n\nThe text [2].", (), "The text [2].", "a [1]"),
    ("  <THINKING>x</THINKING>The text.", (), "The text.", "x"),
    ("a prompt-opened trace [3]</think>The text.", (), "The text.", "a prompt-opened trace [3]"),
    ("The text.<think>cut off by the limit [4]", (), "The text.", "cut off by the limit [4]"),
    ("One.<think>mid</think> Two.", (), "One. Two.", "mid"),
    ("The text.", ("from reasoning_content", None), "The text.", "from reasoning_content"),
    ("Plain <b>html</b> stays.", (), "Plain <b>html</b> stays.", None),
    (None, ("only a trace",), "", "only a trace"),
])
def test_split_reasoning(content, fields, answer, reasoning):
    assert split_reasoning(content, *fields) == (answer, reasoning)


def test_openrouter_error_in_a_200_body_is_retried_and_named(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    monkeypatch.setenv("SCIWRITE_OPENROUTER_TITLE", "sciwrite tests")
    upstream = json.dumps({"error": {"code": 502, "message": "Provider returned error",
                                     "metadata": {"provider_name": "Fireworks", "raw": "upstream overloaded"}}})
    replies = iter([Reply(body=upstream), Reply("Recovered [1].")])
    with chat_server(lambda r: next(replies)) as server:
        [result] = complete(make_backend("openrouter:meta-llama/llama-4-maverick", base_url=server.base_url))
    assert result.text == "Recovered [1]." and result.attempts == 2
    assert server.headers[0]["x-title"] == "sciwrite tests" and "http-referer" not in server.headers[0]
    refused = json.dumps({"error": {"code": 400, "message": "Bad input", "metadata": {"provider_name": "Fireworks",
                                                                                      "raw": "context too long"}}})
    with chat_server(lambda r: Reply(body=refused)) as server:
        with pytest.raises(GenerationError, match="Bad input.*Fireworks: context too long"):
            complete(make_backend("openrouter:meta-llama/llama-4-maverick", base_url=server.base_url))
    assert len(server.requests) == 1


# ---------------------------------------------------------------------------------------------------- the ledger


def test_price_table_and_lookup(tmp_path):
    table = PriceTable.load()
    assert table.lookup("openai:gpt-5.5", "gpt-5.5")[0] == "gpt-5.5"
    assert table.lookup(None, "gpt-5.5-2026-04-23")[0] == "gpt-5.5"  # a dated snapshot falls back to its family
    assert Price(5.0, 30.0, 0.5).cost(1_000_000, 100_000, cached=200_000) == pytest.approx(4.0 + 0.1 + 3.0)
    mine = tmp_path / "prices.yaml"
    mine.write_text("models:\n  my-model: {input: 1, output: 2}\n  gpt-5.5: {input: 1, output: 1}\n")
    table = PriceTable.load(mine)
    assert table.prices["gpt-5.5"] == Price(1.0, 1.0) and table.lookup("my-model")[1].output == 2.0
    mine.write_text("models:\n  broken: {input: cheap, output: 2}\n")
    with pytest.raises(ValueError, match="model 'broken': field 'input'"):
        PriceTable.load(mine)


def test_ledger_sums_equal_what_the_server_reported(tmp_path):
    served = []

    def answer(body):
        reply = Reply("A [1].", prompt_tokens=100 + len(served), completion_tokens=20)
        served.append(reply)
        return reply

    ledger = UsageLedger(tmp_path / "usage.jsonl")
    with chat_server(like_real_endpoints(answer)) as server:
        for model in ("gpt-5.5", "openai/gpt-4o"):
            client = ChatClient(model, base_url=server.base_url, ledger=ledger, purpose="judge")
            results = client.complete([[{"role": "user", "content": f"q{i}"}] for i in range(5)], show_progress=False)
            assert all(r.ok for r in results)
    lines = [json.loads(x) for x in (tmp_path / "usage.jsonl").read_text().splitlines()]
    assert len(lines) == 10 == ledger.session.requests
    assert ledger.session.prompt_tokens == sum(r.prompt_tokens for r in served)
    assert ledger.session.completion_tokens == sum(r.completion_tokens for r in served)
    assert ledger.session.reasoning_tokens == 5 * 40
    by_source = {x["cost_source"] for x in lines if x["model"] == "gpt-5.5"}, \
        {x["cost_source"] for x in lines if x["model"] == "openai/gpt-4o"}
    assert by_source == ({"price table"}, {"endpoint"})
    expected = sum(Price(5.0, 30.0).cost(x["prompt_tokens"], x["completion_tokens"]) for x in lines
                   if x["model"] == "gpt-5.5") + sum(r.cost for r in served if r.cost is not None)
    assert ledger.session.cost_usd == pytest.approx(expected)
    assert Totals.from_file(tmp_path / "usage.jsonl").as_dict() == ledger.total.as_dict()
    assert KEY not in (tmp_path / "usage.jsonl").read_text()


def test_judge_cache_keeps_the_snapshot_and_a_new_one_is_visible(tmp_path):
    from sciwrite.core.paper_row import typed_rows
    from sciwrite.metrics.judge import snapshot_counts
    from sciwrite.rwgbench.metrics.judge import judge_sections
    from sciwrite.rwgbench.metrics.row_fields import JUDGE_SNAPSHOT, JUDGE_SYSTEM_FINGERPRINT

    snapshot = {"name": "gpt-5.5-2026-04-23"}
    answer = like_real_endpoints(lambda r: Reply('{"score": 4, "rationale": "ok"}', model=snapshot["name"]))
    cache = tmp_path / "judge.jsonl"
    with chat_server(answer) as server:
        client = ChatClient("gpt-5.5", base_url=server.base_url, cache_path=cache)
        first = judge_sections(["Section one."], client, show_progress=False)
        snapshot["name"] = "gpt-5.5-2026-09-30"
        client = ChatClient("gpt-5.5", base_url=server.base_url, cache_path=cache)
        rows = judge_sections(["Section one.", "Section two."], client, show_progress=False)
    assert first[0]["judge_snapshot"] == "gpt-5.5-2026-04-23" and len(server.requests) == 2
    assert snapshot_counts(typed_rows(rows), JUDGE_SNAPSHOT) == {"gpt-5.5-2026-04-23": 1, "gpt-5.5-2026-09-30": 1}
    assert snapshot_counts(typed_rows(rows), JUDGE_SYSTEM_FINGERPRINT) == {"fp_2026a": 2}
    assert client.provenance()["snapshots"] == {"gpt-5.5-2026-04-23": 1, "gpt-5.5-2026-09-30": 1}
    assert all(r["seed"] == 42 and "temperature" not in r for r in server.requests)
    record = json.loads(cache.read_text().splitlines()[0])
    assert (record["snapshot"], record["system_fingerprint"]) == ("gpt-5.5-2026-04-23", "fp_2026a")


def test_a_ledger_cut_off_by_a_crash_goes_on_on_a_new_line(tmp_path):
    from sciwrite.llm.types import Completion

    path = tmp_path / "usage.jsonl"
    path.write_text('{"purpose": "generate", "cost_usd": 0.5}\n{"purpose": "gen')  # the crash cut the last line
    ledger = UsageLedger(path)
    assert ledger.total.requests == 1 and ledger.total.cost_usd == 0.5  # the cut line is not counted
    ledger.record(Completion("x", "gpt-5.5", 10, 2), model="gpt-5.5", purpose="judge")
    lines = path.read_text().splitlines()
    assert lines[1] == '{"purpose": "gen' and json.loads(lines[2])["purpose"] == "judge"
    assert UsageLedger(path).total.requests == 2


def test_a_judge_client_never_spends_past_its_ledger_budget(tmp_path):
    prices = PriceTable({"judge-model": Price(input=10.0, output=70.0)}, ["test"])
    ledger = UsageLedger(tmp_path / "usage.jsonl", prices=prices, max_cost=0.5)

    def greedy(body):  # the whole completion limit spent, the prompt billed at a token per byte
        return Reply('{"score": 4}', delay=0.05, prompt_tokens=len(body["messages"][0]["content"]),
                     completion_tokens=body["max_tokens"])

    with chat_server(greedy) as server:
        client = ChatClient("judge-model", base_url=server.base_url, max_retries=0, ledger=ledger)
        results = client.complete([[{"role": "user", "content": f"Rate text {i}."}] for i in range(24)],
                                  max_tokens=2048, workers=8, show_progress=False)
    lines = [json.loads(x) for x in (tmp_path / "usage.jsonl").read_text().splitlines()]
    assert sum(x["cost_usd"] for x in lines) <= 0.5 and len(lines) == len(server.requests) > 1
    assert server.max_in_flight > 1  # still concurrent while the budget has room
    refused = [r.error for r in results if not r.ok]
    assert len(refused) == 24 - len(lines) and all(e.startswith("not sent: $") for e in refused)
