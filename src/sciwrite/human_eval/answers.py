"""Reading a study's answers (``votes.jsonl``, as `sciwrite human-eval export` writes them, or collected any other
way), checked against its tasks: every problem is named by file and line, and all of them are listed at once.

A pairwise answer is ``{"task_id", "annotator", "dimension", "choice"}`` with choice ``A``, ``B`` or ``tie``; a
rating answer is ``{"task_id", "annotator", "dimension", "rating", "comment"}`` with a whole rating from 1 to 5
(the comment is optional). The same answer given twice counts once; two different answers of one annotator to
one task and dimension are an error naming both lines.

An annotator whose id starts with `LLM_ANNOTATOR_PREFIX` (``llm:<model>``, as `sciwrite human-eval llm-annotate`
writes them) is a model: `split_answers` sets its answers apart, so that they never count as a person's (Table 5,
the annotators' alpha) and are compared with the people's instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sciwrite.core.jsonl import iter_json_lines, line_ref
from sciwrite.human_eval.study import CHOICES, PAIRWISE, STARS

#: Problems listed in one error (all are counted).
MAX_LISTED = 20
#: How a model annotator's id starts: ``llm:<model>``.
LLM_ANNOTATOR_PREFIX = "llm:"


def is_model_annotator(annotator: str) -> bool:
    """Whether `annotator` is a model (its id starts with `LLM_ANNOTATOR_PREFIX`), not a person."""
    return annotator.startswith(LLM_ANNOTATOR_PREFIX)


def split_answers(answers: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """(the people's answers, the models' answers), each in the given order."""
    people = [a for a in answers if not is_model_annotator(a["annotator"])]
    return people, [a for a in answers if is_model_annotator(a["annotator"])]


def answer_problem(record: Any, design: str, task_ids: set[str], dimensions: Sequence[str]) -> str | None:
    """What is wrong with one answer record (None when nothing is)."""
    if not isinstance(record, Mapping):
        return f"an answer must be a JSON object, got {type(record).__name__}"
    for field in ("task_id", "annotator", "dimension"):
        if not isinstance(record.get(field), str) or not record[field].strip():
            return f"field {field!r} must be a non-empty string"
    if record["task_id"] not in task_ids:
        return f"unknown task_id {record['task_id']!r} (not in the task folder)"
    if record["dimension"] not in dimensions:
        return f"unknown dimension {record['dimension']!r}; the study asks {list(dimensions)}"
    if design == PAIRWISE:
        if record.get("choice") not in CHOICES:
            return f"field 'choice' must be one of {list(CHOICES)}, got {record.get('choice')!r}"
        return None
    rating = record.get("rating")
    if isinstance(rating, bool) or not isinstance(rating, int) or rating not in STARS:
        return f"field 'rating' must be a whole number from 1 to 5, got {rating!r}"
    if record.get("comment") is not None and not isinstance(record["comment"], str):
        return "field 'comment' must be a string"
    return None


def read_answers(path: str | Path, design: str, task_ids: set[str], dimensions: Sequence[str]) -> list[dict[str, Any]]:
    """The answers of an answer file, one per (task, annotator, dimension), checked against the study.

    The same answer given twice counts once.

    Args:
        path: A JSON Lines file, as `AnswerStore.export` writes it.
        design: ``pairwise`` or ``rating``.
        task_ids: The study's task ids.
        dimensions: The study's dimension keys.

    Raises:
        ValueError: Every bad line (unknown task or dimension, a choice or rating the design does not take, two
            different answers of one annotator to one question), each named ``FILE:LINE``.
    """
    answers: dict[tuple[str, str, str], tuple[int, dict[str, Any]]] = {}
    problems: list[str] = []
    for number, _, record, problem in iter_json_lines(path):
        problem = problem or answer_problem(record, design, task_ids, dimensions)
        if problem:
            problems.append(f"{line_ref(path, number)}: {problem}")
            continue
        slot = (record["task_id"], record["annotator"], record["dimension"])
        answer = record["choice"] if design == PAIRWISE else record["rating"]
        if slot in answers:
            seen_line, seen = answers[slot]
            if (seen["choice"] if design == PAIRWISE else seen["rating"]) != answer:
                problems.append(f"{line_ref(path, number)}: annotator {slot[1]!r} answered task {slot[0]!r} "
                                f"({slot[2]}) differently on line {seen_line}")
            continue
        answers[slot] = (number, dict(record))
    if problems:
        more = f" (and {len(problems) - MAX_LISTED} more)" if len(problems) > MAX_LISTED else ""
        raise ValueError(f"{path}: {len(problems)} answer(s) cannot be read{more}:\n  "
                         + "\n  ".join(problems[:MAX_LISTED]))
    return [record for _, record in answers.values()]


__all__ = ["LLM_ANNOTATOR_PREFIX", "MAX_LISTED", "answer_problem", "is_model_annotator", "read_answers",
           "split_answers"]
