"""The Inspect tasks' solver chain: Workflow runs as one solver per stage and sends, request by request, what
``sciwrite generate`` sends for the same papers (both over real HTTP to one fake OpenAI server that answers by the
request's kind); retrieval is a step of its own, whose candidate list the method then writes over."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect tasks need the inspect extra (pip install sciwrite[inspect])")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402
from inspect_ai.solver import Generate, TaskState, solver  # noqa: E402

from sciwrite.benchmarks import get_benchmark  # noqa: E402
from sciwrite.cli import main  # noqa: E402
from sciwrite.harness.inspect_solvers import CANDIDATES  # noqa: E402
from sciwrite.harness.inspect_tasks import plan_job  # noqa: E402
from sciwrite.rwgbench.inspect_task import rwgbench  # noqa: E402
from sciwrite.scoring.request import ScoringRequest  # noqa: E402
from tests.fakes.openai_server import ChatServer, like_real_endpoints  # noqa: E402
from tests.inspect_tasks.test_inspect_tasks import Recorder  # noqa: E402


def workflow_reply(body) -> str:
    """A model that answers each Workflow request by its kind: a plan, a draft, one uncovered theme at the first
    coverage check and none at the second, a revision."""
    prompt = body["messages"][-1]["content"]
    if prompt.startswith("You are planning"):  # queries of the title's words, which the corpus has
        words = re.search(r"^Title: (.*)$", prompt, re.MULTILINE).group(1).split()
        return json.dumps({"themes": [{"theme": "Methods", "queries": [" ".join(words[:3]), " ".join(words[3:])]},
                                      {"theme": "Data", "queries": [" ".join(words[1:4])]}]})
    if prompt.startswith("You are checking"):
        if "Abstracts" in prompt:
            return '{"uncovered": []}'
        return '{"uncovered": [{"theme": "Abstracts", "queries": ["abstract summary"]}]}'
    if prompt.startswith("You are revising"):
        return "Revised: summarizers [1] and metrics [2] are related [3]."
    return "Draft: summarizers [1] and citation generators [2]."


def requests_by_paper(bodies, titles) -> dict[str, list[str]]:
    """Each paper's requests (their messages as JSON), in the order they were sent, told apart by the target's
    title."""
    out: dict[str, list[str]] = {title: [] for title in titles}
    for body in bodies:
        prompt = body["messages"][-1]["content"]
        [title] = [t for t in titles if f"## Target paper\nTitle: {t}\n" in prompt]
        out[title].append(json.dumps(body["messages"]))
    return out


def test_workflow_is_a_chain_of_its_stages_sending_what_the_cli_sends(mini_sample_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    job = plan_job(get_benchmark("rwgbench"), {"source": str(mini_sample_folder), "method": ["workflow"]}, 42)
    titles = [record["title"] for record in job.records[:2]]
    with ChatServer(like_real_endpoints(workflow_reply)) as server:
        out = tmp_path / "gen"
        assert main(["generate", "rwgbench", "--model", "tiny-chat", "--base-url", server.base_url, "--method",
                     "workflow", "--source", str(mini_sample_folder), "--limit", "2", "--out", str(out)]) == 0
        cli_bodies = list(server.requests)
        [log] = inspect_eval(rwgbench(source=str(mini_sample_folder), method="workflow", metrics="precision,recall"),
                             model="openai/tiny-chat", model_base_url=server.base_url,
                             model_args={"responses_api": False}, limit=2, log_dir=str(tmp_path / "logs"),
                             display="none")
        inspect_bodies = cli_bodies and server.requests[len(cli_bodies):]
    assert log.status == "success", log.error
    assert [step.solver for step in log.plan.steps] == [
        *(f"sciwrite/workflow_{stage}" for stage in ("plan", "search", "draft", "refine_1", "refine_2"))]
    cli, inspect = requests_by_paper(cli_bodies, titles), requests_by_paper(inspect_bodies, titles)
    for title in titles:  # plan, draft, check, revision, check: in the same order, with the same messages
        assert len(cli[title]) == 5
        assert inspect[title] == cli[title]
    [path] = [p for p in out.glob("*.jsonl") if p.name != "usage.jsonl"]
    lines = {line["paper_id"]: line for line in map(json.loads, path.read_text().splitlines())}
    for sample in log.samples:
        line = lines[str(sample.id)]
        assert sample.output.completion == line["pred"]
        generated = sample.metadata["sciwrite"]
        assert generated["extra"]["candidates"] == line["candidates"]
        assert [s["step"] for s in generated["extra"]["steps"]] == [s["step"] for s in line["steps"]]
        # the sample's messages end with the request that wrote the section (the revision) and its reply
        assert sample.messages[-2].text.startswith("You are revising")
        assert sample.messages[-1].text == line["pred"]


@solver
def first_two_candidates():
    """A retrieval of a user's own: the plan's list cut to its first two papers."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.store.set(CANDIDATES, state.store.get(CANDIDATES)[:2])
        return state

    return solve


def test_retrieval_is_a_step_the_method_writes_over(mini_sample_folder, tmp_path):
    task = rwgbench(source=str(mini_sample_folder), method="rag", k=5, metrics="precision")
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=Recorder("Work [1] and [2].")),
                         limit=2, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert [step.solver for step in log.plan.steps] == ["sciwrite/retrieve", "sciwrite/write"]
    split = get_benchmark("rwgbench").suite.steps.open_split(ScoringRequest(split="sample",
                                                                            source=str(mini_sample_folder)))
    papers = {paper["paper_id"]: paper for paper in split.records(range(len(split.paper_ids)))}
    for sample in log.samples:  # the answer is the sample's target and metadata, never in the prompt
        paper = papers[str(sample.id)]
        assert sample.target == paper["related_work"]
        assert sample.metadata["citations"] == paper["citations"]
        assert paper["related_work"][:200] not in sample.input[-1].text
    for sample in log.samples:
        stored = sample.store[CANDIDATES]
        assert [doc["doc_id"] for doc in stored] == sample.metadata["sciwrite"]["extra"]["candidates"]
        assert len(stored) == 5

    # the chain with a user's step after retrieval: the method writes over two papers, not five
    lists = {str(sample.id): sample.store[CANDIDATES] for sample in log.samples}
    recorder = Recorder("Work [1] and [2].")
    custom = Task(dataset=task.dataset, solver=[task.solver[0], first_two_candidates(), task.solver[1]],
                  scorer=task.scorer)
    [log] = inspect_eval(custom, model=get_model("mockllm/model", custom_outputs=recorder), limit=2,
                         log_dir=str(tmp_path / "logs2"), display="none")
    assert log.status == "success", log.error
    for sample in log.samples:
        docs = lists[str(sample.id)]
        assert sample.metadata["sciwrite"]["extra"]["candidates"] == [doc["doc_id"] for doc in docs[:2]]
        [prompt] = [messages[-1]["content"] for messages, _ in recorder.requests if docs[0]["title"] in
                    messages[-1]["content"]]
        assert docs[1]["title"] in prompt and not any(doc["title"] in prompt for doc in docs[2:])
