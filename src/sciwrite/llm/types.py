"""What every language-model backend takes and gives: messages, sampling settings, a completion, a failure.

A history is a list of messages in the OpenAI chat shape: ``{"role": "system" | "user", "content": str}``, an
assistant's reply (``{"role": "assistant", "content": str}``, or a `Completion.message` as it came back, with its
``tool_calls``), and tool results ``{"role": "tool", "tool_call_id": str, "content": str}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Message = Mapping[str, Any]  # {"role": ..., "content": str | None, ...}: see the module docstring


@dataclass(frozen=True)
class GenerationSettings:
    """Sampling and request settings; the defaults are the papers' (temperature 0.7, 2,048 tokens, seed 42).

    Attributes:
        temperature: The sampling temperature.
        max_tokens: The completion limit.
        seed: The request seed; None sends none.
        concurrency: Requests in flight at once.
        timeout: Seconds per request.
        max_retries: Further attempts after the first, for transient errors only.
        backoff_base: Seconds; attempt n waits ``backoff_base * 2**n`` (with jitter) when no Retry-After is sent.
        backoff_max: The longest back-off, in seconds.
        max_retry_after: A longer Retry-After is capped at this many seconds (and logged).
    """

    temperature: float = 0.7
    max_tokens: int = 2048
    seed: int | None = 42
    concurrency: int = 16  # requests in flight at once
    timeout: float = 300.0  # seconds per request
    max_retries: int = 5  # further attempts after the first, for transient errors only
    backoff_base: float = 1.0  # seconds; attempt n waits base * 2**n (with jitter) when no Retry-After is sent
    backoff_max: float = 60.0
    max_retry_after: float = 300.0  # a longer Retry-After is capped (and logged)

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {self.concurrency}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for: the provider's call id (a tool result answers it), the function's
    name and its arguments as the raw JSON text the model wrote (possibly malformed: the caller parses it)."""

    id: str
    name: str
    arguments: str


@dataclass
class Completion:
    """One model reply: the answer, its token counts and cost, and which snapshot answered.

    Token counts and cost are as the endpoint reported them (None when it did not).

    Attributes:
        text: The answer, any reasoning trace taken out (`sciwrite.llm.reasoning`).
        model: The model id as the user wrote it.
        prompt_tokens: Prompt tokens.
        completion_tokens: Completion tokens, reasoning tokens included.
        finish_reason: The endpoint's ``finish_reason``.
        attempts: Requests sent for it: retries and refused parameters included.
        reasoning: The thinking trace, when the reply had one.
        reasoning_tokens: ``usage.completion_tokens_details.reasoning_tokens``.
        cached_tokens: ``usage.prompt_tokens_details.cached_tokens``.
        cost: USD, when the endpoint reports it (OpenRouter's ``usage.cost``).
        snapshot: The reply's ``model``: the dated snapshot that answered.
        system_fingerprint: The endpoint's ``system_fingerprint``.
        usage_problem: What was malformed in the reply's usage, if anything.
        tool_calls: The functions the model called (its text may then be empty).
        message: The assistant message to append to the history for the next request, as the provider needs it
            back; None from a backend that builds none (a local model).
    """

    text: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None  # for reasoning models this includes the reasoning tokens
    finish_reason: str | None = None
    attempts: int = 1
    reasoning: str | None = None  # the thinking trace (<think> block, reasoning_content / reasoning field)
    reasoning_tokens: int | None = None  # usage.completion_tokens_details.reasoning_tokens
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens
    cost: float | None = None  # USD, when the endpoint reports it (OpenRouter's usage.cost)
    snapshot: str | None = None  # the reply's `model`: the dated snapshot that actually answered
    system_fingerprint: str | None = None
    usage_problem: str | None = None  # the reply's usage was malformed (negative, not a number): what and where
    tool_calls: tuple[ToolCall, ...] = ()  # the functions the model called (its text may then be "")
    #: The assistant message to append to the history for the next request, as the provider needs it back: role,
    #: content (the answer without its thinking trace; None when the reply's was null), the tool calls in the
    #: OpenAI shape, and the reasoning the provider asks to be returned between tool turns (OpenRouter's
    #: ``reasoning_details``; DeepSeek's ``reasoning_content`` on a turn with tool calls). None from a backend that
    #: builds none (a local model).
    message: dict[str, Any] | None = None


class GenerationError(RuntimeError):
    """A request that failed for good, after retries where retrying made sense.

    Attributes:
        attempts: Requests sent.
        status: The last HTTP status, when there was one.
        completion: The reply when one came back but could not be used (all its tokens went to reasoning, say):
            its tokens were still billed.
    """

    def __init__(self, message: str, *, attempts: int = 1, status: int | None = None,
                 completion: Completion | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.status = status
        self.completion = completion


class BudgetExceededError(RuntimeError):
    """The usage ledger reached the run's ``--max-cost``, or a reply was charged more than its reservation: no
    further request is sent (what is done is kept)."""


class Backend(Protocol):
    """What the runner needs from a model."""

    @property
    def model(self) -> str:
        """The model id as the user wrote it, e.g. ``openrouter:deepseek/deepseek-chat-v3-0324`` (read only)."""
        ...

    async def complete(self, messages: Sequence[Message], settings: GenerationSettings, *,
                       params: Mapping[str, Any] | None = None) -> Completion:
        """One reply to `messages`; `params` are request parameters over `settings` (``tools``, ``tool_choice``,
        ...), which a backend that cannot send them refuses with a `GenerationError`."""
        ...

    async def aclose(self) -> None:
        """Release the backend's resources."""
        ...
