"""SurGE's extractive floor (``--model extractive``): a survey written with no language model. A FLOOR, not a model.

It exists so that the quick start runs SurGE end to end on a machine with no model, and as a lower bound every real
method must beat; never report its scores as a baseline model. It copies, never writes:

- **Groups.** Retrieved papers are grouped under headings made from their titles (`group_by_keyword`): the content
  word shared by the most titles of the papers not yet grouped (the topic's own words and their hyphenated parts,
  stop words and words of three letters or fewer left out; ties: the word of the best-ranked paper, then
  alphabetical) heads the papers whose titles hold it, until no word is shared by two titles or the groups are one
  short of the limit; the rest go under "Other Related Work". A heading is the word as the first title holding it
  writes it, its first letter upper-cased.
- **Sentences.** Each cited paper contributes one sentence, the first of its abstract (`sciwrite.metrics.text.
  split_sentences`) or, without an abstract, its title, ending with its marker: ``First sentence [3].`` Numeric
  brackets in copied text become parentheses (`sciwrite.sources.markers.neutralize_markers`), so that only the
  floor's own markers read as citations.

``--method rag``: the top-k retrieved papers, grouped, one section per group (`ExtractiveRAG`). ``--method outline``:
the outline method's whole pipeline (`sciwrite.surge.generation.outline.OutlineSurvey`) with this writer: the groups
of the topic's papers as the outline (a group's description: its first titles), one search per section with its
heading and description, each section the first `max_sentences` of its hits (`ExtractiveWriter`). Either way the
survey is assembled, renumbered and given its reference list of corpus titles as a model's is
(`sciwrite.surge.generation.survey_text`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from sciwrite.generation.runner import Generated
from sciwrite.metrics.text import split_sentences
from sciwrite.sources.markers import neutralize_markers
from sciwrite.surge.generation.outline import SECTIONS, SectionPlan
from sciwrite.surge.generation.prompts import one_line
from sciwrite.surge.generation.records import require_docs
from sciwrite.surge.generation.survey_text import WrittenSection, assemble

WRITER = "extractive"
#: The heading of the papers no shared word groups.
OTHER = "Other Related Work"
#: Sentences of one outline section at most (its best-ranked hits).
MAX_SENTENCES = 8
#: Title words too common in paper titles to head a group, besides English stop words.
TITLE_STOP_WORDS = frozenset({"using", "based", "towards", "toward", "approach", "approaches", "study", "paper",
                              "improving", "improved", "novel", "task", "tasks", "method", "methods", "analysis"})
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]")


def title_words(title: str) -> list[str]:
    """A title's content words, lower-cased, in order, each once: longer than three letters, no stop word."""
    words = (w.lower() for w in _WORD.findall(title or ""))
    return list(dict.fromkeys(w for w in words if len(w) > 3 and w not in ENGLISH_STOP_WORDS
                              and w not in TITLE_STOP_WORDS))


def _label(word: str, titles: Sequence[str]) -> str:
    for title in titles:
        match = re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", title, re.IGNORECASE)
        if match:
            text = match.group(0)
            return text[0].upper() + text[1:]
    return word.capitalize()


def group_by_keyword(docs: Sequence[Mapping[str, Any]], topic: str = "",
                     max_groups: int = SECTIONS) -> list[tuple[str, list[int]]]:
    """(heading, indices into `docs` in rank order) of each group, in the order formed (see the module docstring)."""
    if max_groups < 1:
        raise ValueError(f"max_groups must be >= 1, got {max_groups}")
    titles = [one_line(d.get("title")) for d in docs]
    skip = {part for word in title_words(topic) for part in (word, *word.split("-"))}
    words = [set(title_words(t)) - skip for t in titles]
    left = list(range(len(docs)))
    groups: list[tuple[str, list[int]]] = []
    while left and len(groups) < max_groups - 1:
        counts = Counter(w for i in left for w in words[i])
        first: dict[str, int] = {}
        for i in left:
            for w in words[i]:
                first.setdefault(w, i)
        best = min(counts, key=lambda w: (-counts[w], first[w], w), default=None)
        if best is None or counts[best] < 2:
            break
        members = [i for i in left if best in words[i]]
        groups.append((_label(best, [titles[i] for i in members]), members))
        left = [i for i in left if best not in words[i]]
    if left:
        groups.append((OTHER, left))
    return groups


def sentence(doc: Mapping[str, Any], number: int) -> str:
    """The paper's first abstract sentence (or its title) ending with ``[number]``, as in 'A result [3].'."""
    abstract = one_line(doc.get("abstract"))
    first = split_sentences(abstract)[0] if abstract else ""
    text = neutralize_markers(one_line(first or doc.get("title"))).rstrip()
    match = re.search(r"[.!?]+$", text)
    body, end = (text[: match.start()].rstrip(), match.group(0)) if match else (text, ".")
    return f"{body} [{number}]{end}"


def _description(records: Sequence[Mapping[str, Any]]) -> str:
    return "; ".join(one_line(d.get("title")) for d in records[:3])


class ExtractiveRAG:
    """``--method rag`` with ``--model extractive``: the top-k papers grouped by title word, one sentence each."""

    name = "rag"

    def __init__(self, retriever_name: str | None = None, k: int | None = None, max_sections: int = SECTIONS) -> None:
        self.retriever_name, self.k, self.max_sections = retriever_name, k, max_sections

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """What the floor will do for `record` (no model is called: a description, not a prompt)."""
        docs = list(record.get("candidate_docs") or [])
        lines = [f"[{i}] {one_line(d.get('title'))}" for i, d in enumerate(docs, 1)]
        text = (f"No language model is called. The {WRITER} floor (not a model) will group the {len(docs)} papers "
                f"retrieved for the topic under headings made from their titles (at most {self.max_sections} "
                "sections) and cite each with the first sentence of its abstract (its title when it has none).\n\n"
                f"Topic: {one_line(record.get('title'))}\n\nRetrieved papers:\n"
                + ("\n".join(lines) if lines else "(none: this survey will fail)"))
        return [{"role": "user", "content": text}]

    async def run(self, record: Mapping[str, Any], llm: Any = None) -> Generated:
        docs = require_docs(record, self.name)
        sections = [WrittenSection(heading, " ".join(sentence(docs[i], n) for n, i in enumerate(members, 1)),
                                   tuple(docs[i] for i in members))
                    for heading, members in group_by_keyword(docs, record.get("title") or "", self.max_sections)]
        survey = assemble(record.get("title") or "", sections)
        desc = (f"No LLM prompt: the {WRITER} floor (no language model) grouped {len(docs)} retrieved papers into "
                f"{len(sections)} sections by title word, one copied sentence each.")
        return Generated(survey.text, desc, {"candidates": list(survey.cited), "retriever": self.retriever_name,
                                             "k": self.k, "writer": WRITER})


class ExtractiveWriter:
    """The outline method's writer with no model: the topic's papers grouped as the outline, each section the first
    sentences of its own hits (see the module docstring)."""

    name = WRITER

    def __init__(self, max_sentences: int = MAX_SENTENCES) -> None:
        if max_sentences < 1:
            raise ValueError(f"max_sentences must be >= 1, got {max_sentences}")
        self.max_sentences = max_sentences

    def outline_messages(self, record: Mapping[str, Any], docs: Sequence[Mapping[str, Any]],
                         n_sections: int) -> list[dict[str, str]]:
        text = (f"No language model is called. The {WRITER} floor (not a model) will take as the outline the "
                f"{len(docs)} papers retrieved for the topic grouped under headings made from their titles (at most "
                f"{n_sections} sections), search the corpus again for each heading and its description (its first "
                f"titles), and write each section as the first sentences of at most {self.max_sentences} of its hits."
                f"\n\nTopic: {one_line(record.get('title'))}")
        return [{"role": "user", "content": text}]

    async def outline(self, record: Mapping[str, Any], docs: Sequence[Mapping[str, Any]], n_sections: int,
                      llm: Any = None) -> tuple[list[SectionPlan], str | None]:
        groups = group_by_keyword(docs, record.get("title") or "", n_sections)
        return [SectionPlan(heading, _description([docs[i] for i in members])) for heading, members in groups], None

    async def section(self, record: Mapping[str, Any], plans: Sequence[SectionPlan], index: int,
                      docs: Sequence[Mapping[str, Any]], llm: Any = None, max_tokens: int = 0) -> str:
        return " ".join(sentence(doc, n) for n, doc in enumerate(docs[: self.max_sentences], 1))


__all__ = ["MAX_SENTENCES", "OTHER", "TITLE_STOP_WORDS", "WRITER", "ExtractiveRAG", "ExtractiveWriter",
           "group_by_keyword", "sentence", "title_words"]
