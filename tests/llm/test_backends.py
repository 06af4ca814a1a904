"""The API backend of the generation runner against a real local HTTP server through the real `openai` client:
model ids, keys (never leaked), retries with Retry-After, dropped connections, empty answers, defaults, and the
concurrency limit."""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import time

import httpx
import pytest

from sciwrite.generation.runner import Generated, PaperLLM, prompt_text, run_generation
from sciwrite.llm.backends import APIBackend, backoff_seconds, make_backend, parse_model_id, retry_after_seconds
from sciwrite.llm.types import Completion, GenerationError, GenerationSettings
from sciwrite.models.registry import ModelUnavailableError
from tests.fakes.openai_server import Reply, chat_server

KEY = "sk-test-SECRET-4f9a2c7e1b"
KEY_VARIABLES = ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "SCIWRITE_LLM_API_KEY")
# Fast retries: the back-off, when used, waits a few milliseconds.
FAST = GenerationSettings(backoff_base=0.01, backoff_max=0.05, max_retries=3, timeout=10)
MESSAGES = [{"role": "user", "content": "Write the related work."}]


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("SCIWRITE_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", KEY)


def complete(server, settings: GenerationSettings = FAST, messages=MESSAGES, waits: list[float] | None = None) -> Completion:
    """One request through a fresh backend; with `waits`, retries do not sleep but record how long they would."""

    async def record(seconds: float) -> None:
        waits.append(seconds)

    async def main() -> Completion:
        backend = make_backend("test-model", base_url=server.base_url)
        if waits is not None:
            backend.sleep = record
        try:
            return await backend.complete(messages, settings)
        finally:
            await backend.aclose()

    return asyncio.run(main())


# ------------------------------------------------------------------------------------------------ model ids


def test_parse_model_id_forms(monkeypatch):
    spec = parse_model_id("openrouter:deepseek/deepseek-chat-v3-0324")
    assert (spec.kind, spec.name, spec.base_url, spec.key_variable) == (
        "api", "deepseek/deepseek-chat-v3-0324", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY")
    spec = parse_model_id("openai:gpt-4o")
    assert (spec.name, spec.base_url, spec.key_variable) == ("gpt-4o", "https://api.openai.com/v1", "OPENAI_API_KEY")
    assert parse_model_id("openai:gpt-4o", "http://proxy/v1").base_url == "http://proxy/v1"
    spec = parse_model_id("hf:Qwen/Qwen2.5-0.5B-Instruct")
    assert (spec.kind, spec.name, spec.base_url) == ("hf", "Qwen/Qwen2.5-0.5B-Instruct", None)
    spec = parse_model_id("meta-llama/Llama-3.1-8B-Instruct", "http://127.0.0.1:8000/v1")
    assert (spec.kind, spec.name, spec.base_url, spec.key_variable) == (
        "api", "meta-llama/Llama-3.1-8B-Instruct", "http://127.0.0.1:8000/v1", "SCIWRITE_LLM_API_KEY")
    # a colon in a bare id served by a custom server (e.g. "llama3:8b") is part of the name
    assert parse_model_id("llama3:8b", "http://127.0.0.1:8000/v1").name == "llama3:8b"
    monkeypatch.setenv("SCIWRITE_LLM_BASE_URL", "http://127.0.0.1:9000/v1")
    assert parse_model_id("my-model").base_url == "http://127.0.0.1:9000/v1"


@pytest.mark.parametrize(("model", "message"), [
    ("anthropic:claude-3", "unknown model provider 'anthropic'"),
    ("gpt-4o", "names no provider.*--base-url"),
    ("deepseek/deepseek-chat-v3-0324", "names no provider"),
    ("hf:", "after 'hf:'"),
    ("openrouter:", "after 'openrouter:'"),
    ("", "a model id is required"),
])
def test_parse_model_id_errors(model, message):
    with pytest.raises(ValueError, match=message):
        parse_model_id(model)
    with pytest.raises(ValueError, match=message):
        make_backend(model)


@pytest.mark.parametrize(("model", "variable"), [
    ("openrouter:deepseek/deepseek-chat-v3-0324", "OPENROUTER_API_KEY"),
    ("openai:gpt-4o", "OPENAI_API_KEY"),
    ("local-model", "SCIWRITE_LLM_API_KEY"),
])
def test_missing_key_names_the_variable(monkeypatch, model, variable):
    for name in KEY_VARIABLES:
        monkeypatch.setenv(name, KEY)
    monkeypatch.setenv(variable, "  ")  # blank counts as missing
    with pytest.raises(ModelUnavailableError, match=f"set the environment variable {variable}") as info:
        make_backend(model, base_url=None if ":" in model else "http://127.0.0.1:1/v1")
    assert KEY not in str(info.value)


def test_backend_repr_hides_key():
    backend = make_backend("m", base_url="http://127.0.0.1:1/v1")
    assert isinstance(backend, APIBackend) and KEY not in repr(backend) and KEY not in str(backend)


# ------------------------------------------------------------------------------------------------ requests


def test_success_with_usage_and_paper_defaults():
    with chat_server(lambda r: Reply("A related-work section.", prompt_tokens=123, completion_tokens=45)) as server:
        result = complete(server, GenerationSettings())
    assert result == Completion("A related-work section.", "test-model", 123, 45, "stop", 1, snapshot="test-model",
                                message={"role": "assistant", "content": "A related-work section."})
    request = server.requests[0]
    assert request["model"] == "test-model" and request["messages"] == MESSAGES
    assert (request["temperature"], request["max_tokens"], request["seed"]) == (0.7, 2048, 42)
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"


def test_provider_prefix_is_not_sent_and_seed_none_is_omitted(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-other-key-123")
    with chat_server(lambda r: "ok") as server:
        async def main() -> Completion:
            backend = make_backend("openrouter:deepseek/deepseek-chat-v3-0324", base_url=server.base_url)
            assert backend.model == "openrouter:deepseek/deepseek-chat-v3-0324"
            try:
                return await backend.complete(MESSAGES, GenerationSettings(seed=None, temperature=0.0, max_tokens=9))
            finally:
                await backend.aclose()

        result = asyncio.run(main())
    assert result.model == "openrouter:deepseek/deepseek-chat-v3-0324"
    request = server.requests[0]
    assert request["model"] == "deepseek/deepseek-chat-v3-0324" and "seed" not in request
    assert (request["temperature"], request["max_tokens"]) == (0.0, 9)
    assert server.headers[0]["authorization"] == "Bearer sk-or-other-key-123"


def scripted(*replies):
    """Answers in order; the last one repeats."""
    queue = list(replies)

    def answer(request):
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return answer


def test_429_with_retry_after_is_honoured():
    # the back-off would wait 5-10 s: the wait asked for by Retry-After is what is waited instead
    slow_backoff = GenerationSettings(backoff_base=10, backoff_max=10, max_retries=2, timeout=10)
    rate_limited = Reply(status=429, body='{"error": {"message": "rate limited"}}', headers={"Retry-After": "1"})
    waits: list[float] = []
    with chat_server(scripted(rate_limited, "fine")) as server:
        result = complete(server, slow_backoff, waits=waits)
    assert result.text == "fine" and result.attempts == 2 and len(server.requests) == 2
    assert waits == [1.0]


def test_retry_after_ms_and_5xx_retried():
    error = Reply(status=500, body='{"error": {"message": "overloaded"}}', headers={"retry-after-ms": "20"})
    with chat_server(scripted(error, error, "third time")) as server:
        result = complete(server)
    assert result.text == "third time" and result.attempts == 3 and len(server.requests) == 3
    assert all(b - a >= 0.015 for a, b in zip(server.times, server.times[1:]))


def test_dropped_connection_is_retried():
    with chat_server(scripted(Reply(close=True), Reply(close=True), "after the drop")) as server:
        result = complete(server)
    assert result.text == "after the drop" and result.attempts == 3


def test_timeout_is_retried_then_fails():
    with (
        chat_server(lambda r: Reply("late", delay=0.6)) as server,
        pytest.raises(GenerationError, match="APITimeoutError.*after 2 attempts") as info,
    ):
        complete(server, GenerationSettings(timeout=0.2, max_retries=1, backoff_base=0.01))
    assert info.value.attempts == 2


def test_persistent_500_fails_after_all_attempts():
    with (
        chat_server(lambda r: (500, '{"error": {"message": "down"}}')) as server,
        pytest.raises(GenerationError, match=r"HTTP 500.*down.*after 4 attempts") as info,
    ):
        complete(server)
    assert info.value.attempts == FAST.max_retries + 1 == len(server.requests) and info.value.status == 500


def test_client_errors_are_not_retried():
    with (
        chat_server(lambda r: (400, '{"error": {"message": "bad model"}}')) as server,
        pytest.raises(GenerationError, match="HTTP 400.*bad model") as info,
    ):
        complete(server)
    assert info.value.attempts == 1 and len(server.requests) == 1 and info.value.status == 400


@pytest.mark.parametrize("content", ["", "   \n", None])
def test_empty_answer_is_an_error(content):
    with (
        chat_server(lambda r: Reply(content)) as server,
        pytest.raises(GenerationError, match="answered with nothing"),
    ):
        complete(server)
    assert len(server.requests) == 1


def test_reply_that_is_not_a_completion_is_an_error():
    with (
        chat_server(lambda r: Reply(status=200, body='{"unexpected": true}')) as server,
        pytest.raises(GenerationError, match=r"sent JSON that is not a chat completion \(no 'choices'\) with HTTP "
                                             r"200, Content-Type 'application/json', starting '\{\"unexpected"),
    ):
        complete(server)


class OneShot:
    """A method that asks the model once per paper."""

    name = "one-shot"

    def prompt(self, record):
        return [{"role": "user", "content": f"Write the related work of {record['title']}."}]

    async def run(self, record, llm: PaperLLM) -> Generated:
        messages = self.prompt(record)
        return Generated(await llm(messages), prompt_text(messages))


def test_key_never_leaks_into_errors_logs_or_files(tmp_path, caplog):
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}})
    answers = {"p401": (401, echo), "p500": (500, echo), "ok": "fine"}

    def answer(request):
        return next(v for k, v in answers.items() if request["messages"][0]["content"].endswith(f"{k}."))

    records = [{"paper_id": pid, "title": pid} for pid in answers]
    caplog.set_level(logging.DEBUG)
    with chat_server(answer) as server:
        backend = make_backend("test-model", base_url=server.base_url)
        report = run_generation(records, OneShot(), backend, tmp_path / "out.jsonl", settings=FAST,
                                show_progress=False)
        with pytest.raises(GenerationError, match="HTTP 401: Incorrect API key provided") as info:
            complete(server, messages=[{"role": "user", "content": "p401."}])
    assert report.n_written == 1 and report.n_failed == 2
    assert "Incorrect API key provided: ***" in str(info.value) and KEY not in str(info.value)
    failures = [json.loads(line) for line in report.failures_path.read_text().splitlines()]
    assert {f["paper_id"] for f in failures} == {"p401", "p500"}
    assert all("***" in f["error"] for f in failures)
    for path in (report.out_path, report.failures_path):
        assert KEY not in path.read_text()
    assert caplog.records and KEY not in caplog.text
    assert not any(KEY in str(r.args) for r in caplog.records)


def test_concurrency_limit_is_respected(tmp_path):
    records = [{"paper_id": f"p{i}", "title": f"paper {i}"} for i in range(12)]
    with chat_server(lambda r: Reply("text", delay=0.15)) as server:
        backend = make_backend("test-model", base_url=server.base_url)
        settings = GenerationSettings(concurrency=3, backoff_base=0.01)
        report = run_generation(records, OneShot(), backend, tmp_path / "out.jsonl", settings=settings,
                                show_progress=False)
    assert report.n_written == 12 and server.max_in_flight == 3
    with chat_server(lambda r: Reply("text", delay=0.15)) as server:
        backend = make_backend("test-model", base_url=server.base_url)
        settings = GenerationSettings(concurrency=8, backoff_base=0.01)
        report = run_generation(records[:8], OneShot(), backend, tmp_path / "out8.jsonl", settings=settings,
                                show_progress=False)
    assert report.n_written == 8 and server.max_in_flight == 8  # they really run at once


# ------------------------------------------------------------------------------------------------ helpers


def test_retry_after_parsing():
    assert retry_after_seconds({"Retry-After": "2"}) == 2.0
    assert retry_after_seconds({"retry-after": "0.5"}) == 0.5
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25  # ms wins
    assert retry_after_seconds({"retry-after-ms": "soon", "Retry-After": "3"}) == 3.0
    assert retry_after_seconds({"Retry-After": "-4"}) == 0.0
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 27 <= retry_after_seconds({"Retry-After": future}) <= 31
    assert retry_after_seconds({"Retry-After": email.utils.formatdate(time.time() + 30)}) == pytest.approx(30, abs=3)
    assert retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # past
    for garbage in ("soon", "", "inf", "nan", "Mon, 99 Foo 20xx"):
        assert retry_after_seconds({"Retry-After": garbage}) is None
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None


def test_backoff_bounds_and_settings_validation():
    settings = GenerationSettings(backoff_base=1.0, backoff_max=8.0)
    for attempt, (low, high) in enumerate([(0.5, 1), (1, 2), (2, 4), (4, 8), (4, 8)]):
        assert all(low <= backoff_seconds(attempt, settings) <= high for _ in range(20))
    for bad in ({"max_tokens": 0}, {"temperature": -1}, {"concurrency": 0}, {"max_retries": -1}):
        [(name, value)] = bad.items()
        with pytest.raises(ValueError, match=f"{name} must be >= .*, got {value}"):
            GenerationSettings(**bad)


def test_long_retry_after_is_capped():
    rate_limited = Reply(status=503, body="{}", headers={"Retry-After": "3600"})
    waits: list[float] = []
    with chat_server(scripted(rate_limited, "ok")) as server:
        result = complete(server, GenerationSettings(max_retry_after=0.1, backoff_base=0.01), waits=waits)
    assert result.attempts == 2 and waits == [0.1]


def test_the_fake_sends_retry_headers_only_where_openai_does():
    answers = {"400": (400, {"error": {"message": "bad"}}), "429": (429, {"error": {"message": "slow down"}}),
               "503": (503, {"error": {"message": "overloaded"}})}
    with chat_server(lambda r: answers[r["messages"][0]["content"]]) as server:
        responses = {code: httpx.post(f"{server.base_url}/chat/completions", json={"messages": [{"content": code}]},
                                      trust_env=False)
                     for code in answers}
    assert "retry-after-ms" not in responses["400"].headers
    assert responses["429"].headers["retry-after-ms"] == responses["503"].headers["retry-after-ms"] == "5"


def test_a_400_is_not_retried_even_with_a_retry_header():
    refused = Reply(status=400, body='{"error": {"message": "bad request"}}', headers={"Retry-After": "0"})
    with (
        chat_server(scripted(refused, "never sent")) as server,
        pytest.raises(GenerationError, match="HTTP 400: bad request") as info,
    ):
        complete(server)
    assert info.value.attempts == 1 and len(server.requests) == 1
