"""SurGE's two LLM judges through sciwrite's judge machinery (`sciwrite.metrics.judge.read_replies`: one concurrent
pass, retries, panels, repeats, the usage ledger and its budget): Structure Quality (the generated heading tree
against the expert survey's, one request per survey) and Logic (up to 20 sampled paragraphs per survey, one request
each, averaged).

The prompts, the system message and the 0-5 reading are SurGE's (`sciwrite.surge.metrics.judge_prompts`). Where
SurGE's client loops until it reads a score (and returns None after five failures, which then breaks its sum),
a survey whose reply cannot be read after the retries gets None with the reason, never 0: Logic is None unless
every sampled paragraph was scored. A generated outline under five characters scores 0 without a request, as in
SurGE.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sciwrite.core.paper_row import JUDGE_PANEL
from sciwrite.metrics.judge import read_replies
from sciwrite.metrics.judge_panel import JUDGE_PANEL_ERRORS, JUDGE_PANEL_SNAPSHOTS, add_panel_snapshots
from sciwrite.surge.metrics import judge_prompts as prompts
from sciwrite.surge.metrics.specs import LOGIC, STRUCTURE_QUALITY

#: The row's judge details: prompt -> why it has no score / the replies / the snapshots that answered.
JUDGE_ERRORS, JUDGE_REPLIES, JUDGE_SNAPSHOTS = "judge_errors", "judge_replies", "judge_snapshots"
#: The number of paragraphs Logic sampled for a survey.
LOGIC_PARAGRAPHS = "logic_paragraphs"


@dataclass(frozen=True)
class JudgeInput:
    """What the judges read of one survey: the expert outline, the generated outline and the sampled paragraphs."""

    target_outline: str
    generated_outline: str
    paragraphs: tuple[str, ...]


@dataclass
class _Row:
    values: dict[str, float | None] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)
    snapshots: dict[str, str] = field(default_factory=dict)
    panel: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    panel_errors: dict[str, str] = field(default_factory=dict)
    panel_snapshots: dict[str, list[str]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.values, JUDGE_ERRORS: self.errors, JUDGE_REPLIES: self.replies,
                               JUDGE_SNAPSHOTS: self.snapshots}
        if self.panel:
            out[JUDGE_PANEL] = self.panel
        if self.panel_errors:
            out[JUDGE_PANEL_ERRORS] = self.panel_errors
        if self.panel_snapshots:
            out[JUDGE_PANEL_SNAPSHOTS] = self.panel_snapshots
        return out


def _messages(prompt: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": prompts.SYSTEM_MESSAGE}, {"role": "user", "content": prompt}]


def judge_surveys(inputs: Sequence[JudgeInput], client: Any, *, structure: bool = True, logic: bool = True,
                  retries: int = 4, workers: int = 8, show_progress: bool = False) -> list[dict[str, Any]]:
    """Per survey: ``structure_quality`` and/or ``logic`` (0-5, or None with the reason under ``judge_errors``),
    the replies and snapshots by prompt, each panel judge's scores (``judge_panel``) and the judges that failed
    (``judge_panel_errors``). Every request of every survey goes out in one concurrent pass; `retries` more passes
    resend the unreadable ones (SurGE tries five times in all)."""
    rows = [_Row() for _ in inputs]
    pending: dict[tuple[int, str, int], list[dict[str, str]]] = {}
    for i, item in enumerate(inputs):
        if structure:
            if prompts.structure_quality_applies(item.generated_outline):
                pending[i, STRUCTURE_QUALITY.key, 0] = _messages(
                    prompts.structure_prompt(item.target_outline, item.generated_outline))
            else:
                rows[i].values[STRUCTURE_QUALITY.key] = 0.0
        if logic:
            rows[i].values[LOGIC.key] = None
            if not item.paragraphs:
                rows[i].errors[LOGIC.key] = "no paragraph of 100 characters or more to judge"
            for n, paragraph in enumerate(item.paragraphs):
                pending[i, LOGIC.key, n] = _messages(prompts.logic_prompt(paragraph))

    def read(key: tuple[int, str, int], reply: str | None) -> tuple[int | None, str | None]:
        score = prompts.parse_score(reply)
        return (score, None) if score is not None else (None, f"not a single 0-5 score: {(reply or '')[:100]!r}")

    def follow_up(key: tuple[int, str, int]) -> str:
        return "Provide only the score as a single number (0-5), without any additional explanation or comments."

    readings = read_replies(client, pending, read, follow_up, retries=retries, workers=workers,
                            max_tokens=prompts.MAX_TOKENS, show_progress=show_progress, desc="SurGE judges")
    logic_scores: dict[int, list[int | None]] = {}
    for (i, metric, n), reading in sorted(readings.items()):
        row = rows[i]
        name = metric if metric == STRUCTURE_QUALITY.key else f"{metric}[{n}]"
        if reading.reply is not None:
            row.replies[name] = reading.reply
            if reading.snapshot is not None:
                row.snapshots[name] = reading.snapshot
        if reading.error is not None:
            row.errors[name] = reading.error
        if metric == STRUCTURE_QUALITY.key:
            row.values[metric] = None if reading.value is None else float(reading.value)
        else:
            logic_scores.setdefault(i, []).append(reading.value)
        for judge, values in (reading.panel or {}).items():
            row.panel.setdefault(judge, {}).setdefault(metric, []).extend(values)
        for judge, why in (reading.panel_errors or {}).items():
            row.panel_errors[judge] = "; ".join(filter(None, (row.panel_errors.get(judge), f"{name}: {why}")))
        add_panel_snapshots(row.panel_snapshots, reading.panel_snapshots)
    for i, scores in logic_scores.items():
        if all(score is not None for score in scores):
            rows[i].values[LOGIC.key] = sum(float(s) for s in scores if s is not None) / len(scores)
        else:
            failed = sum(score is None for score in scores)
            rows[i].errors[LOGIC.key] = f"{failed} of {len(scores)} sampled paragraphs got no readable score"
    return [row.as_json() for row in rows]


def judge_input(target_structure: Sequence[Mapping[str, Any]], generated_outline: str,
                paragraphs: Sequence[str]) -> JudgeInput:
    """A survey's `JudgeInput`: the expert outline from its tree, the paragraphs sampled as SurGE samples them."""
    return JudgeInput(prompts.target_outline(target_structure), generated_outline,
                      tuple(prompts.logic_paragraphs(list(paragraphs))))


#: The judge's prompt templates, for the provenance block's template hash.
JUDGE_TEMPLATES = {"surge_structure_quality": prompts.STRUCTURE_PROMPT, "surge_logic": prompts.LOGIC_PROMPT}

__all__ = ["JUDGE_ERRORS", "JUDGE_REPLIES", "JUDGE_SNAPSHOTS", "JUDGE_TEMPLATES", "LOGIC_PARAGRAPHS", "JudgeInput",
           "judge_input", "judge_surveys"]
