"""The Inspect tasks' LLM judge on Inspect's ``grader`` model role, and the task's bootstrap intervals, offline: a
mockllm grader answers the judge's prompts; the prompts it receives are the ones ``sciwrite evaluate`` sends for the
same predictions (captured over real HTTP from the scoring core's own client against the fake OpenAI server, which
answers them alike), and the judge's metrics and every interval equal what the scoring core gives then (1e-9). The
generation model and the grader are two models: each receives only its own requests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import pytest

pytest.importorskip("inspect_ai", reason="the Inspect tasks need the inspect extra (pip install sciwrite[inspect])")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai._util.error import PrerequisiteError  # noqa: E402
from inspect_ai.event import ModelEvent  # noqa: E402
from inspect_ai.model import Model, get_model  # noqa: E402

from sciwrite.benchmarks import get_benchmark  # noqa: E402
from sciwrite.harness.inspect_grader import InspectGrader, grader_judge  # noqa: E402
from sciwrite.harness.inspect_logs import read_inspect_log  # noqa: E402
from sciwrite.harness.inspect_solvers import GENERATED  # noqa: E402
from sciwrite.metrics.judge import JUDGE_MAX_TOKENS, JUDGE_SEED  # noqa: E402
from sciwrite.metrics.judge_config import JudgeConfig  # noqa: E402
from sciwrite.rwgbench.inspect_task import rwgbench  # noqa: E402
from sciwrite.rwgbench.metrics.judge import JUDGE_SYSTEM_PROMPT, judge_messages  # noqa: E402
from sciwrite.sciig.inspect_task import sciig  # noqa: E402
from sciwrite.sciig.metrics.judge import PROMPTS  # noqa: E402
from sciwrite.scoring.core import ModelCache, SystemResult, score_records  # noqa: E402
from sciwrite.scoring.request import ScoringRequest  # noqa: E402
from sciwrite.stats import INTERVAL_METHOD  # noqa: E402
from tests.fakes.openai_server import ChatServer, isolate_from_real_endpoints  # noqa: E402
from tests.inspect_tasks.test_inspect_tasks import REPLY, Echo, Recorder  # noqa: E402

SCIIG_KEYS = tuple(key for prompt in PROMPTS for key in prompt.keys)
RWG_BOOTSTRAP, SCIIG_BOOTSTRAP = (200, 3), (150, 11)  # (resamples, seed)


def verdict(prompt: str) -> str:
    """A judge's reply that depends on the prompt: an RWGBench 1-5 score and every SciIG 0-1 score, after a thinking
    trace whose own scores would make the reply ambiguous were it not taken out."""
    digest = hashlib.sha256(prompt.encode()).digest()
    scores = {key: digest[i] % 11 / 10 for i, key in enumerate(SCIIG_KEYS)}
    trace = '<think>first guess: {"score": 9, "Consistency": 0.123}</think>'
    return trace + json.dumps({"score": 1 + digest[7] % 5, "rationale": "Readable.", **scores})


class Grader(Recorder):
    """The mockllm grader: keeps each request (messages and config), answers `verdict` of its last message."""

    def __init__(self) -> None:
        super().__init__("")

    def answer(self, prompt: str) -> str:
        return verdict(prompt)


def mock(recorder: Recorder) -> Model:
    return get_model("mockllm/model", custom_outputs=recorder, memoize=False)


def cli_result(benchmark: str, samples, source, metrics: tuple[str, ...], role: str,
               bootstrap: tuple[int, int]) -> tuple[SystemResult, list[dict]]:
    """What ``sciwrite evaluate`` gives for the samples' predictions, its judge (`ChatClient`) at the fake server
    answering `verdict`: the result, and the bodies of the requests the judge sent."""
    bench = get_benchmark(benchmark)
    with pytest.MonkeyPatch.context() as patch, ChatServer(lambda body: verdict(body["messages"][-1]["content"])) \
            as server:
        isolate_from_real_endpoints(patch)
        request = ScoringRequest(split="sample", source=str(source), profile="lite", metrics=metrics,
                                 models={role: "judge-model"}, bootstrap=bootstrap[0], seed=bootstrap[1],
                                 judge=JudgeConfig(base_url=server.base_url, api_key="test-key", max_retries=1),
                                 show_progress=False)
        records = [{**sample.metadata[GENERATED]["extra"], "paper_id": str(sample.id),
                    "pred": sample.output.completion} for sample in samples]
        result = score_records(bench, records, bench.suite.steps.open_split(request), request)
        return result, list(server.requests)


def conversation(messages) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in messages]


def reported(log) -> dict[str, float]:
    return {name: m.value for score in log.results.scores for name, m in score.metrics.items()}


def check_same_as_cli(log, result: SystemResult, metrics: tuple[str, ...]) -> None:
    """The task's means and intervals are the CLI summary's (an interval the summary leaves None is not reported)."""
    values = reported(log)
    for key in metrics:
        assert values[key] == pytest.approx(result.summary.to_json()[key], abs=1e-9), key
    bounded = {name: (b.low, b.high) for name, b in result.intervals.items() if None not in (b.low, b.high)}
    assert bounded
    assert {name.rsplit("_ci_", 1)[0] for name in values if "_ci_" in name} == set(bounded)
    for name, (low, high) in bounded.items():
        assert (values[f"{name}_ci_low"], values[f"{name}_ci_high"]) == (pytest.approx(low, abs=1e-9),
                                                                         pytest.approx(high, abs=1e-9)), name
        assert low <= high


@pytest.fixture(scope="module")
def rwg_run(mini_sample_folder, tmp_path_factory) -> Iterator[tuple]:
    """RWGBench's judge through ``-T judge=grader`` and ``--model-role grader=<mockllm>``: the log, the generation
    model's and the grader's recorders, and the CLI's result and judge requests for the same predictions."""
    generator, grader = Recorder(REPLY), Grader()
    task = rwgbench(source=str(mini_sample_folder), method="rag", k=5, metrics="llm_judge,precision,recall",
                    judge="grader", bootstrap=RWG_BOOTSTRAP[0], bootstrap_seed=RWG_BOOTSTRAP[1])
    [log] = inspect_eval(task, model=mock(generator), model_roles={"grader": mock(grader)}, limit=3,
                         log_dir=str(tmp_path_factory.mktemp("logs")), display="none")
    assert log.status == "success", log.error
    result, bodies = cli_result("rwgbench", log.samples, mini_sample_folder, ("llm_judge", "precision", "recall"),
                                "judge", RWG_BOOTSTRAP)
    return log, generator, grader, result, bodies


def test_rwgbench_judge_prompts_are_the_clis(rwg_run, mini_sample_folder):
    log, _, grader, result, bodies = rwg_run
    sent = sorted(map(conversation, (messages for messages, _ in grader.requests)))
    assert len(sent) == len(log.samples) >= 2
    assert sent == sorted(conversation(body["messages"]) for body in bodies)
    # and they are the benchmark's own prompt, built from each prediction and its paper's title
    bench = get_benchmark("rwgbench")
    papers = {p["paper_id"]: p for p in bench.suite.steps.open_split(
        ScoringRequest(split="sample", source=str(mini_sample_folder))).papers.to_list()}
    built = [judge_messages(s.output.completion, papers[str(s.id)]["title"]) for s in log.samples]
    assert sent == sorted(map(conversation, built))
    config = grader.requests[0][1]  # the judge's request parameters, as the CLI sends them
    assert (config.temperature, config.max_tokens, config.seed) == (0.0, JUDGE_MAX_TOKENS, JUDGE_SEED)
    assert {(b["temperature"], b["max_tokens"], b["seed"]) for b in bodies} == {(0.0, JUDGE_MAX_TOKENS, JUDGE_SEED)}


def test_rwgbench_judge_scores_and_intervals_are_the_clis(rwg_run):
    log, _, _, result, _ = rwg_run
    assert result.summary.to_json()["judge_failures"] == 0 and len({row.value("llm_judge") for row in result.rows}) > 1
    for sample in log.samples:
        [row] = [row for row in result.rows if row.paper_id == str(sample.id)]
        assert sample.scores["rwgbench_scores"].value["llm_judge"] == pytest.approx(row.value("llm_judge"), abs=1e-9)
    check_same_as_cli(log, result, ("llm_judge", "precision", "recall"))


def test_the_generation_model_and_the_grader_are_two_models(rwg_run):
    log, generator, grader, _, _ = rwg_run
    assert len(generator.requests) == len(log.samples)
    assert all(JUDGE_SYSTEM_PROMPT not in str(messages) for messages, _ in generator.requests)
    assert all(messages[0] == {"role": "system", "content": JUDGE_SYSTEM_PROMPT} for messages, _ in grader.requests)
    for sample in log.samples:  # the log shows the judge's call as the grader role's
        roles = [event.role for event in sample.events if isinstance(event, ModelEvent)]
        assert roles.count("grader") == 1 and roles.count(None) == 1, roles


@pytest.fixture(scope="module")
def sciig_run(sciig_mini_folder, tmp_path_factory) -> tuple:
    """SciIG's judge (three prompts a paper) beside ROUGE and corpus BLEU, the grader given as the task's own model
    role: the log, the grader, the CLI's result and judge requests."""
    grader = Grader()
    metrics = ("rouge1", "bleu", "judge")
    task = sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics=",".join(metrics), judge="grader",
                 bootstrap=SCIIG_BOOTSTRAP[0], bootstrap_seed=SCIIG_BOOTSTRAP[1])
    task.model_roles = {"grader": mock(grader)}  # as -T judge=<model> binds it (a mockllm needs its script)
    [log] = inspect_eval(task, model=mock(Echo("")), limit=3, log_dir=str(tmp_path_factory.mktemp("logs")),
                         display="none")
    assert log.status == "success", log.error
    result, bodies = cli_result("sciig", log.samples, sciig_mini_folder, metrics, "sciig_judge", SCIIG_BOOTSTRAP)
    return log, grader, result, bodies


def test_sciig_judge_prompts_scores_and_intervals_are_the_clis(sciig_run):
    log, grader, result, bodies = sciig_run
    sent = sorted(map(conversation, (messages for messages, _ in grader.requests)))
    assert len(sent) == len(log.samples) * len(PROMPTS) >= 2 * len(PROMPTS)
    assert sent == sorted(conversation(body["messages"]) for body in bodies)
    judged = tuple(key for key, value in result.summary.metrics.items()
                   if key.startswith("judge_") and isinstance(value, float))
    assert len(judged) == 5
    for sample in log.samples:
        assert set(judged) <= set(sample.scores["sciig_scores"].value)
    check_same_as_cli(log, result, ("rouge1", "bleu", *judged))
    values = reported(log)
    assert "bleu_ci_low" not in values and "sentence_bleu_ci_low" in values  # corpus BLEU has no interval


def test_an_imported_log_keeps_its_intervals(sciig_run):
    log, _, result, _ = sciig_run
    summary = read_inspect_log(log.location).summary.to_json()
    assert (summary["n_resamples"], summary["interval_method"], summary["confidence"]) == (
        SCIIG_BOOTSTRAP[0], INTERVAL_METHOD, result.summary.to_json()["confidence"])
    expected = {name: [b.low, b.high] for name, b in result.intervals.items() if None not in (b.low, b.high)}
    assert summary["intervals"].keys() == expected.keys()
    for name, bounds in expected.items():
        assert summary["intervals"][name] == pytest.approx(bounds, abs=1e-9)
    assert not any("_ci_" in key for key in summary)


def test_no_bootstrap_reports_no_interval(sciig_mini_folder, tmp_path):
    task = sciig(source=str(sciig_mini_folder), level="ELABORATE", metrics="rouge1", bootstrap=0)
    [log] = inspect_eval(task, model=mock(Echo("")), limit=2, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert set(reported(log)) == {"rouge1"}  # rouge2, rougeL: computed, not asked for
    assert "intervals" not in read_inspect_log(log.location).summary.to_json()


def test_the_judge_argument_binds_the_grader_role(mini_sample_folder):
    named = rwgbench(source=str(mini_sample_folder), metrics="llm_judge", judge="mockllm/model")
    assert str(named.model_roles["grader"]) == "mockllm/model"
    assert not rwgbench(source=str(mini_sample_folder), metrics="llm_judge", judge="grader").model_roles
    assert not rwgbench(source=str(mini_sample_folder)).model_roles


@pytest.mark.parametrize(("task", "metrics"), [(rwgbench, "llm_judge,precision"), (sciig, "judge"),
                                               (sciig, "judge_coverage")])
def test_judge_metrics_without_a_judge_are_refused(task, metrics, mini_sample_folder, sciig_mini_folder):
    source = mini_sample_folder if task is rwgbench else sciig_mini_folder
    with pytest.raises(PrerequisiteError) as refused:  # one line, printed by `inspect eval` without a traceback
        task(source=str(source), metrics=metrics)
    assert "-T judge=" in refused.value.message and "\n" not in refused.value.message


def test_judge_grader_without_a_grader_role_fails_saying_how(mini_sample_folder, tmp_path):
    task = rwgbench(source=str(mini_sample_folder), metrics="llm_judge", judge="grader", bootstrap=0)
    [log] = inspect_eval(task, model=mock(Recorder(REPLY)), limit=1, log_dir=str(tmp_path), display="none")
    assert log.status == "error"
    assert "--model-role grader=" in log.error.message


def test_inspects_cache_serves_the_judge(mini_sample_folder, tmp_path, monkeypatch):
    """``inspect eval --cache``: a second run is answered from Inspect's cache, the grader's requests included."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    graders, judged = [], []
    for attempt in range(2):
        grader = Grader()
        task = rwgbench(source=str(mini_sample_folder), metrics="llm_judge", judge="grader", bootstrap=0)
        [log] = inspect_eval(task, model=mock(Recorder(REPLY)), model_roles={"grader": mock(grader)}, limit=2,
                             cache=True, log_dir=str(tmp_path / f"logs{attempt}"), display="none")
        assert log.status == "success", log.error
        graders.append(len(grader.requests))
        judged.append({str(s.id): s.scores["rwgbench_scores"].value["llm_judge"] for s in log.samples})
    assert graders == [len(judged[0]), 0] and judged[0] == judged[1]


def test_the_judge_is_the_graders_client_and_the_models_cache_keeps_one_suite(mini_sample_folder):
    """The scoring core's hook (`JudgeConfig.client_factory`) makes the judge's client; two tasks' requests
    with equal factories share one suite in the models cache."""
    bench, cache = get_benchmark("rwgbench"), ModelCache()
    for _ in range(2):
        request = ScoringRequest(split="sample", source=str(mini_sample_folder), profile="lite", metrics=("llm_judge",),
                                 models={"judge": "mockllm/model"}, judge=grader_judge("grader"))
        models = cache.get(bench, request)
    assert len(cache) == 1
    assert isinstance(models.judge, InspectGrader) and models.judge.model == "mockllm/model"
    assert "llm_judge" not in models.not_computed
