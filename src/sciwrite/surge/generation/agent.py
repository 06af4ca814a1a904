"""The survey agent (``--method agent``): sciwrite's own baseline, not one of SurGE's. The shared tool agent, as
RWGBench's agent runs it too (`sciwrite.generation.agent.ToolAgent`: OpenAI-style tool calls ``search``/``read`` over
the run's retriever and corpus, at most ``--max-tool-calls``, then the answer citing the papers it was shown) with
SurGE's prompts (``templates/agent_*.txt``) and SurGE's cutoff: a search or a read never shows the survey itself (by
its normalised title) nor a paper published after the survey's ``date`` (else its ``year``, the same year included;
`sciwrite.surge.generation.records.survey_cutoff`).

The answer is a whole survey: its markers are renumbered by first appearance over the papers the tools showed (a
number no tool showed is removed, ``agent.unresolved_markers``), written one number per bracket, and the method adds
the reference list of the cited papers' corpus titles. The line's ``candidates`` are the cited doc_ids in marker
order; its ``agent`` record and the trace (``<output stem>.traces.jsonl``) are the shared agent's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sciwrite.generation.agent import MAX_TOOL_CALLS, ToolAgent
from sciwrite.generation.agent_tools import MAX_SEARCH_K, SEARCH_K, ToolSession
from sciwrite.generation.runner import Generated, PaperLLM, traced
from sciwrite.llm.types import Message
from sciwrite.surge.generation.prompts import TITLE, fill, topic_block
from sciwrite.surge.generation.records import survey_cutoff
from sciwrite.surge.generation.survey_text import cite, titled


class SurveyAgent(ToolAgent):
    """The shared tool agent writing a SurGE survey (see the module docstring)."""

    name = "agent"

    def __init__(self, retriever: Any = None, corpus: Any = None, *, retriever_name: str | None = None,
                 max_tool_calls: int = MAX_TOOL_CALLS, topic: str = TITLE) -> None:
        super().__init__(retriever, corpus, retriever_name=retriever_name, max_tool_calls=max_tool_calls)
        self.topic = topic

    def prompt(self, record: Mapping[str, Any]) -> list[Message]:
        """The first request: the system message (tools, budget, format) and the topic."""
        return [{"role": "system", "content": fill("agent_system", max_tool_calls=self.max_tool_calls,
                                                    search_k=SEARCH_K, max_search_k=MAX_SEARCH_K)},
                {"role": "user", "content": fill("agent_user", topic=topic_block(record, self.topic))}]

    def budget_message(self) -> str:
        """The user message sent once the tool-call budget is spent: write the survey with what you have."""
        return fill("agent_budget", max_tool_calls=self.max_tool_calls)

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        if self.tools is None:
            raise ValueError("the agent method searches the corpus itself: it needs a retriever and the corpus")
        session = ToolSession(self.tools, survey_cutoff(record, dated=True))
        with traced([]) as trace:  # a survey that fails keeps the calls it made (the runner writes them)
            answer = await self.converse(record, llm, session, trace)
        # `converse` renumbered the answer's markers: [i] -> candidates[i-1], the cited papers in order.
        docs = [self.tools.lookup.doc(doc_id) for doc_id in answer.extra["candidates"]]
        survey = cite(titled(answer.pred, record.get("title") or ""), docs)
        return Generated(survey.text, answer.desc, answer.extra, request=answer.request)


__all__ = ["SurveyAgent"]
