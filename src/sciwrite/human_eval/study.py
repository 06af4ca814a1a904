"""What a human study asks, as data: its dimensions (each a question and the answer it takes) and its design.

Two designs serve the two papers:

- **pairwise** (RWGBench §5.6): two systems' sections of one paper side by side, "Section A" and "Section B", and
  per dimension a choice: ``A``, ``B`` or ``tie``. Each pair is shown in both presentation orders;
- **rating** (SciIG §7): one system's text at a time, and per dimension a rating of 1 to 5 stars with a comment.

A benchmark declares its study (`Benchmark.studies.human_study`); the kit (`sciwrite.human_eval`) draws the tasks,
serves them, checks the answers and computes the protocols from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

PAIRWISE, RATING = "pairwise", "rating"
CHOICES = ("A", "B", "tie")
STARS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Dimension:
    """One question of the study.

    Attributes:
        key: Its key in answers and tables (``writing_quality``).
        name: Its name as tables print it.
        question: The question annotators read.
        group: The group the rubric puts it in (SciIG's "Content Quality" / "Narrative Quality").
    """

    key: str
    name: str
    question: str
    group: str = ""


@dataclass(frozen=True)
class HumanStudy:
    """A benchmark's human study, as data: its design, its dimensions, and how its answers become Table 5.

    Attributes:
        benchmark: The benchmark's name.
        design: ``pairwise`` (two texts side by side, an A / B / tie choice per dimension) or ``rating`` (one
            text, a 1-5 rating with a comment per dimension).
        dimensions: The questions, in order.
        attribution: Where the dimensions and questions come from.
        text_label: What the text shown is ("related-work section", "introduction").
        analyze: ``analyze(tasks, key, answers, **options)`` -> the paper's Table 5 rows.
        table: ``table(table5.json's content)`` -> the paper's Table 5.
        choices: The choices the kit makes where the paper is silent, printed under the table.
    """

    benchmark: str
    design: str
    dimensions: tuple[Dimension, ...]
    attribution: str  # where the dimensions and questions come from
    text_label: str  # what the text shown is ("related-work section", "introduction")
    #: analyze(tasks, key, answers, **options) -> Table 5 rows (`sciwrite.human_eval.table5`)
    analyze: Callable[..., Any] | None = None
    #: table(table5.json's content) -> the paper's Table 5 (`sciwrite.core.paper_tables.TableData`)
    table: Callable[[Mapping[str, Any]], Any] | None = None
    #: the choices the kit makes where the paper is silent, printed under the table
    choices: tuple[str, ...] = ()

    def dimension(self, key: str) -> Dimension:
        """The dimension named `key`; a `ValueError` lists the study's."""
        for dimension in self.dimensions:
            if dimension.key == key:
                return dimension
        raise ValueError(f"unknown dimension {key!r}; the {self.benchmark} study asks "
                         f"{[d.key for d in self.dimensions]}")

    def describe(self) -> dict[str, Any]:
        """The study as the annotators' folder records it (``study.json``): no system is named here."""
        return {"benchmark": self.benchmark, "design": self.design, "text_label": self.text_label,
                "attribution": self.attribution,
                "answers": list(CHOICES) if self.design == PAIRWISE else list(STARS),
                "dimensions": [{"key": d.key, "name": d.name, "question": d.question, "group": d.group}
                               for d in self.dimensions]}


__all__ = ["CHOICES", "PAIRWISE", "RATING", "STARS", "Dimension", "HumanStudy"]
