"""The agent baseline (``--method agent``): its loop against a scripted model (well-formed, malformed and over-budget
tool calls, no tool call at all), the date cutoff (nothing after the target, never the target, not even by its exact
title), the answer's markers -> candidates, the trace file beside the predictions and resume, and the command."""

from __future__ import annotations

import asyncio
import copy
import json
import re
from pathlib import Path

import pytest

from sciwrite.cli import main
from sciwrite.generation.agent import NOT_RUN, read_answer
from sciwrite.generation.agent_tools import TOOLS, CorpusTools, parse_arguments
from sciwrite.generation.cutoff import ANTHOLOGY_ID, NO_DATE, anthology_year, target_cutoff
from sciwrite.generation.runner import TRACE, Generated, prompt_text, run_generation, traces_path_for
from sciwrite.llm.types import BudgetExceededError, Completion, GenerationError, ToolCall
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.rwgbench.generation import plan as gen
from sciwrite.rwgbench.generation.agent import Agent
from sciwrite.rwgbench.generation.methods import make_method, resolve_methods
from sciwrite.rwgbench.generation.prompts import clean_section, target_block
from tests.fakes.openai_server import ChatServer, Reply, like_real_endpoints

TITLE = "Aspect level sentiment style transfer"
CORPUS = [
    {"doc_id": "p-style", "title": TITLE, "abstract": "We rewrite sentences to change aspect level sentiment.",
     "authors": ["A. Target"], "year": 2020},
    # the target again under another id (an arXiv copy): its title, once normalised, is the target's
    {"doc_id": "arxiv-copy", "title": "Aspect-Level Sentiment: Style Transfer!", "abstract": "The same paper.",
     "authors": [], "year": 2019},
    {"doc_id": "d-transfer", "title": "Style transfer from non-parallel text by cross-alignment",
     "abstract": "Sentiment style transfer of sentences without parallel data.", "authors": ["T. Shen", "R. Barzilay"],
     "year": 2017},
    {"doc_id": "d-delete", "title": "Delete, retrieve, generate: sentiment style transfer",
     "abstract": "Sentiment transfer by deleting attribute markers.", "authors": ["J. Li"], "year": 2018},
    {"doc_id": "d-same-year", "title": "Aspect sentiment style transfer with masked language models",
     "abstract": "Aspect level sentiment transfer.", "authors": ["C. Same"], "year": 2020},
    {"doc_id": "d-future", "title": "Aspect level sentiment style transfer, revisited",
     "abstract": "A later paper on aspect level sentiment style transfer.", "authors": ["F. Later"], "year": 2023},
    {"doc_id": "d-undated", "title": "Sentiment style transfer survey", "abstract": "Aspect sentiment style.",
     "authors": ["U. Nknown"], "year": None},
    {"doc_id": "d-absa", "title": "SemEval task: aspect based sentiment analysis", "abstract": "Restaurant reviews.",
     "authors": ["M. Pontiki"], "year": 2014},
    {"doc_id": "d-parse", "title": "Dependency parsing with graph neural networks", "abstract": "A parser.",
     "authors": ["P. Arser"], "year": 2019},
]
PAPER = {"paper_id": "p-style", "title": TITLE, "abstract": "We rewrite sentences to change aspect level sentiment.",
         "introduction": "Style transfer changes sentiment [3].", "venue": "AACL", "year": 2020}
SHOWN_NEVER = {"p-style", "arxiv-copy", "d-future"}


def call(name: str, arguments, call_id: str | None = None) -> ToolCall:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(call_id or f"call-{name}-{abs(hash(text)) % 10_000}", name, text)


def turn(*calls: ToolCall, text: str = "", reasoning: str | None = None) -> Completion:
    return Completion(text, "scripted", 10, 5, reasoning=reasoning, tool_calls=tuple(calls))


class ScriptedLLM:
    """`PaperLLM.complete` as the agent uses it: the scripted replies in order; every request kept (a deep copy)."""

    def __init__(self, *replies: Completion, tools_refused: bool = False) -> None:
        self.replies = list(replies)
        self.requests: list[dict] = []
        self.tools_refused = tools_refused

    async def complete(self, messages, tools=None, tool_choice=None, **overrides):
        self.requests.append({"messages": copy.deepcopy(list(messages)), "tools": tools, "tool_choice": tool_choice})
        if not self.replies:
            raise AssertionError("the agent sent more requests than were scripted")
        return self.replies.pop(0)


def agent(max_tool_calls: int = 10, corpus=CORPUS) -> Agent:
    return Agent(BM25Retriever.from_corpus(corpus, show_progress=False), corpus, retriever_name="bm25",
                 max_tool_calls=max_tool_calls)


def run(method: Agent, llm: ScriptedLLM, record=PAPER) -> Generated:
    return asyncio.run(method.run(record, llm))


def tool_results(request: dict) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in request["messages"] if m["role"] == "tool"}


# -- the loop ---------------------------------------------------------------------------------------------------


def test_well_formed_calls_then_an_answer():
    search = call("search", {"query": "sentiment style transfer", "k": 4}, "c1")
    read = call("read", {"doc_id": "d-delete"}, "c2")
    llm = ScriptedLLM(turn(search, reasoning="look for style transfer"), turn(read, text="Reading one."),
                      turn(text="Related Work\nCross-alignment [2] and deletion [1, 2]; also [3]."))
    result = run(agent(), llm)
    first = llm.requests[0]
    assert first["messages"] == agent().prompt(PAPER) and first["tools"] == TOOLS and first["tool_choice"] is None
    assert prompt_text(first["messages"]) == result.desc
    # the search's hits in rank order, numbered from 1 in the order shown, never the target or a later paper
    record = result.extra["agent"]
    searched = record["searched"]
    assert len(searched) == 4 and not set(searched) & SHOWN_NEVER
    hits = tool_results(llm.requests[1])["c1"].splitlines()
    assert hits[0] == 'search "sentiment style transfer": 4 papers'
    assert hits[1:] == [f"[{i}] {d}: {next(c['title'] for c in CORPUS if c['doc_id'] == d)}"
                        + (f" ({y})" if (y := next(c['year'] for c in CORPUS if c['doc_id'] == d)) else "")
                        for i, d in enumerate(searched, 1)] + ["(tool calls left: 9)"]
    # the assistant turn goes back into the history before its tool result
    history = llm.requests[1]["messages"]
    assert history[2]["role"] == "assistant" and history[2]["tool_calls"][0]["id"] == "c1"
    assert history[3] == {"role": "tool", "tool_call_id": "c1", "content": tool_results(llm.requests[1])["c1"]}
    read_text = tool_results(llm.requests[2])["c2"]
    number = searched.index("d-delete") + 1 if "d-delete" in searched else len(searched) + 1
    assert read_text.splitlines()[:5] == [f"[{number}] d-delete", "Title: Delete, retrieve, generate: sentiment style "
                                          "transfer", "Authors: J. Li", "Year: 2018",
                                          "Abstract: Sentiment transfer by deleting attribute markers."]
    # markers renumbered by first appearance: [2] -> 1, [1] -> 2, [3] -> 3; candidates in that order
    seen = record["seen"]
    assert result.pred == "Cross-alignment [1] and deletion [2, 1]; also [3]."
    assert result.extra["candidates"] == [seen[1], seen[0], seen[2]]
    assert {k: record[k] for k in ("tool_calls", "read", "no_tool_calls", "budget_exhausted", "tools_refused",
                                   "malformed_calls", "cutoff", "cutoff_source", "max_tool_calls",
                                   "unresolved_markers")} == \
        {"tool_calls": 2, "read": ["d-delete"], "no_tool_calls": False, "budget_exhausted": False,
         "tools_refused": False, "malformed_calls": 0, "cutoff": 2020, "cutoff_source": "year", "max_tool_calls": 10,
         "unresolved_markers": 0}
    assert result.extra["retriever"] == "bm25" and result.extra["k"] is None
    trace = result.extra[TRACE]
    assert [t["turn"] for t in trace] == [1, 2, 3]
    assert trace[0]["reasoning"] == "look for style transfer" and trace[0]["calls"] == [
        {"id": "c1", "tool": "search", "arguments": {"query": "sentiment style transfer", "k": 4},
         "doc_ids": searched}]
    assert trace[1]["text"] == "Reading one." and trace[1]["calls"][0]["doc_ids"] == ["d-delete"]
    assert trace[2]["answer"].startswith("Related Work") and trace[2]["forced"] is False


@pytest.mark.parametrize(("name", "arguments", "problem"), [
    ("search", '{"query": "style', "not valid JSON"),
    ("browse", {"url": "x"}, "there is no tool 'browse'"),
    ("search", {"query": 3}, "must be a non-empty string, got 3"),
    ("search", {"query": "style", "k": "five"}, "'k' must be an integer"),
    ("search", {"query": "style", "k": 500}, "must be from 1 to 50, got 500"),
    ("search", {"query": "style", "year": 2019}, "takes no argument 'year'"),
    ("read", {}, "needs the argument 'doc_id'"),
    ("read", "[1, 2]", "must be a JSON object"),
])
def test_a_malformed_call_gets_one_error_and_counts_against_the_budget(name, arguments, problem):
    bad = call(name, arguments, "bad")
    good = call("search", {"query": "style transfer"}, "good")
    llm = ScriptedLLM(turn(bad), turn(good), turn(text="Style transfer [1]."))
    result = run(agent(max_tool_calls=3), llm)
    error = tool_results(llm.requests[1])["bad"]
    assert error.startswith("Error: ") and problem in error and "search takes" in error
    assert error.endswith("(tool calls left: 2)") and tool_results(llm.requests[2])["good"].endswith("left: 1)")
    record = result.extra["agent"]
    assert (record["tool_calls"], record["malformed_calls"], record["no_tool_calls"]) == (2, 1, False)
    assert problem in result.extra[TRACE][0]["calls"][0]["error"]
    assert len(llm.requests) == 3 and result.pred == "Style transfer [1]."


def test_a_call_past_the_budget_is_not_run_and_the_agent_writes_once_with_what_it_has():
    calls = [call("search", {"query": q}, f"c{i}") for i, q in enumerate(["style transfer", "aspect sentiment",
                                                                           "parsing"])]
    llm = ScriptedLLM(turn(calls[0]), turn(calls[1], calls[2]), turn(text="Prior work [1] and [2]."))
    result = run(agent(max_tool_calls=2), llm)
    assert len(llm.requests) == 3
    results = tool_results(llm.requests[2])
    assert results["c1"].endswith("(tool calls left: 0)") and results["c2"] == NOT_RUN
    last = llm.requests[2]
    assert last["tool_choice"] == "none" and last["tools"] == TOOLS
    assert last["messages"][-1]["role"] == "user" and "used all 2 of your tool calls" in last["messages"][-1]["content"]
    record = result.extra["agent"]
    assert (record["tool_calls"], record["budget_exhausted"], record["malformed_calls"]) == (2, True, 0)
    assert "parsing" not in json.dumps(record["searched"]) and result.extra[TRACE][-1]["forced"] is True
    assert result.extra[TRACE][1]["calls"][1]["not_run"] == "over the tool-call budget"
    # a budget spent exactly, then an answer: not exhausted
    llm = ScriptedLLM(turn(calls[0]), turn(calls[1]), turn(text="Prior work [1]."))
    assert run(agent(max_tool_calls=2), llm).extra["agent"]["budget_exhausted"] is False
    assert all(r["tool_choice"] is None for r in llm.requests)


def test_an_agent_that_still_only_calls_tools_after_the_budget_fails_the_paper():
    search = call("search", {"query": "style transfer"}, "c0")
    llm = ScriptedLLM(turn(search), turn(call("search", {"query": "more"}, "c1")), turn(call("read", {"doc_id": "x"})))
    with pytest.raises(GenerationError, match="wrote no section when its tool-call budget ran out"):
        run(agent(max_tool_calls=1), llm)
    assert len(llm.requests) == 3  # asked once, not again


def test_a_model_that_never_calls_a_tool_is_recorded_as_such():
    llm = ScriptedLLM(turn(text="Prior work on style transfer [1] and [2]."), tools_refused=True)
    result = run(agent(), llm)
    record = result.extra["agent"]
    assert record["no_tool_calls"] is True and record["tool_calls"] == 0 and record["tools_refused"] is True
    # no paper was shown, so no marker resolves: both are removed and counted
    assert result.pred == "Prior work on style transfer and." and result.extra["candidates"] == []
    assert record["unresolved_markers"] == 2 and record["seen"] == []


def test_the_answer_cites_by_number_or_by_shown_doc_id_and_drops_a_reference_list():
    numbers = {"d-a": 1, "d-b": 2, "d-c": 3}
    pred, cited, unresolved = read_answer(
        "Related Work\n\nA [d-b] and B [`d-a`, 3] and C [7] and [CLS] tokens.\n\nReferences:\n[1] A\n[2] B",
        list(numbers), numbers, clean_section)
    assert pred == "A [1] and B [2, 3] and C and [CLS] tokens."
    assert cited == ["d-b", "d-a", "d-c"] and unresolved == 1


def test_budget_and_oracle_are_checked():
    with pytest.raises(ValueError, match="--max-tool-calls must be an integer >= 1, got 0"):
        Agent(max_tool_calls=0)
    with pytest.raises(ValueError, match="--oracle would hand it the answer"):
        make_method("agent", oracle=True)
    with pytest.raises(ValueError, match="needs a retriever and the corpus"):
        run(Agent(), ScriptedLLM())
    assert "agent" in resolve_methods("all")


# -- no looking ahead -------------------------------------------------------------------------------------------


def session(record=PAPER, corpus=CORPUS):
    return CorpusTools(BM25Retriever.from_corpus(corpus, show_progress=False), corpus).session(record)


def test_a_query_naming_the_target_exactly_does_not_return_it_or_anything_later():
    tools = session()
    result = asyncio.run(tools.search(TITLE, k=50))
    # every paper up to the target's year (the same year and an undated one included), never the target (by id or
    # by its title under another id), never a later paper
    # (d-parse shares no word with the title)
    assert set(result.doc_ids) == {c["doc_id"] for c in CORPUS} - SHOWN_NEVER - {"d-parse"}
    assert result.doc_ids[0] == "d-same-year"  # the best match left once the target and its copies are held back
    for doc_id in SHOWN_NEVER:  # reading one reads exactly like an id the corpus does not have
        assert asyncio.run(tools.call("read", json.dumps({"doc_id": doc_id}))).content == \
            f'read "{doc_id}": no paper with this doc_id is available.'
    assert asyncio.run(tools.call("read", '{"doc_id": "nope"}')).content == \
        'read "nope": no paper with this doc_id is available.'
    assert tools.cutoff.value == 2020 and tools.cutoff.source == "year"


def test_search_asks_for_more_hits_until_k_pass_the_cutoff():
    later = [{"doc_id": f"late-{i}", "title": f"style transfer sentiment {i}", "abstract": "style transfer sentiment",
              "authors": [], "year": 2030} for i in range(30)]
    corpus = [*later, {"doc_id": "old", "title": "a style transfer paper", "abstract": "", "authors": [], "year": 2001}]
    tools = session(corpus=corpus)
    assert asyncio.run(tools.search("style transfer sentiment", k=1)).doc_ids == ["old"]


def test_a_published_date_cuts_by_day_and_a_target_without_a_date_holds_back_only_itself():
    corpus = [{"doc_id": d, "title": f"graph parsing {d}", "abstract": "graph parsing", "published": day,
               "year": int(day[:4]) if day else y}
              for d, day, y in (("may", "2024-05-01", None), ("june-15", "2024-06-15", None),
                                ("july", "2024-07-01", None), ("year-only", None, 2024), ("next-year", None, 2025))]
    record = {"paper_id": "t", "title": "Graph parsing", "published": "2024-06-15T10:00:00Z", "year": 2024}
    found = asyncio.run(session(record, corpus).search("graph parsing", k=10)).doc_ids
    assert set(found) == {"may", "year-only"}  # strictly before the day; the same year without a day is kept
    cutoff = target_cutoff(record)
    assert (cutoff.value, cutoff.source) == ("2024-06-15", "published")
    undated = {"paper_id": "arxiv:2406.00001", "title": "Graph parsing", "year": None}
    tools = session(undated, corpus)
    assert set(asyncio.run(tools.search("graph parsing", k=10)).doc_ids) == {d["doc_id"] for d in corpus}
    assert (tools.cutoff.value, tools.cutoff.source) == (None, NO_DATE)
    with pytest.raises(ValueError, match="paper 't', field 'published'.*not a date"):
        target_cutoff({**record, "published": "June 2024"})


@pytest.mark.parametrize(("paper_id", "year"), [("2020.aacl-main.33", 2020), ("P19-1081", 2019),
                                                ("W06-1672", 2006), ("J79-1001", 1979), ("2403.01234", None),
                                                ("arxiv:2403.01234", None), ("p-style", None)])
def test_the_year_an_acl_anthology_id_names(paper_id, year):
    assert anthology_year(paper_id) == year
    cutoff = target_cutoff({"paper_id": paper_id, "title": "x", "year": None})
    assert (cutoff.value, cutoff.source) == ((year, ANTHOLOGY_ID) if year else (None, NO_DATE))


def test_tool_schemas_are_what_the_arguments_are_checked_against():
    assert [t["function"]["name"] for t in TOOLS] == ["search", "read"]
    assert parse_arguments("search", '{"query": "x"}') == {"query": "x"}
    assert parse_arguments("search", '{"query": "x", "k": 50}') == {"query": "x", "k": 50}
    assert parse_arguments("read", '{"doc_id": "d"}') == {"doc_id": "d"}


def test_the_prompt_holds_the_target_and_nothing_of_its_answer():
    text = prompt_text(agent(max_tool_calls=7).prompt({**PAPER, "related_work": "GOLD", "citations": ["d-absa"]}))
    assert target_block(PAPER) in text and "at most 7 tool calls" in text
    assert "GOLD" not in text and "d-absa" not in text and "Style transfer changes sentiment (3)." in text


# -- the runner: traces beside the predictions, resume ----------------------------------------------------------


class Scripted:
    """A backend-free method whose run is one scripted agent per paper (same script each time)."""

    def __init__(self) -> None:
        self.method = agent()
        self.runs: list[str] = []

    name = "agent"

    def prompt(self, record):
        return self.method.prompt(record)

    async def run(self, record, llm):
        self.runs.append(record["paper_id"])
        if record["paper_id"] == "bad":
            raise ValueError("a paper that fails")
        script = ScriptedLLM(turn(call("search", {"query": record["title"]}, "c0")), turn(text="Prior work [1]."))
        return await self.method.run(record, script)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


PAPERS = [PAPER, {**PAPER, "paper_id": "p-two", "title": "Dependency parsing", "year": 2021},
          {**PAPER, "paper_id": "bad", "title": "Bad"}]


def test_traces_go_beside_the_predictions_once_per_paper_and_resume_sends_nothing_twice(tmp_path):
    out = tmp_path / "m_rwgbench-sample_agent_bm25.jsonl"
    method = Scripted()
    report = run_generation(PAPERS, method, None, out, show_progress=False, limit=2)
    assert report.n_written == 2 and traces_path_for(out) == tmp_path / "m_rwgbench-sample_agent_bm25.traces.jsonl"
    lines, traces = read_jsonl(out), read_jsonl(traces_path_for(out))
    assert [t["paper_id"] for t in traces] == [line["paper_id"] for line in lines]
    assert all(TRACE not in line and line["agent"]["tool_calls"] == 1 for line in lines)
    assert traces[0]["trace"][0]["calls"][0]["tool"] == "search"
    # a run killed between a paper's trace and its line: the stray trace goes, the paper is rerun and traced once
    with traces_path_for(out).open("a") as f:
        f.write(json.dumps({"paper_id": "bad", "trace": []}) + "\n" + '{"paper_id": "p-t')
    report = run_generation(PAPERS, method, None, out, show_progress=False)
    assert method.runs == ["p-style", "p-two", "bad"]  # done papers are not run again
    assert (report.n_written, report.n_failed) == (0, 1)
    assert [t["paper_id"] for t in read_jsonl(traces_path_for(out))] == ["p-style", "p-two"]
    assert [f["paper_id"] for f in read_jsonl(report.failures_path)] == ["bad"]


class RaisingLLM(ScriptedLLM):
    """A `ScriptedLLM` whose scripted reply may be an error, raised as the client raises it."""

    async def complete(self, messages, tools=None, tool_choice=None, **overrides):
        reply = await super().complete(messages, tools, tool_choice, **overrides)
        if isinstance(reply, Exception):
            raise reply
        return reply


class Failing(Scripted):
    """The scripted agent, whose second request fails (or, for paper 'broke', meets the spent budget)."""

    async def run(self, record, llm):
        self.runs.append(record["paper_id"])
        error = BudgetExceededError("the usage ledger reached the budget of $1.00") if record["paper_id"] == "broke" \
            else GenerationError("HTTP 500: server down after 6 attempts")
        return await self.method.run(record, RaisingLLM(turn(call("search", {"query": record["title"]}, "c0")), error))


def test_a_paper_that_fails_has_its_calls_traced_with_the_error_until_it_is_written(tmp_path):
    out = tmp_path / "m_rwgbench-sample_agent_bm25.jsonl"
    papers = [PAPER, {**PAPER, "paper_id": "broke", "title": "Dependency parsing", "year": 2021}]
    report = run_generation(papers, Failing(), None, out, show_progress=False)
    assert (report.n_written, report.n_failed, report.stopped) == (0, 1, "max_cost")
    traces = {t["paper_id"]: t for t in read_jsonl(traces_path_for(out))}
    assert traces["p-style"]["error"] == "GenerationError: HTTP 500: server down after 6 attempts"
    assert traces["broke"]["error"].startswith("BudgetExceededError: the usage ledger reached the budget")
    for trace in traces.values():  # the search it ran, with what it showed
        assert [c["tool"] for c in trace["trace"][0]["calls"]] == ["search"] and trace["trace"][0]["calls"][0]["doc_ids"]
    # a rerun that writes the papers: their traces are the written ones, once each; the failed ones go
    report = run_generation(papers, Scripted(), None, out, show_progress=False)
    assert report.n_written == 2
    run_generation(papers, Scripted(), None, out, show_progress=False)  # resumed: nothing to do
    assert sorted((t["paper_id"], "error" in t) for t in read_jsonl(traces_path_for(out))) == [
        ("broke", False), ("p-style", False)]


# -- the plan ---------------------------------------------------------------------------------------------------


def test_the_plan_builds_the_agent_over_the_run_retriever(tmp_path, monkeypatch):
    import argparse

    from sciwrite.cli import generate as gen_cli
    from sciwrite.rwgbench.benchmark import RWGBENCH

    monkeypatch.setattr(gen, "load_split", lambda split, source, corpus_source: (PAPERS[:2], CORPUS))
    parser = gen_cli.add_generate_arguments(argparse.ArgumentParser(), RWGBENCH)

    def jobs(*argv):
        args = parser.parse_args(["--out", str(tmp_path), "--model", "openai:x", *argv])
        return list(RWGBENCH.generation.plan(gen_cli.generation_request(args, RWGBENCH)))

    [job] = jobs("--method", "agent", "--max-tool-calls", "4")
    assert isinstance(job.method, Agent) and job.method.max_tool_calls == 4 and job.method.tools is not None
    assert job.out_path.name == "openai-x_rwgbench-sample_agent_bm25.jsonl" and job.retrieved_field is None
    assert "not one of the paper's" in job.notes[0]
    assert (job.meta["method"], job.meta["retriever"], job.meta["k"], job.meta["max_tool_calls"]) == \
        ("agent", "bm25", None, 4)
    with pytest.raises(ValueError, match="--max-tool-calls must be >= 1, got 0"):
        jobs("--method", "agent", "--max-tool-calls", "0")
    with pytest.raises(ValueError, match="agent method searches the corpus itself"):
        jobs("--method", "agent", "--oracle")
    assert [j.method.name for j in jobs("--method", "rag", "agent", "--oracle")] == ["rag"]
    [dry] = jobs("--method", "agent", "--dry-run")
    assert dry.method.tools is None  # a dry run builds no retriever


def test_the_agent_configs_are_ours_and_run_the_agent():
    import argparse

    import yaml

    from sciwrite.cli import generate as gen_cli
    from sciwrite.cli.baseline_config import load_config
    from sciwrite.rwgbench.benchmark import RWGBENCH

    folder = Path(__file__).resolve().parents[2] / "baselines" / "rwgbench"
    parser = gen_cli.add_generate_arguments(argparse.ArgumentParser(), RWGBENCH)
    configs = sorted(folder.glob("agent_*.yaml"))
    assert [p.stem for p in configs] == ["agent_bm25", "agent_dense"]
    for path in configs:
        values = load_config(path, "rwgbench", parser)
        assert (values["method"], values["retriever"], values["max_tool_calls"], values["oracle"]) == \
            (["agent"], path.stem.split("_")[1], 10, False)
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert raw["paper_row"].startswith("none: sciwrite's own agent baseline")


# -- end to end: sciwrite generate / evaluate over real HTTP to the fake OpenAI server ---------------------------

NUMBERED = re.compile(r"^\[(\d+)\] (\S+?)(?::|$)", re.MULTILINE)


def agent_script(plans: dict[str, dict[str, str]]):
    """The scripted model: on a paper's first turn, search its title (k=50) and read two gold papers and one other
    in one turn; then cite those three by the numbers the tools showed."""

    def answer(body):
        messages = body["messages"]
        title = re.search(r"^Title: (.*)$", messages[1]["content"], re.MULTILINE).group(1)
        plan = plans[title]
        results = [m["content"] for m in messages if m["role"] == "tool"]
        if not results:
            return Reply(tool_calls=[
                {"id": "s1", "name": "search", "arguments": json.dumps({"query": title, "k": 50})},
                *({"id": f"r{i}", "name": "read", "arguments": json.dumps({"doc_id": plan[key]})}
                  for i, key in enumerate(("gold_a", "gold_b", "other")))])
        numbers = {doc_id: n for text in results for n, doc_id in NUMBERED.findall(text)}
        return (f"Prior work [{numbers[plan['gold_a']]}] and [{numbers[plan['gold_b']]}]; also "
                f"[{numbers[plan['other']]}].")

    return answer


def mini_plans(folder) -> tuple[list[dict], dict[str, dict[str, str]]]:
    """The mini sample's papers, and per title two of its gold papers and a corpus paper it does not cite, of its
    year or before."""
    from sciwrite.rwgbench.data.loading import load_rwgbench

    papers = list(load_rwgbench("sample", source=str(folder)))
    corpus = list(load_rwgbench("sample_corpus", source=str(folder)))
    targets = {p["paper_id"] for p in papers}
    plans = {}
    for paper in papers:
        year = anthology_year(paper["paper_id"])
        other = next(d["doc_id"] for d in corpus if d["doc_id"] not in set(paper["citations"]) | targets
                     and d["year"] is not None and d["year"] <= year)
        plans[paper["title"]] = {"gold_a": paper["citations"][0], "gold_b": paper["citations"][1], "other": other}
    return papers, plans


def generate_agent(folder, out, server, *more, model: str = "tiny-chat") -> int:
    return main(["generate", "rwgbench", "--method", "agent", "--model", model, "--base-url", server.base_url,
                 "--source", str(folder), "--out", str(out), "--concurrency", "2", *more])


def test_generate_and_evaluate_the_agent_end_to_end(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    papers, plans = mini_plans(mini_sample_folder)
    out = tmp_path / "gen"
    with ChatServer(like_real_endpoints(agent_script(plans))) as server:
        assert generate_agent(mini_sample_folder, out, server) == 0
        bodies = list(server.requests)
    path = out / "tiny-chat_rwgbench-sample_agent_bm25.jsonl"
    lines = {line["paper_id"]: line for line in read_jsonl(path)}
    assert set(lines) == {p["paper_id"] for p in papers} and len(bodies) == 2 * len(papers)
    assert all(body["tools"] == TOOLS for body in bodies)
    for paper in papers:
        plan, line = plans[paper["title"]], lines[paper["paper_id"]]
        assert line["candidates"] == [plan["gold_a"], plan["gold_b"], plan["other"]]
        assert line["pred"] == "Prior work [1] and [2]; also [3]." and line["method"] == "agent"
        record = line["agent"]
        # the sample's papers carry the year their Anthology id names, so the cutoff reads it from `year`
        assert (record["tool_calls"], record["cutoff"], record["cutoff_source"]) == \
            (4, anthology_year(paper["paper_id"]), "year")
        assert record["read"] == [plan["gold_a"], plan["gold_b"], plan["other"]]
        # the title query returns neither the target nor anything after its year
        assert paper["paper_id"] not in record["seen"] and record["searched"]
        assert line["usage"]["requests"] == 2
    for body in bodies:
        for message in body["messages"]:
            if message["role"] == "tool":
                target = next(p for p in papers if p["title"] in body["messages"][1]["content"])
                assert target["paper_id"] not in message["content"]
    traces = read_jsonl(traces_path_for(path))
    assert sorted(t["paper_id"] for t in traces) == sorted(lines)
    assert all([c["tool"] for c in t["trace"][0]["calls"]] == ["search", "read", "read", "read"] for t in traces)
    # scoring: precision and recall from the chosen candidates, against a hand count (2 of the 3 cited are gold)
    evaluated = tmp_path / "eval"
    assert main(["evaluate", "rwgbench", "--predictions", str(path), "--source", str(mini_sample_folder), "--profile",
                 "lite", "--metrics", "precision", "recall", "--bootstrap", "0", "--out", str(evaluated)]) == 0
    rows = {row["paper_id"]: row for row in read_jsonl(next(evaluated.glob("*/per_paper.jsonl")))}
    for paper in papers:
        assert rows[paper["paper_id"]]["precision"] == pytest.approx(2 / 3)
        assert rows[paper["paper_id"]]["recall"] == pytest.approx(2 / len(set(paper["citations"])))


def test_resume_after_a_kill_sends_nothing_for_done_papers_and_traces_each_once(mini_sample_folder, tmp_path,
                                                                                 monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    papers, plans = mini_plans(mini_sample_folder)
    out = tmp_path / "gen"
    path = out / "tiny-chat_rwgbench-sample_agent_bm25.jsonl"
    with ChatServer(like_real_endpoints(agent_script(plans))) as server:
        assert generate_agent(mini_sample_folder, out, server) == 0
        # killed after the second paper's trace was written but before its line: the line is lost (cut short)
        text = path.read_text().splitlines(keepends=True)
        lost = json.loads(text[-1])["paper_id"]
        path.write_text("".join(text[:-1]) + text[-1][:20])
        server.requests.clear()
        assert generate_agent(mini_sample_folder, out, server) == 0
        resent = list(server.requests)
    titles = {p["title"]: p["paper_id"] for p in papers}
    asked = {next(pid for t, pid in titles.items() if t in b["messages"][1]["content"]) for b in resent}
    assert asked == {lost} and len(resent) == 2
    assert sorted(t["paper_id"] for t in read_jsonl(traces_path_for(path))) == sorted(titles.values())
    assert sorted(line["paper_id"] for line in read_jsonl(path)) == sorted(titles.values())


def test_a_paper_whose_agent_never_writes_lands_in_the_failures_file(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")

    def only_tools(body):
        return Reply(tool_calls=[{"id": "s", "name": "search", "arguments": '{"query": "relation extraction"}'}])

    out = tmp_path / "gen"
    with ChatServer(like_real_endpoints(only_tools)) as server:
        assert generate_agent(mini_sample_folder, out, server, "--limit", "1", "--max-tool-calls", "2") == 4
        bodies = list(server.requests)
    assert [b.get("tool_choice") for b in bodies] == [None, None, None, "none"]
    [failed] = read_jsonl(out / "failed_samples_tiny-chat_rwgbench-sample_agent_bm25.jsonl")
    assert "wrote no section when its tool-call budget ran out" in failed["error"]
    # its calls are traced all the same, with the failure
    [trace] = read_jsonl(traces_path_for(out / "tiny-chat_rwgbench-sample_agent_bm25.jsonl"))
    assert trace["paper_id"] == failed["paper_id"] and trace["error"] == failed["error"]
    assert [len(turn.get("calls", [])) for turn in trace["trace"]] == [1, 1, 1, 0]
    assert [c.get("not_run") for c in trace["trace"][2]["calls"]] == ["over the tool-call budget"]


def test_a_thinking_model_keeps_its_reasoning_between_turns_and_in_the_trace(mini_sample_folder, tmp_path,
                                                                              monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    papers, plans = mini_plans(mini_sample_folder)
    out = tmp_path / "gen"
    # a DeepSeek-style thinking model refuses a history whose tool-call turn lacks its reasoning_content
    with ChatServer(like_real_endpoints(agent_script(plans))) as server:
        assert generate_agent(mini_sample_folder, out, server, "--limit", "1", model="deepseek-r1") == 0
        bodies = list(server.requests)
    assert len(bodies) == 2 and bodies[1]["messages"][2]["reasoning_content"]
    [trace] = read_jsonl(next(out.glob("*.traces.jsonl")))
    assert trace["trace"][0]["reasoning"] and trace["trace"][1]["reasoning"]
