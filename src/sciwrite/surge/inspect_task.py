"""SurGE as an Inspect AI task: ``inspect eval sciwrite/surge -T method=rag -T retriever=bm25``.

The task arguments are ``sciwrite generate surge``'s options (their defaults are the declared ones) and
``sciwrite evaluate``'s; the shared adapter (`sciwrite.harness.inspect_tasks.benchmark_task`) plans the run, builds the
samples, the solvers and the scorer from the benchmark's own parts, and checks each argument as its flag is checked.
Needs the ``inspect`` extra; registered through ``sciwrite.harness.inspect_registry``.
"""

from __future__ import annotations

from inspect_ai import Task, task

from sciwrite.harness.inspect_tasks import DEFAULT_SETTINGS, benchmark_task, option_default
from sciwrite.surge.benchmark import SURGE


@task
def surge(split: str = "sample", source: str | None = None, corpus_source: str | None = None,
          method: str = "rag", retriever: str = "bm25", index: str | None = None,
          k: int = option_default(SURGE, "k"), sections: int = option_default(SURGE, "sections"),
          section_k: int = option_default(SURGE, "section_k"),
          section_max_tokens: int = option_default(SURGE, "section_max_tokens"),
          max_tool_calls: int = option_default(SURGE, "max_tool_calls"), topic: str = option_default(SURGE, "topic"),
          profile: str = "lite", metrics: str | list[str] | None = None,
          temperature: float = DEFAULT_SETTINGS.temperature, max_tokens: int = DEFAULT_SETTINGS.max_tokens,
          seed: int | None = DEFAULT_SETTINGS.seed, judge: str | None = None, bootstrap: int = 1000,
          bootstrap_seed: int = 0) -> Task:
    """SurGE: write a scientific survey on a topic, citing papers of the corpus, scored as SurGE scores it.

    The prompts are those of ``sciwrite generate surge``; the scores those of ``sciwrite evaluate surge``.

    Args:
        split: ``sample`` (the offline stand-in) or ``surveys`` (SurGE's 205, from a folder `sciwrite build surge`
            wrote).
        source: dataset folder or Hub repo id of the surveys (default: the sample folder).
        corpus_source: folder or Hub repo id of the corpus (default: source).
        method: one generation method (naive, rag, outline, agent).
        retriever: the retriever of rag, outline and agent, ``bm25`` or ``dense``.
        index: folder of a saved retriever (``sciwrite index build``); else one is built from the corpus.
        k: papers retrieved for the topic.
        sections: sections of the outline method at most.
        section_k: papers retrieved per section by the outline method.
        section_max_tokens: completion tokens of one section's request.
        max_tool_calls: tool calls per survey of the agent before it must write.
        topic: what a method is told of the survey: ``title`` (SurGE's task) or ``title-abstract``.
        profile: model profile of the metrics and the dense encoder, ``lite`` or ``paper``.
        metrics: only these metrics or stages (comma-separated); default: every metric (the judges' with `judge`).
        temperature: sampling temperature.
        max_tokens: the generation's token limit.
        seed: the sampling seed.
        judge: the LLM judge's model (e.g. ``openai/gpt-4o``), bound to the task's ``grader`` role; default: no judge.
        bootstrap: resamples of the metrics' 95% bootstrap intervals over surveys (0: none).
        bootstrap_seed: the bootstrap's seed (``sciwrite evaluate --bootstrap-seed``).
    """
    options = {"split": split, "source": source, "corpus_source": corpus_source, "method": [method],
               "retriever": retriever, "index": index, "k": k, "sections": sections, "section_k": section_k,
               "section_max_tokens": section_max_tokens, "max_tool_calls": max_tool_calls, "topic": topic,
               "profile": profile}
    return benchmark_task(SURGE, options, split=split, source=source, profile=profile, metrics=metrics,
                          temperature=temperature, max_tokens=max_tokens, seed=seed, judge=judge,
                          bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)


__all__ = ["surge"]
