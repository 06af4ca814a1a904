"""RWGBench as an Inspect AI task: ``inspect eval sciwrite/rwgbench -T method=rag -T retriever=bm25``.

The task arguments are ``sciwrite generate rwgbench``'s options (their defaults are the declared ones) and
``sciwrite evaluate``'s; the shared adapter (`sciwrite.harness.inspect_tasks.benchmark_task`) plans the run, builds the
samples, the solvers and the scorer from the benchmark's own parts. Each argument is checked as its flag is, and a bad
one fails the task in one line (``-T temperature: expected a finite number >= 0, got nan``). Needs the ``inspect``
extra; registered through ``sciwrite.harness.inspect_registry``.
"""

from __future__ import annotations

from inspect_ai import Task, task

from sciwrite.harness.inspect_tasks import DEFAULT_SETTINGS, benchmark_task, option_default
from sciwrite.rwgbench.benchmark import RWGBENCH


@task
def rwgbench(split: str = "sample", source: str | None = None, corpus_source: str | None = None,
             method: str = "rag", retriever: str = "bm25", index: str | None = None,
             k: int = option_default(RWGBENCH, "k"), workflow_k: int = option_default(RWGBENCH, "workflow_k"),
             max_tool_calls: int = option_default(RWGBENCH, "max_tool_calls"), oracle: bool = False,
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
        bootstrap_seed: the bootstrap's seed (``sciwrite evaluate --bootstrap-seed``).
    """
    options = {"split": split, "source": source, "corpus_source": corpus_source, "method": [method],
               "retriever": retriever, "index": index, "k": k, "workflow_k": workflow_k,
               "max_tool_calls": max_tool_calls, "oracle": oracle,
               "query_with_introduction": query_with_introduction, "profile": profile}
    return benchmark_task(RWGBENCH, options, split=split, source=source, profile=profile, metrics=metrics,
                          temperature=temperature, max_tokens=max_tokens, seed=seed, judge=judge,
                          bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)


__all__ = ["rwgbench"]
