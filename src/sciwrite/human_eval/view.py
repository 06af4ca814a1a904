"""What an annotator is shown of a task, in words: the labelled texts (the paper's title and abstract, then "Section
A" and "Section B" or the one generated text) and each question with the answers it takes.

The annotation page (`sciwrite.human_eval.app`) and the LLM annotator (`sciwrite.human_eval.llm_annotate`) both
show a task from here, so a model reads the same labels, texts and questions a person does. Everything works from
the task folder's records (``tasks.jsonl``, ``study.json``), never the key: nothing shown can name a system.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sciwrite.human_eval.study import CHOICES, PAIRWISE, STARS

TITLE_LABEL = "Title of the paper"
ABSTRACT_LABEL = "Abstract"
COMMENT_LABEL = "Comment"
#: The two sides of a pairwise task, in the order shown, and the task field each side's text is in.
SIDES = ("A", "B")
SIDE_FIELDS = {"A": "section_a", "B": "section_b"}


def section_label(side: str) -> str:
    """A pairwise task's side as the page labels it ("Section A")."""
    return f"Section {side}"


def text_label(study: Mapping[str, Any]) -> str:
    """A rating task's one text as the page labels it ("The generated introduction")."""
    return f"The generated {study.get('text_label') or 'text'}"


def judged_texts(task: Mapping[str, Any], study: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, text) of the text(s) a task asks about, in the order shown."""
    if study["design"] == PAIRWISE:
        return [(section_label(side), str(task.get(SIDE_FIELDS[side]) or "")) for side in SIDES]
    return [(text_label(study), str(task.get("text") or ""))]


def shown_texts(task: Mapping[str, Any], study: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, text) of everything a task shows, in the order shown: title, abstract, then the judged text(s)."""
    return [(TITLE_LABEL, str(task.get("title") or "")), (ABSTRACT_LABEL, str(task.get("abstract") or "")),
            *judged_texts(task, study)]


def question_label(dimension: Mapping[str, Any], design: str) -> str:
    """A question as the page asks it: "<name>: <question>", and the scale for a rating."""
    label = f"{dimension['name']}: {dimension['question']}"
    return label if design == PAIRWISE else f"{label} (1-5 stars)"


def answer_options(design: str) -> list[str]:
    """The answers a question offers: A / B / tie, or the stars 1-5."""
    return list(CHOICES) if design == PAIRWISE else [str(star) for star in STARS]


__all__ = ["ABSTRACT_LABEL", "COMMENT_LABEL", "SIDES", "SIDE_FIELDS", "TITLE_LABEL", "answer_options",
           "judged_texts", "question_label", "section_label", "shown_texts", "text_label"]
