"""Inspect runs are checked as carefully as the CLI's: a task argument goes through the check of its flag and a bad
one fails in one line naming ``-T name`` (Inspect's `PrerequisiteError`, printed without a traceback); a sample whose
request the model did not answer (a model error, or an HTTP 400 ``context_length_exceeded``, which Inspect turns into
an output holding the error's text with stop reason ``model_length``) fails unscored, as the CLI fails the paper, and
the board refuses its log; an Inspect log given to ``sciwrite evaluate --predictions`` is named as one, with how to use
it."""

from __future__ import annotations

import argparse

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect tasks need the inspect extra (pip install sciwrite[inspect])")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai._util.error import PrerequisiteError  # noqa: E402
from inspect_ai.log import write_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, get_model  # noqa: E402

from sciwrite.benchmarks import get_benchmark  # noqa: E402
from sciwrite.cli import main  # noqa: E402
from sciwrite.cli.flags import add_bootstrap_flags  # noqa: E402
from sciwrite.cli.generate import add_generate_arguments  # noqa: E402
from sciwrite.core.errors import InputError  # noqa: E402
from sciwrite.harness.inspect_logs import read_inspect_log  # noqa: E402
from sciwrite.harness.inspect_model import output_failure  # noqa: E402
from sciwrite.rwgbench.inspect_task import rwgbench  # noqa: E402
from sciwrite.sciig.inspect_task import sciig  # noqa: E402
from tests.fakes.openai_server import ChatServer  # noqa: E402
from tests.inspect_tasks.test_inspect_chain import workflow_reply  # noqa: E402
from tests.inspect_tasks.test_inspect_tasks import Recorder  # noqa: E402

#: OpenAI's answer to a request longer than the model's context (HTTP 400, its documented error body).
CONTEXT_LENGTH_EXCEEDED = {"error": {
    "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. "
               "Please reduce the length of the messages.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}

TASKS = {"rwgbench": rwgbench, "sciig": sciig}


def build(benchmark: str, folder, **arguments):
    """The task of `benchmark` on the offline mini sample with these ``-T`` arguments."""
    return TASKS[benchmark](source=str(folder), **arguments)


def refusal(benchmark: str, folder, **arguments) -> str:
    """The one line a task built with these arguments fails with."""
    with pytest.raises(PrerequisiteError) as failed:
        build(benchmark, folder, **arguments)
    message = str(failed.value.message)
    assert "\n" not in message and message.startswith(f"sciwrite/{benchmark}: "), message
    return message


@pytest.fixture
def folders(mini_sample_folder, sciig_mini_folder):
    return {"rwgbench": mini_sample_folder, "sciig": sciig_mini_folder}


@pytest.mark.parametrize(("benchmark", "arguments", "said"), [
    ("rwgbench", {"temperature": float("nan")}, "-T temperature: expected a finite number >= 0, got nan"),
    ("rwgbench", {"temperature": float("inf")}, "-T temperature: expected a finite number >= 0, got inf"),
    ("sciig", {"temperature": -0.5}, "-T temperature: expected a finite number >= 0, got -0.5"),
    ("rwgbench", {"bootstrap": -3}, "-T bootstrap: expected a whole number 0 or more, got -3"),
    ("sciig", {"bootstrap": 2.5}, "-T bootstrap: expected a whole number, got 2.5"),
    ("sciig", {"bootstrap_seed": "x"}, "-T bootstrap_seed: expected a whole number, got 'x'"),
    ("sciig", {"max_tokens": 0}, "-T max_tokens: expected a whole number 1 or more, got 0"),
    ("sciig", {"seed": 1.5}, "-T seed: expected a whole number, got 1.5"),
    ("sciig", {"profile": "big"}, "-T profile: expected one of paper, lite, got 'big'"),
    ("rwgbench", {"split": "nope"}, "-T split: expected one of sample, test, got 'nope'"),
    ("sciig", {"split": "nope"}, "-T split: expected one of naacl_2025, iclr_2025, sample, arxiv, got 'nope'"),
    ("sciig", {"inputs": "x"}, "-T inputs: expected one of title, title-abstract, title-abstract-related, got 'x'"),
    ("sciig", {"level": 99}, "-T level: unknown SciIG prompt level '99'; choose one of SHORT, MEDIUM, ELABORATE"),
    ("rwgbench", {"k": "abc"}, "-T k: expected a whole number, got 'abc'"),
    ("rwgbench", {"oracle": "maybe"}, "-T oracle: expected true or false, got 'maybe'"),
    ("rwgbench", {"retriever": "grep"}, "-T retriever: expected one of bm25, dense, got 'grep'"),
    # the planner's own check, as `sciwrite generate --method nope` reports it
    ("rwgbench", {"method": "nope"}, "unknown RWGBench method 'nope'; choose from direct, rag, alce"),
    ("sciig", {"metrics": "nope"}, "unknown SciIG metric 'nope'"),
])
def test_a_bad_task_argument_fails_in_one_line_naming_it(benchmark, arguments, said, folders):
    assert said in refusal(benchmark, folders[benchmark], **arguments)


@pytest.mark.parametrize(("benchmark", "flag", "value", "arguments"), [
    ("rwgbench", "--k", "abc", {"k": "abc"}),
    ("rwgbench", "--workflow-k", "2.5", {"workflow_k": "2.5"}),
    ("sciig", "--level", "99", {"level": 99}),
])
def test_the_task_refuses_what_the_cli_refuses_in_the_same_words(benchmark, flag, value, arguments, folders):
    """A generation option is checked by its declaration on both front ends (`sciwrite.core.values`)."""
    parser = add_generate_arguments(argparse.ArgumentParser(exit_on_error=False), get_benchmark(benchmark))
    with pytest.raises(argparse.ArgumentError) as cli:
        parser.parse_args(["--model", "x", flag, value])
    cli_says = str(cli.value).removeprefix(f"argument {flag}: ")
    assert refusal(benchmark, folders[benchmark], **arguments).endswith(f": {cli_says}")


def test_bootstrap_is_refused_as_its_flag_refuses_it(folders):
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_bootstrap_flags(parser)
    with pytest.raises(argparse.ArgumentError) as cli:
        parser.parse_args(["--bootstrap", "-3"])
    assert refusal("sciig", folders["sciig"], bootstrap=-3).endswith(str(cli.value).removeprefix("argument --bootstrap"))


def test_good_arguments_build_the_task(folders):
    task = build("sciig", folders["sciig"], level="elaborate", temperature=0, max_tokens=300, seed=None, bootstrap=0)
    assert len(task.dataset) == 3


@pytest.mark.parametrize(("output", "fails"), [
    (ModelOutput.from_content("m", "This model's maximum context length is 8192 tokens.", stop_reason="model_length"),
     "does not fit the model's context"),
    (ModelOutput.from_content("m", "", error="flagged by moderation"), "answered with an error: flagged"),
    (ModelOutput.from_content("m", "A section cut at the completion limit", stop_reason="max_tokens"), None),
    (ModelOutput.from_content("m", "A section."), None),
])
def test_a_reply_that_is_no_answer_is_a_failure(output, fails):
    """A truncated answer is kept, as the CLI keeps a reply with finish_reason "length"."""
    failure = output_failure(output)
    assert (failure is None) if fails is None else (fails in failure)


@pytest.fixture(scope="module")
def context_log(sciig_mini_folder, tmp_path_factory, request):
    """A SciIG run over Inspect's OpenAI provider whose every request the endpoint refuses with HTTP 400
    ``context_length_exceeded``, errors allowed (``--fail-on-error=false``): the log, written to disk."""
    pytest.importorskip("openai", reason="Inspect's OpenAI provider needs the openai package")
    patch = pytest.MonkeyPatch()
    request.addfinalizer(patch.undo)
    patch.setenv("OPENAI_API_KEY", "test-key")
    with ChatServer(lambda body: (400, CONTEXT_LENGTH_EXCEEDED)) as server:
        [log] = inspect_eval(sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics="rouge1"),
                             model="openai/gpt-4o", model_base_url=server.base_url,
                             model_args={"responses_api": False}, limit=2, fail_on_error=False,
                             log_dir=str(tmp_path_factory.mktemp("logs")), display="none")
        assert server.requests
    return log


def test_a_request_longer_than_the_context_fails_the_sample_unscored(context_log):
    assert context_log.samples and len(context_log.samples) == 2
    for sample in context_log.samples:
        assert sample.error is not None and "model_length" in sample.error.message
        assert not sample.scores  # never the error's text scored as the introduction


def test_the_board_refuses_a_log_with_a_failed_sample(context_log):
    with pytest.raises(InputError, match="sample has no sciig_scores score"):
        read_inspect_log(context_log.location)


def test_the_board_refuses_a_log_written_before_failed_samples_were_failed(sciig_mini_folder, tmp_path, monkeypatch):
    # a run of a version that scored the error's text: the sample has a score, but its model event says model_length
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setattr("sciwrite.harness.inspect_model.output_failure", lambda output: None)
    with ChatServer(lambda body: (400, CONTEXT_LENGTH_EXCEEDED)) as server:
        [log] = inspect_eval(sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics="rouge1"),
                             model="openai/gpt-4o", model_base_url=server.base_url,
                             model_args={"responses_api": False}, limit=1, log_dir=str(tmp_path), display="none")
    monkeypatch.undo()
    assert log.status == "success" and log.samples and log.samples[0].scores  # scored, as before the fix
    with pytest.raises(InputError, match="the model did not answer one of the sample's requests .*model_length"):
        read_inspect_log(log.location)


class Refusing(Recorder):
    """A mockllm model that answers as `answer` does, but with Inspect's output for a request longer than the
    context (stop reason ``model_length``, the error's text as its content) to the `refused`-th request (1-based)."""

    def __init__(self, refused: int, answer=lambda prompt: "A section [1].") -> None:  # noqa: ANN001
        super().__init__("")
        self.refused, self._answer = refused, answer

    def __call__(self, input, tools, tool_choice, config):  # noqa: A002, ANN001 - mockllm's arguments
        output = super().__call__(input, tools, tool_choice, config)
        if len(self.requests) != self.refused:
            return output
        refused = ModelOutput.from_content("mockllm", CONTEXT_LENGTH_EXCEEDED["error"]["message"],
                                           stop_reason="model_length")
        refused.usage = output.usage
        return refused

    def answer(self, prompt: str) -> str:
        return self._answer(prompt)


def test_by_default_the_run_fails_on_the_first_failed_sample(sciig_mini_folder, tmp_path):
    model = get_model("mockllm/model", custom_outputs=Refusing(1))
    [log] = inspect_eval(sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics="rouge1"), model=model,
                         limit=1, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "error" and "model_length" in log.error.message


def test_a_failed_stage_fails_the_sample(mini_sample_folder, tmp_path):
    """A staged method (Workflow): its second request (the draft), refused, fails the paper though the first (the
    plan) was answered."""
    refusing = Refusing(2, lambda prompt: workflow_reply({"messages": [{"content": prompt}]}))
    model = get_model("mockllm/model", custom_outputs=refusing)
    [log] = inspect_eval(rwgbench(source=str(mini_sample_folder), method="workflow", metrics="precision"), model=model,
                         limit=1, log_dir=str(tmp_path / "logs"), display="none", fail_on_error=False)
    [sample] = log.samples
    assert len(refusing.requests) == 2
    assert sample.error is not None and "model_length" in sample.error.message and not sample.scores


@pytest.mark.parametrize("log_format", ["eval", "json"])
def test_evaluate_names_an_inspect_log_given_as_predictions(context_log, sciig_mini_folder, tmp_path, capsys,
                                                              log_format):
    path = tmp_path / f"run.{log_format}"
    write_eval_log(context_log, str(path), format=log_format)
    assert main(["evaluate", "sciig", "--split", "sample", "--source", str(sciig_mini_folder), "--predictions",
                 str(path), "--out", str(tmp_path / "eval"), "--no-judge"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err and "UTF-8" not in err
    assert f"{path}: is an Inspect log" in err
    assert f"sciwrite leaderboard import --inspect-log {path}" in err
