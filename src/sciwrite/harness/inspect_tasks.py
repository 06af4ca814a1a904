"""RWGBench and SciIG as Inspect AI tasks: ``inspect eval sciwrite/rwgbench -T method=rag`` and
``inspect eval sciwrite/sciig -T level=ELABORATE``, with the task arguments named as the CLI's flags.

Nothing here is a second copy of a prompt or a metric:

- the benchmark plans the run exactly as ``sciwrite generate`` does (`Benchmark.generation.plan`), and the task runs
  its one job: one `Sample` per paper (id: its paper_id, input: the method's first request, `Method.prompt`);
- the solver runs the job's method on the paper with Inspect's model in `PaperLLM`'s place
  (`sciwrite.harness.inspect_model.InspectLLM`), so every request is the one the CLI sends;
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
from sciwrite.generation.jobs import GenerationJob, GenerationRequest
from sciwrite.harness.inspect_model import chat_messages
from sciwrite.harness.inspect_scorers import metric_list, paper_scores
from sciwrite.harness.inspect_solvers import run_method
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


def paper_samples(job: GenerationJob) -> list[Sample]:
    """One sample per paper of the job: its first request's messages as the input, the paper_id (and, when the
    paper has them, its candidates) as metadata."""
    samples = []
    for record in job.records:
        metadata: dict[str, Any] = {"paper_id": record["paper_id"]}
        if record.get("candidates") is not None:
            metadata["candidates"] = list(record["candidates"])
        samples.append(Sample(id=record["paper_id"], input=chat_messages(job.method.prompt(record)),
                              metadata=metadata))
    return samples


def benchmark_task(name: str, options: Mapping[str, Any], *, split: str, source: str | None, profile: str | None,
                   metrics: str | Sequence[str] | None, temperature: float, max_tokens: int, seed: int | None) -> Task:
    """The task of one job of `name`'s generation plan, scored by the core on the same split."""
    bench = get_benchmark(name)
    settings = GenerationSettings(temperature=temperature, max_tokens=max_tokens, seed=seed)
    job = plan_job(bench, options, seed)
    request = ScoringRequest(split=split, source=source, profile=profile, metrics=metric_list(bench, metrics),
                             bootstrap=0, show_progress=False)
    opened = bench.suite.steps.open_split(request)
    return Task(dataset=MemoryDataset(paper_samples(job), name=f"{name}-{split}"),
                solver=run_method(job, settings), scorer=paper_scores(bench, opened, request),
                metadata={"benchmark": name, "method": job.method.name, **{k: v for k, v in job.meta.items()
                                                                           if k not in ("model", "benchmark")}},
                name=name)


@task
def rwgbench(split: str = "sample", source: str | None = None, corpus_source: str | None = None,
             method: str = "rag", retriever: str = "bm25", index: str | None = None,
             k: int = option_default("rwgbench", "k"), workflow_k: int = option_default("rwgbench", "workflow_k"),
             oracle: bool = False, query_with_introduction: bool = False, profile: str = "lite",
             metrics: str | list[str] | None = None, temperature: float = DEFAULT_SETTINGS.temperature,
             max_tokens: int = DEFAULT_SETTINGS.max_tokens, seed: int | None = DEFAULT_SETTINGS.seed) -> Task:
    """RWGBench: write a paper's related-work section with numbered citations of its retrieved candidates.

    The prompts are those of ``sciwrite generate rwgbench``; the scores those of ``sciwrite evaluate rwgbench``.

    Args:
        split: ``sample`` (the offline sample) or ``test`` (the 100-paper test set).
        source: dataset folder or Hub repo id of the papers (default: the sample folder, or the Hub for ``test``).
        corpus_source: folder or Hub repo id of the corpus (default: source).
        method: one generation method (direct, rag, alce, tag, workflow).
        retriever: candidate retriever, ``bm25`` or ``dense``.
        index: folder of a saved retriever (``sciwrite index build``); else one is built from the corpus.
        k: retrieved candidates per paper.
        workflow_k: hits per Workflow query.
        oracle: the gold citations (seed-shuffled) are the candidate list instead of retrieved papers.
        query_with_introduction: retrieve with title + abstract + introduction.
        profile: model profile of the metrics and the dense encoder, ``lite`` or ``paper``.
        metrics: only these metrics or stages (comma-separated); default: every metric but the LLM judge.
        temperature: sampling temperature.
        max_tokens: the generation's token limit.
        seed: the sampling seed, and the seed of shuffles.
    """
    options = {"split": split, "source": source, "corpus_source": corpus_source, "method": [method],
               "retriever": retriever, "index": index, "k": k, "workflow_k": workflow_k, "oracle": oracle,
               "query_with_introduction": query_with_introduction, "profile": profile}
    return benchmark_task("rwgbench", options, split=split, source=source, profile=profile, metrics=metrics,
                          temperature=temperature, max_tokens=max_tokens, seed=seed)


@task
def sciig(split: str = "sample", source: str | None = None, level: str = "ELABORATE",
          inputs: str = option_default("sciig", "inputs"), profile: str = "lite",
          metrics: str | list[str] | None = None, temperature: float = DEFAULT_SETTINGS.temperature,
          max_tokens: int = DEFAULT_SETTINGS.max_tokens, seed: int | None = DEFAULT_SETTINGS.seed) -> Task:
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
        metrics: only these metrics or stages (comma-separated); default: every metric but the LLM judge.
        temperature: sampling temperature.
        max_tokens: the generation's token limit.
        seed: the sampling seed, and the seed of exemplar draws.
    """
    options = {"split": split, "source": source, "level": [level], "inputs": inputs}
    return benchmark_task("sciig", options, split=split, source=source, profile=profile, metrics=metrics,
                          temperature=temperature, max_tokens=max_tokens, seed=seed)


__all__ = ["benchmark_task", "generation_options", "option_default", "paper_samples", "plan_job", "rwgbench", "sciig"]
