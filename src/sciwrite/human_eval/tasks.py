"""A study's tasks, drawn from prediction files: what annotators see (``tasks.jsonl``, no system named) and, apart,
which system wrote each text (``key.jsonl``).

Pairwise studies: per paper, `pairs_per_paper` seeded pairs of systems, each written twice, once in each
presentation order (the sensitivity analysis of RWGBench §5.6 needs both). Rating studies: one task per paper and
system. Papers are drawn (seeded) from those every system predicted; the tasks are shuffled (seeded) so that a
pair's two orders do not follow each other. Task ids are random, so they tell nothing either.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.human_eval.study import PAIRWISE, HumanStudy

TASKS, KEY, STUDY = "tasks.jsonl", "key.jsonl", "study.json"


@dataclass(frozen=True)
class TaskSet:
    """The drawn tasks, their key and the study's record: the three files of a task folder.

    Attributes:
        tasks: What annotators see (``tasks.jsonl``): the paper's title and abstract and the text(s), no system.
        key: Which system wrote each text (``key.jsonl``), kept apart from the annotators.
        study: The study's record (``study.json``): design, dimensions, seed and counts.
    """

    tasks: list[dict[str, Any]]
    key: list[dict[str, Any]]
    study: dict[str, Any]


def draw_tasks(study: HumanStudy, texts: Mapping[str, Mapping[str, str]], papers: Mapping[str, Mapping[str, Any]],
               n_papers: int, seed: int = 0, pairs_per_paper: int = 1) -> TaskSet:
    """Draw a study's blinded tasks from the systems' texts.

    Papers are drawn (seeded) from those every system predicted. A pairwise study gets, per paper,
    `pairs_per_paper` pairs of systems, each shown in both presentation orders; a rating study one task per paper
    and system. The tasks are shuffled and their ids are random, so neither tells which system wrote a text.

    Args:
        study: The benchmark's study (``Benchmark.studies.human_study``).
        texts: System -> paper_id -> text (`system_texts` builds it from prediction records).
        papers: paper_id -> the paper's record, with ``title`` and ``abstract``.
        n_papers: How many papers to draw.
        seed: The seed of the draw, the pairs, the orders and the ids.
        pairs_per_paper: System pairs per paper (pairwise studies).

    Raises:
        ValueError: Too few systems, more papers than every system predicted, or a system named ``tie``.
    """
    systems = sorted(texts)
    if study.design == PAIRWISE and "tie" in systems:
        raise ValueError("a system cannot be named 'tie' in a pairwise study (a vote for it would read as a tie); "
                         "name it with --system")
    if len(systems) < (2 if study.design == PAIRWISE else 1):
        raise ValueError(f"a {study.design} study needs {'two' if study.design == PAIRWISE else 'one'} or more "
                         f"systems, got {systems}")
    shared = sorted(set.intersection(*(set(t) for t in texts.values())) & set(papers))
    if n_papers < 1 or n_papers > len(shared):
        raise ValueError(f"--papers {n_papers}: {len(shared)} papers are predicted by every system "
                         f"({', '.join(systems)}) and in the split")
    pairs = list(itertools.combinations(systems, 2))
    if study.design == PAIRWISE and not 1 <= pairs_per_paper <= len(pairs):
        raise ValueError(f"--pairs-per-paper {pairs_per_paper}: {len(systems)} systems make {len(pairs)} pairs")
    rng = random.Random(seed)
    chosen = sorted(rng.sample(shared, n_papers))
    ids: set[str] = set()

    def task_id() -> str:
        while (new := f"t{rng.getrandbits(48):012x}") in ids:
            pass
        ids.add(new)
        return new

    tasks: list[dict[str, str]] = []
    key: list[dict[str, str | int]] = []  # a pairwise task's presentation order is an int
    for paper_id in chosen:
        shown = {"paper_id": paper_id, "title": str(papers[paper_id].get("title") or ""),
                 "abstract": str(papers[paper_id].get("abstract") or "")}
        if study.design != PAIRWISE:
            for system in systems:
                tid = task_id()
                tasks.append({"task_id": tid, **shown, "text": texts[system][paper_id]})
                key.append({"task_id": tid, "paper_id": paper_id, "system": system})
            continue
        for x, y in rng.sample(pairs, pairs_per_paper):
            first, second = (x, y) if rng.random() < 0.5 else (y, x)
            pair_id = f"{paper_id}::{first}::{second}"
            for order, (a, b) in enumerate(((first, second), (second, first)), start=1):
                tid = task_id()
                tasks.append({"task_id": tid, **shown, "section_a": texts[a][paper_id],
                              "section_b": texts[b][paper_id]})
                key.append({"task_id": tid, "paper_id": paper_id, "pair_id": pair_id, "order": order,
                            "system_a": a, "system_b": b})
    shuffled = list(range(len(tasks)))
    rng.shuffle(shuffled)
    record = {**study.describe(), "seed": seed, "n_papers": n_papers, "n_tasks": len(tasks),
              "n_systems": len(systems), **({"pairs_per_paper": pairs_per_paper} if study.design == PAIRWISE else {})}
    return TaskSet([tasks[i] for i in shuffled], [key[i] for i in shuffled], record)


def write_tasks(tasks: TaskSet, out: str | Path, force: bool = False) -> Path:
    """Write a task folder: ``tasks.jsonl``, ``key.jsonl`` and ``study.json`` in `out`; returns `out`.

    An existing task folder is refused (new tasks would orphan the answers given to the old ones) unless `force`.
    """
    out = Path(out)
    if (out / TASKS).exists() and not force:
        raise ValueError(f"{out / TASKS} exists: answers may refer to its tasks; choose another --out (or --force)")
    out.mkdir(parents=True, exist_ok=True)
    for name, records in ((TASKS, tasks.tasks), (KEY, tasks.key)):
        (out / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    (out / STUDY).write_text(json.dumps(tasks.study, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def read_task_folder(folder: str | Path, with_key: bool = True
                     ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """(tasks, key, study record) of a folder `write_tasks` wrote; an error names what is missing. Without
    `with_key` the key is neither needed nor read (the annotation server's folder need not hold it) and is []."""
    folder = Path(folder)
    needed = (TASKS, KEY, STUDY) if with_key else (TASKS, STUDY)
    missing = [name for name in needed if not (folder / name).exists()]
    if missing:
        raise ValueError(f"{folder}: not a task folder (no {', '.join(missing)}; `sciwrite human-eval tasks` writes one)")
    read = [[json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]
            for name in (TASKS, *((KEY,) if with_key else ()))]
    return read[0], read[1] if with_key else [], json.loads((folder / STUDY).read_text(encoding="utf-8"))


def system_texts(records_by_system: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, dict[str, str]]:
    """system -> paper_id -> text of read prediction records (``text``, or upstream ``pred``)."""
    return {system: {str(r["paper_id"]): str(r.get("text", r.get("pred", "")) or "") for r in records}
            for system, records in records_by_system.items()}


__all__ = ["KEY", "STUDY", "TASKS", "TaskSet", "draw_tasks", "read_task_folder", "system_texts", "write_tasks"]
