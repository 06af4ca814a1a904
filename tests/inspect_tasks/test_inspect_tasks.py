"""Both benchmarks as Inspect AI tasks, offline with ``mockllm/model``: the run succeeds, each sample carries the
suite's per-paper metrics and the task's metrics are the numbers the scoring core's summary gives for the same
predictions (SciIG's corpus BLEU included), and the model receives exactly the requests
``sciwrite generate`` sends for the same papers (a thinking model's trace never reaches the scored text)."""

from __future__ import annotations

import argparse

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect tasks need the inspect extra (pip install sciwrite[inspect])")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from sciwrite.benchmarks import get_benchmark  # noqa: E402
from sciwrite.cli.generate import add_generate_arguments, generation_request  # noqa: E402
from sciwrite.rwgbench.inspect_task import rwgbench  # noqa: E402
from sciwrite.sciig.inspect_task import sciig  # noqa: E402
from sciwrite.scoring.core import score_records  # noqa: E402
from sciwrite.scoring.request import ScoringRequest  # noqa: E402
from tests.fakes.openai_server import ChatServer, like_real_endpoints  # noqa: E402

RWG_METRICS = ("precision", "recall", "citation_density", "rougeL")
SCIIG_METRICS = ("rouge1", "rougeL", "bleu")
REPLY = "<think>a trace that must not be scored</think>Parsers of graphs [1] build on transformers [2]."


class Recorder:
    """A mockllm ``custom_outputs`` callable: keeps every request's messages and config, answers `reply`."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests: list[tuple[list[dict[str, str]], object]] = []

    def __call__(self, input, tools, tool_choice, config):  # noqa: A002 (Inspect's argument name)
        self.requests.append(([{"role": m.role, "content": m.text} for m in input], config))
        output = ModelOutput.from_content(model="mockllm", content=self.answer(input[-1].text))
        # with its usage given, mockllm counts no tokens itself (it would fetch tiktoken's vocabulary: offline here)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output


    def answer(self, prompt: str) -> str:
        return self.reply


class Echo(Recorder):
    """Answers with the prompt's last 80 words after a thinking trace: a reply whose n-grams overlap each paper's
    introduction differently, so that corpus BLEU and the mean of per-paper BLEU differ."""

    def answer(self, prompt: str) -> str:
        return f"<think>hidden</think>{' '.join(prompt.split()[-80:])}"


def cli_prompts(benchmark: str, argv: list[str]) -> dict[str, list[dict[str, str]]]:
    """paper_id -> the first request ``sciwrite generate <benchmark> ARGV`` sends for it."""
    bench = get_benchmark(benchmark)
    args = add_generate_arguments(argparse.ArgumentParser(), bench).parse_args(["--model", "x", *argv])
    [job] = bench.generation.plan(generation_request(args, bench))
    return {record["paper_id"]: job.method.prompt(record) for record in job.records}


def run(task, recorder: Recorder, tmp_path, limit: int = 3):
    model = get_model("mockllm/model", custom_outputs=recorder)
    [log] = inspect_eval(task, model=model, limit=limit, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    return log


def check_scores(log, benchmark: str, source, metrics: tuple[str, ...]) -> None:
    """Each sample carries the metrics; the task's metrics are the numbers `sciwrite evaluate` gives for the same
    predictions: the scoring core's summary over the samples' prediction records (SciIG's BLEU a corpus BLEU)."""
    samples = log.samples
    assert samples
    values = [sample.scores[f"{benchmark}_scores"].value for sample in samples]
    for value in values:
        assert set(metrics) <= set(value), value
    reported = {m.name: m.value for score in log.results.scores for m in score.metrics.values()}
    bench = get_benchmark(benchmark)
    request = ScoringRequest(split="sample", source=str(source), profile="lite", metrics=metrics, bootstrap=0,
                             show_progress=False)
    records = [{**sample.metadata["sciwrite"]["extra"], "paper_id": str(sample.id), "pred": sample.output.completion}
               for sample in samples]
    summary = score_records(bench, records, bench.suite.steps.open_split(request), request).summary.to_json()
    for key in metrics:
        assert reported[key] == pytest.approx(summary[key], abs=1e-9), key


def test_rwgbench_task(mini_sample_folder, tmp_path):
    recorder = Recorder(REPLY)
    task = rwgbench(source=str(mini_sample_folder), method="rag", k=5, metrics=",".join(RWG_METRICS))
    log = run(task, recorder, tmp_path)
    check_scores(log, "rwgbench", mini_sample_folder, RWG_METRICS)
    expected = cli_prompts("rwgbench", ["--source", str(mini_sample_folder), "--method", "rag", "--k", "5"])
    sent = [messages for messages, _ in recorder.requests]
    assert len(sent) == len(log.samples)
    assert sorted(map(str, sent)) == sorted(str(expected[str(sample.id)]) for sample in log.samples)
    for sample in log.samples:  # the sample's input is that request too
        assert [{"role": m.role, "content": m.text} for m in sample.input] == expected[str(sample.id)]
        assert "trace" not in sample.output.completion
        assert sample.metadata["sciwrite"]["extra"]["candidates"]
    config = recorder.requests[0][1]
    assert (config.max_tokens, config.temperature, config.seed) == (2048, 0.7, 42)  # the CLI's defaults


def test_sciig_task(sciig_mini_folder, tmp_path):
    recorder = Echo("")
    task = sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics=",".join(SCIIG_METRICS),
                 temperature=0.0, max_tokens=300, seed=7)
    log = run(task, recorder, tmp_path)
    check_scores(log, "sciig", sciig_mini_folder, SCIIG_METRICS)
    expected = cli_prompts("sciig", ["--split", "sample", "--source", str(sciig_mini_folder), "--level", "ELABORATE",
                                     "--seed", "7"])
    assert len(log.samples) == min(3, len(expected))
    assert sorted(str(m) for m, _ in recorder.requests) == sorted(str(expected[str(s.id)]) for s in log.samples)
    assert all("hidden" not in sample.output.completion for sample in log.samples)
    bleus = [sample.scores["sciig_scores"].value["bleu"] for sample in log.samples]
    reported = {m.name: m.value for score in log.results.scores for m in score.metrics.values()}
    assert reported["bleu"] != pytest.approx(sum(bleus) / len(bleus), abs=1e-6)  # corpus BLEU, not a mean
    config = recorder.requests[0][1]
    assert (config.max_tokens, config.temperature, config.seed) == (300, 0.0, 7)


@pytest.mark.parametrize(("model", "check"), [
    # a thinking model that writes its trace inline: the trace never reaches the scored text; the task's
    # completion limit is sent (Inspect's OpenAI provider names it max_completion_tokens for this model)
    ("qwen3-32b", lambda body: (body.get("max_tokens") or body.get("max_completion_tokens")) == 2048),
    # a reasoning model that refuses max_tokens and a temperature other than 1: Inspect's OpenAI provider sends
    # neither, and the run succeeds
    ("gpt-5", lambda body: "max_tokens" not in body and "temperature" not in body),
])
def test_the_task_runs_against_an_openai_compatible_endpoint(model, check, sciig_mini_folder, tmp_path, monkeypatch):
    """Inspect's own OpenAI provider (``--model openai/... --model-base-url``) against the fake server that copies
    OpenAI's answers and refusals."""
    pytest.importorskip("openai", reason="Inspect's OpenAI provider needs the openai package")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with ChatServer(like_real_endpoints(lambda body: "We introduce a parser of graphs [1].")) as server:
        task = sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics="rouge1")
        # Chat Completions, as OpenAI-compatible servers speak it (Inspect's OpenAI provider defaults to the
        # Responses API, which the fake does not serve): ``-M responses_api=false`` on the command line
        [log] = inspect_eval(task, model=f"openai/{model}", model_base_url=server.base_url,
                             model_args={"responses_api": False}, limit=2, log_dir=str(tmp_path / "logs"),
                             display="none")
        bodies = list(server.requests)
    assert log.status == "success", log.error
    assert bodies and all(check(body) for body in bodies), bodies[0]
    for sample in log.samples:
        assert sample.output.completion.strip().startswith("We introduce a parser of graphs")
        assert "Let me think" not in sample.output.completion
        assert "rouge1" in sample.scores["sciig_scores"].value
