"""Any benchmark as an Inspect AI task: what each benchmark's own task (``sciwrite.rwgbench.inspect_task``,
``sciwrite.sciig.inspect_task``: ``inspect eval sciwrite/rwgbench -T method=rag``) calls with its task arguments,
named as the CLI's flags. This module only adapts; it names no benchmark.

Nothing here is a second copy of a prompt or a metric:

- the benchmark plans the run exactly as ``sciwrite generate`` does (the same request builder and planner,
  `sciwrite.generation.generate.build_request` and `plan`), and the task runs its one job: one `Sample` per paper
  (id: its paper_id, input: the method's first request, `Method.prompt`);
- the task arguments are checked as the CLI's flags of the same names are (`sciwrite.core.values`: the run's
  settings, and the benchmark's generation options by their declaration), and a bad one, or any error the CLI
  reports in one line, fails the task in one line (Inspect's `PrerequisiteError`: `task_errors`);
- the solvers (`sciwrite.harness.inspect_solvers`: retrieve, then the method or one solver per stage of it) run the
  job's method on the paper with Inspect's model in `PaperLLM`'s place (`sciwrite.harness.inspect_model.InspectLLM`),
  so every request is the one the CLI sends;
- the scorer scores the paper's prediction record with the scoring core (`sciwrite.scoring.core.score_records`) on
  the split opened once per task, the suite's models loaded once per process (`ModelCache`); each sample's `Score`
  holds every per-paper metric computed, and the task's metrics are what the CLI's summary gives: the means over
  the papers that have a value, SciIG's corpus BLEU over their summed statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from inspect_ai import Task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample

from sciwrite.benchmark import Benchmark
from sciwrite.core import values
from sciwrite.core.errors import debugging, explain
from sciwrite.core.provenance import code_version
from sciwrite.generation.generate import build_request, plan
from sciwrite.generation.jobs import GenerationJob
from sciwrite.harness.inspect_grader import grader_judge, grader_roles
from sciwrite.harness.inspect_model import chat_messages
from sciwrite.harness.inspect_scorers import metric_list, paper_scores
from sciwrite.harness.inspect_solvers import method_solvers
from sciwrite.llm.types import GenerationSettings
from sciwrite.models.registry import PROFILES
from sciwrite.scoring.request import ScoringRequest

#: The run's sampling settings when no task argument names them: the CLI's defaults.
DEFAULT_SETTINGS = GenerationSettings()


def option_default(bench: Benchmark, name: str) -> Any:
    """The default of one of `bench`'s ``sciwrite generate`` options (a task argument's default, declared once)."""
    for option in bench.generation.options:
        if option.name == name:
            return option.default_value
    raise KeyError(f"{bench.name} generation has no option {name!r}")


@contextmanager
def task_errors(bench: Benchmark) -> Iterator[None]:
    """Building a task: an error the CLI reports as one line (a bad argument, a split that cannot be read: see
    `sciwrite.core.errors.explain`) becomes Inspect's `PrerequisiteError`, which ``inspect eval`` prints as that
    line, without a traceback; an unexpected error (a bug) goes on as it is, and so does every error under
    ``SCIWRITE_DEBUG=1``."""
    try:
        yield
    except Exception as err:
        message = None if debugging() else explain(err)
        if message is None:
            raise
        lines = (line.strip() for line in message.splitlines())
        raise PrerequisiteError(f"sciwrite/{bench.name}: {'; '.join(line for line in lines if line)}") from None


def argument(name: str, value: Any, check: Callable[[Any], Any]) -> Any:
    """A task argument's value, checked as the CLI checks its flag (`sciwrite.core.values`); a ValueError naming
    ``-T name``, what is allowed and what was given."""
    try:
        return check(value)
    except ValueError as err:
        raise ValueError(f"-T {name}: {err}") from None


def checked_options(bench: Benchmark, options: Mapping[str, Any]) -> dict[str, Any]:
    """The task arguments that are `bench`'s ``sciwrite generate`` options, each checked as its flag is (its
    declared type, choices, on/off: `sciwrite.core.values.option_value`); the others as they are (an unknown one
    is the planner's error)."""
    declared = {option.name: option for option in bench.generation.options}
    return {name: argument(name, value, partial(values.option_value, declared[name])) if name in declared else value
            for name, value in options.items()}


def run_settings(temperature: Any, max_tokens: Any, seed: Any) -> GenerationSettings:
    """The run's sampling settings from the task arguments, checked as ``--temperature``, ``--max-tokens`` and
    ``--seed`` are (a seed of None sends none)."""
    return GenerationSettings(temperature=argument("temperature", temperature, values.TEMPERATURE),
                              max_tokens=argument("max_tokens", max_tokens, values.MAX_TOKENS),
                              seed=None if seed is None else argument("seed", seed, values.SEED))


def plan_job(bench: Benchmark, options: Mapping[str, Any], seed: int | None) -> GenerationJob:
    """The one job ``sciwrite generate <benchmark>`` plans for these options (one method or level): the request
    built as the command builds its own (`build_request`, the task arguments as the benchmark's options), planned
    by the planning half of `sciwrite.generation.generate.generate` (`plan`); the solvers run its method."""
    request = build_request(bench, model="inspect", out="inspect", seed=seed, options=options)
    jobs = list(plan(bench, request))
    if len(jobs) != 1:
        raise ValueError(f"a {bench.name} task runs one method or level, but these options plan {len(jobs)} "
                         f"({', '.join(job.method.name for job in jobs)}); name one")
    return jobs[0]


def paper_samples(job: GenerationJob, answers: Mapping[str, Mapping[str, Any]] | None = None,
                  answer_fields: Sequence[str] = ()) -> list[Sample]:
    """One sample per paper of the job: its first request's messages as the input; its answer from the split
    (`answers`: paper_id -> paper) as the target (the first of `answer_fields`, the reference text) and the
    metadata (the others, e.g. the gold citations), beside the paper_id. The candidate list is not in the dataset:
    the `retrieve` step puts it in the sample's store, and the method's output records the one it cited from."""
    samples = []
    for record in job.records:
        paper_id = str(record["paper_id"])
        answer = (answers or {}).get(paper_id) or {}
        reference, *others = answer_fields or ("",)
        metadata: dict[str, Any] = {"paper_id": paper_id,
                                    **{name: answer[name] for name in others if answer.get(name) is not None}}
        target = answer.get(reference) if reference else None
        samples.append(Sample(id=paper_id, input=chat_messages(job.method.prompt(record)),
                              target=target if isinstance(target, str) else "", metadata=metadata))
    return samples


def benchmark_task(bench: Benchmark, options: Mapping[str, Any], *, split: str, source: str | None,
                   profile: str | None, metrics: str | Sequence[str] | None, temperature: float, max_tokens: int,
                   seed: int | None, judge: str | None = None, bootstrap: int = 1000, bootstrap_seed: int = 0) -> Task:
    """The task of one job of `bench`'s generation plan, scored by the core on the same split: the LLM judge on the
    grader role when `judge` names one (a model bound to it, or ``grader``: the one ``--model-role`` gives), the
    summary's intervals with `bootstrap` resamples seeded by `bootstrap_seed`."""
    with task_errors(bench):
        options = checked_options(bench, options)
        settings = run_settings(temperature, max_tokens, seed)
        profile = None if profile is None else argument("profile", profile, values.OneOf(PROFILES))
        bootstrap = argument("bootstrap", bootstrap, values.BOOTSTRAP)
        bootstrap_seed = argument("bootstrap_seed", bootstrap_seed, values.SEED)
        request = ScoringRequest(split=split, source=source, profile=profile, metrics=metric_list(bench, metrics, judge),
                                 judge=grader_judge(judge), bootstrap=0, show_progress=False)
        opened = bench.suite.steps.open_split(request)  # its checks (the metrics' names) before the plan's retrieval
        job = plan_job(bench, options, settings.seed)
        answers = {str(paper["paper_id"]): paper for paper in opened.records(range(len(opened.paper_ids)))}
        samples = paper_samples(job, answers, bench.data.answer_fields)
    return Task(dataset=MemoryDataset(samples, name=f"{bench.name}-{split}"),
                solver=method_solvers(job, settings),
                scorer=paper_scores(bench, opened, request, bootstrap, bootstrap_seed), model_roles=grader_roles(judge),
                # the sciwrite version and commit go into the log's eval spec: `inspect_logs` reads them back
                metadata={"benchmark": bench.name, "method": job.method.name, **code_version(),
                          **{k: v for k, v in job.meta.items() if k not in ("model", "benchmark")}},
                name=bench.name)


__all__ = ["DEFAULT_SETTINGS", "argument", "benchmark_task", "checked_options", "option_default", "paper_samples",
           "plan_job", "run_settings", "task_errors"]
