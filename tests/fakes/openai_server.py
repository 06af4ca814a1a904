"""One fake OpenAI-compatible chat-completions server for tests and benchmarks: a script answers each request, and
every request is recorded.

``POST /v1/chat/completions`` calls ``answer(request_json)``, which returns

- a string: the reply's content, as a 200 chat completion;
- ``(HTTP status, body)``: an error (or any) response with that body (a string, or JSON-encoded otherwise); a 429
  or 5xx one carries a ``retry-after-ms: 5`` header, as api.openai.com sends retry headers with rate limits and
  overload (never with a 400 or other client error), so that a retrying client retries at once;
- a `Reply` for anything else: a delay before answering, extra headers (``Retry-After``, a ``Content-Type`` that
  replaces ``application/json``), token counts or a raw ``usage`` object, a raw body, a connection closed
  without any response, or tool calls (``message.tool_calls`` in OpenAI's shape, ``finish_reason: "tool_calls"``).

Every request body is recorded as sent (``tools``, ``tool_choice``, assistant messages with ``tool_calls`` and
``role: "tool"`` results included). `without_tool_calling(answer, server)` answers a request offering tools as a
server that cannot call them does (vLLM without a tool parser, an Ollama model without tool support, OpenRouter with
no provider serving tools).

Any other path answers 404. The server speaks HTTP/1.1 with keep-alive, so a client reuses its connections (the
throughput benchmark, ``scripts/bench/generation.py``, relies on that).

`like_real_endpoints(answer)` wraps a script so that the server answers each model id the way the real providers
do (their documented error bodies and reply fields, ../shared/FACTS.md):

- OpenAI's reasoning families (o1, o3, o4, gpt-5*, with or without an ``openai/`` prefix): a request with
  ``max_tokens`` gets 400 ``unsupported_parameter``, one with a temperature or top_p other than 1 gets 400
  ``unsupported_value`` (type ``invalid_request_error``, ``param``, ``code``), as api.openai.com answers; replies
  count reasoning tokens in ``usage.completion_tokens_details.reasoning_tokens``;
- their replies to a request whose ``max_completion_tokens`` cannot hold the reasoning and the answer are what
  GPT-5 sends then: content ``""``, ``finish_reason: "length"``, every completion token a reasoning token;
- thinking models (ids with ``r1``, ``qwen3`` or ``thinking``) served by vLLM or DeepSeek (ids without a
  ``vendor/``): the content starts with a ``<think>…</think>`` block and the message carries
  ``reasoning_content``; through OpenRouter (``vendor/model``): the content is the answer alone and the message
  carries the trace in ``reasoning`` and ``reasoning_details`` (``[{"type": "reasoning.text", "text": ...}]``);
  a reply with tool calls carries the trace in those fields only (its content is null);
- DeepSeek's thinking mode (thinking ids without a ``vendor/``): a history whose assistant message has
  ``tool_calls`` but no ``reasoning_content`` gets 400 (its docs: the reasoning of a tool-call turn must be passed
  back);
- OpenRouter-style ids (``vendor/model``): ``usage.cost`` in USD;
- every reply names a dated snapshot in ``model`` (``<id>-2026-04-23``) and carries a ``system_fingerprint``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes import LocalHTTPServer, Running

CHAT_PATH = "/v1/chat/completions"


@dataclass
class Reply:
    """A scripted response: `content` as a chat completion, or `status` + `body`; or `close` with no response."""

    content: str | None = None
    status: int = 200
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    close: bool = False  # drop the connection without a response
    prompt_tokens: int = 1
    completion_tokens: int = 1
    finish_reason: str = "stop"
    model: str | None = None  # the reply's `model` (a dated snapshot); None: the requested id
    system_fingerprint: str | None = None
    reasoning_content: str | None = None  # DeepSeek / vLLM style
    reasoning: str | None = None  # OpenRouter style
    reasoning_details: list[dict[str, Any]] | None = None  # OpenRouter's structured trace
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    cost: float | None = None  # OpenRouter's usage.cost (USD)
    usage: dict[str, Any] | None = None  # the reply's whole `usage` object, as given (malformed ones included)
    #: calls the model makes: ``{"id", "name", "arguments"}`` (arguments a JSON string, or an object as some local
    #: servers send them) or the full OpenAI item; the finish_reason becomes "tool_calls" unless set otherwise
    tool_calls: list[dict[str, Any]] | None = None


Answer = Callable[[dict[str, Any]], "str | tuple[int, Any] | Reply"]


def completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """The chat-completion JSON for `reply` to the request `body`."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    finish = reply.finish_reason
    if reply.tool_calls:
        message["tool_calls"] = [tool_call_item(call) for call in reply.tool_calls]
        finish = "tool_calls" if finish == "stop" else finish
    if reply.reasoning_content is not None:
        message["reasoning_content"] = reply.reasoning_content
    if reply.reasoning is not None:
        message["reasoning"] = reply.reasoning
    if reply.reasoning_details is not None:
        message["reasoning_details"] = reply.reasoning_details
    usage: dict[str, Any] = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                             "total_tokens": reply.prompt_tokens + reply.completion_tokens}
    if reply.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    if reply.cost is not None:
        usage["cost"] = reply.cost
    if reply.usage is not None:
        usage = reply.usage
    out = {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
           "model": reply.model or body.get("model"),
           "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}
    if reply.system_fingerprint is not None:
        out["system_fingerprint"] = reply.system_fingerprint
    return out


def tool_call_item(call: dict[str, Any]) -> dict[str, Any]:
    """A scripted call as OpenAI sends it: ``{"id", "type": "function", "function": {"name", "arguments"}}``."""
    if "function" in call:
        return call
    return {"id": call.get("id", "call_0"), "type": "function",
            "function": {"name": call["name"], "arguments": call.get("arguments", "{}")}}


#: What servers that cannot call tools answer a request offering them: (HTTP status, body), as each sends it.
TOOL_REFUSALS: dict[str, tuple[int, dict[str, Any]]] = {
    "vllm": (400, {"object": "error", "message": '"auto" tool choice requires --enable-auto-tool-choice and '
                                                 "--tool-call-parser to be set",
                   "type": "BadRequestError", "param": None, "code": 400}),
    "ollama": (400, {"error": {"message": "registry.ollama.ai/library/gemma:2b does not support tools",
                               "type": "api_error", "param": None, "code": None}}),
    "openrouter": (404, {"error": {"message": "No endpoints found that support tool use. To learn more about provider "
                                              "routing, visit: https://openrouter.ai/docs/provider-routing",
                                   "code": 404}}),
}


def without_tool_calling(answer: Answer, server: str = "vllm") -> Answer:
    """`answer` behind a `server` (a key of `TOOL_REFUSALS`) that refuses every request offering tools (vLLM: unless
    ``tool_choice`` is "none", which it serves without a parser)."""

    def respond(body: dict[str, Any]) -> str | tuple[int, Any] | Reply:
        if body.get("tools") and not (server == "vllm" and body.get("tool_choice") == "none"):
            return TOOL_REFUSALS[server]
        return answer(body)

    return respond


def missing_reasoning(body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """DeepSeek thinking mode's 400 for a history whose tool-call turn lacks its ``reasoning_content``, else None."""
    for index, message in enumerate(body.get("messages") or []):
        if message.get("role") == "assistant" and message.get("tool_calls") and "reasoning_content" not in message:
            return 400, {"error": {"message": f"Missing `reasoning_content` field in the assistant message at message "
                                              f"index {index}", "type": "invalid_request_error", "param": None,
                                   "code": "invalid_request_error"}}
    return None


SNAPSHOT_DATE = "2026-04-23"
REASONING_MODEL = re.compile(r"(?:openai/)?(?:o[134]|gpt-5)(?:[-.].*)?")
THINKING_MODEL = re.compile(r".*(?:r1|qwen3|thinking).*", re.IGNORECASE)


def openai_refusal(body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """The 400 api.openai.com gives a GPT-5-family / o-series request it does not accept, else None."""
    model = str(body.get("model", ""))
    if not REASONING_MODEL.fullmatch(model) or re.fullmatch(r"(?:openai/)?gpt-5(?:\.\d+)?-chat.*", model):
        return None
    if "max_tokens" in body:
        return 400, {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                          "Use 'max_completion_tokens' instead.",
                               "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}
    for name in ("temperature", "top_p"):
        if name in body and body[name] != 1:
            return 400, {"error": {"message": f"Unsupported value: '{name}' does not support {body[name]} with this "
                                              "model. Only the default (1) value is supported.",
                                   "type": "invalid_request_error", "param": name, "code": "unsupported_value"}}
    return None


def like_real_endpoints(answer: Answer, *, reasoning_tokens: int = 40, cost_per_token: float = 1e-6,
                        trace: str = "Let me think. The candidates are [1] and [2]; [3] is off topic.") -> Answer:
    """`answer` behind the providers' behaviour for each model id (see the module docstring)."""

    def respond(body: dict[str, Any]) -> str | tuple[int, Any] | Reply:
        refusal = openai_refusal(body)
        model = str(body.get("model", ""))
        if refusal is None and THINKING_MODEL.fullmatch(model) and "/" not in model:
            refusal = missing_reasoning(body)
        if refusal is not None:
            return refusal
        reply = answer(body)
        if isinstance(reply, tuple):
            return reply
        if isinstance(reply, str):
            reply = Reply(reply)
        reply.model = reply.model or f"{model}-{SNAPSHOT_DATE}"
        reply.system_fingerprint = reply.system_fingerprint or "fp_2026a"
        if REASONING_MODEL.fullmatch(model):
            reply.reasoning_tokens = reasoning_tokens
            reply.completion_tokens += reasoning_tokens
            limit = body.get("max_completion_tokens")
            if isinstance(limit, int) and limit < reply.completion_tokens:  # the limit ran out while reasoning
                reply.content, reply.finish_reason = "", "length"
                reply.completion_tokens = reply.reasoning_tokens = limit
        thinking = THINKING_MODEL.fullmatch(model) and (reply.content is not None or reply.tool_calls)
        if thinking and "/" in model:
            reply.reasoning = trace
            reply.reasoning_details = [{"type": "reasoning.text", "text": trace, "format": "unknown", "index": 0}]
        elif thinking:
            if reply.content is not None:
                reply.content = f"<think>\n{trace}\n</think>\n\n{reply.content}"
            reply.reasoning_content = trace
        if "/" in model:
            reply.cost = round((reply.prompt_tokens + reply.completion_tokens) * cost_per_token, 10)
        return reply

    return respond


class ChatServer(Running):
    """``POST /v1/chat/completions`` on 127.0.0.1 with a scripted model (`answer`); not serving until `start()` (or
    ``with``). It records every request's JSON body (`requests`), headers (`headers`, lower-case names), path
    (`paths`) and arrival time (`times`, time.monotonic()); `max_in_flight` is the most it answered at once."""

    def __init__(self, answer: Answer, port: int = 0) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.times: list[float] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: every response carries a Content-Length
            disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms delayed-ACK stall

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                try:
                    body = json.loads(data or b"{}")
                except json.JSONDecodeError:
                    body = {"unreadable": data.decode("utf-8", "replace")}
                with outer._lock:
                    outer.requests.append(body)
                    outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                    outer.paths.append(self.path)
                    outer.times.append(time.monotonic())
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    if self.path.split("?")[0].rstrip("/") != CHAT_PATH:
                        return self._send(404, json.dumps({"error": {"message": "not found"}}), {})
                    self._answer(body)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                reply = outer.answer(body)
                if isinstance(reply, tuple):
                    status, payload = reply
                    text = payload if isinstance(payload, str) else json.dumps(payload)
                    retry = {"retry-after-ms": "5"} if status == 429 or status >= 500 else {}
                    return self._send(status, text, retry)
                if isinstance(reply, str):
                    reply = Reply(reply)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.close:
                    self.close_connection = True
                    return None
                if reply.body is not None:
                    return self._send(reply.status, reply.body, reply.headers)
                return self._send(reply.status, json.dumps(completion(body, reply)), reply.headers)

            def _send(self, status: int, text: str, headers: dict[str, str]) -> None:
                data = text.encode()
                self.send_response(status)
                if not any(name.lower() == "content-type" for name in headers):
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = LocalHTTPServer(Handler, port)
        self.base_url = f"http://127.0.0.1:{self.httpd.port}/v1"


@contextmanager
def chat_server(answer: Answer) -> Iterator[ChatServer]:
    """A running `ChatServer`, shut down on exit."""
    with ChatServer(answer) as server:
        yield server



#: Every variable that could point a test at a real endpoint.
ENDPOINT_VARIABLES = ("SCIWRITE_LLM_BASE_URL", "SCIWRITE_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY")


def isolate_from_real_endpoints(monkeypatch) -> None:  # noqa: ANN001 - pytest's MonkeyPatch
    """Clear the endpoint variables and let local addresses bypass any proxy, so no test reaches a real API."""
    for name in ENDPOINT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
