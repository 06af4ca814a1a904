"""The Workflow method (§5.2): theme planning, several searches, a draft, coverage checks and revisions.

theme planning → several retrieval queries (k = 20 each) → draft → citation-coverage check (which themes lack
citations?) → up to 2 refinement iterations (new queries, revised draft): five prompts, one template each
(``templates/workflow_*.txt``). Its candidate list is the union of everything it retrieved, in a stable order:
by step, then query, then rank; papers added by a refinement go to the end, so earlier markers keep their
meaning. Every step is kept in ``extra["steps"]``. With the Oracle list (``oracle=True``) the gold papers are
the whole search space: its queries rank them (BM25 over them). The candidate list is only what the model was
shown: a gold paper no query found is not in it, so no marker can resolve to a paper the model never saw (§5.1:
"Each citation marker [i] is mapped back to the i-th supplied candidate paper"). Replies are read leniently
(`sciwrite.generation.json_reply.parse_json_reply`): a plan without usable JSON becomes one theme per line, an
unreadable coverage check ends the refinements.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sciwrite.generation.corpus_lookup import as_lookup
from sciwrite.generation.json_reply import parse_json_reply
from sciwrite.generation.runner import Generated, PaperLLM, prompt_text
from sciwrite.generation.stages import MethodStage, run_stages
from sciwrite.generation.templates import field_text
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.rwgbench.generation.prompts import (
    MARKER_INSTRUCTION,
    OUTPUT_INSTRUCTION,
    clean_section,
    fill,
    rag_candidates_block,
    target_block,
    titles_block,
    user,
)
from sciwrite.rwgbench.generation.records import CandidatesMethod
from sciwrite.sources.markers import marker_numbers

#: Papers retrieved per query (§5.2: "k=20 per query").
WORKFLOW_K = 20
#: Refinement iterations at most (§5.2: "up to 2 iterations").
MAX_REFINEMENTS = 2


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
            name = field_text(item.get("theme") or item.get("name") or item.get("title"))
            queries = item.get("queries") or item.get("query") or []
            queries = [queries] if isinstance(queries, str) else queries
            queries = [q.strip() for q in queries if isinstance(q, str) and q.strip()] or ([name] if name else [])
            if name or queries:
                themes.append({"theme": name or queries[0], "queries": queries})
    return themes


@dataclass
class WorkflowProgress:
    """One paper's Workflow run between stages: its themes, the candidates found so far (marker order), the
    candidate numbers found per theme, the current draft and the request that wrote it, every step's record, and
    how many coverage checks and refinements were done."""

    record: Mapping[str, Any]
    search: Callable[[list[str]], list[list[dict[str, Any]]]]
    themes: list[dict[str, Any]] = field(default_factory=list)
    docs: list[dict[str, Any]] = field(default_factory=list)
    found_for: list[list[int]] = field(default_factory=list)
    draft: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    coverage_checks: int = 0
    refinements: int = 0
    covered: bool = False  # a coverage check found every theme covered (or could not be read): no more refining


class Workflow(CandidatesMethod):
    """Plan themes → retrieve per query (k = 20) → draft → coverage check → at most 2 refinements.

    `retriever` and `corpus` serve the queries at run time (the target paper is excluded from every hit list).
    Searches run in a worker thread, one at a time (`threading.Lock`), so several papers can be in flight.
    With ``oracle=True`` the queries search only the record's ``candidate_docs`` (the Oracle list), never the corpus.
    """

    name = "workflow"
    k: int  # always a number here (the base class allows None for methods without retrieval)

    def __init__(self, retriever: Any = None, corpus: Any = None, *, retriever_name: str | None = None,
                 k: int = WORKFLOW_K, max_refinements: int = MAX_REFINEMENTS, max_themes: int = 6,
                 queries_per_theme: int = 2, max_queries: int = 10, oracle: bool = False) -> None:
        super().__init__("oracle" if oracle else retriever_name, k)
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if max_refinements < 0:
            raise ValueError(f"max_refinements must be >= 0, got {max_refinements}")
        self.retriever = retriever
        self.lookup = None if corpus is None else as_lookup(corpus)
        self.oracle = oracle
        self.max_refinements = max_refinements
        self.max_themes, self.queries_per_theme, self.max_queries = max_themes, queries_per_theme, max_queries
        self._lock = threading.Lock()

    # -- prompts --------------------------------------------------------------------------------------------

    def prompt(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """The planning request (the first one)."""
        return user(fill("workflow_plan", max_themes=self.max_themes, queries_per_theme=self.queries_per_theme,
                         target=target_block(record)))

    def _themes_text(self, themes: Sequence[Mapping[str, Any]]) -> str:
        return "\n".join(f"{i}. {t['theme']}" for i, t in enumerate(themes, 1))

    def write_prompt(self, record: Mapping[str, Any], themes: Sequence[Mapping[str, Any]],
                     docs: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
        """The draft request over the candidates retrieved for the themes."""
        return user(fill("workflow_write", target=target_block(record), themes=self._themes_text(themes),
                         n_candidates=len(docs), candidates=rag_candidates_block(docs),
                         marker_instruction=MARKER_INSTRUCTION, output_instruction=OUTPUT_INSTRUCTION))

    def coverage_prompt(self, record: Mapping[str, Any], themes: Sequence[Mapping[str, Any]],
                        docs: Sequence[Mapping[str, Any]], found_for: Sequence[Sequence[int]], draft: str,
                        ) -> list[dict[str, str]]:
        """The coverage check of `draft`: per theme, the numbers retrieved for it and those the draft cites."""
        cited = set(marker_numbers(draft))
        lines = []
        for i, (theme, numbers) in enumerate(zip(themes, found_for), 1):
            got = ", ".join(f"[{n}]" for n in numbers) or "none"
            used = ", ".join(f"[{n}]" for n in numbers if n in cited) or "none"
            lines.append(f"{i}. {theme['theme']} - retrieved for it: {got}; cited in the draft: {used}")
        return user(fill("workflow_coverage", target=target_block(record, introduction=False),
                         themes="\n".join(lines), n_candidates=len(docs), titles=titles_block(docs), draft=draft))

    def revise_prompt(self, record: Mapping[str, Any], themes: Sequence[Mapping[str, Any]],
                      docs: Sequence[Mapping[str, Any]], draft: str, uncovered: Sequence[Mapping[str, Any]],
                      n_before: int) -> list[dict[str, str]]:
        """The revision request after a check found `uncovered` themes; papers past `n_before` are new."""
        added = (fill("workflow_revise_added", first_new=n_before + 1, n_candidates=len(docs))
                 if len(docs) > n_before else fill("workflow_revise_none"))
        return user(fill("workflow_revise", added=added, target=target_block(record),
                         themes=self._themes_text(themes),
                         uncovered="\n".join(f"- {t['theme']}" for t in uncovered),
                         n_candidates=len(docs), candidates=rag_candidates_block(docs), draft=draft,
                         marker_instruction=MARKER_INSTRUCTION, output_instruction=OUTPUT_INSTRUCTION))

    # -- retrieval ------------------------------------------------------------------------------------------

    def _searcher(self, record: Mapping[str, Any]) -> Any:
        """search(queries) -> hit lists (doc dicts), the target excluded: the corpus, or the oracle pool."""
        paper_id = record.get("paper_id")
        if self.oracle:
            pool = [d for d in record.get("candidate_docs") or []
                    if field_text(d.get("title")) or field_text(d.get("abstract"))]
            if not pool:
                raise ValueError(f"paper {paper_id!r} has no candidate papers for method 'workflow' with --oracle: "
                                 "none of its gold citations is in the corpus")

            by_id = {d["doc_id"]: dict(d) for d in pool}
            index = BM25Retriever.from_corpus(pool, show_progress=False)

            def search_pool(queries: list[str]) -> list[list[dict[str, Any]]]:
                results = index.search(queries, k=min(self.k, len(pool)), show_progress=False)
                return [[by_id[d] for d in r.doc_ids if d != paper_id] for r in results]

            return search_pool

        retriever, lookup = self.retriever, self.lookup
        if retriever is None or lookup is None:
            raise ValueError("the workflow method retrieves by itself: it needs a retriever and the corpus "
                             "(or oracle=True)")

        def search_corpus(queries: list[str]) -> list[list[dict[str, Any]]]:
            with self._lock:
                results = retriever.search(queries, k=self.k + 1, show_progress=False)
            return [lookup.docs([d for d in r.doc_ids if d != paper_id][: self.k], f"retrieved for {paper_id}")
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

    # -- the run, stage by stage ------------------------------------------------------------------------------

    def start(self, record: Mapping[str, Any]) -> WorkflowProgress:
        """A paper's run before its first stage: its search (the corpus or the oracle pool) and nothing done yet."""
        return WorkflowProgress(record, self._searcher(record))

    def stages(self) -> tuple[MethodStage, ...]:
        """Plan → search → draft → one coverage check and refinement per iteration (none once a check finds every
        theme covered): what `run` runs in order, and what an Inspect run chains as solvers."""
        refinements = tuple(MethodStage(f"refine_{i}", self._refine) for i in range(1, self.max_refinements + 1))
        return (MethodStage("plan", self._plan), MethodStage("search", self._search),
                MethodStage("draft", self._draft), *refinements)

    def finish(self, progress: WorkflowProgress) -> Generated:
        """The last draft, the prompt that produced it, and the candidate list and steps."""
        # The candidate list is what the model was shown, also under --oracle: a marker resolves only to a paper
        # the model was given (§5.1), so gold papers no query found are not appended.
        return Generated(progress.draft, prompt_text(progress.messages),
                         self._extra(progress.docs, steps=progress.steps, refinements=progress.refinements),
                         request=list(progress.messages))

    async def run(self, record: Mapping[str, Any], llm: PaperLLM) -> Generated:
        return await run_stages(self, record, llm)

    async def _plan(self, progress: WorkflowProgress, llm: PaperLLM) -> None:
        """1. Plan the themes and their queries."""
        record = progress.record
        reply = await llm(self.prompt(record))
        themes = _themes_from(parse_json_reply(reply), "themes")
        if not themes:  # no usable JSON: one theme per non-empty line
            themes = [{"theme": line, "queries": [line]} for line in
                      (re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", x).strip() for x in reply.splitlines()) if line]
        themes = self._limit_queries(themes, self.max_queries)
        if not any(t["queries"] for t in themes):
            raise ValueError(f"paper {record.get('paper_id')!r}: the planning step produced no search queries "
                             f"(reply: {reply[:200]!r})")
        progress.themes = themes
        progress.steps.append({"step": "plan", "themes": themes, "reply": reply})

    async def _search(self, progress: WorkflowProgress, llm: PaperLLM) -> None:
        """2. Retrieve k per query; the candidate list is the union in order of step, query and rank."""
        themes = progress.themes
        queries = [q for t in themes for q in t["queries"]]
        step: dict[str, Any] = {"step": "retrieve", "iteration": 0}
        numbers = await self._retrieve(progress.search, queries, progress.docs, step)
        progress.steps.append(step)
        position = 0
        for theme in themes:
            mine = numbers[position: position + len(theme["queries"])]
            position += len(theme["queries"])
            progress.found_for.append(list(dict.fromkeys(n for hits in mine for n in hits)))
        if not progress.docs:
            raise ValueError(f"paper {progress.record.get('paper_id')!r} has no candidate papers for method "
                             f"'workflow': its {len(queries)} queries retrieved nothing")

    async def _draft(self, progress: WorkflowProgress, llm: PaperLLM) -> None:
        """3. Draft."""
        progress.messages = self.write_prompt(progress.record, progress.themes, progress.docs)
        progress.draft = clean_section(await llm(progress.messages))
        progress.steps.append({"step": "write", "n_candidates": len(progress.docs)})

    async def _refine(self, progress: WorkflowProgress, llm: PaperLLM) -> None:
        """4. One coverage check and, when it finds uncovered themes, one refinement (new queries, revised
        draft); nothing once an earlier check found every theme covered."""
        if progress.covered:
            return
        record, themes, docs, found_for = progress.record, progress.themes, progress.docs, progress.found_for
        iteration = progress.coverage_checks + 1
        reply = await llm(self.coverage_prompt(record, themes, docs, found_for, progress.draft))
        uncovered = _themes_from(parse_json_reply(reply), "uncovered")
        progress.steps.append({"step": "coverage", "iteration": iteration, "reply": reply,
                               "uncovered": uncovered if uncovered is not None else "unreadable reply: stopped"})
        progress.coverage_checks = iteration
        if not uncovered:
            progress.covered = True
            return
        uncovered = [{"theme": t["theme"], "queries": t["queries"][: self.queries_per_theme]}
                     for t in uncovered][: self.max_themes]
        uncovered = self._limit_queries(uncovered, self.max_queries)
        n_before = len(docs)
        step = {"step": "retrieve", "iteration": iteration}
        numbers = await self._retrieve(progress.search, [q for t in uncovered for q in t["queries"]], docs, step)
        progress.steps.append(step)
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
        progress.messages = self.revise_prompt(record, themes, docs, progress.draft, uncovered, n_before)
        progress.draft = clean_section(await llm(progress.messages))
        progress.steps.append({"step": "refine", "iteration": iteration, "n_candidates": len(docs)})
        progress.refinements += 1


__all__ = ["MAX_REFINEMENTS", "WORKFLOW_K", "Workflow", "WorkflowProgress"]
