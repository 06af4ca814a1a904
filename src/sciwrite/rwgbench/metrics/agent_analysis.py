"""How an agent searched, from its predictions (``--method agent`` writes an ``agent`` record on each line): what
separates "could not find" from "found but did not cite".

Per paper, from the record's ``seen`` (every doc_id a tool showed), ``searched`` (what search returned), ``read``
(what it opened) and ``candidates`` (what it cited, in marker order), against the paper's gold citations:
- ``tool_calls`` and the unique papers read;
- ``cited_found_by_search``: the share of cited papers that a search returned (None when it cited nothing);
- ``gold_recall_seen``: the share of gold citations any tool showed it; ``gold_recall_cited``: the share it cited.
  A gap between the two is "found but did not cite"; a low ``gold_recall_seen`` is "could not find".
The summary holds their means over the agent's papers and the counts of papers that called no tool, ran out of
tool calls, or had their tools refused by the endpoint.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

#: The prediction field the agent writes its record in.
AGENT = "agent"


def _share(part: set[str], whole: set[str]) -> float | None:
    return len(part & whole) / len(whole) if whole else None


def paper_analysis(agent: Mapping[str, Any], candidates: Sequence[str], gold: Sequence[str]) -> dict[str, Any]:
    """One paper's figures (see the module docstring)."""
    cited, gold_set = set(candidates), set(gold)
    seen = set(agent.get("seen") or []) | cited
    return {"tool_calls": int(agent.get("tool_calls") or 0), "papers_read": len(set(agent.get("read") or [])),
            "cited_found_by_search": _share(set(agent.get("searched") or []), cited),
            "gold_recall_seen": _share(seen, gold_set), "gold_recall_cited": _share(cited, gold_set)}


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def agent_analysis(records: Sequence[Mapping[str, Any]], targets: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The summary's ``agent`` block over the papers whose prediction carries an agent record (aligned `records`
    and target papers); None when none does."""
    papers = [(record[AGENT], paper_analysis(record[AGENT], record.get("candidates") or [],
                                             target.get("citations") or []))
              for record, target in zip(records, targets, strict=True) if isinstance(record.get(AGENT), Mapping)]
    if not papers:
        return None
    figures = [found for _, found in papers]
    return {"n_papers": len(papers),
            **{f"{key}_per_paper" if key in ("tool_calls", "papers_read") else key:
               _mean([found[key] for found in figures])
               for key in ("tool_calls", "papers_read", "cited_found_by_search", "gold_recall_seen",
                           "gold_recall_cited")},
            "n_no_tool_calls": sum(bool(agent.get("no_tool_calls")) for agent, _ in papers),
            "n_budget_exhausted": sum(bool(agent.get("budget_exhausted")) for agent, _ in papers),
            "n_tools_refused": sum(bool(agent.get("tools_refused")) for agent, _ in papers),
            "malformed_calls": sum(int(agent.get("malformed_calls") or 0) for agent, _ in papers)}


__all__ = ["AGENT", "agent_analysis", "paper_analysis"]
