"""The agent baseline beside RAG-BM25 on the offline sample (144 papers), through the real ``sciwrite generate
rwgbench --method agent`` against the tests' fake OpenAI server.

The scripted model searches with the paper's title and its abstract's sentences (up to 10 ``search`` calls, k = 10,
in one turn) and then cites the top 3 results of each search. It reads the title and abstract from the prompt, so it
sees what any model sees. The server reports usage as a real endpoint would: the prompt at one token per four bytes
(messages and tools), the reply's length likewise.

Printed, per paper on average:
- the papers cited, and the requests, prompt tokens and completion tokens (from the run's usage ledger);
- the agent's recall of the gold citations, beside RAG-BM25's at the same number of cited papers: the top-m of the
  BM25 candidate list RAG is given (query: title + abstract), m being the number the agent cited for that paper;
- the share of the gold citations any tool showed the agent (``sciwrite evaluate``'s agent block).

    .venv/bin/python scripts/bench/agent_vs_rag.py
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the repository root, for tests.fakes
from tests.fakes.openai_server import ChatServer, Reply  # noqa: E402

PER_SEARCH = 3
MAX_QUERIES = 10


def tokens(text: str) -> int:
    return max(1, len(text.encode()) // 4)


def scripted(body: dict) -> Reply:
    """The first turn searches (title + abstract sentences); the next cites the top results of each search."""
    messages = body["messages"]
    prompt_tokens = tokens(json.dumps(messages)) + tokens(json.dumps(body.get("tools") or []))
    results = [m["content"] for m in messages if m["role"] == "tool"]
    if not results:
        user = next(m["content"] for m in messages if m["role"] == "user")
        title = re.search(r"^Title: (.*)$", user, re.MULTILINE).group(1)
        abstract = re.search(r"^Abstract: (.*)$", user, re.MULTILINE).group(1)
        sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", abstract) if len(s.split()) > 3]
        calls = [{"id": f"call_{i}", "name": "search", "arguments": json.dumps({"query": q, "k": 10})}
                 for i, q in enumerate([title, *sentences][:MAX_QUERIES])]
        return Reply(None, tool_calls=calls, prompt_tokens=prompt_tokens, completion_tokens=20 * len(calls))
    cited: list[int] = []
    for text in results:
        for number in [int(n) for n in re.findall(r"^\[(\d+)\]", text, re.MULTILINE)][:PER_SEARCH]:
            if number not in cited:
                cited.append(number)
    answer = "Prior work " + " ".join(f"studied this [{n}]." for n in cited)
    return Reply(answer, prompt_tokens=prompt_tokens, completion_tokens=tokens(answer))


def quietly(argv: list[str]) -> int:
    from sciwrite.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def main() -> None:
    from sciwrite.retrieval.bm25 import BM25Retriever
    from sciwrite.retrieval.query import build_query
    from sciwrite.rwgbench.data.loading import load_rwgbench
    from sciwrite.rwgbench.data.sample_folder import write_sample_folder

    work = Path(tempfile.mkdtemp(prefix="agent_vs_rag_"))
    source = work / "sample"
    write_sample_folder(source, show_progress=False)
    out = work / "gen"
    os.environ.update(SCIWRITE_LLM_API_KEY="bench", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    with ChatServer(scripted) as server:
        status = quietly(["generate", "rwgbench", "--model", "tiny-chat", "--base-url", server.base_url, "--method",
                          "agent", "--source", str(source), "--out", str(out), "--concurrency", "8"])
    assert status == 0, status
    [predictions] = [p for p in out.glob("*.jsonl") if p.name not in ("usage.jsonl",) and "traces" not in p.name]
    assert quietly(["evaluate", "rwgbench", "--predictions", str(predictions), "--source", str(source), "--profile",
                    "lite", "--no-judge", "--metrics", "precision", "recall", "--out", str(work / "eval")]) == 0
    summary = json.loads((work / "eval" / predictions.stem / "summary.json").read_text())
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    ledger = [json.loads(line) for line in (out / "usage.jsonl").read_text().splitlines()]

    papers = {p["paper_id"]: p for p in load_rwgbench("sample", source=str(source)).to_list()}
    corpus = load_rwgbench("sample_corpus", source=str(source))
    bm25 = BM25Retriever.from_corpus(corpus, show_progress=False)
    agent_recall, rag_recall, cited = [], [], []
    for line in lines:
        paper = papers[line["paper_id"]]
        gold = set(paper["citations"])
        chosen = list(dict.fromkeys(line["candidates"]))
        m = len(chosen)
        top = bm25.search([build_query(paper, False)], k=m + 1, show_progress=False)[0].doc_ids
        rag = [d for d in top if d != paper["paper_id"]][:m]
        agent_recall.append(len(set(chosen) & gold) / len(gold))
        rag_recall.append(len(set(rag) & gold) / len(gold))
        cited.append(m)
    n = len(lines)
    print(json.dumps({
        "papers": n, "cited_per_paper": round(statistics.fmean(cited), 2),
        "agent_recall": round(statistics.fmean(agent_recall), 4),
        "rag_bm25_recall_same_number_cited": round(statistics.fmean(rag_recall), 4),
        "evaluate_recall": round(summary["recall"], 4),
        "gold_recall_seen": round(summary["agent"]["gold_recall_seen"], 4),
        "tool_calls_per_paper": round(summary["agent"]["tool_calls_per_paper"], 2),
        "requests_per_paper": round(len(ledger) / n, 2),
        "prompt_tokens_per_paper": round(sum(x["prompt_tokens"] or 0 for x in ledger) / n),
        "completion_tokens_per_paper": round(sum(x["completion_tokens"] or 0 for x in ledger) / n)}, indent=1))


if __name__ == "__main__":
    main()
