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
drops that one parameter, and the request is sent again at once). Replies are read as OpenAI and OpenRouter send
them: an error in a 200 body (OpenRouter, after the model started), a thinking trace kept apart from the answer
(`sciwrite.llm.reasoning`), reasoning and cached tokens, OpenRouter's ``usage.cost``, and the snapshot
(``model``) and ``system_fingerprint`` that answered. OpenRouter's optional attribution headers come from
``SCIWRITE_OPENROUTER_REFERER`` (``HTTP-Referer``) and ``SCIWRITE_OPENROUTER_TITLE`` (``X-Title``).
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import logging
import math
import os
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any

from sciwrite.llm.capabilities import MODEL_FAMILIES, RequestPolicy
from sciwrite.llm.hf_backend import HFBackend
from sciwrite.llm.reasoning import split_reasoning
from sciwrite.llm.types import Backend, Completion, GenerationError, GenerationSettings, Message
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
    """A parsed model id: backend kind ('api' or 'hf'), the model name sent to it, and for APIs where it is."""

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
    """``openrouter:x``, ``openai:x``, ``hf:x`` or a bare id served at `base_url` (or ``SCIWRITE_LLM_BASE_URL``).

    A `base_url` also redirects ``openai:`` ids (e.g. to a proxy); an unknown prefix or a bare id without a base
    URL is an error that lists the accepted forms.
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
    """The backend a model id names; `model_options` go into every API request (see `RequestPolicy`); `options`
    go to `HFBackend` for ``hf:`` ids (device, batch_size, dtype)."""
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
        return self.spec.raw

    def __repr__(self) -> str:
        return f"APIBackend(model={self.spec.raw!r}, base_url={self.spec.base_url!r})"

    async def complete(self, messages: Sequence[Message], settings: GenerationSettings, *,
                       params: Mapping[str, Any] | None = None) -> Completion:
        """The reply to `messages`; transient failures are retried, anything else raises `GenerationError`.

        `params` (e.g. stop, top_p, seed, max_tokens) go into the request over what `settings` sets; a None value
        leaves that parameter out of the request. The policy shapes the request (see the module docstring).
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
                response = await self._client.post("/chat/completions", body=request, cast_to=ChatCompletion,
                                                   options={"timeout": settings.timeout})
            except openai.APIStatusError as err:
                status = err.status_code
                detail = error_detail(err.body)
                if status == 400 and detail.get("param") not in adapted and self.policy.learn(
                        request, detail.get("code"), detail.get("param"), str(detail.get("message") or "")):
                    adapted.add(detail["param"])
                    request = self.policy.request(messages, settings, params)
                    continue  # a refused parameter, renamed or dropped: sent again at once
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
                    return self._completion(response, attempt)
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
            await asyncio.sleep(delay)

    def _completion(self, response: Any, attempts: int) -> Completion:
        choice = response.choices[0] if getattr(response, "choices", None) else None
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        text, reasoning = split_reasoning(content, getattr(message, "reasoning_content", None),
                                          getattr(message, "reasoning", None))
        finish = getattr(choice, "finish_reason", None)
        usage = getattr(response, "usage", None)
        completion = Completion(
            text, self.spec.raw, getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None),
            finish, attempts, reasoning=reasoning,
            reasoning_tokens=getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None),
            cached_tokens=getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None),
            cost=_number(getattr(usage, "cost", None)), snapshot=getattr(response, "model", None),
            system_fingerprint=getattr(response, "system_fingerprint", None))
        if not text:
            spent = completion.reasoning_tokens or (len(reasoning.split()) if reasoning else 0)
            why = (f"; all of it was reasoning ({spent} reasoning tokens): raise the token limit "
                   "(--max-tokens, or --model-option max_completion_tokens=N) or lower reasoning_effort"
                   if reasoning or completion.reasoning_tokens else "")
            raise GenerationError(f"{self.spec.raw}: the model answered with nothing (finish_reason={finish}){why}",
                                  attempts=attempts, completion=completion)
        return completion

    def _message(self, err: Exception, detail: Mapping[str, Any] | None = None) -> str:
        text = _detail_text(detail) if detail and detail.get("message") else str(err)
        return scrub(text, [self._secret])[:500]

    async def aclose(self) -> None:
        await self._client.close()


def _embedded_error(response: Any) -> dict[str, Any] | None:
    """An error OpenRouter put in a 200 reply (top level, or on the first choice) once the model had started."""
    for holder in (response, *(getattr(response, "choices", None) or [])[:1]):
        error = getattr(holder, "error", None)
        if error is not None:
            detail = error_detail({"error": error if isinstance(error, dict) else getattr(error, "__dict__", {})})
            return detail or {"message": str(error)}
    return None


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
