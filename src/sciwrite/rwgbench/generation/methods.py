"""RWGBench generation methods: Direct, RAG, ALCE, TAG and Workflow, each combinable with the Oracle list.

Every method sees the target paper's title, abstract and introduction and writes a related-work section that
cites with numeric markers ``[i]``; marker ``[i]`` resolves to ``candidates[i-1]``, the ordered doc_ids every
output line carries. The prompts are single user messages written for this package (not copied from the
papers they follow):

- ``direct`` — no candidate list: the model cites from its own knowledge, numbering the works it cites and
  listing their titles after a ``References`` line. Its candidate list is empty (no marker resolves to the
  corpus); the titles it gave are kept in ``extra["references"]``.
- ``rag`` — the top-k retrieved papers (default k = 50), numbered ``[1]`` … ``[k]``, each with title and abstract.
- ``alce`` — ALCE's prompt-based VANILLA setting (Gao et al., 2023): the candidates' full abstracts as numbered
  passages (``Document [i] (Title: …): abstract``) and explicit grounding rules (use only the documents, some of
  which may be irrelevant; every statement about prior work cites at least one and at most three supporting
  documents; cite a minimal sufficient subset).
- ``tag`` — target-aware (after TAG, Chen et al., 2022, as a prompt): the model first names the target's
  keyphrases, organises the section around them, and states for every cited paper how the target relates to it
  (builds on, extends, differs from, addresses a limitation of, compares against).
- ``workflow`` — theme planning → several retrieval queries (k = 20 each) → draft → citation-coverage check
  (which themes lack citations?) → up to 2 refinement iterations (new queries, revised draft). Its candidate
  list is the union of everything it retrieved, in a stable order: by step, then query, then rank; papers added
  by a refinement go to the end, so earlier markers keep their meaning. Every step is kept in
  ``extra["steps"]``.
- Oracle (``oracle=True`` in `prepare_records`): the gold citations found in the corpus are the candidate list,
  shuffled with a per-paper RNG seeded by (seed, paper_id), so that position carries no signal. With Workflow,
  the oracle list is the whole search space: its queries rank the gold papers (BM25 over them), and gold papers
  no query found are appended after the retrieved ones, so the final list is still exactly the gold set.

Records (`prepare_records`) hold the paper's inputs (``paper_id``, ``title``, ``abstract``, ``introduction`` and
any other field except the answer: ``related_work`` and ``citations`` are dropped so that no method can read
them) plus ``candidate_docs``: the ordered list of ``{"doc_id", "title", "abstract"}``. The extractive floor
(`sciwrite.generation.extractive.ExtractiveRWGBench`) runs on the same records.

A paper without candidates (no query text, nothing retrieved, no gold citation in the corpus) fails with a
clear error and lands in the runner's failures file; it is never dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sciwrite.generation.runner import Generated, PaperLLM, prompt_text
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.retrieval.query import build_query
from sciwrite.sources.markers import marker_numbers, neutralize_markers

logger = logging.getLogger(__name__)

DEFAULT_K = 50
WORKFLOW_K = 20
MAX_REFINEMENTS = 2
#: Fields of a paper record that are the answer, never shown to (or kept for) a method.
ANSWER_FIELDS = ("related_work", "citations")

MARKER_INSTRUCTION = (
    "Citation format: cite a paper only by its number in the numbered list above, in square brackets, e.g. [4]; "
    "put several papers in one bracket, e.g. [2, 7]. Use only numbers that appear in the list. Do not cite by "
    "author names, years or titles, do not cite any work that is not in the list, and do not add a reference "
    "list."
)
OUTPUT_INSTRUCTION = ("Answer with the text of the related-work section only: plain paragraphs, no section "
                      "heading, no preamble.")
NO_ABSTRACT = "(no abstract available)"


# --------------------------------------------------------------------------------------------------------------
# Corpus access and candidate preparation
# --------------------------------------------------------------------------------------------------------------


class CorpusLookup:
    """doc_id -> ``{"doc_id", "title", "abstract"}`` over a corpus (a `datasets.Dataset` or a list of dicts).

    Only a doc_id -> row map is held in memory; rows are read on demand (cheap on an Arrow-backed dataset).
    """

    def __init__(self, corpus: Any) -> None:
        self._corpus = corpus
        if hasattr(corpus, "column_names"):
            ids = corpus["doc_id"]
        else:
            self._corpus = list(corpus)
            ids = [doc["doc_id"] for doc in self._corpus]
        self._row = {doc_id: i for i, doc_id in enumerate(ids)}

    def __len__(self) -> int:
        return len(self._row)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._row

    def doc(self, doc_id: str) -> dict[str, str]:
        row = self._corpus[self._row[doc_id]]
        return {"doc_id": doc_id, "title": (row.get("title") or "").strip(),
                "abstract": (row.get("abstract") or "").strip()}

    def docs(self, doc_ids: Iterable[str], what: str = "") -> list[dict[str, str]]:
        """The docs of `doc_ids` in order; ids missing from the corpus are left out with a warning."""
        found, missing = [], []
        for doc_id in doc_ids:
            if doc_id in self._row:
                found.append(self.doc(doc_id))
            else:
                missing.append(doc_id)
        if missing:
            logger.warning("%d doc_id(s)%s are not in the corpus and were left out, e.g. %s", len(missing),
                           f" ({what})" if what else "", missing[:3])
        return found


def oracle_order(doc_ids: Sequence[str], seed: int | None, paper_id: str) -> list[str]:
    """The gold doc_ids (de-duplicated) shuffled by an RNG seeded with (seed, paper_id): position is no signal,
    and the order of one paper does not depend on which other papers are in the run."""
    ids = list(dict.fromkeys(doc_ids))
    random.Random(f"{seed}:{paper_id}").shuffle(ids)
    return ids


def paper_inputs(paper: Mapping[str, Any]) -> dict[str, Any]:
    """A paper's fields without the answer (`ANSWER_FIELDS`)."""
    return {key: value for key, value in dict(paper).items() if key not in ANSWER_FIELDS}


def prepare_records(papers: Iterable[Mapping[str, Any]], corpus: Any, retriever: Any = None, k: int = DEFAULT_K,
                    oracle: bool = False, *, seed: int | None = 42, include_introduction: bool = False,
                    show_progress: bool = False) -> list[dict[str, Any]]:
    """One record per paper: its inputs plus ``candidate_docs`` (ordered ``{"doc_id", "title", "abstract"}``).

    - ``oracle=True``: the gold citations present in the corpus, in `oracle_order`;
    - else with a `retriever`: its top-`k` for the query `build_query(paper, include_introduction)`, the target
      paper itself excluded; all papers are searched in ONE `search` call;
    - else (Direct, or Workflow, which retrieves by itself): no candidates.

    A paper with no query text or no gold citation in the corpus gets an empty list (the method then fails it
    with a clear error, so it is recorded rather than lost). `corpus` may be a `CorpusLookup`.
    """
    papers = [dict(p) for p in papers]
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    records = [paper_inputs(p) for p in papers]
    for record in records:
        record["candidate_docs"] = []
    if not oracle and retriever is None:
        return records
    lookup = corpus if isinstance(corpus, CorpusLookup) else CorpusLookup(corpus)
    if oracle:
        for paper, record in zip(papers, records):
            gold = [d for d in paper.get("citations") or [] if d != paper["paper_id"]]
            record["candidate_docs"] = lookup.docs(oracle_order(gold, seed, paper["paper_id"]),
                                                   f"gold citations of {paper['paper_id']}")
        return records

    queries = {i: build_query(p, include_introduction) for i, p in enumerate(papers)}
    queries = {i: q for i, q in queries.items() if q}
    for i in set(range(len(papers))) - set(queries):
        logger.warning("paper %s has no title or abstract to search with: it gets no candidates",
                       papers[i]["paper_id"])
    if not queries:
        return records
    order = sorted(queries)
    # One more hit than asked for, so that dropping the target paper still leaves k.
    results = retriever.search([queries[i] for i in order], k=k + 1, show_progress=show_progress)
    for i, result in zip(order, results):
        paper_id = papers[i]["paper_id"]
        ranked = [d for d in result.doc_ids if d != paper_id][:k]
        records[i]["candidate_docs"] = lookup.docs(ranked, f"retrieved for {paper_id}")
    return records


# --------------------------------------------------------------------------------------------------------------
# Prompt pieces
# --------------------------------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def target_block(record: Mapping[str, Any], introduction: bool = True) -> str:
    """The target paper as every prompt shows it. Numeric brackets in its text become parentheses, so that
    they cannot be mistaken for candidate numbers."""
    lines = ["## Target paper", f"Title: {_text(record.get('title'))}",
             f"Abstract: {neutralize_markers(_text(record.get('abstract'))) or NO_ABSTRACT}"]
    if introduction:
        lines += ["Introduction:", neutralize_markers(_text(record.get("introduction"))) or "(no introduction available)"]
    return "\n".join(lines)


def rag_candidates_block(docs: Sequence[Mapping[str, Any]]) -> str:
    """``[i] Title: …`` / ``Abstract: …`` for every candidate, numbered from 1."""
    return "\n\n".join(f"[{i}] Title: {_text(d.get('title'))}\nAbstract: {_text(d.get('abstract')) or NO_ABSTRACT}"
                       for i, d in enumerate(docs, 1))


def alce_documents_block(docs: Sequence[Mapping[str, Any]]) -> str:
    """ALCE's passage format: ``Document [i] (Title: …): <full abstract>``."""
    return "\n\n".join(f"Document [{i}] (Title: {_text(d.get('title'))}): {_text(d.get('abstract')) or NO_ABSTRACT}"
                       for i, d in enumerate(docs, 1))


def titles_block(docs: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(f"[{i}] {_text(d.get('title'))}" for i, d in enumerate(docs, 1))


def user(content: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": content}]


_HEADING = re.compile(r"^\s*(?:#+\s*|\*\*)?\s*(?:\d+\.?\s*)?related\s+work[s]?\s*(?:section)?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$",
                      re.IGNORECASE)


def clean_section(text: str) -> str:
    """The reply without a leading 'Related Work' heading line and surrounding blank space."""
    lines = (text or "").strip().splitlines()
    while lines and (not lines[0].strip() or _HEADING.match(lines[0])):
        lines.pop(0)
    return "\n".join(lines).strip()


def _require_candidates(record: Mapping[str, Any], method: str) -> list[dict[str, Any]]:
    docs = list(record.get("candidate_docs") or [])
    if not docs:
        raise ValueError(f"paper {record.get('paper_id')!r} has no candidate papers for method {method!r}: the "
                         "retriever found none (or the paper has no title/abstract to search with), or, with "
                         "--oracle, none of its gold citations is in the corpus")
    return docs


class _Meta:
    """What every method adds to its output: the candidate doc_ids, the retriever and k."""

    name = "method"

    def __init__(self, retriever: str | None = None, k: int | None = DEFAULT_K) -> None:
        self.retriever_name = retriever
        self.k = k

    def _extra(self, candidates: Sequence[Mapping[str, Any]], **more: Any) -> dict[str, Any]:
        return {"candidates": [d["doc_id"] for d in candidates], "retriever": self.retriever_name, "k": self.k, **more}


class _SinglePrompt(_Meta, ABC):
    """A method that is one request over the record's candidates."""

    needs_candidates = True

    @abstractmethod
    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """The one request's messages for `record`."""

    def parse(self, reply: str) -> tuple[str, dict[str, Any]]:
        return clean_section(reply), {}

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        docs = _require_candidates(record, self.name) if self.needs_candidates else []
        messages = self.prompt(record)
        pred, more = self.parse(await llm(messages))
        return Generated(pred, prompt_text(messages), self._extra(docs, **more))


# --------------------------------------------------------------------------------------------------------------
# Direct, RAG, ALCE, TAG
# --------------------------------------------------------------------------------------------------------------

_REFERENCES = re.compile(r"^\s*(?:#+\s*|\*\*)?\s*(?:references|bibliography|reference list)\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$",
                         re.IGNORECASE | re.MULTILINE)
_REFERENCE_LINE = re.compile(r"^\s*[-*]?\s*\[(\d+)\]\s*[:.-]?\s*(.+?)\s*$")


class Direct(_SinglePrompt):
    """No candidates: the model cites from memory and lists the titles it cites after a 'References' line."""

    name = "direct"
    needs_candidates = False

    def __init__(self, retriever: str | None = None, k: int | None = None) -> None:
        super().__init__(None, None)

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        return user(
            "You are writing the related-work section of the scientific paper described below. No list of papers "
            "is provided: draw on your own knowledge of the research literature to select the prior work the "
            "section should discuss, organise it into coherent themes, and make clear how the target paper relates "
            "to and differs from that work.\n\n"
            f"{target_block(record)}\n\n"
            "## Instructions\n"
            "Cite prior work with numbers in square brackets, [1], [2], ..., numbering the works in the order you "
            "first cite them; put several works in one bracket, e.g. [2, 5]. Cite only real publications you are "
            "confident exist. After the section, write a line containing only 'References', followed by one line "
            "per cited number in the form '[n] Full title of the work'. Apart from that list, write only the text "
            "of the section: plain paragraphs, no section heading, no preamble."
        )

    def parse(self, reply: str) -> tuple[str, dict[str, Any]]:
        matches = list(_REFERENCES.finditer(reply or ""))
        if not matches:
            return clean_section(reply), {"references": []}
        cut = matches[-1]
        references = []
        for line in reply[cut.end():].splitlines():
            m = _REFERENCE_LINE.match(line)
            if m:
                references.append({"n": int(m.group(1)), "title": m.group(2).strip().strip('"*')})
        return clean_section(reply[: cut.start()]), {"references": references}


class RAG(_SinglePrompt):
    """The top-k retrieved papers, title and abstract, numbered [1] … [k]."""

    name = "rag"

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        docs = list(record.get("candidate_docs") or [])
        return user(
            "You are writing the related-work section of the scientific paper described below. A numbered list of "
            "candidate papers retrieved from a literature corpus follows the paper. Choose the candidates that "
            "belong in the section (not all of them are relevant), organise them into coherent themes, and make "
            "clear how the target paper relates to and differs from the work you cite.\n\n"
            f"{target_block(record)}\n\n"
            f"## Candidate papers ({len(docs)})\n{rag_candidates_block(docs)}\n\n"
            f"## Instructions\n{MARKER_INSTRUCTION}\n{OUTPUT_INSTRUCTION}"
        )


class ALCE(_SinglePrompt):
    """ALCE VANILLA: full abstracts as numbered documents and explicit grounding instructions."""

    name = "alce"

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        docs = list(record.get("candidate_docs") or [])
        return user(
            "Instruction: Write the related-work section of the target paper below, using only the numbered "
            "documents provided after it (the abstracts of papers retrieved from a literature corpus). Some of "
            "the documents may be irrelevant to the target paper: leave those out. Ground what you write in the "
            "documents:\n"
            "- every sentence that describes or characterises prior work must cite at least one document that "
            "supports it, and at most three;\n"
            "- when several documents support a sentence, cite the smallest set of them that suffices;\n"
            "- state nothing about a document that its title and abstract do not support, and never cite a "
            "document for a claim it does not make;\n"
            "- sentences about the target paper itself (its aims, how it differs from the cited work) need no "
            "citation.\n"
            "Use a neutral, scholarly tone and organise the section by theme.\n\n"
            f"{target_block(record)}\n\n"
            f"## Documents ({len(docs)})\n{alce_documents_block(docs)}\n\n"
            f"## Citation format\n{MARKER_INSTRUCTION.replace('numbered list above', 'numbered documents above')}\n"
            f"{OUTPUT_INSTRUCTION}"
        )


_MARKUP = r"\s*(?:#+\s*)?[*_]*\s*"
_KEYPHRASES_LINE = re.compile(rf"^{_MARKUP}key\s*-?\s*phrases{_MARKUP}(?::[*_]*\s*(?P<rest>.*))?$", re.IGNORECASE)
_RELATED_LINE = re.compile(rf"^{_MARKUP}related\s+work(?:\s+section)?[*_]*\s*(?::[*_]*\s*(?P<rest>.*)|[*_]*\s*)$",
                           re.IGNORECASE)


class TAG(_SinglePrompt):
    """Target-aware: keyphrase-guided organisation and how the target relates to each cited paper."""

    name = "tag"

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        docs = list(record.get("candidate_docs") or [])
        return user(
            "You are writing a target-aware related-work section for the scientific paper described below, from "
            "a numbered list of candidate papers retrieved from a literature corpus (not all of them are "
            "relevant). Work in two steps.\n"
            "Step 1 (keyphrases): identify 4 to 8 keyphrases that capture the target paper's research problem, "
            "methods and contributions.\n"
            "Step 2 (writing): write the related-work section organised around these keyphrases: group the "
            "relevant candidates into thematic paragraphs, each led by one keyphrase or a group of closely related "
            "ones. For every paper you cite, say explicitly how the target paper relates to it: whether the "
            "target builds on it, extends it, addresses one of its limitations, differs from it in problem "
            "setting or method, or compares against it. Close each paragraph by positioning the target paper "
            "with respect to the work it discusses.\n\n"
            f"{target_block(record)}\n\n"
            f"## Candidate papers ({len(docs)})\n{rag_candidates_block(docs)}\n\n"
            f"## Instructions\n{MARKER_INSTRUCTION}\n"
            "Output format: a line 'KEYPHRASES:' followed by the keyphrases, one per line; then a line "
            "'RELATED WORK:' followed by the text of the section (plain paragraphs, no further heading)."
        )

    def parse(self, reply: str) -> tuple[str, dict[str, Any]]:
        """'KEYPHRASES:' lines, then 'RELATED WORK:' and the section; a reply without the second header is
        taken whole as the section."""
        lines = (reply or "").splitlines()
        at = next((i for i, line in enumerate(lines) if _RELATED_LINE.match(line)), None)
        if at is None:
            return clean_section(reply), {"keyphrases": []}
        rest = _RELATED_LINE.match(lines[at]).group("rest") or ""  # type: ignore[union-attr]
        body = "\n".join([rest, *lines[at + 1:]])
        keyphrases: list[str] = []
        start = next((i for i, line in enumerate(lines[:at]) if _KEYPHRASES_LINE.match(line)), None)
        if start is not None:
            first = _KEYPHRASES_LINE.match(lines[start]).group("rest") or ""  # type: ignore[union-attr]
            for line in [first, *lines[start + 1: at]]:
                line = re.sub(r"^\s*(?:[-*\u2022]|\d+[.)])\s*", "", line).strip().strip("*_").strip()
                parts = line.split(",") if "," in line and not line.endswith(".") else [line]
                keyphrases.extend(p.strip() for p in parts if p.strip())
        return clean_section(body), {"keyphrases": keyphrases}


# --------------------------------------------------------------------------------------------------------------
# Workflow
# --------------------------------------------------------------------------------------------------------------


def parse_json_reply(text: str) -> Any:
    """The JSON object (or list) in a model reply, fenced or not; None when there is none."""
    text = (text or "").strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1).strip()
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if start != -1 and end > start:
            try:
                return json.loads(text[start:end + 1])
            except json.JSONDecodeError:
                continue
    return None


def _themes_from(value: Any, key: str) -> list[dict[str, Any]] | None:
    """[{"theme", "queries"}] from a parsed reply ({key: [...]} or a bare list); None when unreadable."""
    items = value.get(key) if isinstance(value, dict) else value
    if not isinstance(items, list):
        return None
    themes = []
    for item in items:
        if isinstance(item, str) and item.strip():
            themes.append({"theme": item.strip(), "queries": [item.strip()]})
        elif isinstance(item, dict):
            name = _text(item.get("theme") or item.get("name") or item.get("title"))
            queries = item.get("queries") or item.get("query") or []
            queries = [queries] if isinstance(queries, str) else queries
            queries = [q.strip() for q in queries if isinstance(q, str) and q.strip()] or ([name] if name else [])
            if name or queries:
                themes.append({"theme": name or queries[0], "queries": queries})
    return themes


class Workflow(_Meta):
    """Plan themes → retrieve per query (k = 20) → draft → coverage check → at most 2 refinements.

    `retriever` and `corpus` serve the queries at run time (the target paper is excluded from every hit list).
    Searches run in a worker thread, one at a time (`threading.Lock`), so several papers can be in flight.
    A record whose ``candidate_docs`` are set is an oracle record: the queries then search only those papers.
    """

    name = "workflow"

    def __init__(self, retriever: Any = None, corpus: Any = None, *, retriever_name: str | None = None,
                 k: int = WORKFLOW_K, max_refinements: int = MAX_REFINEMENTS, max_themes: int = 6,
                 queries_per_theme: int = 2, max_queries: int = 10, oracle: bool = False) -> None:
        super().__init__("oracle" if oracle else retriever_name, k)
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if max_refinements < 0:
            raise ValueError(f"max_refinements must be >= 0, got {max_refinements}")
        self.retriever = retriever
        self.lookup = None if corpus is None else (corpus if isinstance(corpus, CorpusLookup) else CorpusLookup(corpus))
        self.oracle = oracle
        self.max_refinements = max_refinements
        self.max_themes, self.queries_per_theme, self.max_queries = max_themes, queries_per_theme, max_queries
        self._lock = threading.Lock()

    # -- prompts --------------------------------------------------------------------------------------------

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """The planning request (the first one)."""
        return user(
            "You are planning the related-work section of the scientific paper described below. Identify the "
            f"research themes the section should cover (at most {self.max_themes}): the lines of prior work the "
            "target paper builds on, compares against or departs from. For each theme write "
            f"1 to {self.queries_per_theme} search queries - short keyword queries, as you would type into a "
            "scholarly search engine - that would find the key papers of that theme.\n\n"
            f"{target_block(record)}\n\n"
            "## Answer format\n"
            'Answer with JSON only: {"themes": [{"theme": "<short name>", "queries": ["<query>", "..."]}, ...]}'
        )

    def _themes_text(self, themes: Sequence[Mapping[str, Any]]) -> str:
        return "\n".join(f"{i}. {t['theme']}" for i, t in enumerate(themes, 1))

    def write_prompt(self, record: Mapping[str, Any], themes: Sequence[Mapping[str, Any]],
                     docs: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
        return user(
            "You are writing the related-work section of the scientific paper described below. A plan of themes "
            "and a numbered list of candidate papers, retrieved from a literature corpus for those themes, follow "
            "the paper. Organise the section by the themes (one or more paragraphs each), cite the relevant "
            "candidates for each theme (not all candidates are relevant: leave the others out), and make clear "
            "how the target paper relates to and differs from the work you cite.\n\n"
            f"{target_block(record)}\n\n"
            f"## Themes\n{self._themes_text(themes)}\n\n"
            f"## Candidate papers ({len(docs)})\n{rag_candidates_block(docs)}\n\n"
            f"## Instructions\n{MARKER_INSTRUCTION}\n{OUTPUT_INSTRUCTION}"
        )

    def coverage_prompt(self, record: Mapping[str, Any], themes: Sequence[Mapping[str, Any]],
                        docs: Sequence[Mapping[str, Any]], found_for: Sequence[Sequence[int]], draft: str,
                        ) -> list[dict[str, str]]:
        cited = set(marker_numbers(draft))
        lines = []
        for i, (theme, numbers) in enumerate(zip(themes, found_for), 1):
            got = ", ".join(f"[{n}]" for n in numbers) or "none"
            used = ", ".join(f"[{n}]" for n in numbers if n in cited) or "none"
            lines.append(f"{i}. {theme['theme']} - retrieved for it: {got}; cited in the draft: {used}")
        return user(
            "You are checking the citation coverage of a draft related-work section. Below are the target paper, "
            "the planned themes (with the candidate papers retrieved for each and those the draft cites), the "
            "numbered candidate list and the draft. Decide which themes the draft leaves without adequate "
            "citations: a theme is covered when the draft discusses it and supports it with relevant papers from "
            "the list. For every uncovered theme, propose 1 or 2 new search queries (short keyword queries) that "
            "could find the papers it is missing.\n\n"
            f"{target_block(record, introduction=False)}\n\n"
            "## Themes\n" + "\n".join(lines) + "\n\n"
            f"## Candidate papers ({len(docs)})\n{titles_block(docs)}\n\n"
            f"## Draft\n{draft}\n\n"
            "## Answer format\n"
            'Answer with JSON only: {"uncovered": [{"theme": "<theme name>", "queries": ["<query>", "..."]}, ...]}; '
            'answer {"uncovered": []} when every theme is covered.'
        )

    def revise_prompt(self, record: Mapping[str, Any], themes: Sequence[Mapping[str, Any]],
                      docs: Sequence[Mapping[str, Any]], draft: str, uncovered: Sequence[Mapping[str, Any]],
                      n_before: int) -> list[dict[str, str]]:
        added = (f"Papers [{n_before + 1}] to [{len(docs)}] were added to the end of the list for these themes; the "
                 "numbers of the earlier papers are unchanged." if len(docs) > n_before
                 else "No new papers were found for them; use the papers already in the list.")
        return user(
            "You are revising a draft related-work section of the scientific paper described below. A coverage "
            "check found that the draft leaves some themes without adequate citations. Revise the draft so that "
            "these themes are discussed and supported by relevant papers from the numbered list, keep the "
            "citations of the draft that remain appropriate, and keep the section coherent and organised by "
            f"theme. {added}\n\n"
            f"{target_block(record)}\n\n"
            f"## Themes\n{self._themes_text(themes)}\n\n"
            "## Themes lacking citations\n" + "\n".join(f"- {t['theme']}" for t in uncovered) + "\n\n"
            f"## Candidate papers ({len(docs)})\n{rag_candidates_block(docs)}\n\n"
            f"## Draft\n{draft}\n\n"
            f"## Instructions\n{MARKER_INSTRUCTION}\n{OUTPUT_INSTRUCTION}"
        )

    # -- retrieval ------------------------------------------------------------------------------------------

    def _searcher(self, record: Mapping[str, Any]) -> Any:
        """search(queries) -> hit lists (doc dicts), the target excluded: the corpus, or the oracle pool."""
        paper_id = record.get("paper_id")
        if self.oracle:
            pool = [d for d in record.get("candidate_docs") or [] if _text(d.get("title")) or _text(d.get("abstract"))]
            if not pool:
                raise ValueError(f"paper {paper_id!r} has no candidate papers for method 'workflow' with --oracle: "
                                 "none of its gold citations is in the corpus")

            by_id = {d["doc_id"]: dict(d) for d in pool}
            index = BM25Retriever.from_corpus(pool, show_progress=False)

            def search_pool(queries: list[str]) -> list[list[dict[str, Any]]]:
                results = index.search(queries, k=min(self.k, len(pool)), show_progress=False)
                return [[by_id[d] for d in r.doc_ids if d != paper_id] for r in results]

            return search_pool

        if self.retriever is None or self.lookup is None:
            raise ValueError("the workflow method retrieves by itself: it needs a retriever and the corpus "
                             "(or oracle=True)")

        def search_corpus(queries: list[str]) -> list[list[dict[str, Any]]]:
            with self._lock:
                results = self.retriever.search(queries, k=self.k + 1, show_progress=False)
            return [self.lookup.docs([d for d in r.doc_ids if d != paper_id][: self.k], f"retrieved for {paper_id}")
                    for r in results]

        return search_corpus

    async def _retrieve(self, search: Any, queries: list[str], docs: list[dict[str, Any]],
                        step: dict[str, Any]) -> list[list[int]]:
        """Run `queries`, append unseen hits to `docs`; per query, the 1-based numbers of its hits."""
        seen = {d["doc_id"]: i for i, d in enumerate(docs, 1)}
        hits = await asyncio.to_thread(search, queries) if queries else []
        numbers = []
        before = len(docs)
        for found in hits:
            mine = []
            for doc in found:
                if doc["doc_id"] not in seen:
                    docs.append(doc)
                    seen[doc["doc_id"]] = len(docs)
                mine.append(seen[doc["doc_id"]])
            numbers.append(mine)
        step.update({"queries": queries, "k": self.k, "hits": [[d["doc_id"] for d in f] for f in hits],
                     "n_new": len(docs) - before})
        return numbers

    def _limit_queries(self, themes: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
        """At most `max_themes` themes, `queries_per_theme` queries each, `budget` queries in all."""
        kept, used = [], 0
        for theme in themes[: self.max_themes]:
            queries = list(dict.fromkeys(theme["queries"]))[: self.queries_per_theme][: max(0, budget - used)]
            used += len(queries)
            kept.append({"theme": theme["theme"], "queries": queries})
        return kept

    # -- the run --------------------------------------------------------------------------------------------

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        search = self._searcher(record)
        steps: list[dict[str, Any]] = []

        # 1. Plan the themes and their queries.
        reply = await llm(self.prompt(record))
        themes = _themes_from(parse_json_reply(reply), "themes")
        if not themes:  # no usable JSON: one theme per non-empty line
            themes = [{"theme": line, "queries": [line]} for line in
                      (re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", x).strip() for x in reply.splitlines()) if line]
        themes = self._limit_queries(themes, self.max_queries)
        if not any(t["queries"] for t in themes):
            raise ValueError(f"paper {record.get('paper_id')!r}: the planning step produced no search queries "
                             f"(reply: {reply[:200]!r})")
        steps.append({"step": "plan", "themes": themes, "reply": reply})

        # 2. Retrieve k per query; the candidate list is the union in order of step, query and rank.
        docs: list[dict[str, Any]] = []
        queries = [q for t in themes for q in t["queries"]]
        step: dict[str, Any] = {"step": "retrieve", "iteration": 0}
        numbers = await self._retrieve(search, queries, docs, step)
        steps.append(step)
        found_for = []
        position = 0
        for theme in themes:
            mine = numbers[position: position + len(theme["queries"])]
            position += len(theme["queries"])
            found_for.append(list(dict.fromkeys(n for hits in mine for n in hits)))
        if not docs:
            raise ValueError(f"paper {record.get('paper_id')!r} has no candidate papers for method 'workflow': "
                             f"its {len(queries)} queries retrieved nothing")

        # 3. Draft.
        messages = self.write_prompt(record, themes, docs)
        draft = clean_section(await llm(messages))
        steps.append({"step": "write", "n_candidates": len(docs)})

        # 4. Coverage check and at most `max_refinements` refinements.
        for iteration in range(1, self.max_refinements + 1):
            reply = await llm(self.coverage_prompt(record, themes, docs, found_for, draft))
            uncovered = _themes_from(parse_json_reply(reply), "uncovered")
            check = {"step": "coverage", "iteration": iteration, "reply": reply,
                     "uncovered": uncovered if uncovered is not None else "unreadable reply: stopped"}
            steps.append(check)
            if not uncovered:
                break
            uncovered = [{"theme": t["theme"], "queries": t["queries"][: self.queries_per_theme]}
                         for t in uncovered][: self.max_themes]
            uncovered = self._limit_queries(uncovered, self.max_queries)
            n_before = len(docs)
            step = {"step": "retrieve", "iteration": iteration}
            numbers = await self._retrieve(search, [q for t in uncovered for q in t["queries"]], docs, step)
            steps.append(step)
            position = 0
            for theme in uncovered:
                mine = [n for hits in numbers[position: position + len(theme["queries"])] for n in hits]
                position += len(theme["queries"])
                match = next((i for i, t in enumerate(themes) if t["theme"].lower() == theme["theme"].lower()), None)
                if match is None:
                    themes.append({"theme": theme["theme"], "queries": theme["queries"]})
                    found_for.append(list(dict.fromkeys(mine)))
                else:
                    found_for[match] = list(dict.fromkeys(found_for[match] + mine))
            messages = self.revise_prompt(record, themes, docs, draft, uncovered, n_before)
            draft = clean_section(await llm(messages))
            steps.append({"step": "refine", "iteration": iteration, "n_candidates": len(docs)})

        if self.oracle:  # the oracle list stays the whole gold set: unretrieved gold papers go last
            retrieved = {d["doc_id"] for d in docs}
            rest = [dict(d) for d in record.get("candidate_docs") or [] if d["doc_id"] not in retrieved]
            if rest:
                docs.extend(rest)
                steps.append({"step": "oracle-rest", "n_appended": len(rest)})
        refinements = sum(1 for s in steps if s["step"] == "refine")
        return Generated(draft, prompt_text(messages), self._extra(docs, steps=steps, refinements=refinements))


#: Method name -> class.
METHODS: dict[str, type] = {"direct": Direct, "rag": RAG, "alce": ALCE, "tag": TAG, "workflow": Workflow}


def resolve_methods(names: Sequence[str] | str | None) -> list[str]:
    """Method names from the command line ('all' = every method), in `METHODS` order, without repeats."""
    names = [names] if isinstance(names, str) else list(names or [])
    if not names:
        raise ValueError(f"choose a method: {', '.join(METHODS)}, several of them, or 'all'")
    wanted: list[str] = []
    for name in names:
        for part in str(name).split(","):
            part = part.strip().lower()
            if not part:
                continue
            if part == "all":
                wanted.extend(METHODS)
            elif part in METHODS:
                wanted.append(part)
            else:
                raise ValueError(f"unknown RWGBench method {part!r}; choose from {', '.join(METHODS)}, or 'all'")
    return [m for m in METHODS if m in set(wanted)]


def make_method(name: str, *, retriever: Any = None, corpus: Any = None, retriever_name: str | None = None,
                k: int = DEFAULT_K, oracle: bool = False, workflow_k: int = WORKFLOW_K,
                max_refinements: int = MAX_REFINEMENTS) -> Any:
    """The method `name` configured for a run (only Workflow uses `retriever` and `corpus`)."""
    if name not in METHODS:
        raise ValueError(f"unknown RWGBench method {name!r}; choose from {', '.join(METHODS)}, or 'all'")
    if name == "direct":
        return Direct()
    if name == "workflow":
        return Workflow(retriever, corpus, retriever_name=retriever_name, k=workflow_k,
                        max_refinements=max_refinements, oracle=oracle)
    return METHODS[name]("oracle" if oracle else retriever_name, None if oracle else k)
