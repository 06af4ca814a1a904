"""RWGBench prompts: the template files and the blocks that fill them.

The paper describes its baselines (§5.1-5.2) but prints none of their prompts, so every prompt here is our
wording. Each is a package-data file, ``sciwrite/rwgbench/generation/templates/<name>.txt``, whose ``#`` note
says so and quotes how the paper describes the method; `template` reads it (`sciwrite.generation.templates`,
as SciIG's prompts are read) and `fill` fills its placeholders (`PLACEHOLDERS`) in one pass, so braces in a
paper's text or in a model's draft are left as they are.

The blocks are the data every prompt shows, laid out the same way everywhere: the target paper
(`target_block`: title, abstract and, except in Workflow's coverage check, the introduction, with the paper's
own numeric brackets turned into parentheses so that they cannot pose as candidate numbers), the numbered
candidates (`rag_candidates_block`, ALCE's `alce_documents_block`, `titles_block`), and `clean_section`, which
takes a leading 'Related Work' heading off a reply. A field reads as `sciwrite.generation.templates.field_text` makes
it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.generation.templates import NO_ABSTRACT, field_text, fill_placeholders, read_template
from sciwrite.sources.markers import neutralize_markers

#: The package whose ``templates/`` folder holds the files.
TEMPLATE_PACKAGE = "sciwrite.rwgbench.generation"
#: Template name -> file: one per method's prompt, one per Workflow step, the shared instructions, and the agent's
#: messages (sciwrite's own baseline, not the paper's).
TEMPLATE_FILES: dict[str, str] = {name: f"{name}.txt" for name in (
    "direct", "rag", "alce", "tag", "workflow_plan", "workflow_write", "workflow_coverage", "workflow_revise",
    "workflow_revise_added", "workflow_revise_none", "marker_instruction", "output_instruction", "agent_system",
    "agent_user", "agent_budget")}
#: Every placeholder a template may hold.
PLACEHOLDERS: tuple[str, ...] = (
    "target", "candidates", "documents", "titles", "n_candidates", "themes", "uncovered", "draft", "added",
    "first_new", "max_themes", "queries_per_theme", "marker_instruction", "output_instruction", "numbered_list",
    "max_tool_calls", "search_k", "max_search_k")
NO_INTRODUCTION = "(no introduction available)"


@functools.cache
def template(name: str) -> str:
    """The prompt text of template `name` (a key of `TEMPLATE_FILES`), without the file's ``#`` note."""
    if name not in TEMPLATE_FILES:
        raise ValueError(f"unknown RWGBench prompt template {name!r}; choose from {', '.join(TEMPLATE_FILES)}")
    return read_template(TEMPLATE_PACKAGE, TEMPLATE_FILES[name])


def fill(name: str, **values: Any) -> str:
    """Template `name` with its placeholders filled (values are formatted with `str`)."""
    return fill_placeholders(template(name), PLACEHOLDERS, {key: str(value) for key, value in values.items()})


def marker_instruction(numbered_list: str = "numbered list") -> str:
    """How to cite: by the numbers of the `numbered_list` shown above the instruction."""
    return fill("marker_instruction", numbered_list=numbered_list)


#: The citation-marker instruction of every prompt with a numbered candidate list (ALCE names its documents).
MARKER_INSTRUCTION = marker_instruction()
ALCE_MARKER_INSTRUCTION = marker_instruction("numbered documents")
OUTPUT_INSTRUCTION = template("output_instruction")


def target_block(record: Mapping[str, Any], introduction: bool = True) -> str:
    """The target paper as every prompt shows it. Numeric brackets in its text become parentheses, so that
    they cannot be mistaken for candidate numbers."""
    lines = ["## Target paper", f"Title: {field_text(record.get('title'))}",
             f"Abstract: {neutralize_markers(field_text(record.get('abstract'))) or NO_ABSTRACT}"]
    if introduction:
        lines += ["Introduction:", neutralize_markers(field_text(record.get("introduction"))) or NO_INTRODUCTION]
    return "\n".join(lines)


def rag_candidates_block(docs: Sequence[Mapping[str, Any]]) -> str:
    """``[i] Title: …`` / ``Abstract: …`` for every candidate, numbered from 1."""
    return "\n\n".join(f"[{i}] Title: {field_text(d.get('title'))}\n"
                       f"Abstract: {field_text(d.get('abstract')) or NO_ABSTRACT}" for i, d in enumerate(docs, 1))


def alce_documents_block(docs: Sequence[Mapping[str, Any]]) -> str:
    """ALCE-style numbered passages: ``Document [i] (Title: …): <full abstract>``."""
    return "\n\n".join(f"Document [{i}] (Title: {field_text(d.get('title'))}): "
                       f"{field_text(d.get('abstract')) or NO_ABSTRACT}" for i, d in enumerate(docs, 1))


def titles_block(docs: Sequence[Mapping[str, Any]]) -> str:
    """``[i] <title>`` for every candidate, numbered from 1."""
    return "\n".join(f"[{i}] {field_text(d.get('title'))}" for i, d in enumerate(docs, 1))


def user(content: str) -> list[dict[str, str]]:
    """`content` as the one user message of a request."""
    return [{"role": "user", "content": content}]


_HEADING = re.compile(r"^\s*(?:#+\s*|\*\*)?\s*(?:\d+\.?\s*)?related\s+work[s]?\s*(?:section)?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$",
                      re.IGNORECASE)


def clean_section(text: str) -> str:
    """The reply without a leading 'Related Work' heading line and surrounding blank space."""
    lines = (text or "").strip().splitlines()
    while lines and (not lines[0].strip() or _HEADING.match(lines[0])):
        lines.pop(0)
    return "\n".join(lines).strip()


__all__ = ["ALCE_MARKER_INSTRUCTION", "MARKER_INSTRUCTION", "NO_INTRODUCTION", "OUTPUT_INSTRUCTION", "PLACEHOLDERS",
           "TEMPLATE_FILES", "TEMPLATE_PACKAGE", "alce_documents_block", "clean_section", "fill", "marker_instruction",
           "rag_candidates_block", "target_block", "template", "titles_block", "user"]
