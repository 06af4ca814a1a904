"""A generation method's tools as Inspect tools, so that Inspect's own agents can use them: RWGBench's agent's
``search`` and ``read`` (`sciwrite.generation.agent_tools`) in ``react(tools=...)``, say.

`paper_tools` takes the tools as the method declares them (OpenAI's chat ``tools``: name, description, JSON schema of
the arguments) and the session that serves them for one paper (an object with ``await session.call(name,
arguments_json)``, e.g. the agent's `ToolSession`, which applies the paper's date cutoff and never shows the target).
Each becomes an Inspect `Tool` whose `ToolInfo` is the declared one, unchanged (the model sees what the method's own
loop offers), and whose call is the session's: the same cutoff, the same numbering of the papers shown, the same
text back. The shared core never imports a benchmark, so the schema is the method's declaration, not a second
copy in typed Python parameters. Inspect checks the arguments against that schema before the call; an argument the
session still rejects (a blank query) is a `ToolError` with the session's reason. The tools run one call at a time
(not ``parallel``): a paper's numbers follow the order of its calls.

One paper's tools in Inspect's ``react``, from a solver that knows the sample's paper::

    session = CorpusTools(retriever, corpus).session(record)   # sciwrite.generation.agent_tools
    agent = react(tools=paper_tools(TOOLS, session))

(``inspect eval sciwrite/rwgbench -T method=agent`` runs sciwrite's own agent loop instead, through
`sciwrite.harness.inspect_model.InspectLLM`, with the same tools and the same cutoff.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from inspect_ai.tool import Tool, ToolDef, ToolError, ToolInfo

from sciwrite.harness.inspect_model import tool_infos


class ToolSession(Protocol):
    """What serves a method's tools for one paper: ``call`` runs one call (arguments as JSON text) and returns a
    result with the text for the model (``content``) and why the call was rejected (``error``, None if it ran)."""

    async def call(self, name: str, arguments: str) -> Any: ...


def paper_tools(tools: Sequence[Mapping[str, Any]], session: ToolSession) -> list[Tool]:
    """The declared `tools` (OpenAI's chat shape) as Inspect tools served by one paper's `session`."""
    return [paper_tool(info, session) for info in tool_infos(tools)]


def paper_tool(info: ToolInfo, session: ToolSession) -> Tool:
    """One declared tool as an Inspect tool with that `ToolInfo`, calling ``session.call(info.name, ...)``."""
    name = info.name

    async def execute(**kwargs: Any) -> str:
        result = await session.call(name, json.dumps(kwargs, ensure_ascii=False))
        if getattr(result, "error", None) is not None:
            raise ToolError(str(result.error))
        return str(result.content)

    return ToolDef(execute, name=name, description=info.description, parameters=info.parameters).as_tool()


__all__ = ["ToolSession", "paper_tool", "paper_tools"]
