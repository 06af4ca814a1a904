"""The library's one way to generate (`sciwrite.generation.generate`): the request built in one place, the plan
shaped as the request asks (file name, metadata keys), and `generate` running each job with the writer's backend,
its ledger and the run options, telling an observer as it goes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sciwrite.core.commands import Option
from sciwrite.generation.generate import (
    DEFAULT_SEED,
    GenerationRun,
    JobObserver,
    JobRun,
    build_request,
    generate,
    generation_options,
    plan,
)
from sciwrite.generation.jobs import EXTRACTIVE, GenerationJob, GenerationRequest
from sciwrite.generation.writer import LEDGER_NAME, RunOptions, WriterModel
from sciwrite.llm.types import GenerationSettings
from tests.generation.test_runner import FakeBackend, OneShot, papers, read

OPTIONS = (Option("split", "the split", default="sample"), Option("method", "methods", many=True),
           Option("oracle", "gold list", switch=True))


@dataclass(frozen=True)
class FakeGeneration:
    """A benchmark's generation part: one job per --method, each with the run metadata a benchmark writes."""

    options: tuple[Option, ...] = OPTIONS
    planned: list[GenerationRequest] = field(default_factory=list)

    @property
    def plan(self):
        return self.plan_jobs

    def plan_jobs(self, request: GenerationRequest):
        self.planned.append(request)
        for method in request.options["method"] or ["one-shot"]:
            meta = {"benchmark": "fake", "split": request.options["split"], "model": request.model,
                    "method": method, "seed": request.seed, "k": 5}
            yield GenerationJob(papers(3), OneShot(), request.out / f"{request.model}_{method}.jsonl", meta,
                                card=meta, notes=(f"about {method}",))


@dataclass(frozen=True)
class FakeBenchmark:
    name: str = "fake"
    generation: FakeGeneration = field(default_factory=FakeGeneration)


class Recorder(JobObserver):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def starting(self, job: GenerationJob) -> None:
        self.events.append(("starting", job.notes))

    def finished(self, run: JobRun) -> None:
        self.events.append(("finished", run.job.out_path.name))


def test_the_request_fills_the_benchmark_defaults_and_refuses_unknown_options(tmp_path):
    bench = FakeBenchmark()
    request = build_request(bench, model="m", out=str(tmp_path), options={"method": ["a"], "split": None})
    assert request.options == {"split": "sample", "method": ["a"], "oracle": False}
    assert request.out == tmp_path and request.seed == DEFAULT_SEED == GenerationSettings().seed
    assert generation_options(bench, {}) == {"split": "sample", "method": None, "oracle": False}
    with pytest.raises(ValueError, match=r"unknown fake generation option\(s\) \['kk'\]"):
        build_request(bench, model="m", out=tmp_path, options={"kk": 1})


def test_the_plan_is_shaped_as_the_request_asks(tmp_path):
    bench = FakeBenchmark()
    [job] = plan(bench, build_request(bench, model="m", out=tmp_path, file_name="system.jsonl",
                                      meta_keys=("benchmark", "model", "method")))
    assert job.out_path == tmp_path / "system.jsonl"
    assert list(job.meta) == ["benchmark", "model", "method"] and job.card["k"] == 5  # the card is the plan's
    two = build_request(bench, model="m", out=tmp_path, options={"method": ["a", "b"]}, file_name="system.jsonl")
    with pytest.raises(ValueError, match="names one output file"):
        list(plan(bench, two))


def test_generate_runs_each_job_with_a_new_backend_and_its_ledger(tmp_path, monkeypatch):
    backends: list[FakeBackend] = []
    monkeypatch.setattr(WriterModel, "backend", lambda writer: backends.append(FakeBackend()) or backends[-1])
    bench, observer = FakeBenchmark(), Recorder()
    request = build_request(bench, model="openai:x", out=tmp_path, limit=2, options={"method": ["a", "b"]})
    writer = WriterModel("openai:x", model_options={"reasoning_effort": "low"})
    run = generate(bench, request, writer, RunOptions(show_progress=False), observer)
    assert isinstance(run, GenerationRun) and [r.n_written for r in run.reports if r] == [2, 2]
    assert len(backends) == 2 and all(b.closed for b in backends)
    assert observer.events == [("starting", ("about a",)), ("finished", "openai:x_a.jsonl"),
                               ("starting", ("about b",)), ("finished", "openai:x_b.jsonl")]
    assert all(job.ledger is not None and job.ledger.path == tmp_path / LEDGER_NAME for job in run.jobs)
    lines = read(tmp_path / "openai:x_a.jsonl")
    assert [line["paper_id"] for line in lines] == ["p00", "p01"]
    assert all(line["model_options"] == {"reasoning_effort": "low"} and line["k"] == 5 for line in lines)


def test_generate_dry_run_and_the_extractive_floor_call_no_model(tmp_path, monkeypatch):
    monkeypatch.setattr(WriterModel, "backend", lambda writer: pytest.fail("no model may be called"))
    bench = FakeBenchmark()
    dry = generate(bench, build_request(bench, model="openai:x", out=tmp_path, dry_run=True), None)
    [job] = dry.jobs
    assert job.report is None and [paper for paper, _ in job.prompts] == ["p00"]
    assert "Write about paper 0." in job.prompts[0][1] and not list(tmp_path.iterdir())
    floor = build_request(bench, model=EXTRACTIVE, out=tmp_path)
    with pytest.raises(ValueError, match="needs a writer"):
        generate(bench, build_request(bench, model="openai:x", out=tmp_path), None)
    with pytest.raises(ValueError, match="but the writer is"):
        generate(bench, build_request(bench, model="openai:x", out=tmp_path), WriterModel("openai:y"))
    [failed] = generate(bench, floor, WriterModel(EXTRACTIVE), RunOptions(show_progress=False)).jobs
    assert failed.ledger is None and failed.report is not None and failed.report.n_failed == 3  # OneShot needs a model
    assert not (tmp_path / LEDGER_NAME).exists()
    [record] = [json.loads(line) for line in Path(failed.report.failures_path).read_text().splitlines()[:1]]
    assert "needs a language model" in record["error"]
