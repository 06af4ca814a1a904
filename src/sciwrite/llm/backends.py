"""Language-model backends for the generation baselines, behind one async call: `await backend.complete(messages)`.

Model ids name the backend:

- ``openrouter:<model>`` — OpenRouter (``https://openrouter.ai/api/v1``, key in ``OPENROUTER_API_KEY``);
- ``openai:<model>`` — OpenAI (key in ``OPENAI_API_KEY``);
- ``hf:<model id or path>`` — a local transformers causal LM, batched ``generate``, on the GPU when present;
- ``<model>`` with a base URL (``--base-url`` / ``SCIWRITE_LLM_BASE_URL``) — any OpenAI-compatible server (vLLM,
  TGI, llama.cpp), key in ``SCIWRITE_LLM_API_KEY`` (a server that checks none still needs one set, e.g. ``EMPTY``).

Keys come from the environment (the generation CLI reads them nowhere else; `sciwrite.llm.client.ChatClient`, the
synchronous facade over `APIBackend` that the judges use, may also pass one in); they never appear in a message, a
log line or an output file (error texts are scrubbed of them). API requests go through the official ``openai``
SDK's async client (its POST to the chat-completions endpoint, typed `ChatCompletion` reply) with its own retries
off: sciwrite retries 408/409/429/5xx, timeouts and dropped connections itself, waiting what ``Retry-After`` /
``retry-after-ms`` asks (up to `GenerationSettings.max_retry_after`) or else an exponential back-off with jitter,
so that every attempt is counted and a request that still fails says how often it was tried.

Each request body is built by a `sciwrite.llm.capabilities.RequestPolicy`: what the model family accepts
(``max_completion_tokens`` and no temperature for OpenAI's reasoning families), the user's ``--model-option``s, and
what the endpoint refused earlier in the run (a 400 ``unsupported_parameter`` / ``unsupported_value`` renames or
drops that one parameter, and the request is sent again at once; under a budget a completion limit is renamed
but never dropped: the request fails instead, since its cost would have no bound). Replies are read as OpenAI and OpenRouter send
them: an error in a 200 body (OpenRouter, after the model started), a thinking trace kept apart from the answer
(`sciwrite.llm.reasoning`), reasoning and cached tokens, OpenRouter's ``usage.cost``, and the snapshot
(``model``) and ``system_fingerprint`` that answered. OpenRouter's optional attribution headers come from
``SCIWRITE_OPENROUTER_REFERER`` (``HTTP-Referer``) and ``SCIWRITE_OPENROUTER_TITLE`` (``X-Title``).

Tool calling is OpenAI's chat shape, which OpenRouter, vLLM and Ollama speak too: ``tools`` / ``tool_choice`` go in
`params`; a reply's ``tool_calls`` become `ToolCall`s (a reply with calls and no text is a valid one), and
`Completion.message` is the assistant message to send back with the tool results (`assistant_message`). An endpoint
that refuses tool calling is adapted to like any refused parameter (`RequestPolicy.adapt`).
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import json
import logging
import math
import os
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any, TypeGuard, TypeVar

import httpx

from sciwrite.llm.capabilities import MODEL_FAMILIES, RequestPolicy
from sciwrite.llm.hf_backend import HFBackend
from sciwrite.llm.reasoning import split_reasoning
from sciwrite.llm.types import Backend, Completion, GenerationError, GenerationSettings, Message, ToolCall
from sciwrite.models.registry import ModelUnavailableError

logger = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524})
#: Where `ChatClient` looks for a bare model id's endpoint and key, first variable first.
BASE_URL_VARIABLES = ("SCIWRITE_LLM_BASE_URL", "OPENAI_BASE_URL")
API_KEY_VARIABLES = ("SCIWRITE_LLM_API_KEY", "OPENAI_API_KEY")


@dataclass(frozen=True)
class Provider:
    """An OpenAI-compatible API: where it is and which environment variable holds its key."""

    base_url: str | None
    key_variable: str


PROVIDERS: dict[str, Provider] = {
    "openrouter": Provider("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "openai": Provider("https://api.openai.com/v1", "OPENAI_API_KEY"),
}
#: OpenRouter's optional attribution headers, read from these variables.
OPENROUTER_HEADER_VARIABLES = {"HTTP-Referer": "SCIWRITE_OPENROUTER_REFERER", "X-Title": "SCIWRITE_OPENROUTER_TITLE"}
#: The key variable of a bare model id served at a custom base URL.
CUSTOM_KEY_VARIABLE = API_KEY_VARIABLES[0]  # SCIWRITE_LLM_API_KEY, as the judges' ChatClient reads it
CUSTOM_BASE_URL_VARIABLE = BASE_URL_VARIABLES[0]  # SCIWRITE_LLM_BASE_URL


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model id: the backend kind, the model name sent to it and, for an API, where it is.

    Attributes:
        raw: The id as written (``openai:gpt-5.5``).
        kind: ``api`` (an OpenAI-compatible endpoint) or ``hf`` (a local transformers model).
        name: The model name the backend is given (``gpt-5.5``).
        base_url: The API's base URL; None for ``hf``.
        key_variable: The environment variable that holds the API's key; None for ``hf``.
    """

    raw: str
    kind: str
    name: str
    base_url: str | None = None
    key_variable: str | None = None

    @property
    def provider(self) -> str | None:
        """``openai`` or ``openrouter`` for those prefixes, else None (a custom OpenAI-compatible server)."""
        prefix, sep, _ = self.raw.partition(":")
        return prefix if sep and prefix in PROVIDERS else None


def parse_model_id(model: str, base_url: str | None = None) -> ModelSpec:
    """Parse a model id: ``openrouter:x``, ``openai:x``, ``hf:x``, or a bare id served at a base URL.

    Args:
        model: The id, as ``--model`` takes it.
        base_url: The server of a bare id (else ``SCIWRITE_LLM_BASE_URL``); it also redirects ``openai:`` ids,
            e.g. to a proxy.

    Raises:
        ValueError: An empty id, an unknown prefix, or a bare id without a base URL; the message lists the
            accepted forms.
    """
    if not isinstance(model, str) or not model.strip():
        raise ValueError("a model id is required, e.g. openrouter:deepseek/deepseek-chat-v3-0324, openai:gpt-4o, "
                         "hf:Qwen/Qwen2.5-0.5B-Instruct")
    prefix, sep, name = model.partition(":")
    if sep and prefix == "hf":
        if not name:
            raise ValueError(f"model id {model!r}: name a transformers model id or path after 'hf:'")
        return ModelSpec(model, "hf", name)
    if sep and prefix in PROVIDERS:
        if not name:
            raise ValueError(f"model id {model!r}: name the model after '{prefix}:'")
        provider = PROVIDERS[prefix]
        return ModelSpec(model, "api", name, base_url or provider.base_url, provider.key_variable)
    base_url = base_url or os.environ.get(CUSTOM_BASE_URL_VARIABLE)
    known = ", ".join(f"{p}:<model>" for p in [*PROVIDERS, "hf"])
    if sep and "/" not in prefix and prefix.isidentifier() and not base_url:
        raise ValueError(f"unknown model provider {prefix!r} in {model!r}; use one of {known}, or a bare model id "
                         f"with --base-url (or {CUSTOM_BASE_URL_VARIABLE}) for any OpenAI-compatible server")
    if not base_url:
        raise ValueError(f"model id {model!r} names no provider; use one of {known}, or pass --base-url (or set "
                         f"{CUSTOM_BASE_URL_VARIABLE}) to use it on an OpenAI-compatible server")
    return ModelSpec(model, "api", model, base_url, CUSTOM_KEY_VARIABLE)


def make_backend(model: str, *, base_url: str | None = None, model_options: Mapping[str, Any] | None = None,
                 **options: Any) -> Backend:
    """The asynchronous backend a model id names, as `sciwrite generate` uses it.

    Args:
        model: A model id (`parse_model_id`).
        base_url: The server of a bare id.
        model_options: Parameters that go into every API request over the model family's table
            (`sciwrite.llm.capabilities.RequestPolicy`); refused for ``hf:`` ids.
        **options: For ``hf:`` ids, `HFBackend`'s settings (``device``, ``batch_size``, ``dtype``).

    Returns:
        An `APIBackend` or an `HFBackend`; ``await backend.complete(messages, settings)`` gives a `Completion`.
    """
    spec = parse_model_id(model, base_url)
    if spec.kind == "hf":
        if model_options:
            raise ValueError(f"--model-option is for API models; {model} is a local transformers model")
        return HFBackend(spec.name, model_label=spec.raw, **options)
    return APIBackend(spec, policy=policy_for(spec, model_options))


def policy_for(spec: ModelSpec, options: Mapping[str, Any] | None = None,
               families: Any = MODEL_FAMILIES) -> RequestPolicy:
    """The request policy of an API model id, with the user's `options`."""
    return RequestPolicy(spec.raw, spec.name, provider=spec.provider, options=options, families=families)


def error_detail(body: Any) -> dict[str, Any]:
    """``message``, ``type``, ``param``, ``code`` and ``metadata`` of an OpenAI or OpenRouter error body (OpenRouter's
    ``code`` is the HTTP status, OpenAI's a string such as ``unsupported_parameter``); {} when there is none."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if not isinstance(body, dict):
        return {}
    return {k: body.get(k) for k in ("message", "type", "param", "code", "metadata") if body.get(k) is not None}


def _detail_text(detail: Mapping[str, Any]) -> str:
    """An error body's message, with the upstream provider's raw error that OpenRouter adds in its metadata."""
    text = str(detail.get("message") or "")
    metadata = detail.get("metadata")
    if isinstance(metadata, dict) and (metadata.get("provider_name") or metadata.get("raw")):
        text += f" (provider {metadata.get('provider_name')}: {str(metadata.get('raw'))[:300]})"
    return text


def api_key(variable: str) -> str:
    """The key in `variable`, or an error naming the variable (the key itself is never printed)."""
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ModelUnavailableError(f"no API key: set the environment variable {variable} (keys are read only from "
                                    "the environment, never from the command line)")
    return key


def scrub(text: str, secrets: Sequence[str]) -> str:
    """`text` with every secret replaced by '***', so error messages can be logged and written safely."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def key_variables() -> list[str]:
    """Every environment variable that may hold an API key of a backend."""
    return [*(p.key_variable for p in PROVIDERS.values()), CUSTOM_KEY_VARIABLE]


def scrub_keys(text: str) -> str:
    """`text` with the value of every key variable set in the environment replaced by '***' (defence in depth
    for texts that did not come through `APIBackend`'s own scrubbing)."""
    return scrub(text, [v for v in (os.environ.get(name, "").strip() for name in key_variables()) if len(v) >= 8])


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds a response asks the client to wait: ``retry-after-ms``, else ``Retry-After`` (seconds or an HTTP
    date); None when neither is present or readable."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            millis = float(lowered["retry-after-ms"])
            if math.isfinite(millis):
                return max(0.0, millis / 1000)
    except ValueError:
        pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is in GMT; "-0000" parses as naive
        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, when.timestamp() - time.time())


def backoff_seconds(attempt: int, settings: GenerationSettings, rng: random.Random | None = None) -> float:
    """Exponential back-off with 'equal jitter': half of base * 2**attempt fixed, half random, capped."""
    ceiling = min(settings.backoff_max, settings.backoff_base * 2 ** attempt)
    return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)


@dataclass
class APIBackend:
    """A chat model behind an OpenAI-compatible API, through ``openai.AsyncOpenAI``."""

    spec: ModelSpec
    #: How request bodies are built; shared by every backend of one model in a run (its memory of refusals).
    policy: RequestPolicy | None = None
    _client: Any = field(default=None, repr=False)
    _secret: str = field(default="", repr=False)
    #: A key given by the caller (never stored in a field); None reads the spec's key variable.
    key: InitVar[str | None] = None
    #: How the wait before a retry is spent (tests pass one that records the waits instead of sleeping).
    sleep: Callable[[float], Awaitable[Any]] = field(default=asyncio.sleep, repr=False)

    def __post_init__(self, key: str | None) -> None:
        from openai import AsyncOpenAI

        assert self.spec.key_variable is not None
        self._secret = (key or "").strip() or api_key(self.spec.key_variable)
        if self.policy is None:
            self.policy = policy_for(self.spec)
        headers = {}
        if self.spec.provider == "openrouter":
            headers = {h: os.environ[v].strip() for h, v in OPENROUTER_HEADER_VARIABLES.items()
                       if os.environ.get(v, "").strip()}
        # SDK retries off: `complete` retries itself, counting attempts and honouring Retry-After without a cap.
        self._client = AsyncOpenAI(api_key=self._secret, base_url=self.spec.base_url, max_retries=0,
                                   default_headers=headers or None)

    @property
    def model(self) -> str:
        """The model id as the user wrote it."""
        return self.spec.raw

    def __repr__(self) -> str:
        return f"APIBackend(model={self.spec.raw!r}, base_url={self.spec.base_url!r})"

    async def complete(self, messages: Sequence[Message], settings: GenerationSettings, *,
                       params: Mapping[str, Any] | None = None) -> Completion:
        """The reply to `messages`; transient failures are retried, anything else raises `GenerationError`.

        `params` (e.g. stop, top_p, seed, max_tokens, tools, tool_choice) go into the request over what `settings`
        sets; a None value leaves that parameter out of the request. The policy shapes the request (see the module
        docstring).
        """
        import openai
        from openai.types.chat import ChatCompletion

        assert self.policy is not None
        request = self.policy.request(messages, settings, params)
        adapted: set[str] = set()
        attempt = 0
        while True:
            attempt += 1
            status: int | None = None
            wait: float | None = None
            try:
                # The SDK's own POST to its chat-completions endpoint (auth, errors, typed response as in
                # `chat.completions.create`), minus `create`'s deep walk of the (already plain JSON) parameters,
                # which costs ~1.5 ms of CPU per request: a third of the client's cost at high concurrency.
                raw = await self._client.post("/chat/completions", body=request, cast_to=httpx.Response,
                                              options={"timeout": settings.timeout})
                response = ChatCompletion.construct(**self._json_reply(raw, attempt))
            except openai.APIStatusError as err:
                status = err.status_code
                detail = error_detail(err.body)
                code, param, message = detail.get("code"), detail.get("param"), str(detail.get("message") or "")
                learned = self.policy.adapt(request, status, code, param, message) if status in (400, 404) else None
                if learned is not None and learned not in adapted:
                    adapted.add(learned)
                    request = self.policy.request(messages, settings, params)
                    continue  # a refused parameter, renamed or dropped: sent again at once
                refusal = self.policy.limit_refusal(request, code, param, message) if status == 400 else None
                if refusal is not None:  # under a budget the completion limit is never dropped
                    raise GenerationError(f"{self.spec.raw}: {scrub(refusal, [self._secret])}", attempts=attempt,
                                          status=status) from None
                problem = f"HTTP {status}: {self._message(err, detail)}"
                retryable = status in RETRYABLE_STATUS or status >= 500
                wait = retry_after_seconds(dict(err.response.headers)) if retryable else None
            except (openai.APITimeoutError, openai.APIConnectionError) as err:
                problem = f"{type(err).__name__}: {self._message(err)}"
                retryable = True
            except openai.OpenAIError as err:  # e.g. a reply that is not a chat completion: not worth retrying
                problem = f"{type(err).__name__}: {self._message(err)}"
                retryable = False
            else:
                embedded = _embedded_error(response)
                if embedded is None:
                    return self._completion(response, attempt, request)
                code = embedded.get("code")
                status = code if isinstance(code, int) else None
                problem = f"error in the reply{f' ({code})' if code is not None else ''}: " \
                          f"{scrub(_detail_text(embedded), [self._secret])[:500]}"
                retryable = status is None or status in RETRYABLE_STATUS or status >= 500
            if not retryable or attempt > settings.max_retries + len(adapted):
                tried = f" after {attempt} attempts" if attempt > 1 else ""
                raise GenerationError(f"{self.spec.raw}: {problem}{tried}", attempts=attempt, status=status)
            if wait is not None and wait > settings.max_retry_after:
                logger.warning("%s asks to retry after %.0f s; waiting %.0f s", self.spec.raw, wait,
                               settings.max_retry_after)
                wait = settings.max_retry_after
            delay = wait if wait is not None else backoff_seconds(attempt - 1 - len(adapted), settings)
            logger.info("%s: %s; retry %d/%d in %.2f s", self.spec.raw, problem, attempt - len(adapted),
                        settings.max_retries, delay)
            await self.sleep(delay)

    def _json_reply(self, raw: httpx.Response, attempts: int) -> dict[str, Any]:
        """The JSON object of a 200 reply; `GenerationError` naming the content type and first bytes when the
        endpoint sent something else (an HTML page from a proxy or a wrong --base-url), or JSON with no choices."""
        content_type = raw.headers.get("content-type", "(none)")
        try:
            data = json.loads(raw.content)
        except (ValueError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict) and isinstance(data.get("choices"), list):
            return data
        if isinstance(data, dict) and (data.get("error") is not None):
            return data  # OpenRouter's error in a 200 body: `_embedded_error` reads it
        start = scrub(raw.content[:200].decode("utf-8", "replace"), [self._secret])
        what = "JSON that is not a chat completion (no 'choices')" if data is not None else "non-JSON"
        raise GenerationError(f"{self.spec.raw}: the endpoint {self.spec.base_url} sent {what} with HTTP "
                              f"{raw.status_code}, Content-Type {content_type!r}, starting {start!r}; check that "
                              "--base-url is the API's address (ending in /v1), not a web page or a proxy's",
                              attempts=attempts, status=raw.status_code)

    def _completion(self, response: Any, attempts: int, request: Mapping[str, Any] | None = None) -> Completion:
        choice = response.choices[0] if getattr(response, "choices", None) else None
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        text, reasoning = split_reasoning(content, getattr(message, "reasoning_content", None),
                                          getattr(message, "reasoning", None),
                                          *_detail_texts(getattr(message, "reasoning_details", None)))
        calls = read_tool_calls(getattr(message, "tool_calls", None), self.spec.raw)
        finish = getattr(choice, "finish_reason", None)
        usage, problem = read_usage(getattr(response, "usage", None))
        if problem:
            charged = "the cost the endpoint reported" if usage.cost is not None else "its worst case"
            logger.warning("%s: the reply's usage is malformed (%s): its text is kept and the request is charged "
                           "%s", self.spec.raw, problem, charged)
        completion = Completion(
            text, self.spec.raw, usage.prompt_tokens, usage.completion_tokens, finish, attempts,
            reasoning=reasoning, reasoning_tokens=usage.reasoning_tokens,
            cached_tokens=usage.cached_tokens, cost=usage.cost,
            snapshot=getattr(response, "model", None), system_fingerprint=getattr(response, "system_fingerprint", None),
            usage_problem=problem, tool_calls=calls, message=assistant_message(message, text, calls))
        if not text and not calls:
            raise GenerationError(f"{self.spec.raw}: the model answered with nothing (finish_reason={finish})"
                                  f"{_why_empty(completion, request or {})}", attempts=attempts, completion=completion)
        return completion

    def _message(self, err: Exception, detail: Mapping[str, Any] | None = None) -> str:
        text = _detail_text(detail) if detail and detail.get("message") else str(err)
        return scrub(text, [self._secret])[:500]

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()


def _embedded_error(response: Any) -> dict[str, Any] | None:
    """An error OpenRouter put in a 200 reply (top level, or on the first choice) once the model had started."""
    for holder in (response, *(getattr(response, "choices", None) or [])[:1]):
        error = getattr(holder, "error", None)
        if error is not None:
            detail = error_detail({"error": error if isinstance(error, dict) else getattr(error, "__dict__", {})})
            return detail or {"message": str(error)}
    return None


def _get(holder: Any, name: str) -> Any:
    """`name` of a reply part, whether the SDK built it into an object or left it a dict."""
    return holder.get(name) if isinstance(holder, dict) else getattr(holder, name, None)


def read_tool_calls(items: Any, model: str = "?") -> tuple[ToolCall, ...]:
    """The function calls of a reply's ``message.tool_calls``, arguments as JSON text: a server that sends them as
    a JSON object (some local ones) has them re-encoded, a missing id is made up from the call's position
    (``call_<i>``, unique in the reply) so that its result can answer it; an item without a function name cannot
    be answered and is left out (logged)."""
    calls: list[ToolCall] = []
    seen: set[str] = set()
    for i, item in enumerate(items if isinstance(items, list) else []):
        function = _get(item, "function")
        name = _get(function, "name")
        if not isinstance(name, str) or not name:
            logger.warning("%s: a tool call without a function name is ignored: %.200r", model, item)
            continue
        arguments = _get(function, "arguments")
        if arguments is None:
            arguments = "{}"
        elif not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False, default=str)
        call_id = _get(item, "id")
        position = i
        while not isinstance(call_id, str) or not call_id or call_id in seen:
            call_id, position = f"call_{position}", position + 1
        seen.add(call_id)
        calls.append(ToolCall(call_id, name, arguments))
    return tuple(calls)


def assistant_message(message: Any, text: str, calls: Sequence[ToolCall]) -> dict[str, Any]:
    """The reply as the next request's history needs it (`Completion.message`): role, content (the answer without
    its thinking trace; None when the reply's was null, "" stays ""), the tool calls in the OpenAI shape, and the
    reasoning a provider asks back between tool turns: OpenRouter's ``reasoning_details``, unchanged; DeepSeek's
    ``reasoning_content`` on a turn with tool calls (its thinking mode answers 400 when that is missing; on a turn
    without tool calls it is not needed, and the older deepseek-reasoner refused it). Fields the next request may be
    refused for (``refusal``, ``annotations``, ``audio``, OpenRouter's plain ``reasoning``) are left out."""
    out: dict[str, Any] = {"role": "assistant", "content": None if _get(message, "content") is None else text}
    if calls:
        out["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                             for c in calls]
    details = _get(message, "reasoning_details")
    if isinstance(details, list) and details:
        out["reasoning_details"] = details
    reasoning_content = _get(message, "reasoning_content")
    if calls and isinstance(reasoning_content, str):
        out["reasoning_content"] = reasoning_content
    return out


def _detail_texts(details: Any) -> list[str]:
    """The readable texts of OpenRouter's ``reasoning_details`` (``reasoning.text`` and ``reasoning.summary``
    items; ``reasoning.encrypted`` ones hold nothing readable)."""
    if not isinstance(details, list):
        return []
    texts = (item.get("text") or item.get("summary") for item in details if isinstance(item, dict))
    return [text for text in texts if isinstance(text, str)]


#: Where each token count is in a chat completion's ``usage`` (OpenAI's fields).
TOKEN_FIELDS = {"prompt_tokens": ("prompt_tokens",), "completion_tokens": ("completion_tokens",),
                "reasoning_tokens": ("completion_tokens_details", "reasoning_tokens"),
                "cached_tokens": ("prompt_tokens_details", "cached_tokens")}
#: Where OpenRouter puts the request's cost in ``usage``.
COST_FIELD = ("cost",)
_Figure = TypeVar("_Figure", int, float)


@dataclass(frozen=True)
class ReplyUsage:
    """The usage figures of a reply that were numbers >= 0; None where the reply had none or a malformed one."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    cost: float | None = None


def read_usage(usage: Any) -> tuple[ReplyUsage, str | None]:
    """The usage figures of a reply that are numbers >= 0 (counts as int, the cost as float), and what was
    malformed (a negative count, a text, a fractional token count), or None."""
    problems: list[str] = []
    counts = {name: _figure(usage, path, _token_count, problems) for name, path in TOKEN_FIELDS.items()}
    cost = _figure(usage, COST_FIELD, _cost, problems)
    return ReplyUsage(**counts, cost=cost), "; ".join(problems) or None


def _figure(usage: Any, path: tuple[str, ...], read: Callable[[Any], _Figure | None],
            problems: list[str]) -> _Figure | None:
    """The figure at `path` as `read` reads it; None when absent, or malformed (then noted in `problems`)."""
    value = _usage_field(usage, path)
    if value is None:
        return None
    number = read(value)
    if number is None:
        problems.append(f"usage.{'.'.join(path)}={value!r}")
    return number


def _usage_field(usage: Any, path: Sequence[str]) -> Any:
    """The value at `path` in a reply's usage, whether the SDK built it into objects or left it dicts."""
    value: Any = usage
    for key in path:
        value = value.get(key) if isinstance(value, dict) else getattr(value, key, None)
    return value


def _finite_non_negative(value: Any) -> TypeGuard[float]:
    """A number (int or float, not a bool) that is finite and >= 0."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and value >= 0


def _token_count(value: Any) -> int | None:
    """A token count: a whole number >= 0 (``12.0`` included), else None."""
    return int(value) if _finite_non_negative(value) and float(value).is_integer() else None


def _cost(value: Any) -> float | None:
    """A cost in USD: a number >= 0, or a text that reads as one, else None."""
    number = _number(value) if isinstance(value, str) else value
    return float(number) if _finite_non_negative(number) else None


def _why_empty(completion: Completion, request: Mapping[str, Any]) -> str:
    """Why a reply has no answer, and what to raise, when the completion limit ran out (often all on reasoning)."""
    if completion.finish_reason != "length" and not completion.reasoning and not completion.reasoning_tokens:
        return ""
    if completion.reasoning_tokens is not None:
        spent = f"{completion.reasoning_tokens} of its {completion.completion_tokens} completion tokens were reasoning"
    else:
        spent = "the reply holds only a reasoning trace" if completion.reasoning else "no answer came"
    parameter = next((p for p in ("max_completion_tokens", "max_tokens") if request.get(p) is not None), None)
    if parameter is None:
        return f"; {spent}: set a larger --max-tokens or lower reasoning_effort"
    what = "was spent before any answer" if completion.finish_reason == "length" else "held no answer"
    return (f"; the completion limit {parameter}={request[parameter]} {what} ({spent}): raise it above "
            f"{request[parameter]} (--max-tokens N, or --model-option {parameter}=N) or lower reasoning_effort")


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
