"""Inspect's model as a generation method sees a model: the `sciwrite.generation.runner.PaperLLM` interface
(``await llm(messages)`` -> the reply text, ``await llm.complete(messages, tools=..., tool_choice=...)`` -> a
`Completion`) over the model of the running Inspect task, so every method of ``sciwrite generate`` runs unchanged
under Inspect, the agent's tool-calling loop included.

Each request is sent with the run's sampling settings (temperature, completion limit, seed; a method's overrides
win) as Inspect's `GenerateConfig`, and a thinking model's ``<think>`` trace is taken out of the answer exactly as the
CLI's backends do (`sciwrite.llm.reasoning.split_reasoning`).

Tool calling goes through Inspect's own types, so each provider gets the request shape Inspect gives it:

- the OpenAI-shape ``tools`` become `ToolInfo`s (`tool_infos`) and ``tool_choice`` Inspect's (`inspect_tool_choice`:
  ``"required"`` is Inspect's ``"any"``, a named function a `ToolFunction`). Inspect sends no tools with ``"none"``
  (its `Model.generate` drops them then), where the CLI sends them with ``tool_choice: "none"``;
- the history's assistant turns with ``tool_calls`` become `ChatMessageAssistant`s with Inspect `ToolCall`s
  (arguments parsed), tool results `ChatMessageTool`s (`chat_messages`). A reply this object returned goes back as
  Inspect's own message for it (its reasoning blocks kept, as reasoning models need between tool turns), its text
  without the ``<think>`` trace;
- the reply's calls come back as sciwrite `ToolCall`s with the arguments as JSON text; a call whose arguments Inspect
  could not parse carries the raw text it recorded, so the agent's handling of a malformed call applies.

`InspectLLM.tools_refused` is always False: Inspect's providers decide how tools are sent, and an endpoint that
refuses them fails the request (the CLI's capability policy, which retries without tools, is not in this path)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    Model,
    ModelOutput,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolChoice, ToolFunction, ToolInfo, ToolParams

from sciwrite.llm.reasoning import split_reasoning
from sciwrite.llm.types import Completion, GenerationError, GenerationSettings, Message, ToolCall

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
#: How Inspect records a call whose arguments it could not parse (`inspect_ai.model._call_tools`): the raw text is
#: between these lines.
_PARSE_ERROR = re.compile(r"^Error parsing the following tool call arguments:\n\n(?P<raw>.*)\n\nError details: ",
                          re.DOTALL)
#: sciwrite's ``tool_choice`` strings -> Inspect's.
_CHOICES: dict[str, ToolChoice] = {"auto": "auto", "none": "none", "required": "any"}


def tool_infos(tools: Sequence[Mapping[str, Any]] | None) -> list[ToolInfo]:
    """OpenAI chat ``tools`` (``{"type": "function", "function": {"name", "description", "parameters"}}``) as
    Inspect `ToolInfo`s, their JSON schemas unchanged."""
    infos = []
    for spec in tools or ():
        function = spec.get("function") if spec.get("type") == "function" else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise ValueError(f"a tool that is not an OpenAI function tool: {dict(spec)!r}")
        infos.append(ToolInfo(name=function["name"], description=function.get("description") or "",
                              parameters=ToolParams.model_validate(function.get("parameters") or {})))
    return infos


def inspect_tool_choice(choice: str | Mapping[str, Any] | None) -> ToolChoice | None:
    """OpenAI's ``tool_choice`` (``"auto"``, ``"none"``, ``"required"``, ``{"type": "function", "function":
    {"name": ...}}``) as Inspect's; None stays None (Inspect's default, ``"auto"``)."""
    if choice is None:
        return None
    if isinstance(choice, str) and choice in _CHOICES:
        return _CHOICES[choice]
    function = choice.get("function") if isinstance(choice, Mapping) and choice.get("type") == "function" else None
    if isinstance(function, Mapping) and isinstance(function.get("name"), str):
        return ToolFunction(name=function["name"])
    raise ValueError(f"tool_choice {choice!r}; expected 'auto', 'none', 'required' or a function")


def inspect_tool_call(item: Mapping[str, Any]) -> InspectToolCall:
    """One OpenAI-shape tool call of a history (arguments as JSON text) as Inspect's; arguments that are not a JSON
    object are kept as its parse error."""
    function = item.get("function") or {}
    raw = function.get("arguments")
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        arguments = None
    if isinstance(arguments, dict):
        return InspectToolCall(id=str(item.get("id")), function=str(function.get("name")), arguments=arguments)
    return InspectToolCall(id=str(item.get("id")), function=str(function.get("name")), arguments={},
                           parse_error=f"the arguments are not a JSON object: {raw}")


def chat_messages(messages: Sequence[Message],
                  replies: Sequence[tuple[Mapping[str, Any], ChatMessage]] = ()) -> list[ChatMessage]:
    """sciwrite's messages (OpenAI's chat shape: see `sciwrite.llm.types`) as Inspect chat messages; an assistant
    message equal to the first item of one of `replies` becomes its second (Inspect's own message for it)."""
    out: list[ChatMessage] = []
    functions: dict[str, str] = {}  # tool call id -> the function called, for the tool result's `function`
    for message in messages:
        role = message.get("role")
        known = next((inspect for sent, inspect in replies if role == "assistant" and sent == message), None)
        if known is not None:
            out.append(known)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            out.append(ChatMessageTool(content=message.get("content") or "", tool_call_id=call_id,
                                       function=functions.get(str(call_id))))
        elif role == "assistant" and message.get("tool_calls"):
            calls = [inspect_tool_call(item) for item in message["tool_calls"]]
            out.append(ChatMessageAssistant(content=message.get("content") or "", tool_calls=calls))
        elif role in _ROLES:
            out.append(_ROLES[role](content=message.get("content") or ""))
        else:
            raise ValueError(f"a message with role {role!r}; expected one of {sorted([*_ROLES, 'tool'])}")
        for call in getattr(out[-1], "tool_calls", None) or []:
            functions[call.id] = call.function
    return out


def call_arguments(call: InspectToolCall) -> str:
    """A call's arguments as the JSON text the agent parses: the raw text Inspect recorded when it could not parse
    it, else the parsed arguments re-encoded."""
    if call.parse_error:
        match = _PARSE_ERROR.match(call.parse_error)
        return match.group("raw") if match else call.parse_error
    return json.dumps(call.arguments, ensure_ascii=False)


def reasoning_texts(message: ChatMessageAssistant) -> list[str]:
    """The readable reasoning of a reply's reasoning blocks (a redacted block's summary only)."""
    parts = message.content if isinstance(message.content, list) else []
    texts = ((part.summary if part.redacted else part.reasoning) for part in parts
             if isinstance(part, ContentReasoning))
    return [text for text in texts if text]


def answer_message(message: ChatMessageAssistant, text: str) -> ChatMessageAssistant:
    """The reply as it goes back in the history: Inspect's message, its text without a ``<think>`` trace (its
    reasoning blocks and tool calls kept)."""
    if message.text.strip() == text:
        return message
    kept = [part for part in message.content if not isinstance(part, ContentText)] \
        if isinstance(message.content, list) else []
    return message.model_copy(update={"content": [*kept, ContentText(text=text)] if kept else text})


def output_failure(output: ModelOutput) -> str | None:
    """Why a reply is no answer, or None: a model error, or a request the model's context cannot hold (Inspect
    turns an HTTP 400 ``context_length_exceeded`` into an output holding the error's text, stop reason
    ``model_length``). The CLI fails the paper on both; so does the sample, rather than score the error's text."""
    if output.error:
        return f"the model answered with an error: {output.error}"
    if output.stop_reason == "model_length":
        return f"the request does not fit the model's context (stop reason model_length): {output.completion[:300]}"
    return None


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
        #: Inspect's providers send the tools (see the module docstring): never refused here.
        self.tools_refused = False
        self._replies: list[tuple[dict[str, Any], ChatMessage]] = []  # (Completion.message, Inspect's message)

    @property
    def model_name(self) -> str:
        return str(self._model)

    def config(self, **overrides: Any) -> GenerateConfig:
        """The request's `GenerateConfig`: the run's settings, `overrides` (e.g. ``max_tokens``) over them."""
        settings = replace(self._settings, **overrides) if overrides else self._settings
        return GenerateConfig(max_tokens=settings.max_tokens, temperature=settings.temperature, seed=settings.seed)

    async def complete(self, messages: Sequence[Message], *, tools: Sequence[Mapping[str, Any]] | None = None,
                       tool_choice: str | Mapping[str, Any] | None = None, **overrides: Any) -> Completion:
        """The reply to `messages`, `tools` (OpenAI's chat ``tools``) offered with `tool_choice` (see the module
        docstring); `overrides` change settings for this request."""
        self.last_request = list(messages)
        output = await self._model.generate(chat_messages(messages, self._replies), tools=tool_infos(tools),
                                            tool_choice=inspect_tool_choice(tool_choice),
                                            config=self.config(**overrides))
        failure = output_failure(output)
        if failure is not None:
            raise GenerationError(failure)
        reply = output.message if output.choices else None
        text, reasoning = split_reasoning(output.completion, *(reasoning_texts(reply) if reply else ()))
        calls = tuple(ToolCall(call.id, call.function, call_arguments(call))
                      for call in (reply.tool_calls if reply is not None else None) or [])
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [{"id": c.id, "type": "function",
                                      "function": {"name": c.name, "arguments": c.arguments}} for c in calls]
        if reply is not None:
            self._replies.append((message, answer_message(reply, text)))
        usage = output.usage
        completion = Completion(text=text, model=str(self._model), finish_reason=output.stop_reason,
                                prompt_tokens=usage.input_tokens if usage else None,
                                completion_tokens=usage.output_tokens if usage else None,
                                reasoning=reasoning, snapshot=output.model or None, tool_calls=calls,
                                message=message)
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


__all__ = ["InspectLLM", "answer_message", "call_arguments", "chat_messages", "inspect_tool_call",
           "inspect_tool_choice", "output_failure", "reasoning_texts", "tool_infos"]
