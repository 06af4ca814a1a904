"""The agent baseline, ``--method agent``: the model searches the split's corpus itself, reads what it finds and
writes the related-work section citing the papers it chose. It is sciwrite's own baseline (issue 40; the RWGBench
paper has none), so its prompts are our wording (``templates/agent_*.txt``).

The loop is the shared one (`sciwrite.generation.agent.ToolAgent`: the tools `sciwrite.generation.agent_tools.TOOLS`,
the date cutoff `sciwrite.generation.cutoff`, the budget, the reading of the answer, the line's ``agent`` record and
the trace); RWGBench's agent gives it its messages:

- the first request: the system message (the tools, the budget, the citation format) and the target paper (title,
  abstract, introduction, as every RWGBench prompt shows it);
- once the budget is spent, ``agent_budget.txt``: write with what you have;
- the answer loses a leading 'Related Work' heading (`sciwrite.rwgbench.generation.prompts.clean_section`).

The cited papers, in marker order, are the line's ``candidates``, so every RWGBench metric scores the agent as it
scores RAG.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sciwrite.generation.agent import ToolAgent
from sciwrite.generation.agent_tools import MAX_SEARCH_K, SEARCH_K
from sciwrite.llm.types import Message
from sciwrite.rwgbench.generation.prompts import clean_section, fill, target_block


class Agent(ToolAgent):
    """RWGBench's agent: the shared loop with RWGBench's prompts (see the module docstring)."""

    name = "agent"

    def prompt(self, record: Mapping[str, Any]) -> list[Message]:
        """The first request: the system message and the target paper."""
        return [{"role": "system", "content": fill("agent_system", max_tool_calls=self.max_tool_calls,
                                                    search_k=SEARCH_K, max_search_k=MAX_SEARCH_K)},
                {"role": "user", "content": fill("agent_user", target=target_block(record))}]

    def budget_message(self) -> str:
        """The user message sent once the tool-call budget is spent."""
        return fill("agent_budget", max_tool_calls=self.max_tool_calls)

    def clean(self, text: str) -> str:
        """The answer without a leading 'Related Work' heading line and surrounding blank space."""
        return clean_section(text)


__all__ = ["Agent"]
