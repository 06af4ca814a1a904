"""RWGBench and SciIG as Inspect AI tasks: ``inspect eval sciwrite/rwgbench -T method=rag`` and
``inspect eval sciwrite/sciig -T level=ELABORATE``, with the task arguments named as the CLI's flags.

Nothing here is a second copy of a prompt or a metric:

- the benchmark plans the run exactly as ``sciwrite generate`` does (`Benchmark.generation.plan`), and the task runs
  its one job: one `Sample` per paper (id: its paper_id, input: the method's first request, `Method.prompt`);
- the solvers (`sciwrite.harness.inspect_solvers`: retrieve, then the method or one solver per stage of it) run the
  job's method on the paper with Inspect's model in `PaperLLM`'s place (`sciwrite.harness.inspect_model.InspectLLM`),
  so every request is the one the CLI sends;
- the scorer scores the paper's prediction record with the scoring core (`sciwrite.scoring.core.score_records`) on
  the split opened once per task, the suite's models loaded once per process (`ModelCache`); each sample's `Score`
  holds every per-paper metric computed, and the task's metrics are what the CLI's summary gives: the means over
  the papers that have a value, SciIG's corpus BLEU over their summed statistics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import get_benchmark
from sciwrite.core.provenance import code_version
from sciwrite.generation.jobs import GenerationJob, GenerationRequest
from sciwrite.harness.inspect_grader import grader_roles, judge_options
from sciwrite.harness.inspect_model import chat_messages
from sciwrite.harness.inspect_scorers import metric_list, paper_scores
from sciwrite.harness.inspect_solvers import method_solvers
from sciwrite.llm.types import GenerationSettings
from sciwrite.scoring.request import ScoringRequest

#: The run's sampling settings when no task argument names them: the CLI's defaults.
DEFAULT_SETTINGS = GenerationSettings()


def option_default(benchmark: str, name: str) -> Any:
    """The default of one of `benchmark`'s ``sciwrite generate`` options."""
    for option in get_benchmark(benchmark).generation.options:
        if option.name == name:
            return option.default
    raise KeyError(f"{benchmark} generation has no option {name!r}")


def generation_options(bench: Benchmark, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every generation option of `bench` by keyword, as ``sciwrite generate`` reads them: `given` over the
    defaults (None: the default); an unknown keyword is an error."""
    options = {option.name: option for option in bench.generation.options}
    unknown = sorted(set(given) - set(options))
    if unknown:
        raise ValueError(f"unknown {bench.name} generation option(s) {unknown}; it takes {sorted(options)}")
    values = {}
    for name, option in options.items():
        value = given.get(name)
        values[name] = (bool(option.default) if option.switch else option.default) if value is None else value
    return values


def plan_job(bench: Benchmark, options: Mapping[str, Any], seed: int | None) -> GenerationJob:
    """The one job ``sciwrite generate <benchmark>`` plans for these options (one method or level)."""
    request = GenerationRequest(model="inspect", out=Path("inspect"), seed=seed,
                                options=generation_options(bench, options))
    jobs = list(bench.generation.plan(request))
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


def benchmark_task(name: str, options: Mapping[str, Any], *, split: str, source: str | None, profile: str | None,
                   metrics: str | Sequence[str] | None, temperature: float, max_tokens: int, seed: int | None,
                   judge: str | None = None, bootstrap: int = 1000, bootstrap_seed: int = 0) -> Task:
    """The task of one job of `name`'s generation plan, scored by the core on the same split: the LLM judge on the
    grader role when `judge` names one (a model bound to it, or ``grader``: the one ``--model-role`` gives), the
    summary's intervals with `bootstrap` resamples seeded by `bootstrap_seed`."""
    bench = get_benchmark(name)
    settings = GenerationSettings(temperature=temperature, max_tokens=max_tokens, seed=seed)
    job = plan_job(bench, options, seed)
    request = ScoringRequest(split=split, source=source, profile=profile, metrics=metric_list(bench, metrics, judge),
                             judge_options=judge_options(judge), bootstrap=0, show_progress=False)
    opened = bench.suite.steps.open_split(request)
    answers = {str(paper["paper_id"]): paper for paper in opened.records(range(len(opened.paper_ids)))}
    samples = paper_samples(job, answers, bench.data.answer_fields)
    return Task(dataset=MemoryDataset(samples, name=f"{name}-{split}"),
                solver=method_solvers(job, settings),
                scorer=paper_scores(bench, opened, request, bootstrap, bootstrap_seed), model_roles=grader_roles(judge),
                # the sciwrite version and commit go into the log's eval spec: `inspect_logs` reads them back
                metadata={"benchmark": name, "method": job.method.name, **code_version(),
                          **{k: v for k, v in job.meta.items() if k not in ("model", "benchmark")}},
                name=name)


@task
def rwgbench(split: str = "sample", source: str | None = None, corpus_source: str | None = None,
             method: str = "rag", retriever: str = "bm25", index: str | None = None,
             k: int = option_default("rwgbench", "k"), workflow_k: int = option_default("rwgbench", "workflow_k"),
             max_tool_calls: int = option_default("rwgbench", "max_tool_calls"), oracle: bool = False,
             query_with_introduction: bool = False, profile: str = "lite",
             metrics: str | list[str] | None = None, temperature: float = DEFAULT_SETTINGS.temperature,
             max_tokens: int = DEFAULT_SETTINGS.max_tokens, seed: int | None = DEFAULT_SETTINGS.seed,
             judge: str | None = None, bootstrap: int = 1000, bootstrap_seed: int = 0) -> Task:
    """RWGBench: write a paper's related-work section with numbered citations of its retrieved candidates.

    The prompts are those of ``sciwrite generate rwgbench``; the scores those of ``sciwrite evaluate rwgbench``.

    Args:
        split: ``sample`` (the offline sample) or ``test`` (the 100-paper test set).
        source: dataset folder or Hub repo id of the papers (default: the sample folder, or the Hub for ``test``).
        corpus_source: folder or Hub repo id of the corpus (default: source).
        method: one generation method (direct, rag, alce, tag, workflow, agent).
        retriever: candidate retriever, ``bm25`` or ``dense``.
        index: folder of a saved retriever (``sciwrite index build``); else one is built from the corpus.
        k: retrieved candidates per paper.
        workflow_k: hits per Workflow query.
        max_tool_calls: tool calls per paper of the agent method before it must write.
        oracle: the gold citations (seed-shuffled) are the candidate list instead of retrieved papers.
        query_with_introduction: retrieve with title + abstract + introduction.
        profile: model profile of the metrics and the dense encoder, ``lite`` or ``paper``.
        metrics: only these metrics or stages (comma-separated); default: every metric (the LLM judge's with `judge`).
        temperature: sampling temperature.
        max_tokens: the generation's token limit.
        seed: the sampling seed, and the seed of shuffles.
        judge: the LLM judge's model (e.g. ``openai/gpt-4o``), bound to the task's ``grader`` role; ``grader``: the
            model ``--model-role grader=...`` gives; default: no judge (``sciwrite evaluate --no-judge``).
        bootstrap: resamples of the metrics' 95% bootstrap intervals over papers (0: none).
        bootstrap_seed: the bootstrap's seed (``sciwrite evaluate --seed``).
    """
    options = {"split": split, "source": source, "corpus_source": corpus_source, "method": [method],
               "retriever": retriever, "index": index, "k": k, "workflow_k": workflow_k,
               "max_tool_calls": max_tool_calls, "oracle": oracle,
               "query_with_introduction": query_with_introduction, "profile": profile}
    return benchmark_task("rwgbench", options, split=split, source=source, profile=profile, metrics=metrics,
                          temperature=temperature, max_tokens=max_tokens, seed=seed, judge=judge,
                          bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)


@task
def sciig(split: str = "sample", source: str | None = None, level: str = "ELABORATE",
          inputs: str = option_default("sciig", "inputs"), profile: str = "lite",
          metrics: str | list[str] | None = None, temperature: float = DEFAULT_SETTINGS.temperature,
          max_tokens: int = DEFAULT_SETTINGS.max_tokens, seed: int | None = DEFAULT_SETTINGS.seed,
          judge: str | None = None, bootstrap: int = 1000, bootstrap_seed: int = 0) -> Task:
    """SciIG: write a paper's introduction from its title, abstract and related papers, at one prompt level.

    The prompts are those of ``sciwrite generate sciig`` (SciIG Tables 9-11); the scores those of
    ``sciwrite evaluate sciig``.

    Args:
        split: SciIG config (``sample``, ``naacl_2025``, ``iclr_2025``, ``arxiv``); its test split is generated for.
        source: local dataset folder or Hub repo id (default: the sample folder, or the Hub otherwise).
        level: one prompt level (SHORT, MEDIUM, ELABORATE, ONE_SHOT, TWO_SHOT, THREE_SHOT, AUTOCOT, ZERO_SHOT,
            AUTOCOT_PIPELINE, ...).
        inputs: the target paper's inputs (SciIG Table 4): title, title-abstract or title-abstract-related.
        profile: model profile of the metrics, ``lite`` or ``paper``.
        metrics: only these metrics or stages (comma-separated); default: every metric (the LLM judge's with `judge`).
        temperature: sampling temperature.
        max_tokens: the generation's token limit.
        seed: the sampling seed, and the seed of exemplar draws.
        judge: the LLM judge's model (e.g. ``openai/gpt-4o``), bound to the task's ``grader`` role; ``grader``: the
            model ``--model-role grader=...`` gives; default: no judge (``sciwrite evaluate --no-judge``).
        bootstrap: resamples of the metrics' 95% bootstrap intervals over papers (0: none).
        bootstrap_seed: the bootstrap's seed (``sciwrite evaluate --seed``).
    """
    options = {"split": split, "source": source, "level": [level], "inputs": inputs}
    return benchmark_task("sciig", options, split=split, source=source, profile=profile, metrics=metrics,
                          temperature=temperature, max_tokens=max_tokens, seed=seed, judge=judge,
                          bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)


__all__ = ["benchmark_task", "generation_options", "option_default", "paper_samples", "plan_job", "rwgbench", "sciig"]
