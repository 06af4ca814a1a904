"""An agent baseline's loop: the model searches a split's corpus itself, reads what it finds and writes a text citing
the papers it chose. A benchmark's agent (a `ToolAgent`) gives its prompts: the first request (`ToolAgent.prompt`),
the message once the tool-call budget is spent (`ToolAgent.budget_message`), and what it takes off the answer besides
blank space (`ToolAgent.clean`, such as a leading heading).

`ToolAgent.run`, on one target, through OpenAI-style tool calling (``llm.complete(messages, tools=...,
tool_choice=...)``):

- the first request (what ``--dry-run`` prints, and the line's ``desc``): the benchmark's prompt, with the tools
  `sciwrite.generation.agent_tools.TOOLS` (``search``, ``read``; no ``cited_by``/``cites``: the corpus has no
  citation links). Every tool result holds only works published before the target, never the target itself
  (`sciwrite.generation.cutoff`);
- a reply with tool calls: each call runs in order and is answered by a tool message ending with the calls left. A
  malformed call (not JSON, an unknown tool, a missing, mistyped or undeclared argument) is answered by one error
  message and counts against the budget;
- a call past the budget (``--max-tool-calls``, default 10) is not run: it is answered "not run", the model is told
  once to write with what it has (the benchmark's budget message), and that last request offers no tool call
  (tool_choice ``"none"``); its reply is the answer whatever it holds;
- the first reply without a tool call is the answer. A model that answers before calling any tool is recorded as
  such (``no_tool_calls``), as is an endpoint that refused the tools (``tools_refused``, from the client).

The answer cites by the numbers the tools gave the papers (``[n]``, in the order first shown; a bracket holding the
doc_ids of shown papers is read too). Its markers are renumbered by first appearance
(`sciwrite.sources.markers.renumber_by_first_appearance`): the cited papers, in that order, are the line's
``candidates``, so ``[i]`` resolves to ``candidates[i-1]``. A number no tool showed is removed
(``unresolved_markers``): the agent cites only what it was shown.

Each line carries an ``agent`` record: ``tool_calls`` (run, malformed ones included), ``searched`` (what search
returned), ``read``, ``seen`` (every doc_id a tool showed; all three in first-seen order), ``no_tool_calls``,
``budget_exhausted``, ``tools_refused``, ``malformed_calls``, ``cutoff`` (``YYYY-MM-DD``, a year or None) and
``cutoff_source``, ``max_tool_calls`` and ``unresolved_markers``. The trace (each turn: the model's reasoning when
the provider returns it, its calls with their arguments, the doc_ids each showed or the error; the answer) goes to
``<output stem>.traces.jsonl`` (`sciwrite.generation.runner.TRACE`), not into the line; a target that fails (a
request that failed, no text once the budget ran out) has its turns so far there too, with the error.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sciwrite.generation.agent_tools import TOOLS, CorpusTools, ToolSession
from sciwrite.generation.runner import TRACE, Generated, PaperLLM, prompt_text, traced
from sciwrite.llm.types import Completion, GenerationError, Message
from sciwrite.sources.markers import order_of_first_appearance, renumber_by_first_appearance

#: Tool calls per paper before the agent must write (``--max-tool-calls``).
MAX_TOOL_CALLS = 10
#: The tool result of a call past the budget.
NOT_RUN = "Not run: you have no tool calls left."

_REFERENCES = re.compile(r"^\s*(?:#+\s*|\*\*)?\s*(?:references|bibliography|reference list|cited papers)\s*"
                         r"(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$", re.IGNORECASE | re.MULTILINE)
_BRACKET = re.compile(r"\[([^\[\]\n]{1,400})\]")
_PARTS = re.compile(r"\s*[,;]\s*")


def assistant_message(completion: Completion) -> dict[str, Any]:
    """The reply as the next request's history needs it: the client's `Completion.message`, or (a backend that
    builds none) the text and tool calls in the OpenAI shape."""
    if completion.message is not None:
        return dict(completion.message)
    return {"role": "assistant", "content": completion.text or None,
            "tool_calls": [{"id": call.id, "type": "function", "function": {"name": call.name,
                                                                            "arguments": call.arguments}}
                           for call in completion.tool_calls]}


def cite_doc_ids(text: str, numbers: Mapping[str, int]) -> str:
    """Brackets citing shown papers by doc_id (``[doc_id]``, ``[doc_id, 4]``) rewritten with their numbers."""

    def rewrite(match: re.Match[str]) -> str:
        parts = [p.strip().strip("`'\"") for p in _PARTS.split(match.group(1).strip())]
        if not any(p in numbers for p in parts) or not all(p in numbers or p.isdigit() for p in parts):
            return match.group(0)
        return "[" + ", ".join(str(numbers[p]) if p in numbers else p for p in parts) + "]"

    return _BRACKET.sub(rewrite, text)


def read_answer(text: str, shown: Sequence[str], numbers: Mapping[str, int],
                clean: Callable[[str], str] = str.strip) -> tuple[str, list[str], int]:
    """The text (`clean`-ed, markers renumbered by first appearance), the cited doc_ids in marker order, and how many
    distinct numbers cited no shown paper (removed)."""
    matches = list(_REFERENCES.finditer(text or ""))
    if matches and text[: matches[-1].start()].strip():  # a reference list after the text: not part of it
        text = text[: matches[-1].start()]
    section = clean(cite_doc_ids(text or "", numbers))
    unresolved = sum(not 1 <= n <= len(shown) for n in order_of_first_appearance(section))
    pred, cited = renumber_by_first_appearance(section, list(shown))
    return pred.strip(), [str(doc_id) for doc_id in cited], unresolved


class ToolAgent(ABC):
    """The model chooses what to search, read and cite (see the module docstring). `retriever` and `corpus` are the
    run's (the plan's BM25 or dense retriever over the split's corpus); searches are served one at a time. A
    benchmark's agent gives `prompt` and `budget_message`, and may take more off the answer (`clean`)."""

    name = "agent"

    def __init__(self, retriever: Any = None, corpus: Any = None, *, retriever_name: str | None = None,
                 max_tool_calls: int = MAX_TOOL_CALLS) -> None:
        self.retriever_name = retriever_name
        self.k: int | None = None  # the model picks each search's k
        if not isinstance(max_tool_calls, int) or isinstance(max_tool_calls, bool) or max_tool_calls < 1:
            raise ValueError(f"--max-tool-calls must be an integer >= 1, got {max_tool_calls!r}")
        self.max_tool_calls = max_tool_calls
        self.tools = None if retriever is None or corpus is None else CorpusTools(retriever, corpus)

    @abstractmethod
    def prompt(self, record: Mapping[str, Any]) -> list[Message]:
        """The first request: the system message (the tools, the budget, the citation format) and the target."""

    @abstractmethod
    def budget_message(self) -> str:
        """The user message sent once the tool-call budget is spent."""

    def clean(self, text: str) -> str:
        """The answer's text without blank space around it (an agent may take more off, such as a heading)."""
        return text.strip()

    def extra(self, cited: Sequence[str], **more: Any) -> dict[str, Any]:
        """The line's fields besides the text: the cited doc_ids as its ``candidates`` (in marker order), the
        retriever, ``k`` (None), and `more`."""
        return {"candidates": list(cited), "retriever": self.retriever_name, "k": self.k, **more}

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        if self.tools is None:
            raise ValueError("the agent method searches the corpus itself: it needs a retriever and the corpus")
        with traced([]) as trace:  # a paper that fails keeps the calls it made (the runner writes them)
            return await self.converse(record, llm, self.tools.session(record), trace)

    async def converse(self, record: Mapping[str, Any], llm: PaperLLM, session: ToolSession,
                       trace: list[dict[str, Any]]) -> Generated:
        """The loop of `run` on one paper, each turn appended to `trace` as it happens."""
        messages: list[Message] = self.prompt(record)
        calls = malformed = 0
        called = exhausted = False
        while True:
            forced = exhausted
            completion = await llm.complete(messages, tools=TOOLS, tool_choice="none" if forced else None)
            turn: dict[str, Any] = {"turn": len(trace) + 1, "reasoning": completion.reasoning}
            trace.append(turn)
            if forced or not completion.tool_calls:
                turn.update(answer=completion.text, forced=forced,
                            **({"ignored_calls": len(completion.tool_calls)} if completion.tool_calls else {}))
                break
            called = True
            if completion.text.strip():
                turn["text"] = completion.text
            messages.append(assistant_message(completion))
            turn["calls"] = []
            for call in completion.tool_calls:
                entry: dict[str, Any] = {"id": call.id, "tool": call.name}
                if calls >= self.max_tool_calls:
                    exhausted = True
                    content = NOT_RUN
                    entry.update(arguments=call.arguments, doc_ids=[], not_run="over the tool-call budget")
                else:
                    calls += 1
                    result = await session.call(call.name, call.arguments)
                    malformed += result.error is not None
                    content = f"{result.content}\n(tool calls left: {self.max_tool_calls - calls})"
                    entry.update(arguments=result.arguments, doc_ids=result.doc_ids,
                                 **({"error": result.error} if result.error is not None else {}))
                turn["calls"].append(entry)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            if exhausted:
                messages.append({"role": "user", "content": self.budget_message()})
        pred, cited, unresolved = read_answer(completion.text, session.seen, session.numbers, self.clean)
        if forced and not pred:
            raise GenerationError("the agent wrote no section when its tool-call budget ran out")
        agent = self.record(session, calls=calls, malformed=malformed, called=called, exhausted=exhausted,
                            tools_refused=bool(getattr(llm, "tools_refused", False)), unresolved=unresolved)
        return Generated(pred, prompt_text(self.prompt(record)), self.extra(cited, agent=agent, **{TRACE: trace}))

    def record(self, session: ToolSession, *, calls: int, malformed: int, called: bool, exhausted: bool,
               tools_refused: bool, unresolved: int) -> dict[str, Any]:
        """The line's ``agent`` record (see the module docstring)."""
        return {"tool_calls": calls, "searched": list(session.searched), "read": list(session.read),
                "seen": session.seen, "no_tool_calls": not called, "budget_exhausted": exhausted,
                "tools_refused": tools_refused, "malformed_calls": malformed, "cutoff": session.cutoff.value,
                "cutoff_source": session.cutoff.source, "max_tool_calls": self.max_tool_calls,
                "unresolved_markers": unresolved}


__all__ = ["MAX_TOOL_CALLS", "NOT_RUN", "ToolAgent", "assistant_message", "cite_doc_ids", "read_answer"]
