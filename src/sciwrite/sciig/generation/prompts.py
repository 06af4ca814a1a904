"""SciIG prompts: the seven prompting regimes of Garg et al. (arXiv:2508.14273, Tables 9–11), in our own words.

Every level gives the model the paper's title, its abstract and its cited works, and asks for the paper's
Introduction. The levels differ in how much they tell the model and in what else they show it:

- ``SHORT`` — the bare task: one instruction (write the Introduction from these inputs, citing the works by
  their identifiers), then the inputs.
- ``MEDIUM`` — the task plus a short list of guidelines: the usual shape of an introduction (context,
  problem and gap in prior work, approach, contributions), weave in the cited works, scholarly tone, plain text.
- ``ELABORATE`` — an expert-author role (at the paper's venue when known) and detailed guidance: what each part
  of the introduction does, precise citation rules (only the given identifiers, their exact form, no invented
  references), faithfulness to the abstract (no invented numbers or claims), length, and output format.
- ``ONE_SHOT`` / ``TWO_SHOT`` / ``THREE_SHOT`` — the ``ELABORATE`` instructions followed by k worked examples:
  papers of the *holdout* split, each shown with its title, abstract, its cited works (identifier -> title, to
  keep k examples affordable) and the Introduction its authors wrote; then the target paper. Exemplars are drawn
  per paper with the seed (`select_exemplars`): the holdout pool is shuffled by ``Random(f"{seed}:{paper_id}:
  exemplars")`` and the first k taken, so ONE ⊂ TWO ⊂ THREE for a paper, a rerun or a resumed run draws the same
  ones, and the paper itself is never its own exemplar.
- ``AUTOCOT`` — the model writes the reasoning before the introduction (automatic chain-of-thought): request 1
  asks it to draft a numbered list of guiding prompts for writing *this* paper's introduction; request 2 asks it
  to refine that list (specific to the paper and its cited works, no overlap, in argumentative order, covering
  context, prior work, gap, approach and contributions); request 3, the final prompt, gives the ``ELABORATE``
  task with the refined prompts as the plan to follow and asks for the introduction only.

Cited works are rendered as one JSON object keyed by the in-text citation identifier (e.g. ``"Li et al.,
2022"``), each value holding ``title``, ``authors`` and ``abstract``. The works are shuffled per paper with
``Random(f"{seed}:{paper_id}:cited")`` so their position (the dataset stores them in order of first citation in
the real introduction) carries no signal, while every rerun, resume or concurrent run sees the same order.

A paper without cited works is not dropped and not failed: it gets the same prompt with an empty object ``{}``
and a sentence saying that no cited works are available and that no citations may be added (`NO_CITED_WORKS`).
A record lacking a title or abstract, or whose cited works repeat an identifier, raises `ValueError` — the
runner records it in its failures file with the reason.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

Message = Mapping[str, str]

#: The prompting regimes, in the paper's order.
LEVELS: tuple[str, ...] = ("SHORT", "MEDIUM", "ELABORATE", "ONE_SHOT", "TWO_SHOT", "THREE_SHOT", "AUTOCOT")
#: Exemplars shown by each few-shot level.
SHOTS: dict[str, int] = {"ONE_SHOT": 1, "TWO_SHOT": 2, "THREE_SHOT": 3}
#: The zero-shot instructions the few-shot levels and AUTOCOT's final prompt build on.
FEW_SHOT_BASE = "ELABORATE"

NO_CITED_WORKS = ("No cited works are available for this paper (the object above is empty): write the "
                  "introduction without citations and do not invent any.")


def normalize_level(level: str) -> str:
    """``'three-shot'``, ``'Three_Shot'`` -> ``'THREE_SHOT'``; an unknown level raises a `ValueError` listing them."""
    name = str(level).strip().upper().replace("-", "_").replace(" ", "_")
    if name not in LEVELS:
        raise ValueError(f"unknown SciIG prompt level {level!r}; choose one of {', '.join(LEVELS)} (or 'all')")
    return name


def parse_levels(values: Sequence[str]) -> list[str]:
    """Levels from the command line: names in any case, ``all`` for every level; duplicates dropped."""
    out: list[str] = []
    for value in values:
        for part in str(value).split(","):
            if not part.strip():
                continue
            names = list(LEVELS) if part.strip().lower() == "all" else [normalize_level(part)]
            out.extend(n for n in names if n not in out)
    if not out:
        raise ValueError(f"no SciIG prompt level given; choose from {', '.join(LEVELS)} or 'all'")
    return out


# --------------------------------------------------------------------------------------------------- inputs


def _text(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"paper {record.get('paper_id')!r} has no {name}; a SciIG prompt needs its title and abstract")
    return value.strip()


def _neighbors(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    neighbors = list(record.get("neighbors") or [])
    seen: set[str] = set()
    for i, neighbor in enumerate(neighbors):
        key = neighbor.get("key") if isinstance(neighbor, Mapping) else None
        if not isinstance(key, str) or not key.strip():
            raise ValueError(f"paper {record.get('paper_id')!r}: cited work {i} has no citation identifier ('key')")
        if key in seen:
            raise ValueError(f"paper {record.get('paper_id')!r}: the citation identifier {key!r} appears twice among "
                             "its cited works; keys must be unique to render them as a JSON object")
        seen.add(key)
    return neighbors


def _rng(seed: int | None, paper_id: Any, purpose: str) -> random.Random:
    # A string seed is hashed with SHA-512 by `random`: stable across processes, runs and PYTHONHASHSEED.
    return random.Random(f"{seed}:{paper_id}:{purpose}")


def shuffled_cited_works(record: Mapping[str, Any], seed: int | None) -> list[Mapping[str, Any]]:
    """The paper's cited works in a seeded order that depends only on (seed, paper_id)."""
    neighbors = _neighbors(record)
    _rng(seed, record.get("paper_id"), "cited").shuffle(neighbors)
    return neighbors


def cited_works_object(record: Mapping[str, Any], seed: int | None) -> dict[str, dict[str, Any]]:
    """{citation key: {title, authors, abstract}} in the seeded order."""
    return {n["key"]: {"title": (n.get("title") or "").strip(), "authors": list(n.get("authors") or []),
                       "abstract": (n.get("abstract") or "").strip()}
            for n in shuffled_cited_works(record, seed)}


def json_object_lines(mapping: Mapping[str, Any]) -> str:
    """A JSON object with one entry per line (valid JSON, far fewer tokens than ``indent=2``); ``{}`` if empty."""
    if not mapping:
        return "{}"
    entries = [f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
               for k, v in mapping.items()]
    return "{\n" + ",\n".join(entries) + "\n}"


def render_cited_works(record: Mapping[str, Any], seed: int | None) -> str:
    """The cited works as a JSON object keyed by citation identifier, one work per line (``{}`` when none)."""
    return json_object_lines(cited_works_object(record, seed))


def _paper_block(record: Mapping[str, Any], seed: int | None) -> str:
    cited = render_cited_works(record, seed)
    lines = [f"Title: {_text(record, 'title')}", "", f"Abstract: {_text(record, 'abstract')}", "",
             ("Cited works (a JSON object: each key is the identifier to cite the work with, each value gives the "
             "work's title, authors and abstract):"), cited]
    if cited == "{}":
        lines += ["", NO_CITED_WORKS]
    return "\n".join(lines)


def _venue(record: Mapping[str, Any]) -> str:
    venue = (record.get("venue") or "").strip() if isinstance(record.get("venue"), str) else ""
    year = record.get("year")
    if venue and isinstance(year, int) and year > 0 and str(year) not in venue:
        return f"{venue} {year}"
    return venue


# -------------------------------------------------------------------------------------------- instructions


def short_instructions(record: Mapping[str, Any]) -> str:
    return ("Write the Introduction section of the research paper below, using its title, its abstract and the "
            "works it cites. Cite a work by its identifier in parentheses, e.g. (Author et al., 2020).")


MEDIUM_TEMPLATE = """\
Write the Introduction section of the research paper described below from its title, abstract and cited works.

Guidelines:
- Open with the research area and why the problem matters, then narrow down to the specific problem.
- Describe what prior work has done and where it falls short, drawing on the cited works.
- Present the paper's approach and end with its main contributions.
- Cite a work by its identifier from the list, in parentheses, e.g. (Author et al., 2020).
- Keep a formal scholarly tone; reply with the introduction text only, as plain paragraphs."""

ELABORATE_TEMPLATE = """\
You are an experienced researcher writing a paper for {venue}.
Your task is to write the complete Introduction section of the paper below. You are given its title, its \
abstract, and the works it cites, each with its title, authors and abstract.

Structure the introduction as a coherent argument, typically in four to six paragraphs:
1. Context: introduce the research area and explain why the problem is important and timely.
2. Prior work: summarise the main lines of existing work, grounded in the cited works, and say what each \
contributes.
3. Gap: identify precisely what existing approaches leave unsolved, motivating this paper.
4. Approach: explain the paper's idea and how it addresses the gap, at the level of detail of the abstract.
5. Contributions: state the paper's contributions and main findings (a short list is acceptable); optionally \
close with how the paper is organised.

Citations:
- Cite only the works given below, using their identifiers exactly as written, in parentheses: \
(Author et al., 2020); several at once separated by semicolons: (Author et al., 2020; Other, 2021).
- Cite a work where its content supports the sentence; use the cited works' abstracts to describe them \
accurately. Never invent references, authors or identifiers.

Faithfulness and style:
- Stay consistent with the abstract; do not invent results, numbers, datasets or claims it does not support.
- Write in a formal, precise academic register, roughly 500 to 900 words.
- Reply with the introduction text only: plain paragraphs separated by blank lines, no section heading, no \
title, no notes before or after."""


def medium_instructions(record: Mapping[str, Any]) -> str:
    return MEDIUM_TEMPLATE


def elaborate_instructions(record: Mapping[str, Any]) -> str:
    return ELABORATE_TEMPLATE.format(venue=_venue(record) or "a peer-reviewed venue")


ZERO_SHOT_INSTRUCTIONS = {"SHORT": short_instructions, "MEDIUM": medium_instructions,
                          "ELABORATE": elaborate_instructions}


def _user(content: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": content}]


def zero_shot_messages(level: str, record: Mapping[str, Any], seed: int | None) -> list[dict[str, str]]:
    """SHORT, MEDIUM or ELABORATE: instructions, the paper, a closing request."""
    level = normalize_level(level)
    if level not in ZERO_SHOT_INSTRUCTIONS:
        raise ValueError(f"{level} is not a zero-shot level ({', '.join(ZERO_SHOT_INSTRUCTIONS)})")
    return _user(f"{ZERO_SHOT_INSTRUCTIONS[level](record)}\n\n{_paper_block(record, seed)}\n\n"
                 "Write the Introduction now.")


def short_messages(record: Mapping[str, Any], seed: int | None) -> list[dict[str, str]]:
    return zero_shot_messages("SHORT", record, seed)


def medium_messages(record: Mapping[str, Any], seed: int | None) -> list[dict[str, str]]:
    return zero_shot_messages("MEDIUM", record, seed)


def elaborate_messages(record: Mapping[str, Any], seed: int | None) -> list[dict[str, str]]:
    return zero_shot_messages("ELABORATE", record, seed)


# ---------------------------------------------------------------------------------------------- few-shot


def exemplar_pool(holdout: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Holdout papers usable as exemplars (title, abstract and introduction present), sorted by paper_id so
    that the draw does not depend on the order the split was loaded in."""
    usable = [h for h in holdout if all(isinstance(h.get(f), str) and h.get(f).strip()
                                        for f in ("paper_id", "title", "abstract", "introduction"))]
    return sorted(usable, key=lambda h: h["paper_id"])


def select_exemplars(record: Mapping[str, Any], holdout: Sequence[Mapping[str, Any]], k: int,
                     seed: int | None) -> list[Mapping[str, Any]]:
    """k holdout papers for `record`, drawn with the seed; never `record` itself (by paper_id or title).

    The pool is shuffled by ``Random(f"{seed}:{paper_id}:exemplars")`` and the first k kept, so the draws of
    ONE_SHOT, TWO_SHOT and THREE_SHOT are nested. Too small a pool raises `ValueError`.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    title = (record.get("title") or "").strip().lower()
    pool = [h for h in exemplar_pool(holdout)
            if h["paper_id"] != record.get("paper_id") and h["title"].strip().lower() != title]
    if len(pool) < k:
        raise ValueError(f"{k} exemplars needed for paper {record.get('paper_id')!r} but the holdout split offers "
                         f"only {len(pool)} usable paper(s) other than it")
    _rng(seed, record.get("paper_id"), "exemplars").shuffle(pool)
    return pool[:k]


def render_exemplar(index: int, exemplar: Mapping[str, Any]) -> str:
    """One worked example: title, abstract, cited works (identifier -> title) and the authors' introduction."""
    cited = {n["key"]: (n.get("title") or "").strip() for n in _neighbors(exemplar)}
    return "\n".join([f"### Example {index}", f"Title: {exemplar['title'].strip()}", "",
                      f"Abstract: {exemplar['abstract'].strip()}", "",
                      "Cited works (identifier -> title):", json_object_lines(cited), "",
                      "Introduction:", exemplar["introduction"].strip()])


def few_shot_messages(record: Mapping[str, Any], exemplars: Sequence[Mapping[str, Any]],
                      seed: int | None) -> list[dict[str, str]]:
    """The ELABORATE instructions, k examples of real introductions, then the target paper."""
    k = len(exemplars)
    if k < 1:
        raise ValueError("a few-shot prompt needs at least one exemplar")
    examples = "\n\n".join(render_exemplar(i, e) for i, e in enumerate(exemplars, 1))
    noun = "example" if k == 1 else "examples"
    return _user("\n\n".join([
        ZERO_SHOT_INSTRUCTIONS[FEW_SHOT_BASE](record),
        (f"Below {'is' if k == 1 else 'are'} {k} {noun} of papers with the Introduction their authors wrote. Use "
        f"{'it' if k == 1 else 'them'} as a guide to the structure, tone and citation style expected; do not copy "
        f"{'its' if k == 1 else 'their'} content."),
        examples,
        f"### Your paper\n{_paper_block(record, seed)}",
        "Write the Introduction of this paper now.",
    ]))


# ----------------------------------------------------------------------------------------------- AUTOCOT


AUTOCOT_STEPS: tuple[str, ...] = ("draft_prompts", "refine_prompts")


def autocot_draft_messages(record: Mapping[str, Any], seed: int | None) -> list[dict[str, str]]:
    """AUTOCOT request 1: the model drafts the guiding prompts it will reason through."""
    return _user("\n\n".join([
        ("You will write the Introduction section of the research paper below. Before writing anything, plan how "
        "to reason about it: draft a numbered list of 4 to 6 guiding prompts (questions or instructions) which, "
        "worked through in order, lead to a strong introduction for this particular paper - for instance what "
        "context to establish, which cited works support which point, what gap the paper fills, and how to "
        "present its approach and contributions."),
        _paper_block(record, seed),
        "Reply with the numbered list of guiding prompts only; do not write the introduction yet.",
    ]))


def autocot_refine_messages(record: Mapping[str, Any], seed: int | None, draft: str) -> list[dict[str, str]]:
    """AUTOCOT request 2: the model refines its draft prompts."""
    return _user("\n\n".join([
        ("Here is a draft list of guiding prompts for writing the Introduction section of the research paper "
        "below. Improve it: make every prompt specific to this paper and its cited works (name the citation "
        "identifiers that matter), merge overlapping prompts, order them so that they build the introduction's "
        "argument, and make sure that together they cover the context, prior work, the gap, the approach and "
        "the contributions."),
        f"Draft guiding prompts:\n{draft.strip()}",
        _paper_block(record, seed),
        "Reply with the refined numbered list only.",
    ]))


def autocot_final_messages(record: Mapping[str, Any], seed: int | None, refined: str) -> list[dict[str, str]]:
    """AUTOCOT request 3, the generating prompt: the ELABORATE task with the refined prompts as the plan."""
    return _user("\n\n".join([
        ZERO_SHOT_INSTRUCTIONS[FEW_SHOT_BASE](record),
        _paper_block(record, seed),
        ("Reason through the following guiding prompts, in order, to plan the introduction (they were prepared "
        f"for this paper):\n{refined.strip()}"),
        ("Now write the Introduction. Reply with the final introduction text only, not your answers to the "
        "guiding prompts."),
    ]))


def first_messages(level: str, record: Mapping[str, Any], seed: int | None,
                   exemplars: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, str]]:
    """The (first) request of `level` for `record`: the whole prompt, or AUTOCOT's first step."""
    level = normalize_level(level)
    if level in ZERO_SHOT_INSTRUCTIONS:
        return zero_shot_messages(level, record, seed)
    if level in SHOTS:
        if len(exemplars) != SHOTS[level]:
            raise ValueError(f"{level} needs {SHOTS[level]} exemplar(s), got {len(exemplars)}")
        return few_shot_messages(record, exemplars, seed)
    return autocot_draft_messages(record, seed)


_HEADING = re.compile(r"^\s*(?:#+\s*|\*\*)?(?:\d+\.?\s*|I\.?\s+)?introduction(?:\*\*)?\s*:?\s*$", re.IGNORECASE)


def clean_introduction(text: str) -> str:
    """The reply without surrounding whitespace and without a lone leading 'Introduction' heading line."""
    text = text.strip()
    first, _, rest = text.partition("\n")
    if _HEADING.match(first) and rest.strip():
        text = rest.strip()
    return text


__all__ = ["AUTOCOT_STEPS", "FEW_SHOT_BASE", "LEVELS", "NO_CITED_WORKS", "SHOTS", "autocot_draft_messages",
           "autocot_final_messages", "autocot_refine_messages", "cited_works_object", "clean_introduction",
           "elaborate_messages", "exemplar_pool", "few_shot_messages", "first_messages", "json_object_lines",
           "medium_messages", "normalize_level", "parse_levels", "render_cited_works", "render_exemplar",
           "select_exemplars", "short_messages", "shuffled_cited_works", "zero_shot_messages"]
