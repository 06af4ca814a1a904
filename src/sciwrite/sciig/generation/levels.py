"""The SciIG prompting regimes as runner `Method`s (see `sciwrite.sciig.generation.prompts` for the prompts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.generation.runner import Generated, prompt_text
from sciwrite.llm.types import GenerationError
from sciwrite.sciig.generation import prompts


class SciIGMethod:
    """One SciIG prompt level over paper records: ``SciIGMethod("THREE_SHOT", holdout, seed=42)``.

    `holdout` is the pool few-shot exemplars are drawn from (the holdout split; only the few-shot levels use
    it). `seed` orders the cited works and draws the exemplars (per paper, see `sciig_prompts`). Each output
    line gets ``label`` (the reference introduction), ``level``, ``dataset``, ``n_cited_works``, ``cited_order``
    (the identifiers in the order shown), and ``exemplars`` (few-shot: their paper_ids), ``autocot_introduction``
    (AUTOCOT: the final introduction found in the reply, or None; for analysis, not scored) or ``steps``
    (AUTOCOT_PIPELINE: each intermediate request's name, prompt and reply); ``desc`` is the exact prompt that
    produced ``pred``.

    ``pred`` is the reply without surrounding whitespace and without a lone leading "Introduction" heading line
    (`clean_introduction`), except for AUTOCOT, where it is the whole reply (stripped): the paper scores the
    AUTOCOT output with its intermediate prompts in it (its Table 15).
    """

    def __init__(self, level: str, holdout: Sequence[Mapping[str, Any]] = (), seed: int | None = 42,
                 dataset: str | None = None, inputs: str = prompts.FULL_INPUTS) -> None:
        self.level = prompts.normalize_level(level)
        if inputs not in prompts.INPUTS:
            raise ValueError(f"unknown input configuration {inputs!r}; choose one of {', '.join(prompts.INPUTS)}")
        if inputs != prompts.FULL_INPUTS and self.level not in prompts.SINGLE_PROMPT_LEVELS:
            raise ValueError(f"--inputs {inputs} needs a single-prompt level "
                             f"({', '.join(prompts.SINGLE_PROMPT_LEVELS)}), not {self.level}")
        self.inputs = inputs
        # An ablated run is its own method (and output file): MEDIUM_TITLE_ABSTRACT.
        self.name = self.level if inputs == prompts.FULL_INPUTS else f"{self.level}_{inputs.replace('-', '_').upper()}"
        self.seed = seed
        self.dataset = dataset
        self.holdout = [dict(h) for h in holdout]
        self.k = prompts.SHOTS.get(self.level, 0)
        if self.k:
            usable = len(prompts.exemplar_pool(self.holdout))
            if usable < self.k:
                raise ValueError(f"{self.level} needs {self.k} exemplar(s) from the holdout split, which has "
                                 f"{usable} usable paper(s) (with title, abstract and introduction)")

    def exemplars(self, record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return prompts.select_exemplars(record, self.holdout, self.k, self.seed) if self.k else []

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        return prompts.first_messages(self.level, record, self.seed, self.exemplars(record), self.inputs)

    def _extra(self, record: Mapping[str, Any]) -> dict[str, Any]:
        order = [n["key"] for n in prompts.shuffled_cited_works(record, self.seed)]
        extra = {"label": record.get("introduction") or "", "level": self.level, "dataset": self.dataset,
                 "n_cited_works": len(order), "cited_order": order}
        return extra if self.inputs == prompts.FULL_INPUTS else {**extra, "inputs": self.inputs}

    async def run(self, record: Mapping[str, Any], llm: Any) -> Generated:
        extra = self._extra(record)
        if self.level == "AUTOCOT":
            messages = prompts.zero_shot_messages("AUTOCOT", record, self.seed, self.inputs)
            reply = _nonempty(await llm(messages), self.level).strip()
            extra["autocot_introduction"] = prompts.autocot_introduction(reply)
            return Generated(reply, prompt_text(messages), extra)
        if self.level != "AUTOCOT_PIPELINE":
            exemplars = self.exemplars(record)
            messages = prompts.first_messages(self.level, record, self.seed, exemplars, self.inputs)
            if self.k:
                extra["exemplars"] = [e["paper_id"] for e in exemplars]
            reply = await llm(messages)
            return Generated(prompts.clean_introduction(_nonempty(reply, self.level)), prompt_text(messages), extra)

        steps: list[dict[str, str]] = []
        draft_messages = prompts.autocot_draft_messages(record, self.seed)
        draft = _nonempty(await llm(draft_messages), "AUTOCOT_PIPELINE draft_prompts")
        steps.append({"name": "draft_prompts", "prompt": prompt_text(draft_messages), "reply": draft})
        refine_messages = prompts.autocot_refine_messages(record, self.seed, draft)
        refined = _nonempty(await llm(refine_messages), "AUTOCOT_PIPELINE refine_prompts")
        steps.append({"name": "refine_prompts", "prompt": prompt_text(refine_messages), "reply": refined})
        final_messages = prompts.autocot_final_messages(record, self.seed, refined)
        reply = await llm(final_messages)
        extra["steps"] = steps
        return Generated(prompts.clean_introduction(_nonempty(reply, "AUTOCOT_PIPELINE")), prompt_text(final_messages), extra)


def _nonempty(reply: Any, step: str) -> str:
    if not isinstance(reply, str) or not reply.strip():
        raise GenerationError(f"{step}: the model answered with nothing")
    return reply


__all__ = ["SciIGMethod"]
