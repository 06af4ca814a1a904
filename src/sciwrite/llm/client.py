"""A chat client for any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LiteLLM, ...): concurrent, retried,
resumable.

- Endpoint and key: the arguments, else ``SCIWRITE_LLM_BASE_URL`` / ``SCIWRITE_LLM_API_KEY``, else the SDK's own
  ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; without a base URL the SDK talks to api.openai.com.
- Transient errors (rate limits, timeouts, connection errors, HTTP 408/409/429/5xx) are retried by the SDK with
  exponential backoff that honours ``Retry-After`` (`max_retries`). An item that still fails carries its error
  message instead of raising, so one bad request never loses a batch.
- With ``cache_path``, every finished reply is appended to a JSONL file as it arrives, keyed by a hash of
  (model, messages, parameters); a rerun reads them back and sends only what is missing. That is how a long run
  resumes after an interruption. Failed items are not cached, so a rerun retries them.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.models.registry import ModelUnavailableError

Message = Mapping[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}

BASE_URL_VARIABLES = ("SCIWRITE_LLM_BASE_URL", "OPENAI_BASE_URL")
API_KEY_VARIABLES = ("SCIWRITE_LLM_API_KEY", "OPENAI_API_KEY")


class LLMNotConfiguredError(ModelUnavailableError):
    """No API key (and so no usable endpoint) is configured; the message says which variables to set."""


@dataclass(frozen=True)
class ChatResult:
    """One request's outcome: the reply text, or the error that stopped it (never both)."""

    content: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def _first_env(names: Sequence[str]) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


class ChatClient:
    """Chat completions from one model at one OpenAI-compatible endpoint."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 cache_path: str | os.PathLike[str] | None = None, timeout: float = 120.0,
                 max_retries: int = 6) -> None:
        if not model:
            raise ValueError("`model` is required: the model id the endpoint serves")
        base_url = base_url or _first_env(BASE_URL_VARIABLES)
        api_key = api_key or _first_env(API_KEY_VARIABLES)
        if not api_key:
            raise LLMNotConfiguredError(
                f"no LLM endpoint configured for {model!r}: set SCIWRITE_LLM_API_KEY (or OPENAI_API_KEY), and "
                "SCIWRITE_LLM_BASE_URL (or OPENAI_BASE_URL) for an endpoint other than api.openai.com, e.g. "
                "http://localhost:8000/v1 — or pass api_key= / base_url=. A local server that checks no key "
                "still needs one set, e.g. SCIWRITE_LLM_API_KEY=EMPTY")
        from openai import OpenAI

        self.model = model
        self._client = OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)
        self.base_url = str(self._client.base_url)
        self.cache_path = Path(cache_path) if cache_path else None
        self._lock = threading.Lock()
        self._cache, self._cache_needs_newline = self._read_cache()

    def __repr__(self) -> str:
        return f"ChatClient(model={self.model!r}, base_url={self.base_url!r})"

    def cache_key(self, messages: Sequence[Message], params: Mapping[str, Any]) -> str:
        """Hash of everything that determines a reply: model, messages and request parameters."""
        payload = {"model": self.model, "messages": [dict(m) for m in messages], "params": dict(params)}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def complete(self, conversations: Sequence[Sequence[Message]], *, temperature: float = 0.0,
                 max_tokens: int | None = 1024, workers: int = 8, show_progress: bool = True,
                 desc: str = "LLM", **params: Any) -> list[ChatResult]:
        """One `ChatResult` per conversation, in input order; cached replies are reused, the rest are sent
        `workers` at a time. Extra `params` (seed, stop, top_p, ...) go to the API and into the cache key."""
        from tqdm.auto import tqdm

        request = {"temperature": temperature, **({"max_tokens": max_tokens} if max_tokens is not None else {}),
                   **params}
        results: list[ChatResult | None] = [None] * len(conversations)
        pending: dict[str, list[int]] = {}  # identical requests in one batch are sent once
        for i, messages in enumerate(conversations):
            key = self.cache_key(messages, request)
            if key in self._cache:
                hit = self._cache[key]
                results[i] = ChatResult(hit["content"], finish_reason=hit.get("finish_reason"), cached=True)
            else:
                pending.setdefault(key, []).append(i)
        if pending:
            with ThreadPoolExecutor(max_workers=max(1, min(workers, len(pending)))) as pool, \
                    tqdm(total=len(pending), desc=desc, disable=not show_progress) as bar:
                futures = {pool.submit(self._send, conversations[idx[0]], request, key): idx
                           for key, idx in pending.items()}
                for future in as_completed(futures):
                    for i in futures[future]:
                        results[i] = future.result()
                    bar.update()
        return [r for r in results if r is not None]

    def close(self) -> None:
        self._client.close()

    def _send(self, messages: Sequence[Message], request: Mapping[str, Any], key: str) -> ChatResult:
        """One request; any exception becomes the item's error (the SDK has already retried transient ones)."""
        try:
            response = self._client.chat.completions.create(
                model=self.model, messages=[dict(m) for m in messages], **request)  # type: ignore[arg-type]
            choice = response.choices[0] if response.choices else None
            content = choice.message.content if choice is not None else None
            finish_reason = choice.finish_reason if choice is not None else None
        except Exception as err:  # noqa: BLE001 - one failed item must not stop the batch
            return ChatResult(error=f"{type(err).__name__}: {err}")
        if content is None:
            return ChatResult(error=f"the response has no message content (finish_reason={finish_reason})",
                              finish_reason=finish_reason)
        self._remember(key, {"key": key, "model": self.model, "content": content, "finish_reason": finish_reason})
        return ChatResult(content, finish_reason=finish_reason)

    def _read_cache(self) -> tuple[dict[str, dict[str, Any]], bool]:
        """Records of earlier runs; a line cut short by an interrupted write is skipped."""
        if self.cache_path is None or not self.cache_path.exists():
            return {}, False
        text = self.cache_path.read_text(encoding="utf-8")
        cache = {}
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "key" in record and isinstance(record.get("content"), str):
                cache[record["key"]] = record
        return cache, bool(text) and not text.endswith("\n")

    def _remember(self, key: str, record: dict[str, Any]) -> None:
        if self.cache_path is None:  # no cache asked for: every call is sent (sampling stays sampling)
            return
        with self._lock:
            self._cache[key] = record
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            with self.cache_path.open("a", encoding="utf-8") as f:
                if self._cache_needs_newline:  # do not glue a record onto a cut-off last line
                    f.write("\n")
                    self._cache_needs_newline = False
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
