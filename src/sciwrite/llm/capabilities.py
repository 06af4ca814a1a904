"""What each model family accepts, the user's per-run model options, and what an endpoint refused, turned into the
body of each chat request.

OpenAI's reasoning families (o1, o3, o4, gpt-5*) refuse ``max_tokens`` ("Use 'max_completion_tokens' instead") and
any ``temperature`` / ``top_p`` but the default 1, and count their hidden reasoning against the token limit;
classic chat models take ``max_tokens`` and a temperature. `MODEL_FAMILIES` says which is which, by model name.
OpenRouter takes ``max_tokens`` for every model and ``reasoning: {"effort": ...}`` for the effort.

A `RequestPolicy` holds that for one model at one endpoint for a whole run:

- user options (``--model-option KEY=VALUE``, a baseline config's ``model_options``) go into every request over
  the table's choices (``reasoning_effort=high``, ``provider={order: [openai]}``, ``temperature=null`` to send
  none); the option ``family=chat|openai-reasoning`` picks the table row itself;
- a parameter the table keeps from being sent as asked (the papers' temperature 0.7 on GPT-5.5) is an
  *adjustment*: logged once, and listed by `adjustments` for the run's metadata — never silent;
- when the endpoint still answers 400 ``unsupported_parameter`` / ``unsupported_value``, `learn` renames the
  parameter (when the message names the one to use) or drops it, the request is sent once more, and every later
  request of the run is built the same way;
- tool calling is refused the same way, though servers say so in their own words: a 400 whose ``param`` is
  ``tools`` or ``tool_choice``, or whose message names them (vLLM without a tool parser: '"auto" tool choice
  requires --enable-auto-tool-choice and --tool-call-parser to be set'; Ollama: '... does not support tools'), or
  OpenRouter's 404 'No endpoints found that support tool use' / '... the provided 'tool_choice' value'.
  ``tool_choice`` is dropped first; when the request is still refused, ``tools`` too (`refused` then says so, and
  the method records that its model could not call tools).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from sciwrite.llm.types import GenerationSettings, Message

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Capabilities:
    """What a model family accepts in a chat request.

    Attributes:
        family: ``chat`` (classic chat models) or ``openai-reasoning`` (o1, o3, o4, gpt-5*).
        token_parameter: The name the completion limit is sent as.
        default_sampling_only: Only the default temperature / top_p (1) is accepted.
        min_completion_tokens: The smallest completion limit sent (reasoning and answer share it).
    """

    family: str
    token_parameter: str = "max_tokens"
    default_sampling_only: bool = False  # temperature / top_p: only the default (1) is accepted
    min_completion_tokens: int | None = None  # reasoning and answer share the limit: never ask for less


CHAT = Capabilities("chat")
# OpenAI's reasoning guide: "reserve at least 25,000 tokens for reasoning and outputs when you start experimenting".
OPENAI_REASONING = Capabilities("openai-reasoning", token_parameter="max_completion_tokens",
                                default_sampling_only=True, min_completion_tokens=25_000)
FAMILIES: dict[str, Capabilities] = {c.family: c for c in (CHAT, OPENAI_REASONING)}

#: (pattern on the model name, without an ``openai/`` vendor prefix; its family); the first match wins, and a name
#: no pattern matches is a classic chat model.
MODEL_FAMILIES: tuple[tuple[str, Capabilities], ...] = (
    (r"gpt-5(?:\.\d+)?-chat\b.*", CHAT),  # gpt-5-chat-latest: the non-reasoning GPT-5 served in ChatGPT
    (r"gpt-5(?:[.-].*)?", OPENAI_REASONING),
    (r"o[134](?:-.*)?", OPENAI_REASONING),
)
SAMPLING_PARAMETERS = ("temperature", "top_p")
TOKEN_PARAMETERS = ("max_tokens", "max_completion_tokens")
#: Endpoint error codes (OpenAI's `error.code`) that `learn` adapts a request to.
ADAPTABLE_CODES = frozenset({"unsupported_parameter", "unsupported_value"})
_USE_INSTEAD = re.compile(r"[Uu]se '([A-Za-z_][A-Za-z0-9_]*)' instead")
TOOL_PARAMETERS = ("tool_choice", "tools")  # dropped in this order when an endpoint refuses tool calling
#: A refusal's message naming tool choice, or tools themselves (not a path into them such as ``tools.0.function``,
#: which is a malformed schema, nor a tool message or call id in the history).
_NAMES_TOOL_CHOICE = re.compile(r"tool[ _-]choice", re.IGNORECASE)
_NAMES_TOOLS = re.compile(r"\btools\b(?![.\[])|tool[ _-](?:use|calling|call[ _-]parser)|function[ _-]calling",
                          re.IGNORECASE)


def capabilities_for(name: str, families: Sequence[tuple[str, Capabilities]] = MODEL_FAMILIES) -> Capabilities:
    """The family of the model `name` (``gpt-5.5``, ``openai/o3-mini``, ``deepseek/deepseek-chat``).

    The first pattern of `families` that matches the name, without an ``openai/`` vendor prefix, wins; a name no
    pattern matches is a classic chat model.
    """
    bare = name.lower().removeprefix("openai/")
    return next((caps for pattern, caps in families if re.fullmatch(pattern, bare)), CHAT)


def parse_model_option(text: str) -> tuple[str, Any]:
    """Parse one ``--model-option``: ``KEY=VALUE`` with VALUE read as YAML, as a (key, value) pair.

    Examples: ``reasoning_effort=high``, ``seed=7``, ``temperature=null`` (send none),
    ``provider={order: [openai], allow_fallbacks: false}``, ``family=chat``.

    Raises:
        ValueError: Not ``KEY=VALUE``, a value that is not YAML, or an unknown ``family``.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise ValueError(f"model option {text!r}: expected KEY=VALUE, e.g. reasoning_effort=high")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as err:
        raise ValueError(f"model option {text!r}: the value is not valid YAML ({err})") from None
    if key == "family" and value not in FAMILIES:
        raise ValueError(f"model option {text!r}: family must be one of {', '.join(FAMILIES)}")
    return key, value


def check_model_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """`options` as a plain dict; keys must be parameter names (the error names the key)."""
    out: dict[str, Any] = {}
    for key, value in dict(options or {}).items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise ValueError(f"model option {key!r}: a key must be a request parameter name")
        if key == "family" and value not in FAMILIES:
            raise ValueError(f"model option family={value!r}: family must be one of {', '.join(FAMILIES)}")
        out[key] = value
    return out


def describe_adjustment(adjustment: Mapping[str, Any]) -> str:
    """``temperature=0.7 not sent (why)`` / ``max_tokens=300 sent as max_completion_tokens=25000 (why)``: one
    parameter not applied as asked, as the log, the run's end and the evaluation print it."""
    sent = (f"sent as {adjustment['sent_as']}={adjustment['sent']!r}"
            if adjustment.get("sent_as") and adjustment.get("sent") is not None else "not sent")
    return f"{adjustment['parameter']}={adjustment['requested']!r} {sent} ({adjustment['reason']})"


class RequestPolicy:
    """How requests to one model at one endpoint are built for a run (see the module docstring)."""

    def __init__(self, label: str, name: str, *, provider: str | None = None,
                 options: Mapping[str, Any] | None = None,
                 families: Sequence[tuple[str, Capabilities]] = MODEL_FAMILIES) -> None:
        self.label = label
        self.name = name
        self.provider = provider
        self.options = check_model_options(options)
        family = self.options.pop("family", None)
        self.capabilities = FAMILIES[family] if family else capabilities_for(name, families)
        self.learned: dict[str, str | None] = {}  # parameter -> the name to send it as, or None: not sent
        #: Set under a budget (``--max-cost``): a refused completion limit is renamed, never dropped (`learn`).
        self.keep_completion_limit = False
        self._adjustments: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def request(self, messages: Sequence[Message], settings: GenerationSettings,
                params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The JSON body of a chat request: the settings, then `params`, then the user's options (a None value
        leaves that parameter out), shaped by the family row and by what the endpoint refused."""
        wanted: dict[str, Any] = {"temperature": settings.temperature, "max_tokens": settings.max_tokens}
        if settings.seed is not None:
            wanted["seed"] = settings.seed
        wanted.update(params or {})
        wanted.update(self.options)
        caps = self.capabilities
        self._shape_tokens(wanted, caps)
        if caps.default_sampling_only:
            for name in SAMPLING_PARAMETERS:
                if name in self.options or wanted.get(name) is None:
                    continue
                value = wanted.pop(name)
                if value != 1:
                    self._note(name, value, None, None, f"{self.name} ({caps.family} family) accepts only the "
                               "default (1)", "capability table")
        if self.provider == "openrouter" and wanted.get("reasoning_effort") is not None:
            reasoning = dict(wanted.get("reasoning") or {})
            reasoning.setdefault("effort", wanted.pop("reasoning_effort"))
            wanted["reasoning"] = reasoning
        for name, new in self.learned.items():
            if name in wanted:
                value = wanted.pop(name)
                if new is not None:
                    wanted[new] = value
        body: dict[str, Any] = {"model": self.name, "messages": [dict(m) for m in messages]}
        body.update((k, v) for k, v in wanted.items() if v is not None)
        return body

    def completion_limit(self, messages: Sequence[Message], settings: GenerationSettings,
                         params: Mapping[str, Any] | None = None) -> int | None:
        """The completion-token limit the request for `messages` is sent with (after the family's floor and the
        user's options), or None when it is sent without one."""
        body = self.request(messages, settings, params)
        values = [body.get(name) for name in (*TOKEN_PARAMETERS, *self.learned.values()) if name]
        limit = next((v for v in values if isinstance(v, int) and not isinstance(v, bool)), None)
        return limit if limit is not None and limit > 0 else None

    def _shape_tokens(self, wanted: dict[str, Any], caps: Capabilities) -> None:
        """One token-limit parameter: the user's own if an option names one, else the family's, at least its
        floor."""
        chosen = next((n for n in TOKEN_PARAMETERS if n in self.options), None)
        if chosen is not None:
            for name in TOKEN_PARAMETERS:
                if name != chosen:
                    wanted.pop(name, None)
            return
        value = next((wanted.pop(n) for n in TOKEN_PARAMETERS if wanted.get(n) is not None), None)
        for name in TOKEN_PARAMETERS:
            wanted.pop(name, None)
        if value is None:
            return
        name = "max_tokens" if self.provider == "openrouter" else caps.token_parameter
        if caps.min_completion_tokens and value < caps.min_completion_tokens:
            self._note("max_tokens", value, caps.min_completion_tokens, name,
                       f"reasoning and answer share the limit in the {caps.family} family (raised to its floor; "
                       f"set --model-option {name}=N to choose)", "capability table")
            value = caps.min_completion_tokens
        wanted[name] = value

    def adapt(self, request: Mapping[str, Any], status: int, code: Any, param: str | None,
              message: str) -> str | None:
        """The parameter a refusal (HTTP `status` with `code`, `param`, `message`) of `request` made this policy drop
        or rename, so that the request is rebuilt and sent again; None when it is no refusal to adapt to. A refusal
        of tool calling (see the module docstring) drops ``tool_choice``, then ``tools``; any other is `learn`'s."""
        tool = self._tool_refusal(request, status, param, message)
        if tool is not None:
            return tool
        if status == 400 and self.learn(request, code if isinstance(code, str) else None, param, message):
            return param
        return None

    def refused(self, parameter: str) -> bool:
        """True when `parameter` is not sent (the endpoint refused it, or an option sets it to null)."""
        return (parameter in self.learned and self.learned[parameter] is None) \
            or (parameter in self.options and self.options[parameter] is None)

    def _tool_refusal(self, request: Mapping[str, Any], status: int, param: str | None, message: str) -> str | None:
        """``tool_choice`` or ``tools`` when the refusal is of tool calling and the request sends it (dropping it from
        every later request), else None."""
        if "tools" not in request or status not in (400, 404):
            return None
        text = message or ""
        if status == 404:  # OpenRouter: no provider of the model serves tools (or this tool_choice)
            if "no endpoints found" not in text.lower():
                return None
            named = "tool_choice" if _NAMES_TOOL_CHOICE.search(text) else "tools" if _NAMES_TOOLS.search(text) else None
        elif param:
            named = param if param in TOOL_PARAMETERS else None
        else:
            named = "tool_choice" if _NAMES_TOOL_CHOICE.search(text) else "tools" if _NAMES_TOOLS.search(text) else None
        if named is None:
            return None
        if named == "tool_choice" and "tool_choice" not in request:
            named = "tools"  # e.g. vLLM: tools without tool_choice mean "auto", which it refuses
        drop = ["tool_choice"] if named == "tool_choice" else ["tools", "tool_choice"]
        with self._lock:
            for name in drop:
                self.learned[name] = None
        reason = f"the endpoint answered {status}: {text}".strip()
        requested = _tool_names(request["tools"]) if named == "tools" else request.get("tool_choice")
        self._note(named, requested, None, None, reason, "endpoint")
        return named

    def learn(self, request: Mapping[str, Any], code: str | None, param: str | None, message: str) -> bool:
        """Adapt to a 400 refusing `param` of `request`: True when the request should be rebuilt and sent again.
        Under `keep_completion_limit`, a completion limit the endpoint names no replacement for is not dropped:
        False (see `limit_refusal`)."""
        if code not in ADAPTABLE_CODES or not param or param not in request or param in ("model", "messages"):
            return False
        with self._lock:
            if param in self.learned:  # learnt meanwhile by a concurrent request: rebuilding applies it
                return True
            new = _replacement(request, code, message)
            if new is None and param in TOKEN_PARAMETERS and self.keep_completion_limit:
                return False
            self.learned[param] = new
        reason = f"the endpoint answered 400 {code}: {message}".strip()
        self._note(param, request[param], request[param] if new else None, new, reason, "endpoint")
        return True

    def limit_refusal(self, request: Mapping[str, Any], code: str | None, param: str | None,
                      message: str) -> str | None:
        """Why a 400 refusing `param` of `request` fails the request under a budget: the endpoint refused the
        completion limit and named no parameter to send it as, so the request could not be sent with a limit and
        its cost would have no bound; None for any other refusal (or without `keep_completion_limit`)."""
        if not self.keep_completion_limit or code not in ADAPTABLE_CODES or param not in TOKEN_PARAMETERS \
                or param not in request or self.learned.get(param) is not None \
                or _replacement(request, code, message) is not None:
            return None
        return (f"the endpoint refused the completion limit {param}={request[param]!r} (400 {code}: "
                f"{(message or '').strip()[:300]}) and names no parameter to send it as; without a completion limit a "
                "request's cost has no bound, so --max-cost cannot be kept. Run without --max-cost, or use a "
                "model or endpoint that accepts max_tokens or max_completion_tokens (--model-option "
                "max_completion_tokens=N sends that one)")

    def _note(self, parameter: str, requested: Any, sent: Any, sent_as: str | None, reason: str,
              source: str) -> None:
        key = (parameter, repr(requested))
        if key in self._adjustments:
            return
        with self._lock:
            if key in self._adjustments:
                return
            adjustment = {"model": self.label, "parameter": parameter, "requested": requested, "sent": sent,
                          "sent_as": sent_as, "reason": reason, "source": source}
            self._adjustments[key] = adjustment
        logger.warning("%s: %s", self.label, describe_adjustment(adjustment))

    def adjustments(self) -> list[dict[str, Any]]:
        """Every parameter not applied as asked (once each), for the run's metadata."""
        return list(self._adjustments.values())

    def describe(self) -> dict[str, Any]:
        """The family, the user's options and the adjustments: what the run's metadata records of the requests."""
        return {"model": self.label, "family": self.capabilities.family, "options": dict(self.options),
                "learned": dict(self.learned), "adjustments": self.adjustments()}


def _tool_names(tools: Any) -> list[str] | Any:
    """The function names of a request's `tools` (what an adjustment records of them), or `tools` as given."""
    if not isinstance(tools, list):
        return tools
    return [str((t.get("function") or {}).get("name")) if isinstance(t, dict) else repr(t) for t in tools]


def _replacement(request: Mapping[str, Any], code: str | None, message: str) -> str | None:
    """The parameter a 400 `unsupported_parameter` message names to use instead (and `request` lacks), or None."""
    instead = _USE_INSTEAD.search(message or "") if code == "unsupported_parameter" else None
    return instead.group(1) if instead and instead.group(1) not in request else None


__all__ = ["ADAPTABLE_CODES", "CHAT", "Capabilities", "FAMILIES", "MODEL_FAMILIES", "OPENAI_REASONING",
           "TOOL_PARAMETERS", "RequestPolicy", "capabilities_for", "check_model_options", "describe_adjustment", "parse_model_option"]
