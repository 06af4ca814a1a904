"""Snapshot of every RWGBench generation prompt, to prove that a refactoring changes no output.

Renders, on the offline RWGBench sample, every method's requests for the first ``--papers`` papers (10 by
default) and three made-up edge cases (`EDGE_PAPERS`: nothing to search with; braces and brackets in the
paper's text; no introduction), and writes them as JSON: Direct, RAG, ALCE and TAG with BM25 candidates
(k = 50 and 5) and with the Oracle list, and Workflow (BM25 and Oracle, plus one run with k = 5 and fewer
themes and queries) driven by a scripted fake model whose fixed replies take it through every step: theme
planning (JSON, fenced JSON, or plain lines), search, draft, coverage checks that name an existing theme, a new
theme and a theme whose queries find nothing, an unreadable check, and revisions. For every (configuration, paper) it keeps each request's messages as sent, the method's output
(``pred``, ``desc``, ``extra``) or the error it raised. Nothing is downloaded and no model is loaded.

    .venv/bin/python scripts/bench/rwgbench_prompts_snapshot.py --out /tmp/before.json
    # ... change the code ...
    .venv/bin/python scripts/bench/rwgbench_prompts_snapshot.py --out /tmp/after.json
    cmp /tmp/before.json /tmp/after.json   # byte-identical: no prompt and no output changed

``--source FOLDER`` reads an already built sample folder (``sciwrite build sample``); without it the sample is
built from the packaged ACL papers in a temporary folder; the whole run takes about 3 s on two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from sciwrite.generation.corpus_lookup import CorpusLookup
from sciwrite.generation.runner import prompt_text
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.data.sample_folder import write_sample_folder
from sciwrite.rwgbench.generation.methods import METHODS, make_method, prepare_records

SINGLE = ("direct", "rag", "alce", "tag")
#: Stop-word-free keyword queries that find nothing in the sample (BM25 gives no hit for unknown terms).
NOTHING = "zzqxv wqjkz"
#: Papers added to the sample's: one with nothing to search with (every method but Direct and Workflow fails it),
#: one whose texts hold placeholder-like braces and numeric brackets, one without an introduction.
EDGE_PAPERS = [
    {"paper_id": "edge-empty", "title": "", "abstract": "", "introduction": "Nothing to search with.",
     "related_work": "GOLD", "citations": ["no-such-doc"]},
    {"paper_id": "edge-braces", "title": "Parsing {draft} with {target} [1]",
     "abstract": "A {candidates} abstract on dependency parsing [2, 3] and {n_candidates} {max_themes}.",
     "introduction": "We parse {themes} sentences [4]; see {marker_instruction} and {}.",
     "related_work": "GOLD", "citations": []},
    {"paper_id": "edge-no-intro", "title": "Sentiment analysis of reviews", "abstract": "Reviews [1] and sentiment.",
     "introduction": "", "related_work": "GOLD", "citations": []},
]


class ScriptedLLM:
    """A fake model with fixed replies by request kind (the prompts' opening words), recording every request.

    `variant` (the paper's position modulo 3) picks the plan reply (JSON / fenced JSON / plain lines) and the
    coverage replies, so that the runs go through every branch of the Workflow loop."""

    def __init__(self, title: str, variant: int) -> None:
        self.variant = variant
        self.requests: list[list[dict[str, str]]] = []
        words = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", title)] or ["language", "model"]
        self.words = words + words
        self.n_checks = 0

    def plan(self) -> str:
        w = self.words
        themes = [{"theme": f"{w[0]} {w[1]}", "queries": [f"{w[0]} {w[1]}", f"{w[1]} {w[2]}", f"{w[2]} extra"]},
                  {"theme": f"{w[2]} methods", "queries": [w[2], w[3] if len(w) > 3 else "parsing"]},
                  {"theme": "Evaluation", "query": "evaluation benchmark"},
                  "Neural networks"]
        if self.variant == 0:
            return json.dumps({"themes": themes})
        if self.variant == 1:
            return f"Here is the plan:\n```json\n{json.dumps({'themes': themes}, indent=2)}\n```"
        return f"1. {w[0]} {w[1]}\n- {w[2]} analysis\n\n* corpus annotation"

    def coverage(self) -> str:
        self.n_checks += 1
        if self.variant == 0:
            replies = [{"uncovered": [{"theme": f"{self.words[0].upper()} {self.words[1]}",  # an existing theme
                                       "queries": ["sentiment analysis", "machine translation", "third query"]},
                                      {"theme": "Word embeddings", "queries": ["word embeddings vectors"]}]},
                       {"uncovered": [{"theme": "Nothing to find", "queries": [NOTHING]}]}]
            return json.dumps(replies[self.n_checks - 1]) if self.n_checks <= len(replies) else '{"uncovered": []}'
        if self.variant == 1:
            return '```json\n{"uncovered": [{"name": "Dialogue systems", "queries": "dialogue response generation"}]}\n```' \
                if self.n_checks == 1 else "Everything is covered now."
        return '{"uncovered": []}'

    async def __call__(self, messages: list[dict[str, str]], **overrides: Any) -> str:
        self.requests.append([dict(m) for m in messages])
        text = prompt_text(messages)
        n = len(self.requests)
        if text.startswith("You are planning"):
            return self.plan()
        if text.startswith("You are checking"):
            return self.coverage()
        if text.startswith("You are revising"):
            return f"## Related Work\n\nRevised draft {n} cites [1], [2, 3] and [{n + 40}]."
        if "KEYPHRASES:" in text:
            return ("**Keyphrases:** sentiment, parsing\n- machine translation\n\n**RELATED WORK:** First "
                    "paragraph [1].\nSecond paragraph [2, 3].")
        if text.startswith("You are writing the related-work section of the scientific paper described below. No "):
            return ("Related Work\n\nEarlier systems [1] and later ones [2].\n\nReferences\n[1] A first work\n"
                    "- [2]: \"A second work\"\n[3] A third work")
        return f"**Related Work**\n\nA draft ({n}) citing [1] and [2] and [5, 6]."


def run_one(method: Any, record: dict[str, Any], variant: int) -> dict[str, Any]:
    scripted = ScriptedLLM(record.get("title") or "", variant)
    entry: dict[str, Any] = {"prompt": method.prompt(record)}
    try:
        result = asyncio.run(method.run(record, scripted))
        entry.update(pred=result.pred, desc=result.desc, extra=result.extra)
    except ValueError as error:
        entry["error"] = str(error)
    entry["requests"] = scripted.requests
    return entry


def snapshot(source: Path, n_papers: int) -> dict[str, Any]:
    papers = [dict(p) for p in load_rwgbench("sample", source=source)][:n_papers] + EDGE_PAPERS
    corpus = load_rwgbench("sample_corpus", source=source)
    lookup = CorpusLookup(corpus)
    retriever = BM25Retriever.from_corpus(corpus, show_progress=False)
    configs: dict[str, dict[str, Any]] = {}
    for oracle in (False, True):
        mode = "oracle" if oracle else "bm25"
        records = {k: prepare_records(papers, lookup, None if oracle else retriever, k=k, oracle=oracle, seed=42,
                                      include_introduction=False)
                   for k in (50, 5)}
        direct_records = prepare_records(papers, lookup, None)
        for name in METHODS:
            if name == "workflow":
                variants = {f"workflow/{mode}": {}}
                if not oracle:
                    variants["workflow/bm25/k5-3themes-1query"] = {"workflow_k": 5, "max_refinements": 2}
                for label, options in variants.items():
                    method = make_method("workflow", retriever=retriever, corpus=lookup, retriever_name="bm25",
                                         oracle=oracle, **options)
                    if label.endswith("1query"):
                        method.max_themes, method.queries_per_theme, method.max_queries = 3, 1, 3
                    source_records = records[50] if oracle else direct_records
                    configs[label] = {r["paper_id"]: run_one(method, r, i % 3) for i, r in enumerate(source_records)}
                continue
            if name == "direct":
                if oracle:
                    continue
                method = make_method("direct")
                configs["direct"] = {r["paper_id"]: run_one(method, r, i % 3) for i, r in enumerate(direct_records)}
                continue
            for k in (50, 5):
                method = make_method(name, retriever=retriever, corpus=lookup, retriever_name="bm25", k=k,
                                     oracle=oracle)
                label = f"{name}/{mode}" + ("" if k == 50 else f"/k{k}")
                if oracle and k != 50:
                    continue
                configs[label] = {r["paper_id"]: run_one(method, r, i % 3) for i, r in enumerate(records[k])}
    return {"papers": [p["paper_id"] for p in papers], "methods": list(METHODS), "configs": configs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="the JSON file to write")
    parser.add_argument("--source", type=Path, help="a built RWGBench sample folder (default: build one)")
    parser.add_argument("--papers", type=int, default=10, help="how many papers of the sample (default 10)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = args.source
        if source is None:
            source = Path(tmp) / "sample"
            write_sample_folder(source, show_progress=False)
        data = snapshot(source, args.papers)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    n_requests = sum(len(e["requests"]) for c in data["configs"].values() for e in c.values())
    print(f"wrote {args.out}: {len(data['configs'])} configurations x {len(data['papers'])} papers, "
          f"{n_requests} requests")


if __name__ == "__main__":
    main()
