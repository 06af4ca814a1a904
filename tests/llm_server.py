"""A local OpenAI-compatible chat-completions server for tests: a script answers each request, all are recorded.

An answer is the reply's content (a 200 chat completion), ``(HTTP status, body)`` for an error, or a `Reply`
for anything else: a delay before answering, extra headers (``Retry-After``), token counts, or a connection
closed without any response.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


Answer = Callable[[dict[str, Any]], "str | tuple[int, str] | Reply"]


class ChatServer:
    """``POST /v1/chat/completions`` on 127.0.0.1 with a scripted model; `requests` keeps every request body,
    `headers` every request's headers, `max_in_flight` the most requests it was answering at once."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []  # time.monotonic() at each request's arrival
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with outer._lock:
                    outer.requests.append(body)
                    outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                    outer.times.append(time.monotonic())
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    self._answer(body)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                reply = outer.answer(body)
                if isinstance(reply, tuple):
                    return self._send(reply[0], reply[1], {"retry-after-ms": "5"})
                if isinstance(reply, str):
                    reply = Reply(reply)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.close:
                    self.close_connection = True
                    return None
                if reply.body is not None:
                    return self._send(reply.status, reply.body, reply.headers)
                return self._send(reply.status, json.dumps({
                    "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                              "total_tokens": reply.prompt_tokens + reply.completion_tokens}}), reply.headers)

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

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # many clients connect at once
            daemon_threads = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@contextmanager
def chat_server(answer: Answer) -> Iterator[ChatServer]:
    """A running `ChatServer`, shut down on exit."""
    server = ChatServer(answer)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
