"""A synchronous chat client for any OpenAI-compatible endpoint (OpenAI, OpenRouter, vLLM, Ollama, LiteLLM, ...):
concurrent, retried, resumable. It is a small facade over the async `sciwrite.llm.backends.APIBackend`, so requests,
retries, key handling and the scrubbing of keys from error texts live in one place, the backend.

- Model ids are the backends' (`parse_model_id`): ``openrouter:<model>`` (key in ``OPENROUTER_API_KEY``),
  ``openai:<model>`` (key in ``OPENAI_API_KEY``), or a bare id such as a judge's ``gpt-4o``. A bare id is served at
  the `base_url` argument, else ``SCIWRITE_LLM_BASE_URL``, else ``OPENAI_BASE_URL``, else api.openai.com, with the
  `api_key` argument, else ``SCIWRITE_LLM_API_KEY``, else ``OPENAI_API_KEY``. ``hf:`` ids are local models, not an
  endpoint: use `make_backend` for them.
- `complete` sends a batch of conversations concurrently (at most `workers` at once) through one event loop, with
  the backend's retries of transient errors (HTTP 408/409/429/5xx, timeouts, dropped connections; ``Retry-After``
  honoured, up to `max_retries` retries). An item that still fails carries its error message instead of raising, so
  one bad request never loses a batch.
- With ``cache_path``, every finished reply is appended to a JSONL file as it arrives, keyed by a hash of
  (model, messages, parameters); a rerun reads them back and sends only what is missing. That is how a long run
  resumes after an interruption. Failed items are not cached, so a rerun retries them. Each reply is one append of
  one whole line, so several processes may share the file (tests/llm/test_client_cache.py). The key covers the
  model id, every request parameter (and the model options) and the prompt; each cached reply also keeps the
  snapshot that answered (the reply's ``model``) and its ``system_fingerprint``, which `provenance` counts, so a
  rerun answered by a different snapshot is visible.
- Requests are shaped per model family (`sciwrite.llm.capabilities`: a judge's temperature 0 is not sent to
  GPT-5.5, ``max_tokens`` goes as ``max_completion_tokens``), with the user's `options` over the table.
- With a `ledger` (a `UsageLedger` or its path), every reply that came back is written to it (tokens, cost, and
  ``prompt_id``: the start of its cache key); with a ``max_cost`` each request first reserves its worst case
  (`sciwrite.llm.ledger.BudgetGate`), so the spend never passes it; a request that cannot fit is not sent and its
  item says so. A reply charged more than its reservation (an endpoint billing past what the request allowed) is
  kept, and no request through that ledger is sent after it (`sciwrite.llm.ledger.Overrun`); the ones in flight are
  settled and recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import append_whole_line, parse_json_lines
from sciwrite.llm.backends import (
    API_KEY_VARIABLES,
    BASE_URL_VARIABLES,
    PROVIDERS,
    APIBackend,
    ModelSpec,
    parse_model_id,
    policy_for,
    scrub,
    scrub_keys,
)
from sciwrite.llm.ledger import BudgetGate, Reservation, UsageLedger, open_ledger
from sciwrite.llm.types import BudgetExceededError, Completion, GenerationError, GenerationSettings, Message
from sciwrite.models.registry import ModelUnavailableError

#: Hex digits of a request's cache key that name it in the usage ledger (``prompt_id``) and in a budget warning.
PROMPT_ID_CHARS = 12


class LLMNotConfiguredError(ModelUnavailableError):
    """No API key (and so no usable endpoint) is configured; the message says which variables to set."""


@dataclass(frozen=True)
class ChatResult:
    """One request's outcome: the reply text, or the error that stopped it (never both).

    Attributes:
        content: The reply's text (its thinking trace taken out); None when the request failed.
        error: Why the request failed; None when it did not.
        finish_reason: The endpoint's ``finish_reason`` (``stop``, ``length``, ...).
        cached: Whether the reply came from the client's cache file.
        snapshot: The model snapshot that answered (the reply's ``model``).
        system_fingerprint: The endpoint's ``system_fingerprint``.
    """

    content: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    cached: bool = False
    snapshot: str | None = None  # the model snapshot that answered (the reply's `model`)
    system_fingerprint: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the request succeeded."""
        return self.error is None


def _first_env(names: Sequence[str]) -> str | None:
    return next((os.environ[n].strip() for n in names if os.environ.get(n, "").strip()), None)


def resolve_endpoint(model: str, base_url: str | None = None, api_key: str | None = None) -> tuple[ModelSpec, str]:
    """The parsed model id and its key, found as `ChatClient` finds them.

    Raises:
        LLMNotConfiguredError: No key is configured; the message says which variables to set.
        ValueError: An empty or malformed model id, or an ``hf:`` id (a local model, not an endpoint).
    """
    if not model:
        raise ValueError("`model` is required: the model id the endpoint serves")
    prefix, sep, _ = model.partition(":")
    if sep and (prefix in PROVIDERS or prefix == "hf"):
        spec = parse_model_id(model, base_url)
        if spec.kind != "api":
            raise ValueError(f"model id {model!r} names a local transformers model; ChatClient talks to "
                             "OpenAI-compatible endpoints (use sciwrite.llm.backends.make_backend for hf: ids)")
        assert spec.key_variable is not None
        key = (api_key or "").strip() or os.environ.get(spec.key_variable, "").strip()
        if not key:
            raise LLMNotConfiguredError(f"no LLM endpoint configured for {model!r}: set {spec.key_variable} "
                                        "— or pass api_key=")
        return spec, key
    # A bare id: as the judges always read it, with OpenAI itself as the last resort.
    spec = parse_model_id(model, base_url or _first_env(BASE_URL_VARIABLES) or PROVIDERS["openai"].base_url)
    key = (api_key or "").strip() or _first_env(API_KEY_VARIABLES) or ""
    if not key:
        raise LLMNotConfiguredError(
            f"no LLM endpoint configured for {model!r}: set SCIWRITE_LLM_API_KEY (or OPENAI_API_KEY), and "
            "SCIWRITE_LLM_BASE_URL (or OPENAI_BASE_URL) for an endpoint other than api.openai.com, e.g. "
            "http://localhost:8000/v1 — or pass api_key= / base_url=. A local server that checks no key "
            "still needs one set, e.g. SCIWRITE_LLM_API_KEY=EMPTY")
    return spec, key


class ChatClient:
    """Chat completions from one model at one OpenAI-compatible endpoint, synchronously, through `APIBackend`.

    The judges, SciIG's citation extractor and the LLM annotator use it. Requests are sent concurrently and
    retried on transient errors; an item that still fails carries its error instead of raising, so one bad request
    never loses a batch.

    Args:
        model: ``openai:<model>``, ``openrouter:<model>`` or a bare id served at `base_url` (``hf:`` ids are
            local models: use `sciwrite.llm.backends.make_backend`).
        base_url: The endpoint of a bare id; None: ``SCIWRITE_LLM_BASE_URL``, else ``OPENAI_BASE_URL``, else
            api.openai.com.
        api_key: The key; None: the provider's variable, or for a bare id ``SCIWRITE_LLM_API_KEY``, else
            ``OPENAI_API_KEY``.
        cache_path: A JSON Lines file every finished reply is appended to; a rerun reads it back and sends only
            what is missing.
        timeout: Seconds per request.
        max_retries: Further attempts after the first, for transient errors only.
        options: Request parameters over the model family's table (``--model-option``/``--judge-option``).
        ledger: A `UsageLedger`, or its path, that every reply's tokens and cost are written to; its
            ``max_cost`` is a budget no request may pass.
        purpose: The ledger's tag for these requests (``judge``, ``citation_extractor``, ...).

    Raises:
        LLMNotConfiguredError: No key is configured; the message says which variables to set.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 cache_path: str | os.PathLike[str] | None = None, timeout: float = 120.0,
                 max_retries: int = 6, options: Mapping[str, Any] | None = None,
                 ledger: UsageLedger | str | os.PathLike[str] | None = None, purpose: str = "llm") -> None:
        self._spec, self._key = resolve_endpoint(model, base_url, api_key)
        self.model = model
        self.base_url = self._spec.base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.cache_path = Path(cache_path) if cache_path else None
        self.policy = policy_for(self._spec, options)  # one for the client's life: refusals are remembered
        self.ledger = open_ledger(ledger)
        # Under a budget, a completion limit the endpoint refuses is renamed, never dropped (the cost needs it).
        self.policy.keep_completion_limit = self.ledger is not None and self.ledger.max_cost is not None
        self.purpose = purpose
        self._snapshots: dict[str, int] = {}
        self._fingerprints: dict[str, int] = {}
        self.not_sent = 0  # requests the budget (the ledger's max_cost) kept from being sent
        self._lock = threading.Lock()
        self._cache, self._cache_needs_newline = self._read_cache()

    def __repr__(self) -> str:
        return f"ChatClient(model={self.model!r}, base_url={self.base_url!r})"

    def cache_key(self, messages: Sequence[Message], params: Mapping[str, Any]) -> str:
        """Hash of everything that determines a reply: model, messages, request parameters and model options."""
        payload: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages], "params": dict(params)}
        if self.policy.options:
            payload["options"] = self.policy.options
        return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()

    def provenance(self) -> dict[str, Any]:
        """Which snapshots and system fingerprints answered (cached replies included), how requests were built and
        what was not applied as asked: for an evaluation's summary."""
        return {**self.policy.describe(), "snapshots": dict(self._snapshots), "not_sent_over_budget": self.not_sent,
                "system_fingerprints": dict(self._fingerprints)}

    def _seen(self, snapshot: str | None, fingerprint: str | None) -> None:
        with self._lock:
            if snapshot:
                self._snapshots[snapshot] = self._snapshots.get(snapshot, 0) + 1
            if fingerprint:
                self._fingerprints[fingerprint] = self._fingerprints.get(fingerprint, 0) + 1

    def complete(self, conversations: Sequence[Sequence[Message]], *, temperature: float = 0.0,
                 max_tokens: int | None = 1024, workers: int = 8, show_progress: bool = True,
                 desc: str = "LLM", **params: Any) -> list[ChatResult]:
        """One `ChatResult` per conversation, in input order; cached replies are reused, the rest are sent.

        Identical requests in one batch are sent once.

        Args:
            conversations: Each a list of chat messages (``{"role": ..., "content": ...}``).
            temperature: The sampling temperature (not sent to a family that accepts only the default).
            max_tokens: The completion limit (sent as ``max_completion_tokens`` where the family needs it); None
                sends none.
            workers: Requests in flight at once.
            show_progress: Show a progress bar (with the cost so far when there is a ledger).
            desc: The progress bar's label.
            **params: Further request parameters (``seed``, ``stop``, ``top_p``, ...); they go to the API and into
                the cache key.
        """
        request = {"temperature": temperature, **({"max_tokens": max_tokens} if max_tokens is not None else {}),
                   **params}
        results: list[ChatResult | None] = [None] * len(conversations)
        pending: dict[str, list[int]] = {}  # identical requests in one batch are sent once
        for i, messages in enumerate(conversations):
            key = self.cache_key(messages, request)
            if key in self._cache:
                hit = self._cache[key]
                results[i] = ChatResult(hit["content"], finish_reason=hit.get("finish_reason"), cached=True,
                                        snapshot=hit.get("snapshot"), system_fingerprint=hit.get("system_fingerprint"))
                self._seen(hit.get("snapshot"), hit.get("system_fingerprint"))
            else:
                pending.setdefault(key, []).append(i)
        if pending:
            batch = [(key, conversations[idx[0]]) for key, idx in pending.items()]
            replies = _run(self._send_all(batch, request, workers, show_progress, desc))
            for (key, _), reply in zip(batch, replies):
                for i in pending[key]:
                    results[i] = reply
        return [r for r in results if r is not None]

    def close(self) -> None:
        """Nothing to release: each `complete` call opens and closes its own connections."""

    async def _send_all(self, batch: Sequence[tuple[str, Sequence[Message]]], request: Mapping[str, Any],
                        workers: int, show_progress: bool, desc: str) -> list[ChatResult]:
        """Every (cache key, messages) of `batch` through one backend, at most `workers` at once.

        The backend (and so its HTTP connection pool) lives for this one event loop: an async client's connections
        are bound to the loop that opened them, and each `complete` call runs its own loop.
        """
        from tqdm.auto import tqdm

        settings = GenerationSettings(temperature=request["temperature"], max_tokens=1, seed=None,
                                      concurrency=max(1, workers), timeout=self.timeout,
                                      max_retries=max(0, self.max_retries))
        # max_tokens (None: not sent) and any extra parameters travel as request parameters, over `settings`.
        params = {"max_tokens": None, **{k: v for k, v in request.items() if k != "temperature"}}
        backend = APIBackend(self._spec, key=self._key, policy=self.policy)
        semaphore = asyncio.Semaphore(settings.concurrency)
        gate = BudgetGate(self.ledger) if self.ledger is not None else None
        with tqdm(total=len(batch), desc=desc, disable=not show_progress) as bar:
            async def send(key: str, messages: Sequence[Message]) -> ChatResult:
                async with semaphore:
                    result = await self._send(backend, messages, settings, params, key, gate)
                if self.ledger is not None:
                    bar.set_postfix(cost=f"${self.ledger.session.cost_usd:.4f}", refresh=False)
                bar.update()
                return result

            try:
                return list(await asyncio.gather(*(send(key, messages) for key, messages in batch)))
            finally:
                await backend.aclose()

    def _reservation(self, messages: Sequence[Message], settings: GenerationSettings,
                     params: Mapping[str, Any]) -> Reservation | None:
        """The request's worst case under the ledger's budget (see `sciwrite.llm.ledger`); None without one."""
        if self.ledger is None or self.ledger.max_cost is None:
            return None
        limit = self.policy.completion_limit(messages, settings, params)
        reservation = self.ledger.worst_case(self.model, messages, limit)
        if reservation is None and self._spec.provider == "openrouter" and limit is not None:
            return Reservation(0.0, exclusive=True)  # priced by the endpoint, after the fact: one at a time
        if reservation is None and limit is None:
            raise BudgetExceededError(f"model {self.model!r} is sent no completion limit (max_tokens or "
                                      "max_completion_tokens), so a request's cost has no bound and the budget cannot "
                                      "be kept; keep a max_tokens, or run without a budget")
        if reservation is None:
            raise BudgetExceededError(f"model {self.model!r} has no price in {', '.join(self.ledger.prices.sources)}"
                                      ", so the budget cannot be kept; pass a price table with it (--prices FILE)")
        return reservation

    async def _send(self, backend: APIBackend, messages: Sequence[Message], settings: GenerationSettings,
                    params: Mapping[str, Any], key: str, gate: BudgetGate | None = None) -> ChatResult:
        """One request; any exception becomes the item's error (the backend has already retried transient ones)."""
        try:
            reservation = self._reservation(messages, settings, params)
            if reservation is not None and gate is not None:
                await gate.hold(reservation)
        except BudgetExceededError as err:
            with self._lock:
                self.not_sent += 1
            return ChatResult(error=f"not sent: {err}")
        try:
            completion = await backend.complete(messages, settings, params=params)
        except GenerationError as err:  # already scrubbed of the key by the backend
            if err.completion is not None:
                self._record(err.completion, reservation, key)
            return ChatResult(error=str(err))
        except Exception as err:  # noqa: BLE001 - one failed item must not stop the batch
            return ChatResult(error=scrub_keys(scrub(f"{type(err).__name__}: {err}", [self._key]))[:500])
        else:
            self._record(completion, reservation, key)
        finally:
            if reservation is not None and gate is not None:
                await gate.free(reservation)
        self._seen(completion.snapshot, completion.system_fingerprint)
        self._remember(key, {"key": key, "model": self.model, "content": completion.text,
                             "finish_reason": completion.finish_reason, "snapshot": completion.snapshot,
                             "system_fingerprint": completion.system_fingerprint,
                             "usage": {"prompt_tokens": completion.prompt_tokens,
                                       "completion_tokens": completion.completion_tokens,
                                       "reasoning_tokens": completion.reasoning_tokens, "cost": completion.cost}})
        return ChatResult(completion.text, finish_reason=completion.finish_reason, snapshot=completion.snapshot,
                          system_fingerprint=completion.system_fingerprint)

    def _record(self, completion: Completion, reservation: Reservation | None, key: str) -> None:
        """Settle one reply in the ledger, naming its request by the start of its cache key (``prompt_id``)."""
        if self.ledger is not None:
            self.ledger.record(completion, model=self.model, purpose=self.purpose, reservation=reservation,
                               prompt_id=key[:PROMPT_ID_CHARS])

    def _read_cache(self) -> tuple[dict[str, dict[str, Any]], bool]:
        """Records of earlier runs; a line cut short by an interrupted write is skipped."""
        if self.cache_path is None or not self.cache_path.exists():
            return {}, False
        text = self.cache_path.read_text(encoding="utf-8")
        cache = {}
        for _, _, record, _ in parse_json_lines(text.splitlines()):  # a line that is not JSON is skipped
            if isinstance(record, dict) and "key" in record and isinstance(record.get("content"), str):
                cache[record["key"]] = record
        return cache, bool(text) and not text.endswith("\n")

    def _remember(self, key: str, record: dict[str, Any]) -> None:
        if self.cache_path is None:  # no cache asked for: every call is sent (sampling stays sampling)
            return
        with self._lock:
            self._cache[key] = record
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            lead = "\n" if self._cache_needs_newline else ""  # do not glue a record onto a cut-off last line
            append_whole_line(self.cache_path, lead + json.dumps(record, ensure_ascii=False))
            self._cache_needs_newline = False


def _run(coroutine: Any) -> Any:
    """`coroutine`'s result, from synchronous code.

    Without a running event loop (scripts, the CLI, pytest) it runs in a fresh loop on this thread. When this thread
    already runs a loop (a notebook, or `complete` called from async code), asyncio cannot run a second one here
    and must not be re-entered, so the coroutine runs in a fresh loop on a worker thread and this thread waits for it:
    the caller's loop is blocked meanwhile, as by any synchronous call, but nothing is nested or patched.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sciwrite-chat") as pool:
        return pool.submit(asyncio.run, coroutine).result()
