"""SciIG as an Inspect AI task: ``inspect eval sciwrite/sciig -T level=ELABORATE``.

The task arguments are ``sciwrite generate sciig``'s options (their defaults are the declared ones) and
``sciwrite evaluate``'s; the shared adapter (`sciwrite.harness.inspect_tasks.benchmark_task`) plans the run, builds the
samples, the solvers and the scorer from the benchmark's own parts. Each argument is checked as its flag is, and a bad
one fails the task in one line (``-T temperature: expected a finite number >= 0, got nan``). Needs the ``inspect``
extra; registered through ``sciwrite.harness.inspect_registry``.
"""

from __future__ import annotations

from inspect_ai import Task, task

from sciwrite.harness.inspect_tasks import DEFAULT_SETTINGS, benchmark_task, option_default
from sciwrite.sciig.benchmark import SCIIG


@task
def sciig(split: str = "sample", source: str | None = None, level: str = "ELABORATE",
          inputs: str = option_default(SCIIG, "inputs"), profile: str = "lite",
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
        bootstrap_seed: the bootstrap's seed (``sciwrite evaluate --bootstrap-seed``).
    """
    options = {"split": split, "source": source, "level": [level], "inputs": inputs}
    return benchmark_task(SCIIG, options, split=split, source=source, profile=profile, metrics=metrics,
                          temperature=temperature, max_tokens=max_tokens, seed=seed, judge=judge,
                          bootstrap=bootstrap, bootstrap_seed=bootstrap_seed)


__all__ = ["sciig"]
