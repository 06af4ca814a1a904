"""An agent's tools over a split's corpus: ``search(query, k)`` and ``read(doc_id)``, never past the target's date.

`TOOLS` declares them in the OpenAI chat ``tools`` shape (the descriptions are model-facing text, our wording);
`CorpusTools` serves them for a run (the plan's retriever, BM25 or dense, and the corpus), and
`CorpusTools.session` for one target paper (`ToolSession`):

- ``search`` asks the run's retriever (one search at a time, under a lock, in a worker thread) and
  keeps the hits the paper's `sciwrite.generation.cutoff.Cutoff` allows (never the target, nothing
  published after it), asking for more hits until ``k`` pass or the corpus is exhausted;
- ``read`` shows one paper's title, authors (when the corpus lists them), year and abstract; a paper the cutoff
  holds back reads exactly like an unknown doc_id, so the answer does not tell that it exists.

Every paper a tool shows gets a number, ``[n]``, in the order first shown; it keeps it for the paper's whole run,
and the agent cites by it. No ``cited_by``/``cites`` tool: a corpus (``doc_id, title, abstract, authors, year,
source``: `sciwrite.sources.corpus.CORPUS_FEATURES`) holds no citation links.

Arguments are checked against the declared schema (`parse_arguments`): a call that is not JSON, names no tool we
have, lacks a required argument, has one of the wrong type or out of range, or one not declared, is malformed; its
result is one error message for the model (`ToolResult.error` says why).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sciwrite.generation.corpus_lookup import CorpusLookup, as_lookup
from sciwrite.generation.cutoff import Cutoff, doc_date, target_cutoff
from sciwrite.generation.templates import NO_ABSTRACT, field_text

#: Papers a search returns when the call names no k, and the most it may ask for.
SEARCH_K = 10
MAX_SEARCH_K = 50
#: The most authors `read` lists (then "et al.").
MAX_AUTHORS = 20

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "search",
        "description": ("Search the corpus of scientific papers with a keyword query. Returns up to k papers, best "
                        "match first, each as '[n] doc_id: title (year)'."),
        "parameters": {"type": "object", "additionalProperties": False, "required": ["query"], "properties": {
            "query": {"type": "string", "description": "keywords, as typed into a scholarly search engine"},
            "k": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_K,
                  "description": f"how many papers to return (default {SEARCH_K})"}}}}},
    {"type": "function", "function": {
        "name": "read",
        "description": "Read one paper of the corpus: its title, authors, year and abstract.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["doc_id"], "properties": {
            "doc_id": {"type": "string", "description": "the paper's doc_id, as a search showed it"}}}}},
]
#: Tool name -> its parameters' JSON schema.
SCHEMAS: dict[str, dict[str, Any]] = {tool["function"]["name"]: tool["function"]["parameters"] for tool in TOOLS}
#: What the model is told of the tools after a malformed call.
USAGE = (f'search takes {{"query": string, "k": integer from 1 to {MAX_SEARCH_K} (optional)}}; '
         'read takes {"doc_id": string}')


class ArgumentError(ValueError):
    """A tool call the tools cannot run: the message says why."""


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, str) and bool(value.strip())


def parse_arguments(name: str, text: str) -> dict[str, Any]:
    """The arguments of a call to tool `name`, checked against its schema; `ArgumentError` saying what is wrong."""
    schema = SCHEMAS.get(name)
    if schema is None:
        raise ArgumentError(f"there is no tool {name!r}; the tools are {', '.join(SCHEMAS)}")
    try:
        arguments = json.loads(text) if isinstance(text, str) and text.strip() else None
    except json.JSONDecodeError as err:
        raise ArgumentError(f"the arguments are not valid JSON ({err.msg} at character {err.pos})") from None
    if not isinstance(arguments, dict):
        raise ArgumentError("the arguments must be a JSON object")
    properties = schema["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise ArgumentError(f"{name} takes no argument {unknown[0]!r}")
    for key in schema["required"]:
        if key not in arguments:
            raise ArgumentError(f"{name} needs the argument {key!r}")
    for key, value in arguments.items():
        spec = properties[key]
        if not _type_ok(value, spec["type"]):
            wanted = "an integer" if spec["type"] == "integer" else "a non-empty string"
            raise ArgumentError(f"{name}'s argument {key!r} must be {wanted}, got {json.dumps(value)}")
        if spec["type"] == "integer" and not spec["minimum"] <= value <= spec["maximum"]:
            raise ArgumentError(f"{name}'s argument {key!r} must be from {spec['minimum']} to {spec['maximum']}, "
                                f"got {value}")
    return arguments


@dataclass(frozen=True)
class ToolResult:
    """One call's outcome: what the model is sent back, the papers it showed, the arguments as read (the raw text
    when they could not be), and why the call was malformed (None for a well-formed one)."""

    content: str
    doc_ids: list[str]
    arguments: Any
    error: str | None = None


class CorpusTools:
    """``search`` and ``read`` over a corpus, for every paper of a run (see the module docstring)."""

    def __init__(self, retriever: Any, corpus: Any) -> None:
        self.retriever = retriever
        self.lookup: CorpusLookup = as_lookup(corpus)
        self._lock = threading.Lock()

    def session(self, record: Mapping[str, Any]) -> ToolSession:
        """The tools as the agent of the target paper `record` sees them."""
        return ToolSession(self, target_cutoff(record))

    def hits(self, cutoff: Cutoff, query: str, k: int) -> list[str]:
        """The top `k` doc_ids for `query` that `cutoff` allows, best first (blocking: run it in a thread)."""
        n_docs = len(getattr(self.retriever, "doc_ids", None) or ()) or None
        want = 2 * k + 1
        verdict: dict[str, bool] = {}
        while True:
            if n_docs is not None:
                want = min(want, n_docs)
            with self._lock:
                found = self.retriever.search([query], k=want, show_progress=False)[0].doc_ids
            for doc_id in found:
                if doc_id not in verdict:
                    verdict[doc_id] = doc_id in self.lookup and cutoff.allows(doc_id, self.lookup.row(doc_id))
            kept = [d for d in found if verdict[d]][:k]
            if len(kept) >= k or len(found) < want or (n_docs is not None and want >= n_docs):
                return kept
            want *= 4


@dataclass
class ToolSession:
    """One target paper's tools: its cutoff, the number each paper shown got (first shown, first numbered), what
    search returned and what was read, in first-seen order."""

    tools: CorpusTools
    cutoff: Cutoff
    numbers: dict[str, int] = field(default_factory=dict)
    searched: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)

    @property
    def seen(self) -> list[str]:
        """Every doc_id a tool showed, in the order of their numbers ([1] first)."""
        return list(self.numbers)

    def _number(self, doc_id: str) -> int:
        return self.numbers.setdefault(doc_id, len(self.numbers) + 1)

    async def call(self, name: str, arguments: str) -> ToolResult:
        """Run one tool call of the model (`arguments`: the JSON text it wrote)."""
        try:
            args = parse_arguments(name, arguments)
        except ArgumentError as err:
            try:
                raw: Any = json.loads(arguments)
            except (TypeError, json.JSONDecodeError):
                raw = arguments
            return ToolResult(f"Error: {err}. {USAGE}. This call counts against your tool calls.", [], raw, str(err))
        if name == "search":
            return await self.search(args["query"].strip(), args.get("k", SEARCH_K))
        return self.read_doc(args["doc_id"].strip())

    async def search(self, query: str, k: int = SEARCH_K) -> ToolResult:
        ids = await asyncio.to_thread(self.tools.hits, self.cutoff, query, k)
        lines = []
        for doc_id in ids:
            row = self.tools.lookup.row(doc_id)
            year = doc_date(row)[1]
            lines.append(f"[{self._number(doc_id)}] {doc_id}: {field_text(row.get('title')) or '(untitled)'}"
                         f"{f' ({year})' if year else ''}")
            if doc_id not in self.searched:
                self.searched.append(doc_id)
        head = f"search {json.dumps(query)}: " + (f"{len(ids)} papers" if ids else "no papers found")
        return ToolResult("\n".join([head, *lines]), ids, {"query": query, "k": k})

    def read_doc(self, doc_id: str) -> ToolResult:
        lookup = self.tools.lookup
        row = lookup.row(doc_id) if doc_id in lookup else None
        if row is None or not self.cutoff.allows(doc_id, row):
            return ToolResult(f"read {json.dumps(doc_id)}: no paper with this doc_id is available.", [],
                              {"doc_id": doc_id})
        lines = [f"[{self._number(doc_id)}] {doc_id}", f"Title: {field_text(row.get('title')) or '(untitled)'}"]
        if "authors" in row:
            authors = [a.strip() for a in row.get("authors") or [] if isinstance(a, str) and a.strip()]
            more = " et al." if len(authors) > MAX_AUTHORS else ""
            lines.append(f"Authors: {', '.join(authors[:MAX_AUTHORS]) + more if authors else '(not listed)'}")
        date, year = doc_date(row)
        lines.append(f"Year: {date.isoformat() if date else year or '(unknown)'}")
        lines.append(f"Abstract: {field_text(row.get('abstract')) or NO_ABSTRACT}")
        if doc_id not in self.read:
            self.read.append(doc_id)
        return ToolResult("\n".join(lines), [doc_id], {"doc_id": doc_id})


__all__ = ["MAX_SEARCH_K", "SCHEMAS", "SEARCH_K", "TOOLS", "USAGE", "ArgumentError", "CorpusTools", "ToolResult",
           "ToolSession", "parse_arguments"]
