"""Tool calling through the API backend and `PaperLLM`, against the fake OpenAI-compatible server: tool calls read
from a reply (content null, arguments given as an object, ids missing), the assistant message sent back as the
history needs it (OpenRouter's reasoning_details kept, DeepSeek's reasoning_content kept on a tool-call turn only,
fields a request may be refused for left out), servers that refuse tool_choice or tools (vLLM, Ollama, OpenRouter),
and the budget: the tools' JSON counts in the worst case, and a tool-call reply is charged like any other."""

from __future__ import annotations

import asyncio
import json

import pytest

from sciwrite.generation.runner import PaperLLM, prompt_text
from sciwrite.llm.backends import APIBackend, make_backend
from sciwrite.llm.capabilities import RequestPolicy
from sciwrite.llm.ledger import (
    MESSAGE_OVERHEAD_TOKENS,
    REQUEST_OVERHEAD_TOKENS,
    TOOLS_OVERHEAD_TOKENS,
    Price,
    PriceTable,
    UsageLedger,
    prompt_token_bound,
)
from sciwrite.llm.types import BudgetExceededError, GenerationError, GenerationSettings, ToolCall
from tests.fakes.openai_server import Reply, chat_server, like_real_endpoints, without_tool_calling

KEY = "sk-test-SECRET-tools-5e6f7a8b"
FAST = GenerationSettings(backoff_base=0.01, backoff_max=0.05, max_retries=2, timeout=10, temperature=0.0)
USER = {"role": "user", "content": "Find the papers to cite."}
TOOLS = [
    {"type": "function", "function": {"name": "search", "description": "Search the corpus.",
                                      "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                                                     "required": ["query"]}}},
    {"type": "function", "function": {"name": "read", "description": "Read one paper.",
                                      "parameters": {"type": "object", "properties": {"doc_id": {"type": "string"}},
                                                     "required": ["doc_id"]}}},
]
SEARCH = {"id": "call_a1", "name": "search", "arguments": '{"query": "dense retrieval"}'}


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    for name in ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "SCIWRITE_LLM_BASE_URL", "SCIWRITE_PRICES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", KEY)


def run_llm(server, steps, model: str = "test-model", ledger: UsageLedger | None = None):
    """Run `steps(llm)` (an async function of a fresh `PaperLLM` on `model` at `server`); its result and the llm."""

    async def main():
        backend = make_backend(model, base_url=server.base_url)
        llm = PaperLLM(backend, FAST, asyncio.Semaphore(4), ledger, {"paper_id": "p1", "run": "test"})
        try:
            return await steps(llm), llm, backend
        finally:
            await backend.aclose()

    return asyncio.run(main())


def tool_result(call: ToolCall, content: str) -> dict[str, str]:
    return {"role": "tool", "tool_call_id": call.id, "content": content}


# ------------------------------------------------------------------------------------------- reading a reply


def test_a_reply_with_tool_calls_and_null_content_is_a_completion_with_a_sendable_message():
    with chat_server(lambda body: Reply(tool_calls=[SEARCH])) as server:
        result, llm, _ = run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS, tool_choice="auto"))
    assert result.text == "" and result.finish_reason == "tool_calls"
    assert result.tool_calls == (ToolCall("call_a1", "search", '{"query": "dense retrieval"}'),)
    assert result.message == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_a1", "type": "function", "function": {"name": "search", "arguments": '{"query": "dense retrieval"}'}}]}
    body = server.requests[0]
    assert body["tools"] == TOOLS and body["tool_choice"] == "auto" and body["messages"] == [USER]
    assert llm.requests == 1 and llm.tools_refused is False


def test_the_history_with_assistant_and_tool_messages_is_sent_as_it_is():
    replies = iter([Reply(tool_calls=[SEARCH, {"id": "call_b2", "name": "read", "arguments": '{"doc_id": "d7"}'}]),
                    Reply("Prior work [1] retrieves densely.")])

    async def steps(llm):
        first = await llm.complete([USER], tools=TOOLS)
        history = [USER, first.message, *(tool_result(c, f"results of {c.name}") for c in first.tool_calls)]
        second = await llm.complete(history, tools=TOOLS)
        return history, second

    with chat_server(lambda body: next(replies)) as server:
        (history, second), llm, _ = run_llm(server, steps)
    sent = server.requests[1]["messages"]
    assert sent == history  # exactly as built: nothing added, nothing dropped
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in sent[2:]] == ["call_a1", "call_b2"]
    assert "tool_choice" not in server.requests[1]  # none asked: none sent
    assert second.text == "Prior work [1] retrieves densely." and second.tool_calls == ()
    assert second.message == {"role": "assistant", "content": "Prior work [1] retrieves densely."}
    assert llm.requests == 2


def test_arguments_sent_as_an_object_and_missing_ids_are_normalised():
    calls = [{"type": "function", "function": {"name": "search", "arguments": {"query": "bm25", "k": 5}}},
             {"id": "dup", "type": "function", "function": {"name": "read", "arguments": '{"doc_id": "d1"}'}},
             {"id": "dup", "type": "function", "function": {"name": "read", "arguments": '{"doc_id": "d2"}'}},
             {"id": "x", "type": "function", "function": {"name": "read"}},
             {"id": "y", "type": "function", "function": {"arguments": "{}"}}]  # no name: cannot be answered
    with chat_server(lambda body: Reply(content="", tool_calls=calls)) as server:
        result, _, _ = run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS))
    assert [c.id for c in result.tool_calls] == ["call_0", "dup", "call_2", "x"]
    assert json.loads(result.tool_calls[0].arguments) == {"query": "bm25", "k": 5}
    assert isinstance(result.tool_calls[0].arguments, str) and result.tool_calls[3].arguments == "{}"
    assert [c["function"]["arguments"] for c in result.message["tool_calls"]] == [
        c.arguments for c in result.tool_calls]
    assert result.message["content"] == ""  # an empty string stays one (null stays null)


def test_malformed_arguments_are_passed_on_raw():
    bad = {"id": "c9", "name": "search", "arguments": '{"query": "unterminated'}
    with chat_server(lambda body: Reply(tool_calls=[bad])) as server:
        result, _, _ = run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS))
    assert result.tool_calls == (ToolCall("c9", "search", '{"query": "unterminated'),)


def test_a_think_block_is_stripped_from_the_message_sent_back():
    reply = Reply("<think>I should search first.</think>\n\nLet me search.", tool_calls=[SEARCH])
    with chat_server(lambda body: reply) as server:
        result, _, _ = run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS))
    assert result.text == "Let me search." and result.reasoning == "I should search first."
    assert result.message["content"] == "Let me search." and "reasoning_content" not in result.message


def test_fields_a_request_may_be_refused_for_are_left_out_of_the_message():
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "test-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None, "message": {
                "role": "assistant", "content": None, "refusal": None, "annotations": [], "audio": None,
                "function_call": None, "tool_calls": [{"id": "c1", "type": "function",
                                                       "function": {"name": "read", "arguments": '{"doc_id": "d"}'}}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2}}
    with chat_server(lambda _: Reply(body=json.dumps(body))) as server:
        result, _, _ = run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS))
    assert set(result.message) == {"role", "content", "tool_calls"}


def test_a_reply_with_neither_text_nor_tool_calls_is_still_an_error():
    with chat_server(lambda body: Reply(content=None, finish_reason="tool_calls")) as server, \
            pytest.raises(GenerationError, match="answered with nothing"):
        run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS))


# ------------------------------------------------------------------------------------- reasoning between turns


def test_openrouter_reasoning_details_are_kept_unchanged_and_sent_back():
    details = [{"type": "reasoning.encrypted", "data": "gAAAAB-opaque", "id": "rs_1", "format": "openai-responses-v1",
                "index": 0}, {"type": "reasoning.summary", "summary": "Search for dense retrieval.", "index": 1}]
    replies = iter([Reply(tool_calls=[SEARCH], reasoning="Search for dense retrieval.", reasoning_details=details),
                    Reply("Done [1].")])

    async def steps(llm):
        first = await llm.complete([USER], tools=TOOLS)
        await llm.complete([USER, first.message, tool_result(first.tool_calls[0], "d1: Dense Passage Retrieval")],
                           tools=TOOLS)
        return first

    with chat_server(lambda body: next(replies)) as server:
        first, _, _ = run_llm(server, steps, model="openai/gpt-5.5")
    assert first.message["reasoning_details"] == details and "reasoning" not in first.message
    assert first.reasoning == "Search for dense retrieval."  # the readable summary, for the trace
    assert server.requests[1]["messages"][1]["reasoning_details"] == details


def test_openrouter_style_thinking_model_through_like_real_endpoints():
    replies = iter([Reply(tool_calls=[SEARCH]), Reply("Done [1].")])

    async def steps(llm):
        first = await llm.complete([USER], tools=TOOLS)
        second = await llm.complete([USER, first.message, tool_result(first.tool_calls[0], "d1")], tools=TOOLS)
        return first, second

    with chat_server(like_real_endpoints(lambda body: next(replies), trace="Which papers?")) as server:
        (first, second), _, _ = run_llm(server, steps, model="deepseek/deepseek-r1")
    assert first.message["reasoning_details"][0]["text"] == "Which papers?"
    assert "reasoning" not in first.message and "reasoning_content" not in first.message
    assert second.text == "Done [1]." and set(second.message) == {"role", "content", "reasoning_details"}


def test_deepseek_reasoning_content_is_sent_back_on_a_tool_call_turn_only():
    """DeepSeek's thinking mode answers 400 when a tool-call turn comes back without its reasoning_content (the fake
    does too); a turn without tool calls does not need it, and the message carries none."""
    replies = iter([Reply(tool_calls=[SEARCH]), Reply("Done [1]."), Reply(tool_calls=[SEARCH])])

    async def steps(llm):
        first = await llm.complete([USER], tools=TOOLS)
        second = await llm.complete([USER, first.message, tool_result(first.tool_calls[0], "d1")], tools=TOOLS)
        third = await llm.complete([USER], tools=TOOLS)
        stripped = {k: v for k, v in third.message.items() if k != "reasoning_content"}
        with pytest.raises(GenerationError, match="reasoning_content"):
            await llm.complete([USER, stripped, tool_result(third.tool_calls[0], "d1")], tools=TOOLS)
        return first, second

    with chat_server(like_real_endpoints(lambda body: next(replies), trace="Search first.")) as server:
        (first, second), _, _ = run_llm(server, steps, model="deepseek-r1")
    assert first.message["reasoning_content"] == "Search first." and first.reasoning == "Search first."
    assert server.requests[1]["messages"][1]["reasoning_content"] == "Search first."
    assert second.text == "Done [1]." and second.message == {"role": "assistant", "content": "Done [1]."}
    assert len(server.requests) == 4  # the stripped history was refused once, not retried


# ------------------------------------------------------------------------------------------ refused parameters


def test_a_refused_tool_choice_is_dropped_and_recorded():
    def answer(body):
        if "tool_choice" in body:
            return 400, {"error": {"message": "Invalid value: 'required'. This model does not support it.",
                                   "type": "invalid_request_error", "param": "tool_choice", "code": "invalid_value"}}
        return Reply(tool_calls=[SEARCH])

    async def steps(llm):
        await llm.complete([USER], tools=TOOLS, tool_choice="required")
        return await llm.complete([USER], tools=TOOLS, tool_choice="required")

    with chat_server(answer) as server:
        result, llm, backend = run_llm(server, steps)
    assert [("tool_choice" in b, "tools" in b) for b in server.requests] == [(True, True), (False, True), (False, True)]
    assert result.tool_calls == (ToolCall(*SEARCH.values()),) and llm.tools_refused is False
    (adjustment,) = backend.policy.describe()["adjustments"]
    assert (adjustment["parameter"], adjustment["requested"], adjustment["sent"]) == ("tool_choice", "required", None)
    assert adjustment["source"] == "endpoint"
    assert result.attempts == 1  # the second call was built without it from the start


@pytest.mark.parametrize(("server_kind", "requests"), [
    ("vllm", [(True, True), (False, True), (False, False)]),  # tool choice refused, then tools (auto by default)
    ("ollama", [(True, True), (False, False)]),
    ("openrouter", [(True, True), (False, False)]),  # OpenRouter says so with a 404
])
def test_a_server_that_refuses_tools_is_sent_none_and_the_method_is_told(server_kind, requests):
    answer = without_tool_calling(lambda body: Reply("Prior work [1]."), server_kind)

    async def steps(llm):
        first = await llm.complete([USER], tools=TOOLS, tool_choice="auto")
        assert llm.tools_refused
        await llm.complete([USER], tools=TOOLS)  # later requests are built without tools from the start
        return first

    with chat_server(answer) as server:
        first, llm, backend = run_llm(server, steps)
    assert [("tool_choice" in b, "tools" in b) for b in server.requests] == [*requests, (False, False)]
    assert first.text == "Prior work [1]." and first.tool_calls == () and first.attempts == len(requests)
    adjusted = {a["parameter"]: a for a in backend.policy.describe()["adjustments"]}
    assert adjusted["tools"]["requested"] == ["search", "read"] and adjusted["tools"]["sent"] is None
    assert backend.policy.refused("tools") and backend.policy.refused("tool_choice")


def test_plain_requests_never_report_refused_tools():
    with chat_server(without_tool_calling(lambda body: "Plain.", "ollama")) as server:
        text, llm, _ = run_llm(server, lambda llm: llm([USER]))
    assert text == "Plain." and llm.tools_refused is False and "tools" not in server.requests[0]


@pytest.mark.parametrize(("param", "message"), [
    ("tools[0].function.parameters", "Invalid schema for function 'search': 'object' is not valid under any of the "
                                     "given schemas."),
    ("messages.[1].role", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                          "with 'tool_calls'."),
    (None, "1 validation error: tools.0.function.name Field required"),
])
def test_a_malformed_request_is_not_mistaken_for_refused_tools(param, message):
    refusal = {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}
    with chat_server(lambda body: (400, refusal)) as server, pytest.raises(GenerationError, match="HTTP 400"):
        run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS))
    assert len(server.requests) == 1


def test_the_policy_adapts_to_tool_refusals_in_their_own_words():
    policy = RequestPolicy("m", "m")
    body = {"model": "m", "messages": [USER], "tools": TOOLS, "tool_choice": "auto"}
    assert policy.adapt(body, 404, 404, None, "No endpoints found that support the provided 'tool_choice' value. To "
                                               "learn more about provider routing, visit: ...") == "tool_choice"
    assert policy.adapt(body, 404, 404, None, "No endpoints found for m.") is None  # about the model: no refusal
    rebuilt = policy.request([USER], FAST, {"tools": TOOLS, "tool_choice": "auto"})
    assert "tool_choice" not in rebuilt and rebuilt["tools"] == TOOLS
    assert policy.adapt(rebuilt, 400, None, None, "This model does not support function calling") == "tools"
    assert "tools" not in policy.request([USER], FAST, {"tools": TOOLS})


# ------------------------------------------------------------------------------------------------- the budget


def test_the_prompt_bound_counts_the_tools_and_the_tool_turns():
    user = {"role": "user", "content": "abc"}  # 4 + 3 bytes
    tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    # json.dumps(tool): '{"type": "function", "function": {"name": "f", "parameters": {}}}', 65 bytes
    assert prompt_token_bound([user]) == REQUEST_OVERHEAD_TOKENS + MESSAGE_OVERHEAD_TOKENS + 7 == 79
    assert prompt_token_bound([user], [tool]) == 79 + TOOLS_OVERHEAD_TOKENS + MESSAGE_OVERHEAD_TOKENS + 65
    call = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    # the role (9 bytes), '{"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments":
    # "{}"}}]}' (95 bytes), one call's overhead
    assert prompt_token_bound([call]) - REQUEST_OVERHEAD_TOKENS == MESSAGE_OVERHEAD_TOKENS + 9 + 95 + 8
    result = {"role": "tool", "tool_call_id": "c", "content": "abc"}  # 4 + 3, '{"tool_call_id": "c"}' 21 bytes
    assert prompt_token_bound([result]) - REQUEST_OVERHEAD_TOKENS == MESSAGE_OVERHEAD_TOKENS + 7 + 21


def budget_ledger(tmp_path, max_cost: float) -> UsageLedger:
    """A ledger where a prompt token costs $1 and a completion token nothing, so a reservation is its prompt bound."""
    prices = PriceTable({"test-model": Price(input=1_000_000.0, output=0.0)}, ["test"])
    return UsageLedger(tmp_path / "usage.jsonl", prices=prices, max_cost=max_cost)


def test_the_reservation_grows_with_the_tools_json(tmp_path):
    without = prompt_token_bound([USER])
    with_tools = prompt_token_bound([USER], TOOLS)
    assert with_tools - without == TOOLS_OVERHEAD_TOKENS + sum(
        MESSAGE_OVERHEAD_TOKENS + len(json.dumps(t).encode()) for t in TOOLS)
    ledger = budget_ledger(tmp_path, max_cost=(without + with_tools) / 2)  # room for the plain request only
    assert ledger.worst_case("test-model", [USER], 10).cost_usd == pytest.approx(without)
    assert ledger.worst_case("test-model", [USER], 10, TOOLS).cost_usd == pytest.approx(with_tools)

    async def steps(llm):
        with pytest.raises(BudgetExceededError, match=f"{with_tools} prompt tokens at most"):
            await llm.complete([USER], tools=TOOLS)
        return await llm([USER])

    with chat_server(lambda body: Reply("Plain.", prompt_tokens=3, completion_tokens=1)) as server:
        text, _, _ = run_llm(server, steps, ledger=ledger)
    assert text == "Plain." and len(server.requests) == 1 and "tools" not in server.requests[0]


def test_a_tool_call_reply_is_counted_and_charged(tmp_path):
    ledger = budget_ledger(tmp_path, max_cost=10_000.0)
    with chat_server(lambda body: Reply(tool_calls=[SEARCH], prompt_tokens=50, completion_tokens=7)) as server:
        result, llm, _ = run_llm(server, lambda llm: llm.complete([USER], tools=TOOLS), ledger=ledger)
    assert result.tool_calls and llm.usage() == {"requests": 1, "prompt_tokens": 50, "completion_tokens": 7,
                                                 "reasoning_tokens": 0, "cost_usd": 50.0}
    (line,) = [json.loads(x) for x in (tmp_path / "usage.jsonl").read_text().splitlines()]
    assert (line["prompt_tokens"], line["completion_tokens"], line["cost_usd"], line["cost_source"]) == (
        50, 7, 50.0, "price table")
    assert (line["purpose"], line["paper_id"], line["model"]) == ("generate", "p1", "test-model")


# ------------------------------------------------------------------------------------------------ the edges


def test_prompt_text_shows_a_tool_turn_without_failing():
    history = [USER, {"role": "assistant", "content": None, "tool_calls": []},
               {"role": "tool", "tool_call_id": "c", "content": "d1"}]
    assert prompt_text(history) == f"[user]\n{USER['content']}\n\n[assistant]\n\n\n[tool]\nd1"


def test_the_api_backend_takes_tools_in_params_directly():
    with chat_server(lambda body: Reply(tool_calls=[SEARCH])) as server:
        async def main():
            backend = make_backend("test-model", base_url=server.base_url)
            assert isinstance(backend, APIBackend)
            try:
                return await backend.complete([USER], FAST, params={"tools": TOOLS, "tool_choice": None})
            finally:
                await backend.aclose()

        result = asyncio.run(main())
    assert result.tool_calls[0].name == "search" and "tool_choice" not in server.requests[0]
