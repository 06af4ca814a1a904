"""The agent baseline under Inspect (``inspect eval sciwrite/rwgbench -T method=agent``): the same loop as ``sciwrite
generate rwgbench --method agent``, its requests (messages and tools) equal, request by request, to the ones the CLI
sends for the same papers and the same scripted replies, with mockllm and with Inspect's OpenAI provider against the
fake server (tool calls, a malformed one included, round-trip); the same prediction, candidates, agent record and
trace; the budget (``-T max_tool_calls``) and the date cutoff apply. The agent's tools are also Inspect tools
(`sciwrite.harness.inspect_tools`), with the agent's schemas and results, usable in Inspect's own ``react``."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect tasks need the inspect extra (pip install sciwrite[inspect])")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.agent import react  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.event import ModelEvent  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatCompletionChoice,
    ChatMessageAssistant,
    ChatMessageTool,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.model._call_tools import parse_tool_call  # noqa: E402 (what Inspect's providers read calls with)
from inspect_ai.tool import ToolCall as InspectToolCall  # noqa: E402
from inspect_ai.tool import ToolDef, ToolError, ToolFunction  # noqa: E402

from sciwrite.cli import main  # noqa: E402
from sciwrite.generation.agent_tools import TOOLS, CorpusTools  # noqa: E402
from sciwrite.generation.runner import traces_path_for  # noqa: E402
from sciwrite.harness.inspect_logs import prediction  # noqa: E402
from sciwrite.harness.inspect_model import InspectLLM, call_arguments, inspect_tool_choice, tool_infos  # noqa: E402
from sciwrite.harness.inspect_tools import paper_tools  # noqa: E402
from sciwrite.llm.types import GenerationSettings  # noqa: E402
from sciwrite.retrieval.bm25 import BM25Retriever  # noqa: E402
from sciwrite.rwgbench.inspect_task import rwgbench  # noqa: E402
from tests.fakes.openai_server import ChatServer, Reply, like_real_endpoints  # noqa: E402
from tests.rwgbench.test_agent import CORPUS, NUMBERED, PAPER, SHOWN_NEVER, TITLE, mini_plans, read_jsonl  # noqa: E402

MALFORMED = '{"query": "style'  # arguments cut short: not JSON


# -- one scripted model for both harnesses -----------------------------------------------------------------------


def normal_cli(messages) -> list[dict]:
    """A request body's messages as the comparison reads them: role, text, tool calls (id, name, arguments parsed
    when they are JSON), the result's call id."""
    out = []
    for m in messages:
        calls = [(c["id"], c["function"]["name"], _parsed(c["function"]["arguments"])) for c in m.get("tool_calls") or []]
        out.append({"role": m["role"], "content": m.get("content") or "", "calls": calls,
                    "tool_call_id": m.get("tool_call_id")})
    return out


def normal_inspect(messages) -> list[dict]:
    """Inspect's chat messages as `normal_cli` reads a body's."""
    return [{"role": m.role, "content": m.text,
             "calls": [(c.id, c.function, c.arguments) for c in getattr(m, "tool_calls", None) or []],
             "tool_call_id": getattr(m, "tool_call_id", None)} for m in messages]


def _parsed(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def script(plans, malformed: bool = False):
    """The scripted model on a normalised history: first, search the paper's exact title (k=50) and read two gold
    papers and one other (and, with `malformed`, one call whose arguments are cut short); then cite what the tools
    numbered of those three, as ``(text, calls)``."""

    def answer(messages):
        title = re.search(r"^Title: (.*)$", messages[1]["content"], re.MULTILINE).group(1)
        plan = plans[title]
        results = [m["content"] for m in messages if m["role"] == "tool"]
        if not results:
            calls = [("s1", "search", json.dumps({"query": title, "k": 50})),
                     *((f"r{i}", "read", json.dumps({"doc_id": plan[key]}))
                       for i, key in enumerate(("gold_a", "gold_b", "other")))]
            return "", calls + ([("m1", "search", MALFORMED)] if malformed else [])
        numbers = {doc_id: n for text in results for n, doc_id in NUMBERED.findall(text)}
        cited = [numbers[plan[key]] for key in ("gold_a", "gold_b", "other") if plan[key] in numbers] or ["1"]
        return "Prior work " + " and ".join(f"[{n}]" for n in cited) + ".", []

    return answer


def server_answer(policy):
    def answer(body):
        text, calls = policy(normal_cli(body["messages"]))
        if calls:
            return Reply(tool_calls=[{"id": i, "name": n, "arguments": a} for i, n, a in calls])
        return text

    return answer


class MockAgent:
    """A mockllm ``custom_outputs`` callable: each request (messages, tools, tool_choice) kept; the policy's reply
    as a ModelOutput (tool calls in its message)."""

    def __init__(self, policy) -> None:
        self.policy = policy
        self.requests: list[dict] = []

    def __call__(self, input, tools, tool_choice, config):  # noqa: A002 (Inspect's argument name)
        messages = normal_inspect(input)
        self.requests.append({"messages": messages, "tools": [tool_json(t) for t in tools],
                              "tool_choice": tool_choice})
        text, calls = self.policy(messages)
        message = ChatMessageAssistant(content=text, tool_calls=[
            InspectToolCall(id=i, function=n, arguments=json.loads(a)) for i, n, a in calls] or None)
        output = ModelOutput(model="mockllm", choices=[ChatCompletionChoice(
            message=message, stop_reason="tool_calls" if calls else "stop")])
        # with its usage given, mockllm counts no tokens itself (it would fetch tiktoken's vocabulary: offline here)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output


def tool_json(info) -> dict:
    """A `ToolInfo` as OpenAI's chat ``tools`` entry (what the CLI sends)."""
    return {"type": "function", "function": {"name": info.name, "description": info.description,
                                             "parameters": info.parameters.model_dump(exclude_none=True)}}


def by_paper(requests, titles) -> dict[str, list[dict]]:
    """Each paper's requests in the order sent, told apart by the target's title in the user message."""
    out: dict[str, list[dict]] = {title: [] for title in titles}
    for request in requests:
        [title] = [t for t in titles if f"Title: {t}\n" in request["messages"][1]["content"]]
        out[title].append(request)
    return out


def cli_run(folder, tmp_path, policy, *more: str):
    """``sciwrite generate rwgbench --method agent`` on the first two papers against the fake server: the request
    bodies, the lines and the traces by paper_id."""
    out = tmp_path / "cli"
    with ChatServer(like_real_endpoints(server_answer(policy))) as server:
        assert main(["generate", "rwgbench", "--method", "agent", "--model", "tiny-chat", "--base-url",
                     server.base_url, "--source", str(folder), "--out", str(out), "--limit", "2", *more]) == 0
        bodies = list(server.requests)
    path = out / "tiny-chat_rwgbench-sample_agent_bm25.jsonl"
    lines = {line["paper_id"]: line for line in read_jsonl(path)}
    traces = {t["paper_id"]: t["trace"] for t in read_jsonl(traces_path_for(path))}
    requests = [{"messages": normal_cli(b["messages"]), "tools": b.get("tools"), "tool_choice": b.get("tool_choice")}
                for b in bodies]
    return requests, lines, traces


def check_same_outcome(log, lines, traces) -> None:
    """Each sample's prediction, candidates, agent record and trace are the CLI's line's; the trace is kept in the
    sample's metadata, not among the line's fields; no tool result holds the target."""
    assert log.status == "success", log.error
    assert [step.solver for step in log.plan.steps] == ["sciwrite/write"]
    assert {str(s.id) for s in log.samples} == set(lines)
    for sample in log.samples:
        line, generated = lines[str(sample.id)], sample.metadata["sciwrite"]
        assert sample.output.completion == line["pred"]
        assert generated["extra"]["candidates"] == line["candidates"] and line["candidates"]
        assert generated["extra"]["agent"] == line["agent"]
        assert generated["trace"] == traces[str(sample.id)] and "trace" not in generated["extra"]
        assert prediction(log, sample)["trace"] == traces[str(sample.id)]  # what the leaderboard's import keeps
        # the cutoff: the exact title's search never shows the target
        assert str(sample.id) not in line["agent"]["seen"]
        assert not any(str(sample.id) in m.text for m in sample.messages if isinstance(m, ChatMessageTool))
        # the transcript: every model call, with the tool calls of the first
        calls = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert len(calls) == line["usage"]["requests"]
        assert [c.function for c in calls[0].output.message.tool_calls][:4] == ["search", "read", "read", "read"]


# -- method=agent: the CLI's requests, prediction and trace ------------------------------------------------------


def test_the_agent_under_inspect_sends_what_the_cli_sends(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    papers, plans = mini_plans(mini_sample_folder)
    titles = [p["title"] for p in papers]
    cli_requests, lines, traces = cli_run(mini_sample_folder, tmp_path, script(plans))
    mock = MockAgent(script(plans))
    [log] = inspect_eval(rwgbench(source=str(mini_sample_folder), method="agent", metrics="precision,recall"),
                         model=get_model("mockllm/model", custom_outputs=mock), limit=2,
                         log_dir=str(tmp_path / "logs"), display="none")
    check_same_outcome(log, lines, traces)
    cli, inspect = by_paper(cli_requests, titles), by_paper(mock.requests, titles)
    assert sum(len(v) for v in cli.values()) == 4
    for title in titles:
        assert len(inspect[title]) == len(cli[title])
        for ours, theirs in zip(inspect[title], cli[title], strict=True):
            assert ours["messages"] == theirs["messages"]
            assert ours["tools"] == theirs["tools"] == TOOLS
            assert theirs["tool_choice"] is None and ours["tool_choice"] == "auto"  # the same: the model decides
    for sample in log.samples:  # the agent's own precision and recall, from its chosen candidates
        values = sample.scores["rwgbench_scores"].value
        cited = lines[str(sample.id)]["candidates"]
        gold = set(next(p for p in papers if p["paper_id"] == str(sample.id))["citations"])
        assert values["precision"] == pytest.approx(len(set(cited) & gold) / len(cited))


def test_the_budget_applies_under_inspect(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    papers, plans = mini_plans(mini_sample_folder)
    titles = [p["title"] for p in papers]
    cli_requests, lines, traces = cli_run(mini_sample_folder, tmp_path, script(plans), "--max-tool-calls", "1")
    mock = MockAgent(script(plans))
    task = rwgbench(source=str(mini_sample_folder), method="agent", max_tool_calls=1, metrics="precision")
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=mock), limit=2,
                         log_dir=str(tmp_path / "logs"), display="none")
    check_same_outcome(log, lines, traces)
    assert log.eval.metadata["max_tool_calls"] == 1
    for sample in log.samples:
        record = sample.metadata["sciwrite"]["extra"]["agent"]
        assert (record["tool_calls"], record["budget_exhausted"], record["read"]) == (1, True, [])
    cli, inspect = by_paper(cli_requests, titles), by_paper(mock.requests, titles)
    for title in titles:  # the calls, then the one forced write with what it has
        assert [r["messages"] for r in inspect[title]] == [r["messages"] for r in cli[title]]
        assert len(cli[title]) == 2 and cli[title][1]["messages"][-1]["role"] == "user"
        assert [m["content"] for m in cli[title][1]["messages"] if m["role"] == "tool"][1:] == \
            ["Not run: you have no tool calls left."] * 3
        # tool_choice "none" on the last request; Inspect then sends no tools (its Model.generate drops them)
        assert cli[title][1]["tool_choice"] == "none" and cli[title][1]["tools"] == TOOLS
        assert inspect[title][1]["tool_choice"] == "none" and inspect[title][1]["tools"] == []


def test_tool_calls_round_trip_through_inspects_openai_provider(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    papers, plans = mini_plans(mini_sample_folder)
    titles = [p["title"] for p in papers]
    policy = script(plans, malformed=True)
    cli_requests, lines, traces = cli_run(mini_sample_folder, tmp_path, policy)
    with ChatServer(like_real_endpoints(server_answer(policy))) as server:
        [log] = inspect_eval(rwgbench(source=str(mini_sample_folder), method="agent", metrics="precision"),
                             model="openai/tiny-chat", model_base_url=server.base_url,
                             model_args={"responses_api": False}, limit=2, log_dir=str(tmp_path / "logs"),
                             display="none")
        bodies = list(server.requests)
    check_same_outcome(log, lines, traces)
    sent = [{"messages": normal_cli(b["messages"]), "tools": b.get("tools"), "tool_choice": b.get("tool_choice")}
            for b in bodies]
    for request in sent:  # Inspect's OpenAI provider sends the system message in OpenAI's newer "developer" role
        assert request["messages"][0]["role"] == "developer"
        request["messages"][0]["role"] = "system"
    cli, inspect = by_paper(cli_requests, titles), by_paper(sent, titles)
    for title in titles:
        assert len(inspect[title]) == len(cli[title]) == 2
        ours, theirs = inspect[title][1], cli[title][1]
        # the malformed call goes back as the model wrote it from the CLI; Inspect re-encodes what it parsed ({})
        [(_, _, mine)] = [c for c in ours["messages"][2]["calls"] if c[0] == "m1"]
        [(_, _, raw)] = [c for c in theirs["messages"][2]["calls"] if c[0] == "m1"]
        assert (mine, raw) == ({}, MALFORMED)
        for request in (ours, theirs):
            request["messages"][2]["calls"] = [c for c in request["messages"][2]["calls"] if c[0] != "m1"]
        results = {m["tool_call_id"]: m["content"] for m in ours["messages"] if m["role"] == "tool"}
        assert results["m1"].startswith("Error: the arguments are not valid JSON")
        # everything else is the CLI's: the history, the tool results (the malformed call's one error included)
        for ours, theirs in zip(inspect[title], cli[title], strict=True):
            assert ours["messages"] == theirs["messages"]
            assert ours["tools"] == theirs["tools"] == TOOLS
            assert theirs["tool_choice"] is None and ours["tool_choice"] == "auto"
    for sample in log.samples:
        assert lines[str(sample.id)]["agent"]["malformed_calls"] == 1


# -- InspectLLM's conversions ------------------------------------------------------------------------------------


def test_tool_choice_and_tools_convert_to_inspects():
    assert [inspect_tool_choice(c) for c in (None, "auto", "none", "required")] == [None, "auto", "none", "any"]
    assert inspect_tool_choice({"type": "function", "function": {"name": "read"}}) == ToolFunction(name="read")
    with pytest.raises(ValueError, match="tool_choice"):
        inspect_tool_choice("sometimes")
    assert [tool_json(info) for info in tool_infos(TOOLS)] == TOOLS
    with pytest.raises(ValueError, match="not an OpenAI function tool"):
        tool_infos([{"type": "web_search"}])


def test_a_call_inspect_could_not_parse_reaches_the_agent_as_written():
    call = parse_tool_call("c1", "search", MALFORMED, tool_infos(TOOLS))
    assert call.parse_error and call.arguments == {}
    assert call_arguments(call) == MALFORMED
    assert json.loads(call_arguments(parse_tool_call("c2", "read", '{"doc_id": "d1"}'))) == {"doc_id": "d1"}


def test_a_thinking_reply_is_stripped_in_the_answer_and_in_the_history():
    replies = iter([ModelOutput(model="m", choices=[ChatCompletionChoice(message=ChatMessageAssistant(
        content="<think>plan a search</think>Searching.", tool_calls=[
            InspectToolCall(id="c1", function="search", arguments={"query": "x"})]), stop_reason="tool_calls")]),
        ModelOutput.from_content(model="m", content="<think>done</think>Done [1].")])
    seen = []

    def answer(input, tools, tool_choice, config):  # noqa: A002
        seen.append(input)
        output = next(replies)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    llm = InspectLLM(get_model("mockllm/model", custom_outputs=answer), GenerationSettings())
    history = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    first = asyncio.run(llm.complete(history, tools=TOOLS))
    assert (first.text, first.reasoning) == ("Searching.", "plan a search")
    assert [(c.id, c.name, json.loads(c.arguments)) for c in first.tool_calls] == [("c1", "search", {"query": "x"})]
    assert first.message["tool_calls"][0]["function"]["name"] == "search" and llm.tools_refused is False
    history += [first.message, {"role": "tool", "tool_call_id": "c1", "content": "[1] d1: A paper"}]
    second = asyncio.run(llm.complete(history, tools=TOOLS))
    assert (second.text, second.reasoning, second.tool_calls) == ("Done [1].", "done", ())
    assistant, tool = seen[1][2], seen[1][3]
    assert assistant.text == "Searching." and assistant.tool_calls[0].arguments == {"query": "x"}
    assert isinstance(tool, ChatMessageTool) and (tool.tool_call_id, tool.function) == ("c1", "search")


# -- the tools as Inspect tools ------------------------------------------------------------------------------------


def session():
    return CorpusTools(BM25Retriever.from_corpus(CORPUS, show_progress=False), CORPUS).session(PAPER)


def test_the_inspect_tools_have_the_agents_schemas_and_results():
    search, read = paper_tools(TOOLS, session())
    declared = {tool["function"]["name"]: tool["function"] for tool in TOOLS}
    for tool in (search, read):
        definition = ToolDef(tool)
        spec = declared[definition.name]
        assert (definition.description, definition.parameters.model_dump(exclude_none=True)) == \
            (spec["description"], spec["parameters"])
    assert [ToolDef(t).name for t in (search, read)] == ["search", "read"]
    # the same text as the agent's own functions give for the same paper and calls (numbers included)
    reference = session()
    found = asyncio.run(search(query=TITLE, k=50))
    assert found == asyncio.run(reference.search(TITLE, 50)).content
    assert not any(f" {doc_id}:" in found for doc_id in SHOWN_NEVER)  # the cutoff: never the target, nothing later
    assert asyncio.run(read(doc_id="d-delete")) == reference.read_doc("d-delete").content
    assert asyncio.run(read(doc_id="p-style")) == 'read "p-style": no paper with this doc_id is available.'
    with pytest.raises(ToolError, match="must be a non-empty string"):
        asyncio.run(search(query="   "))


def test_the_inspect_tools_work_in_inspects_react_agent(tmp_path):
    outputs = iter([ModelOutput.for_tool_call("mockllm", "search", {"query": "sentiment style transfer", "k": 3},
                                              tool_call_id="c1", content=""),
                    ModelOutput.from_content("mockllm", "Done.")])
    offered = []

    def answer(input, tools, tool_choice, config):  # noqa: A002
        offered.append(sorted(t.name for t in tools))
        output = next(outputs)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    task = Task(dataset=MemoryDataset([Sample(input="Find related work.")]),
                solver=react(tools=paper_tools(TOOLS, session()), submit=False))
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=answer), log_dir=str(tmp_path),
                         display="none")
    assert log.status == "success", log.error
    assert offered[0] == ["read", "search"]
    [result] = [m for m in log.samples[0].messages if isinstance(m, ChatMessageTool)]
    assert result.function == "search" and result.error is None
    assert result.text == asyncio.run(session().search("sentiment style transfer", 3)).content
