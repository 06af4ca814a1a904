"""SciIG prompts: the seven prompting regimes of Garg et al. (arXiv:2508.14273, Appendix Tables 9-11), verbatim.

The prompt texts are the paper's, shipped as package data in ``sciwrite/sciig/generation/templates/<level>.txt``
(each file opens with a ``#`` note giving the table and row it is copied from; words and punctuation are as
printed, line breaks are restored at the prompt's headings and list items, which the paper's tables flatten).
`load_template` reads them with `importlib.resources` and `fill_template` fills ``{title}``, ``{abstract}`` and
``{cited_nodes_pretty}``, both through `sciwrite.generation.templates`, which RWGBench's prompts use too.

- ``SHORT``, ``MEDIUM``, ``ELABORATE`` (Table 9) and ``AUTOCOT`` (Table 10): one prompt each, one request.
- ``ZERO_SHOT`` (Table 11: "Same as the ELABORATE prompt"): exactly the ``ELABORATE`` prompt, under its own
  name (its output file is its own); ``all`` does not run it, ELABORATE being the same run.
- ``ONE_SHOT`` (Table 11, printed in full): the ELABORATE instructions, the sentence introducing the example, the
  worked example in place of the paper's "[Insert one example here.]", the closing sentence, then the target
  paper (its RELATED PAPERS without the "Below is a JSON dictionary ..." sentence, as the row prints it).
- ``TWO_SHOT`` / ``THREE_SHOT`` (Table 11): the row prints only its two sentences around "[Insert two examples
  here.]", then "[ELABORATE prompt continues as above.]", and the caption says the examples are "prepended to the
  ELABORATE prompt". Read literally: the first sentence, the examples, the closing sentence, then the whole
  ELABORATE prompt (Table 9) for the target paper. ``TWO_SHOT_INLINE`` / ``THREE_SHOT_INLINE`` keep our former
  reading as named variants (not in ``all``, not Table 3 columns): the ONE_SHOT layout with the row's two sentences
  and k examples in it.
- Each example shows its inputs and output (`render_example`): ``Title:``, ``Abstract:``, ``RELATED PAPERS:``
  (its cited works pretty-printed like the target's) and ``Introduction:`` (the authors' introduction). The
  paper does not say how an example is laid out: this is our choice, mirroring the target block. Exemplars are
  papers of the *holdout* split drawn per paper with the seed (`select_exemplars`): the holdout pool is sorted
  by paper_id, shuffled by ``Random(f"{seed}:{paper_id}:exemplars")`` and the first k taken, so ONE ⊂ TWO ⊂
  THREE for a paper, reruns draw the same ones, and the paper itself is never its own exemplar.
- ``AUTOCOT`` (Table 10) is the paper's *single* prompt: the model writes and refines its intermediate prompts
  and then the Introduction, all in one reply. The paper scores that whole reply (its Table 15 prints the
  AutoCoT "Generated Introduction" with the intermediate prompts in it, and the README's ``pred`` is the reply),
  so `pred` is the whole reply; `autocot_introduction` extracts the final introduction for analysis only
  (stored as ``autocot_introduction``, never scored).
- ``AUTOCOT_PIPELINE`` (ours, not in the paper): the former three-request chain (draft guiding prompts, refine
  them, then the ELABORATE prompt preceded by the refined prompts); its ``pred`` is the final reply only.

``{cited_nodes_pretty}`` is the paper's "JSON dictionary listing related papers. Each key represents a citation
identifier [...] Each entry includes the title, authors, and abstract of the paper", pretty-printed with
``json.dumps(indent=2, ensure_ascii=False)`` (the indent is our choice; the README says only that the cited works
are shuffled before rendering). The works are shuffled per paper with ``Random(f"{seed}:{paper_id}:cited")`` so
their position carries no signal while every rerun sees the same order.

A paper without cited works (the paper's data has none: such records are skipped) is not failed: its
``{cited_nodes_pretty}`` is ``{}`` followed by the sentence `NO_CITED_WORKS` (our addition). A record lacking a
title or abstract, or whose cited works repeat an identifier, raises `ValueError` - the runner records it in
its failures file with the reason.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.generation.templates import fill_placeholders, read_template

Message = Mapping[str, str]

#: The paper's seven prompting regimes, in its order (what ``all`` runs).
LEVELS: tuple[str, ...] = ("SHORT", "MEDIUM", "ELABORATE", "ONE_SHOT", "TWO_SHOT", "THREE_SHOT", "AUTOCOT")
#: Further level names: ZERO_SHOT (= the ELABORATE prompt, Table 11), our three-request AUTOCOT_PIPELINE, and the
#: former reading of TWO_SHOT / THREE_SHOT (examples inside the ONE_SHOT layout) as named variants.
EXTRA_LEVELS: tuple[str, ...] = ("ZERO_SHOT", "AUTOCOT_PIPELINE", "TWO_SHOT_INLINE", "THREE_SHOT_INLINE")
ALL_LEVELS: tuple[str, ...] = LEVELS + EXTRA_LEVELS
#: Exemplars shown by each few-shot level.
SHOTS: dict[str, int] = {"ONE_SHOT": 1, "TWO_SHOT": 2, "THREE_SHOT": 3, "TWO_SHOT_INLINE": 2,
                         "THREE_SHOT_INLINE": 3}
#: The few-shot levels whose examples (and two sentences) are prepended to the whole ELABORATE prompt (Table 11).
PREPENDED = ("TWO_SHOT", "THREE_SHOT")
#: The instructions the few-shot levels build on (Table 11).
FEW_SHOT_BASE = "ELABORATE"
#: Level -> template file (package data) holding its prompt.
TEMPLATE_FILES: dict[str, str] = {"SHORT": "short.txt", "MEDIUM": "medium.txt", "ELABORATE": "elaborate.txt",
                                  "ZERO_SHOT": "elaborate.txt", "ONE_SHOT": "one_shot.txt",
                                  "TWO_SHOT": "two_shot.txt", "THREE_SHOT": "three_shot.txt",
                                  "TWO_SHOT_INLINE": "two_shot_inline.txt", "THREE_SHOT_INLINE": "three_shot_inline.txt",
                                  "AUTOCOT": "autocot.txt"}
#: Levels whose whole prompt is one filled template (no exemplars, one request).
SINGLE_PROMPT_LEVELS: tuple[str, ...] = ("SHORT", "MEDIUM", "ELABORATE", "ZERO_SHOT", "AUTOCOT")
PLACEHOLDERS: tuple[str, ...] = ("title", "abstract", "cited_nodes_pretty", "examples", "elaborate")
#: The package whose ``templates/`` folder holds the files (`sciwrite.generation.templates.read_template`).
TEMPLATE_PACKAGE = "sciwrite.sciig.generation"
SOURCE = ("Garg, Shaik, Bandyopadhyay and Caragea, \"Let's Use ChatGPT To Write Our Paper! Benchmarking LLMs To "
          "Write the Introduction of a Research Paper\", arXiv:2508.14273, Appendix Tables 9-11")

NO_CITED_WORKS = ("No cited works are available for this paper (the object above is empty): write the "
                  "introduction without citations and do not invent any.")


def normalize_level(level: str) -> str:
    """``'three-shot'``, ``'Three_Shot'`` -> ``'THREE_SHOT'``; an unknown level raises a `ValueError` listing them."""
    name = str(level).strip().upper().replace("-", "_").replace(" ", "_")
    if name not in ALL_LEVELS:
        raise ValueError(f"unknown SciIG prompt level {level!r}; choose one of {', '.join(ALL_LEVELS)} (or 'all' "
                         "for the paper's seven)")
    return name


def parse_levels(values: Sequence[str]) -> list[str]:
    """Levels from the command line: names in any case, ``all`` for the paper's seven; duplicates dropped."""
    out: list[str] = []
    for value in values:
        for part in str(value).split(","):
            if not part.strip():
                continue
            names = list(LEVELS) if part.strip().lower() == "all" else [normalize_level(part)]
            out.extend(n for n in names if n not in out)
    if not out:
        raise ValueError(f"no SciIG prompt level given; choose from {', '.join(ALL_LEVELS)} or 'all'")
    return out


# ------------------------------------------------------------------------------------------------ templates


@functools.cache
def load_template(level: str) -> str:
    """The paper's prompt for `level` (``ZERO_SHOT`` reads ELABORATE's), without the file's ``#`` note."""
    level = normalize_level(level)
    if level not in TEMPLATE_FILES:
        raise ValueError(f"{level} has no single template (it chains several requests)")
    return read_template(TEMPLATE_PACKAGE, TEMPLATE_FILES[level])


def fill_template(template: str, **values: str) -> str:
    """Fill ``{title}``, ``{abstract}``, ``{cited_nodes_pretty}`` (and ``{examples}``) in one pass, so braces in
    a value are left alone; a placeholder without a value raises `KeyError`."""
    return fill_placeholders(template, PLACEHOLDERS, values)


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




def render_cited_works(record: Mapping[str, Any], seed: int | None) -> str:
    """``{cited_nodes_pretty}``: the cited works as a JSON dictionary keyed by citation identifier, each value
    ``{title, authors, abstract}``, in the seeded order, pretty-printed (``indent=2``); ``{}`` when none."""
    return json.dumps(cited_works_object(record, seed), indent=2, ensure_ascii=False)


def cited_nodes_pretty(record: Mapping[str, Any], seed: int | None) -> str:
    """The value of ``{cited_nodes_pretty}``: `render_cited_works`, plus `NO_CITED_WORKS` when there are none."""
    cited = render_cited_works(record, seed)
    return f"{cited}\n\n{NO_CITED_WORKS}" if cited == "{}" else cited


def paper_values(record: Mapping[str, Any], seed: int | None) -> dict[str, str]:
    """The values of the paper templates' three placeholders (title, abstract, cited works) for `record`."""
    return {"title": _text(record, "title"), "abstract": _text(record, "abstract"),
            "cited_nodes_pretty": cited_nodes_pretty(record, seed)}


def _user(content: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": content}]


#: SciIG Table 4's input configurations (``--inputs``): Title-only, Title+Abstract, Title+Abstract+Related Work.
INPUTS: tuple[str, ...] = ("title", "title-abstract", "title-abstract-related")
FULL_INPUTS = "title-abstract-related"
#: How Table 4 names each configuration.
INPUT_LABELS = {"title": "Title-only", "title-abstract": "Title+Abstract", "title-abstract-related": "T+A+Related"}
#: What an ablated prompt is, said where the prompt is shown (the dry run) and in the card.
INPUTS_NOTE = ("the paper does not print its ablation prompts (Table 4): this is the {level} prompt as printed, "
               "without the target-paper lines the configuration lacks ({left_out}); the instructions are "
               "unchanged (our choice)")


def restrict_inputs(template: str, inputs: str) -> str:
    """`template` without the target-paper lines `inputs` lacks: ``title-abstract`` leaves out the RELATED PAPERS
    block (its heading line through the ``{cited_nodes_pretty}`` line, and the blank line before it);
    ``title`` also the ``Abstract: {abstract}`` line. The full configuration returns `template` unchanged."""
    if inputs not in INPUTS:
        raise ValueError(f"unknown input configuration {inputs!r}; choose one of {', '.join(INPUTS)}")
    if inputs == FULL_INPUTS:
        return template
    lines = template.split("\n")
    start = max((i for i, line in enumerate(lines) if line.strip() == "RELATED PAPERS:"), default=None)
    end = next((i for i in range(start or 0, len(lines)) if "{cited_nodes_pretty}" in lines[i]), None)
    if start is None or end is None:
        raise ValueError("this prompt has no RELATED PAPERS block to leave out")
    if start > 0 and not lines[start - 1].strip():
        start -= 1
    kept = lines[:start] + lines[end + 1:]
    if inputs == "title":
        kept = [line for line in kept if line.strip() != "Abstract: {abstract}"]
    return "\n".join(kept)


def inputs_note(level: str, inputs: str) -> str | None:
    """`INPUTS_NOTE` for an ablated configuration of `level` (None for the full input)."""
    if inputs == FULL_INPUTS:
        return None
    left_out = "the abstract and the related papers" if inputs == "title" else "the related papers"
    return INPUTS_NOTE.format(level=normalize_level(level), left_out=left_out)


def level_prompt(level: str, record: Mapping[str, Any], seed: int | None, inputs: str = FULL_INPUTS) -> str:
    """The filled prompt of a single-prompt level (SHORT, MEDIUM, ELABORATE, ZERO_SHOT, AUTOCOT), with the
    target-paper lines `inputs` lacks left out (`restrict_inputs`)."""
    level = normalize_level(level)
    if level not in SINGLE_PROMPT_LEVELS:
        raise ValueError(f"{level} is not a single-prompt level ({', '.join(SINGLE_PROMPT_LEVELS)})")
    return fill_template(restrict_inputs(load_template(level), inputs), **paper_values(record, seed))


def zero_shot_messages(level: str, record: Mapping[str, Any], seed: int | None,
                       inputs: str = FULL_INPUTS) -> list[dict[str, str]]:
    """SHORT, MEDIUM, ELABORATE, ZERO_SHOT or AUTOCOT: the paper's prompt, filled, as one user message."""
    return _user(level_prompt(level, record, seed, inputs))










# ---------------------------------------------------------------------------------------------- few-shot


def exemplar_pool(holdout: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Holdout papers usable as exemplars (title, abstract and introduction present), sorted by paper_id so
    that the draw does not depend on the order the split was loaded in."""
    usable = [h for h in holdout if all(_has_text(h.get(f)) for f in ("paper_id", "title", "abstract", "introduction"))]
    return sorted(usable, key=lambda h: h["paper_id"])


def _has_text(value: Any) -> bool:
    """Whether a record's field is a string with more than whitespace."""
    return isinstance(value, str) and bool(value.strip())


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


def render_example(index: int, exemplar: Mapping[str, Any], seed: int | None) -> str:
    """One worked example, inputs then output, laid out like the target block (our choice; the paper only says
    "[Insert one example here.]"): ``Example i:``, ``Title:``, ``Abstract:``, ``RELATED PAPERS:`` (its cited
    works pretty-printed and shuffled like the target's) and ``Introduction:`` (the authors' introduction)."""
    return "\n".join([f"Example {index}:", f"Title: {_text(exemplar, 'title')}",
                      f"Abstract: {_text(exemplar, 'abstract')}", "", "RELATED PAPERS:",
                      render_cited_works(exemplar, seed), "", "Introduction:", exemplar["introduction"].strip()])


def render_examples(exemplars: Sequence[Mapping[str, Any]], seed: int | None) -> str:
    """The examples that replace the paper's "[Insert k examples here.]", separated by blank lines."""
    return "\n\n".join(render_example(i, e, seed) for i, e in enumerate(exemplars, 1))


def few_shot_messages(record: Mapping[str, Any], exemplars: Sequence[Mapping[str, Any]],
                      seed: int | None, level: str | None = None) -> list[dict[str, str]]:
    """A few-shot level (Table 11) with ``len(exemplars)`` examples: ONE_SHOT as its row prints it; TWO_SHOT and
    THREE_SHOT with their sentences and examples prepended to the whole ELABORATE prompt; the ``_INLINE``
    variants in the ONE_SHOT layout. `level` defaults to the paper's level of that many examples."""
    level = normalize_level(level) if level else {1: "ONE_SHOT", 2: "TWO_SHOT", 3: "THREE_SHOT"}.get(len(exemplars))
    if level is None or SHOTS.get(level) != len(exemplars):
        raise ValueError(f"a few-shot prompt takes 1 to 3 exemplars (Table 11), got {len(exemplars)} for {level}")
    values = {**paper_values(record, seed), "examples": render_examples(exemplars, seed)}
    if level in PREPENDED:
        values["elaborate"] = level_prompt(FEW_SHOT_BASE, record, seed)
    return _user(fill_template(load_template(level), **values))


# -------------------------------------------------------------------------------------- AUTOCOT (single)


_CRAFTING = re.compile(r"^[#*\s]*(?:\d+\.\s*)?(?:crafting|writing|final)\b[^\n]*introduction[^\n]*:?[*\s]*$",
                       re.IGNORECASE | re.MULTILINE)
_PARAGRAPH_LABEL = re.compile(r"^[#*\s]*paragraph\s+\d+\s*(?::[^\n]*)?$", re.IGNORECASE)


def autocot_introduction(reply: str) -> str | None:
    """The final introduction inside an AUTOCOT reply, for analysis (the score uses the whole reply): the text
    after the last heading like "Crafting the Introduction:" / "Final Introduction", without "Paragraph 1: ..."
    label lines; None when the reply has no such heading."""
    matches = list(_CRAFTING.finditer(reply or ""))
    if not matches:
        return None
    body = reply[matches[-1].end():].strip()
    lines = [line for line in body.splitlines() if not _PARAGRAPH_LABEL.match(line)]
    return "\n".join(lines).strip() or None


# ------------------------------------------------------------------------------ AUTOCOT_PIPELINE (ours)


AUTOCOT_STEPS: tuple[str, ...] = ("draft_prompts", "refine_prompts")


def _paper_block(record: Mapping[str, Any], seed: int | None) -> str:
    return "\n".join([f"Title: {_text(record, 'title')}", f"Abstract: {_text(record, 'abstract')}", "",
                      "RELATED PAPERS:", cited_nodes_pretty(record, seed)])


def autocot_draft_messages(record: Mapping[str, Any], seed: int | None) -> list[dict[str, str]]:
    """AUTOCOT_PIPELINE request 1: the model drafts the guiding prompts it will reason through."""
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
    """AUTOCOT_PIPELINE request 2: the model refines its draft prompts."""
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
    """AUTOCOT_PIPELINE request 3, the generating prompt: the refined prompts as a plan, then the paper's
    ELABORATE prompt (verbatim, filled)."""
    return _user("\n\n".join([
        ("Reason through the following guiding prompts, prepared for this paper, in order, to plan the "
        "introduction; then reply with the final introduction text only, not your answers to them:\n"
        f"{refined.strip()}"),
        level_prompt("ELABORATE", record, seed),
    ]))


def first_messages(level: str, record: Mapping[str, Any], seed: int | None,
                   exemplars: Sequence[Mapping[str, Any]] = (), inputs: str = FULL_INPUTS) -> list[dict[str, str]]:
    """The (first) request of `level` for `record`: the whole prompt, or AUTOCOT_PIPELINE's first step."""
    level = normalize_level(level)
    if level in SINGLE_PROMPT_LEVELS:
        return zero_shot_messages(level, record, seed, inputs)
    if level in SHOTS:
        if len(exemplars) != SHOTS[level]:
            raise ValueError(f"{level} needs {SHOTS[level]} exemplar(s), got {len(exemplars)}")
        return few_shot_messages(record, exemplars, seed, level)
    return autocot_draft_messages(record, seed)


_HEADING = re.compile(r"^\s*(?:#+\s*|\*\*)?(?:\d+\.?\s*|I\.?\s+)?introduction(?:\*\*)?\s*:?\s*$", re.IGNORECASE)


def clean_introduction(text: str) -> str:
    """The reply without surrounding whitespace and without a lone leading 'Introduction' heading line."""
    text = text.strip()
    first, _, rest = text.partition("\n")
    if _HEADING.match(first) and rest.strip():
        text = rest.strip()
    return text


__all__ = ["ALL_LEVELS", "AUTOCOT_STEPS", "EXTRA_LEVELS", "FEW_SHOT_BASE", "LEVELS", "NO_CITED_WORKS", "SHOTS",
           "SINGLE_PROMPT_LEVELS", "SOURCE", "TEMPLATE_FILES", "autocot_draft_messages", "autocot_final_messages",
           "autocot_introduction", "autocot_refine_messages", "cited_nodes_pretty",
           "cited_works_object", "clean_introduction", "exemplar_pool", "few_shot_messages",
           "fill_template", "first_messages", "level_prompt", "load_template",
           "normalize_level", "paper_values", "parse_levels", "render_cited_works",
           "render_example", "render_examples", "select_exemplars",
           "shuffled_cited_works", "zero_shot_messages"]
