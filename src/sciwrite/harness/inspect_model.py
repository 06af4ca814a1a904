"""Inspect's model as a generation method sees a model: the `sciwrite.generation.runner.PaperLLM` interface
(``await llm(messages)`` -> the reply text, ``await llm.complete(messages)`` -> a `Completion`) over the model of the
running Inspect task, so every method of ``sciwrite generate`` runs unchanged under Inspect.

Each request is sent with the run's sampling settings (temperature, completion limit, seed; a method's overrides
win) as Inspect's `GenerateConfig`, and a thinking model's ``<think>`` trace is taken out of the answer exactly as the
CLI's backends do (`sciwrite.llm.reasoning.split_reasoning`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)

from sciwrite.llm.reasoning import split_reasoning
from sciwrite.llm.types import Completion, GenerationError, GenerationSettings, Message

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def chat_messages(messages: Sequence[Message]) -> list[ChatMessage]:
    """sciwrite's ``{"role", "content"}`` messages as Inspect chat messages."""
    out: list[ChatMessage] = []
    for message in messages:
        role = message.get("role")
        if role not in _ROLES:
            raise ValueError(f"a message with role {role!r}; expected one of {sorted(_ROLES)}")
        out.append(_ROLES[role](content=message["content"]))
    return out


class InspectLLM:
    """One paper's model under Inspect: `PaperLLM`'s interface, its requests sent to `model` with `settings`."""

    def __init__(self, model: Model, settings: GenerationSettings) -> None:
        self._model = model
        self._settings = settings
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.snapshot: str | None = None
        self.reasoning: list[str | None] = []
        self.last_request: list[Message] | None = None  # the messages of the last request sent

    @property
    def model_name(self) -> str:
        return str(self._model)

    def config(self, **overrides: Any) -> GenerateConfig:
        """The request's `GenerateConfig`: the run's settings, `overrides` (e.g. ``max_tokens``) over them."""
        settings = replace(self._settings, **overrides) if overrides else self._settings
        return GenerateConfig(max_tokens=settings.max_tokens, temperature=settings.temperature, seed=settings.seed)

    async def complete(self, messages: Sequence[Message], **overrides: Any) -> Completion:
        self.last_request = list(messages)
        output = await self._model.generate(chat_messages(messages), config=self.config(**overrides))
        if output.error:
            raise GenerationError(f"the model answered with an error: {output.error}")
        text, reasoning = split_reasoning(output.completion)
        usage = output.usage
        completion = Completion(text=text, model=str(self._model), finish_reason=output.stop_reason,
                                prompt_tokens=usage.input_tokens if usage else None,
                                completion_tokens=usage.output_tokens if usage else None,
                                reasoning=reasoning, snapshot=output.model or None)
        self.requests += 1
        self.prompt_tokens += completion.prompt_tokens or 0
        self.completion_tokens += completion.completion_tokens or 0
        self.snapshot = completion.snapshot or self.snapshot
        self.reasoning.append(reasoning)
        return completion

    async def __call__(self, messages: Sequence[Message], **overrides: Any) -> str:
        return (await self.complete(messages, **overrides)).text

    def usage(self) -> dict[str, Any]:
        return {"requests": self.requests, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


__all__ = ["InspectLLM", "chat_messages"]
