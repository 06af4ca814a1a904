"""SurGE generation prompts: the template files and the blocks that fill them.

SurGE (Su et al. 2025, arXiv 2508.15658) publishes its baselines' outputs (oneal2000/SurGE
baselines/{ID,Naive,Autosurvey}/output) but none of their prompts, so every prompt here is our wording. Each is a
package-data file, ``sciwrite/surge/generation/templates/<name>.txt``, whose ``#`` note says where it comes from;
`fill` fills its placeholders in one pass (`sciwrite.generation.templates`), so braces in a paper's abstract or in
a JSON example are left alone.

The topic (`topic_block`) is what a method is told of the survey to write: its title, as SurGE's baselines take it
(``TITLE``), or with ``--topic title-abstract`` its title and abstract. Nothing else of the expert survey ever
reaches a prompt: its section tree, its citations and its sections' cite lists (``structure``, ``all_cites``,
``queries``) are dropped from the records before any method sees them (`sciwrite.surge.generation.records`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sciwrite.generation.templates import NO_ABSTRACT, fill_placeholders, read_template
from sciwrite.sources.markers import neutralize_markers

TEMPLATE_PACKAGE = "sciwrite.surge.generation"
TEMPLATES = ("naive", "rag", "outline", "section", "agent_system", "agent_user", "agent_budget")
PLACEHOLDERS = ("topic", "papers", "n_papers", "n_sections", "outline", "heading", "description", "section_words",
                "max_tool_calls", "search_k", "max_search_k")

#: The topic a method is given: the survey's title (SurGE's baselines), or its title and abstract.
TITLE, TITLE_ABSTRACT = "title", "title-abstract"
TOPICS = (TITLE, TITLE_ABSTRACT)


@functools.cache
def template(name: str) -> str:
    """The prompt text of template `name` (one of `TEMPLATES`), without the file's ``#`` note."""
    if name not in TEMPLATES:
        raise ValueError(f"unknown SurGE prompt template {name!r}; choose from {', '.join(TEMPLATES)}")
    return read_template(TEMPLATE_PACKAGE, f"{name}.txt")


def fill(name: str, **values: Any) -> str:
    """Template `name` with its placeholders filled (values formatted with `str`)."""
    return fill_placeholders(template(name), PLACEHOLDERS, {key: str(value) for key, value in values.items()})


def one_line(value: Any) -> str:
    """A field as one line of text: whitespace runs (newlines included) become one space; not a string: empty."""
    return re.sub(r"\s+", " ", value).strip() if isinstance(value, str) else ""


def topic_text(record: Mapping[str, Any], topic: str = TITLE) -> str:
    """The topic as a search query: the title, or the title and abstract."""
    parts = [one_line(record.get("title"))]
    if topic == TITLE_ABSTRACT:
        parts.append(one_line(record.get("abstract")))
    return "\n".join(p for p in parts if p)


def topic_block(record: Mapping[str, Any], topic: str = TITLE) -> str:
    """The survey's topic as every prompt shows it; numeric brackets in an abstract become parentheses, so that they
    cannot pose as paper numbers."""
    if topic not in TOPICS:
        raise ValueError(f"unknown topic {topic!r}; choose one of {', '.join(TOPICS)}")
    lines = ["## Survey topic", f"Title: {one_line(record.get('title'))}"]
    if topic == TITLE_ABSTRACT:
        lines.append(f"Abstract: {neutralize_markers(one_line(record.get('abstract'))) or NO_ABSTRACT}")
    return "\n".join(lines)


def papers_block(docs: Sequence[Mapping[str, Any]]) -> str:
    """``[i] Title: ...`` / ``Abstract: ...`` for each paper, numbered from 1 (brackets in the text neutralised)."""
    if not docs:
        return "(no paper was retrieved)"
    return "\n\n".join(f"[{i}] Title: {neutralize_markers(one_line(d.get('title')))}\n"
                       f"Abstract: {neutralize_markers(one_line(d.get('abstract'))) or NO_ABSTRACT}"
                       for i, d in enumerate(docs, 1))


def user(content: str) -> list[dict[str, str]]:
    """`content` as the one user message of a request."""
    return [{"role": "user", "content": content}]


__all__ = ["PLACEHOLDERS", "TEMPLATES", "TEMPLATE_PACKAGE", "TITLE", "TITLE_ABSTRACT", "TOPICS", "fill",
           "one_line", "papers_block", "template", "topic_block", "topic_text", "user"]
