"""One fake OpenAI-compatible chat-completions server for tests and benchmarks: a script answers each request, and
every request is recorded.

``POST /v1/chat/completions`` calls ``answer(request_json)``, which returns

- a string: the reply's content, as a 200 chat completion;
- ``(HTTP status, body)``: an error (or any) response with that body (a string, or JSON-encoded otherwise) and a
  ``retry-after-ms: 5`` header, so that a retrying client retries at once;
- a `Reply` for anything else: a delay before answering, extra headers (``Retry-After``), token counts, a raw body,
  or a connection closed without any response.

Any other path answers 404. The server speaks HTTP/1.1 with keep-alive, so a client reuses its connections (the
throughput benchmark, ``scripts/bench/generation.py``, relies on that).
"""

from __future__ import annotations

import json
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


Answer = Callable[[dict[str, Any]], "str | tuple[int, Any] | Reply"]


def completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """The chat-completion JSON for `reply` to the request `body`."""
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                         "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                      "total_tokens": reply.prompt_tokens + reply.completion_tokens}}


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
                    return self._send(status, text, {"retry-after-ms": "5"})
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
