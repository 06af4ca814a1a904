"""RWGBench generation methods: prompts, candidate preparation, the Workflow loop and the command, offline.

A tiny corpus built here (BM25 only), a fake async LLM for the Workflow and a fake backend for the runner.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

import pytest

from sciwrite.cli import generate as gen_cli
from sciwrite.generation.corpus_lookup import CorpusLookup
from sciwrite.generation.runner import prompt_text, run_generation
from sciwrite.llm.types import Completion
from sciwrite.rwgbench.benchmark import RWGBENCH
from sciwrite.rwgbench.generation import plan as gen
from sciwrite.rwgbench.generation.methods import (
    ALCE,
    MARKER_INSTRUCTION,
    METHODS,
    RAG,
    TAG,
    Direct,
    Workflow,
    make_method,
    oracle_order,
    prepare_records,
    resolve_methods,
)

CORPUS = [
    {"doc_id": "p-style", "title": "Aspect level sentiment style transfer",
     "abstract": "We rewrite sentences to change aspect level sentiment while keeping content."},
    {"doc_id": "d-transfer", "title": "Style transfer from non-parallel text by cross-alignment",
     "abstract": "Sentiment style transfer of sentences without parallel data using cross-aligned autoencoders."},
    {"doc_id": "d-delete", "title": "Delete, retrieve, generate: a simple approach to sentiment style transfer",
     "abstract": "Sentiment transfer by deleting attribute markers and retrieving target phrases."},
    {"doc_id": "d-absa", "title": "SemEval task: aspect based sentiment analysis",
     "abstract": "A shared task on aspect based sentiment analysis of restaurant and laptop reviews."},
    {"doc_id": "d-memnet", "title": "Aspect level sentiment classification with deep memory network",
     "abstract": ""},
    {"doc_id": "d-bert", "title": "BERT: pre-training of deep bidirectional transformers",
     "abstract": "Language model pre-training with masked language modelling on large text corpora."},
    {"doc_id": "d-nmt", "title": "Unsupervised neural machine translation",
     "abstract": "Translation trained on monolingual corpora only with denoising and back-translation."},
    {"doc_id": "d-parse", "title": "Dependency parsing with graph neural networks",
     "abstract": "A graph based dependency parser for many languages."},
    {"doc_id": "d-speech", "title": "End-to-end speech recognition with recurrent networks",
     "abstract": "Acoustic modelling of speech audio without phonetic alignments."},
    {"doc_id": "p-parse", "title": "Faster graph dependency parsing",
     "abstract": "We speed up graph based dependency parsing with pruning."},
]
PAPERS = [
    {"paper_id": "p-style", "title": "Aspect level sentiment style transfer",
     "abstract": "We rewrite sentences to change aspect level sentiment while keeping content.",
     "introduction": "Style transfer changes sentiment [3]. We use BERT and aspect based sentiment analysis.",
     "related_work": "GOLD RELATED WORK TEXT", "citations": ["d-transfer", "d-delete", "d-absa", "d-bert", "d-gone"],
     "venue": "AACL", "year": 2020},
    {"paper_id": "p-parse", "title": "Faster graph dependency parsing",
     "abstract": "We speed up graph based dependency parsing with pruning.",
     "introduction": "Parsing is slow.", "related_work": "GOLD", "citations": ["d-parse"], "venue": "ACL", "year": 2021},
    {"paper_id": "p-empty", "title": "", "abstract": "", "introduction": "Nothing to search with.",
     "related_work": "GOLD", "citations": ["d-gone"], "venue": "ACL", "year": 2021},
]


class SpyRetriever:
    """A BM25 retriever over CORPUS that records every search call."""

    def __init__(self) -> None:
        from sciwrite.retrieval.bm25 import BM25Retriever

        self.inner = BM25Retriever.from_corpus(CORPUS, show_progress=False)
        self.doc_ids = self.inner.doc_ids
        self.calls: list[tuple[list[str], int]] = []
        self.results: list[list[str]] = []

    def search(self, queries, k=50, show_progress=True):
        self.calls.append((list(queries), k))
        results = self.inner.search(queries, k=k, show_progress=False)
        self.results.extend(r.doc_ids for r in results)
        return results


@pytest.fixture
def spy():
    return SpyRetriever()


def record_with(docs, paper=PAPERS[0]):
    return {**{k: v for k, v in paper.items() if k not in ("related_work", "citations")},
            "candidate_docs": [{"doc_id": d["doc_id"], "title": d["title"], "abstract": d["abstract"]} for d in docs]}


# -- prompts ---------------------------------------------------------------------------------------------------


def test_rag_prompt_holds_the_target_and_numbered_title_and_abstract():
    record = record_with(CORPUS[1:5])
    text = prompt_text(RAG("bm25", 4).prompt(record))
    paper = PAPERS[0]
    assert paper["title"] in text and paper["abstract"] in text
    assert "Style transfer changes sentiment (3)." in text  # the intro's own bracket cannot pose as a marker
    expected = "\n\n".join(f"[{i}] Title: {d['title']}\nAbstract: {d['abstract'] or '(no abstract available)'}"
                           for i, d in enumerate(CORPUS[1:5], 1))
    assert expected in text
    assert MARKER_INSTRUCTION in text
    assert "[5]" not in text.split("## Candidate papers")[1].split("## Instructions")[0]
    assert "GOLD" not in text


def test_alce_prompt_has_full_abstracts_as_documents_and_grounding_rules():
    record = record_with(CORPUS[1:4])
    text = prompt_text(ALCE("bm25", 3).prompt(record))
    for i, doc in enumerate(CORPUS[1:4], 1):
        assert f"Document [{i}] (Title: {doc['title']}): {doc['abstract']}" in text
    for rule in ("using only the numbered documents", "may be irrelevant", "at least one document",
                 "at most three", "smallest set"):
        assert rule in text
    assert PAPERS[0]["introduction"].split(".")[1].strip() in text


def test_direct_prompt_has_no_candidates_and_keeps_its_reference_titles():
    method = Direct()
    text = prompt_text(method.prompt(record_with([])))
    assert PAPERS[0]["title"] in text and PAPERS[0]["abstract"] in text and "Parsing" not in text
    assert "Candidate" not in text and "Document [" not in text
    pred, extra = method.parse("Related Work\n\nStyle transfer [1] and ABSA [2].\n\nReferences\n"
                               "[1] Style transfer from non-parallel text\n[2] SemEval ABSA")
    assert pred == "Style transfer [1] and ABSA [2]."
    assert extra["references"] == [{"n": 1, "title": "Style transfer from non-parallel text"},
                                   {"n": 2, "title": "SemEval ABSA"}]


def test_tag_prompt_and_reply_parsing():
    record = record_with(CORPUS[1:4])
    text = prompt_text(TAG("bm25", 3).prompt(record))
    assert "keyphrases" in text.lower() and "how the target paper relates to it" in text
    assert f"[3] Title: {CORPUS[3]['title']}" in text
    pred, extra = TAG().parse("KEYPHRASES:\n- style transfer\n- aspect sentiment\n\nRELATED WORK:\n"
                              "Earlier work [1] transfers style; unlike it, we work per aspect [2, 3].")
    assert pred == "Earlier work [1] transfers style; unlike it, we work per aspect [2, 3]."
    assert extra["keyphrases"] == ["style transfer", "aspect sentiment"]
    assert TAG().parse("Just a section [1].")[0] == "Just a section [1]."


# -- candidate preparation ---------------------------------------------------------------------------------------


def test_prepare_records_excludes_the_target_respects_k_and_searches_once(spy):
    records = prepare_records(PAPERS, CORPUS, spy, k=3)
    assert len(spy.calls) == 1 and spy.calls[0][1] == 4  # one batched call; one extra hit for the target
    assert len(spy.calls[0][0]) == 2  # the paper without title/abstract is not searched
    style, parse, empty = records
    ids = [d["doc_id"] for d in style["candidate_docs"]]
    assert len(ids) == 3 and "p-style" not in ids
    assert spy.results[0][0] == "p-style"  # the target was the top hit and got dropped
    assert ids == [d for d in spy.results[0] if d != "p-style"][:3]
    assert "p-parse" not in [d["doc_id"] for d in parse["candidate_docs"]]
    assert empty["candidate_docs"] == []
    assert set(style["candidate_docs"][0]) == {"doc_id", "title", "abstract"}
    for record in records:
        assert "related_work" not in record and "citations" not in record
        assert {"paper_id", "title", "abstract", "introduction", "candidate_docs"} <= set(record)


def test_prepare_records_oracle_is_the_gold_set_in_a_seeded_order():
    records = prepare_records(PAPERS, CORPUS, None, oracle=True, seed=42)
    ids = [d["doc_id"] for d in records[0]["candidate_docs"]]
    assert set(ids) == {"d-transfer", "d-delete", "d-absa", "d-bert"}  # d-gone is not in the corpus
    assert ids == [d for d in oracle_order(PAPERS[0]["citations"], 42, "p-style") if d != "d-gone"]
    again = prepare_records(list(reversed(PAPERS)), CORPUS, None, oracle=True, seed=42)
    assert [d["doc_id"] for d in again[2]["candidate_docs"]] == ids  # independent of the other papers
    assert records[2]["candidate_docs"] == []
    assert all(r["candidate_docs"] == [] for r in prepare_records(PAPERS, CORPUS, None))  # Direct / Workflow


# -- Workflow ----------------------------------------------------------------------------------------------------


class ScriptedLLM:
    """Answers by the kind of request: plan, write, coverage check, revision."""

    def __init__(self, coverage_replies):
        self.coverage_replies = list(coverage_replies)
        self.requests: list[str] = []

    async def __call__(self, messages, **overrides):
        text = prompt_text(messages)
        self.requests.append(text)
        if text.startswith("You are planning"):
            return '```json\n{"themes": [{"theme": "Sentiment style transfer", "queries": ["sentiment style ' \
                   'transfer", "attribute markers"]}, {"theme": "Aspect based sentiment", "queries": ' \
                   '["aspect based sentiment analysis"]}]}\n```'
        if text.startswith("You are checking"):
            return self.coverage_replies.pop(0) if self.coverage_replies else '{"uncovered": []}'
        if text.startswith("You are revising"):
            return f"Revised draft {len(self.requests)} [1]."
        return "Related Work:\nDraft citing [1] and [2]."


def run_workflow(method, record, llm):
    return asyncio.run(method.run(record, llm))


def test_workflow_queries_k20_refines_at_most_twice_and_returns_the_union(spy):
    uncovered = '{"uncovered": [{"theme": "Pre-training", "queries": ["masked language model pre-training"]}]}'
    llm = ScriptedLLM([uncovered, uncovered, uncovered])
    method = Workflow(spy, CorpusLookup(CORPUS), retriever_name="bm25", k=20)
    result = run_workflow(method, record_with([]), llm)
    kinds = [re.match(r"You are (\w+)", r).group(1) for r in llm.requests]
    assert kinds == ["planning", "writing", "checking", "revising", "checking", "revising"]
    assert result.extra["refinements"] == 2
    assert [(s["step"], s.get("iteration")) for s in result.extra["steps"]] == [
        ("plan", None), ("retrieve", 0), ("write", None), ("coverage", 1), ("retrieve", 1), ("refine", 1),
        ("coverage", 2), ("retrieve", 2), ("refine", 2)]
    # queries: the 3 planned in one call, then one per refinement; k = 20 (+1 for the excluded target)
    assert [c[0] for c in spy.calls] == [["sentiment style transfer", "attribute markers",
                                          "aspect based sentiment analysis"],
                                         ["masked language model pre-training"],
                                         ["masked language model pre-training"]]
    assert all(k == 21 for _, k in spy.calls)
    retrieve_steps = [s for s in result.extra["steps"] if s["step"] == "retrieve"]
    assert all(s["k"] == 20 and all(len(h) <= 20 for h in s["hits"]) for s in retrieve_steps)
    expected = list(dict.fromkeys(d for hits in spy.results for d in hits if d != "p-style"))
    assert result.extra["candidates"] == expected and "p-style" not in expected
    assert result.extra["retriever"] == "bm25" and result.extra["k"] == 20
    assert result.pred.startswith("Revised draft") and result.desc.startswith("You are revising")
    assert f"[{len(expected)}] Title:" in result.desc


def test_workflow_stops_when_covered_and_on_an_unreadable_check(spy):
    llm = ScriptedLLM(['{"uncovered": []}'])
    result = run_workflow(Workflow(spy, CORPUS, retriever_name="bm25"), record_with([]), llm)
    assert result.extra["refinements"] == 0 and len(spy.calls) == 1
    assert result.pred == "Draft citing [1] and [2]." and result.desc.startswith("You are writing")
    llm = ScriptedLLM(["I think it is fine."])
    result = run_workflow(Workflow(spy, CORPUS, retriever_name="bm25"), record_with([]), llm)
    assert result.extra["refinements"] == 0


def test_workflow_oracle_searches_only_the_gold_papers():
    records = prepare_records(PAPERS, CORPUS, None, oracle=True)
    llm = ScriptedLLM(['{"uncovered": []}'])
    result = run_workflow(Workflow(oracle=True), records[0], llm)
    gold = {d["doc_id"] for d in records[0]["candidate_docs"]}
    assert result.extra["candidates"] and set(result.extra["candidates"]) <= gold  # nothing outside the gold set
    assert result.extra["retriever"] == "oracle"


def test_workflow_oracle_markers_resolve_only_to_papers_the_model_saw():
    """§5.1: a marker [i] maps to the i-th *supplied* paper; gold papers no query found are not appended."""
    record = prepare_records(PAPERS, CORPUS, None, oracle=True)[0]
    gold = [d["doc_id"] for d in record["candidate_docs"]]
    llm = ScriptedLLM(['{"uncovered": []}'])
    result = run_workflow(Workflow(oracle=True, k=1, max_queries=1, queries_per_theme=1), record, llm)
    shown = re.findall(r"^\[(\d+)\] Title:", result.desc, re.MULTILINE)
    assert len(result.extra["candidates"]) == len(shown) < len(gold)  # the list is what the prompt numbered
    assert set(result.extra["candidates"]) < set(gold)
    assert not any(step["step"] == "oracle-rest" for step in result.extra["steps"])


# -- the runner and the command ----------------------------------------------------------------------------------


class FakeBackend:
    model = "fake:model"

    def __init__(self) -> None:
        self.requests = []

    async def complete(self, messages, settings):
        self.requests.append(prompt_text(messages))
        n = len(re.findall(r"^\[\d+\] Title:", prompt_text(messages), re.MULTILINE))
        return Completion(f"Prior work [1] and [{n}] is related.", self.model, 10, 5)

    async def aclose(self):
        pass


def read_jsonl(path: Path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_generation_writes_lines_and_records_a_paper_without_candidates(spy, tmp_path):
    records = prepare_records(PAPERS, CORPUS, spy, k=4)
    out = tmp_path / "rag.jsonl"
    meta = {"benchmark": "rwgbench", "model": "fake:model", "method": "rag", "retriever": "bm25", "seed": 42, "k": 4}
    report = run_generation(records, RAG("bm25", 4), FakeBackend(), out, meta=meta, show_progress=False)
    assert (report.n_written, report.n_failed) == (2, 1)
    lines = read_jsonl(out)
    assert [line["paper_id"] for line in sorted(lines, key=lambda x: x["paper_id"])] == ["p-parse", "p-style"]
    for line in lines:
        record = next(r for r in records if r["paper_id"] == line["paper_id"])
        assert line["candidates"] == [d["doc_id"] for d in record["candidate_docs"]]
        assert line["desc"] == prompt_text(RAG("bm25", 4).prompt(record))
        assert line["pred"] == f"Prior work [1] and [{len(line['candidates'])}] is related."
        assert (line["model"], line["method"], line["retriever"], line["seed"], line["k"]) == \
            ("fake:model", "rag", "bm25", 42, 4)
    failed = read_jsonl(report.failures_path)
    assert [f["paper_id"] for f in failed] == ["p-empty"] and "no candidate papers" in failed[0]["error"]


def run_rwgbench(args):
    return gen_cli.run_generate(args, RWGBENCH)


def cli_args(tmp_path, *argv):
    parser = gen_cli.add_generate_arguments(argparse.ArgumentParser(), RWGBENCH)
    return parser.parse_args(["--out", str(tmp_path), *argv])


@pytest.fixture
def tiny_split(monkeypatch):
    monkeypatch.setattr(gen, "load_split", lambda split, source, corpus_source: (PAPERS, CORPUS))


def test_command_writes_one_file_per_method(tmp_path, tiny_split, monkeypatch):
    backend = FakeBackend()
    monkeypatch.setattr("sciwrite.generation.writer.WriterModel.backend", lambda writer: backend)
    args = cli_args(tmp_path, "--model", "openai:gpt-4o", "--method", "rag", "alce", "direct", "--k", "3",
                    "--concurrency", "1")
    reports = run_rwgbench(args)
    assert [r.n_written for r in reports] == [3, 2, 2]  # direct (no candidates needed), rag, alce
    rag = read_jsonl(tmp_path / "openai-gpt-4o_rwgbench-sample_rag_bm25.jsonl")
    assert {line["method"] for line in rag} == {"rag"} and all(len(line["candidates"]) == 3 for line in rag)
    assert all(line["benchmark"] == "rwgbench" and line["split"] == "sample" and line["oracle"] is False
               for line in rag)
    direct = read_jsonl(tmp_path / "openai-gpt-4o_rwgbench-sample_direct_none.jsonl")
    assert all(line["candidates"] == [] and line["retriever"] is None for line in direct)
    assert (tmp_path / "failed_samples_openai-gpt-4o_rwgbench-sample_alce_bm25.jsonl").exists()


def test_command_oracle_file_name_and_fields(tmp_path, tiny_split, monkeypatch):
    monkeypatch.setattr("sciwrite.generation.writer.WriterModel.backend", lambda writer: FakeBackend())
    run_rwgbench(cli_args(tmp_path, "--model", "openai:gpt-4o", "--method", "tag", "--oracle"))
    lines = read_jsonl(tmp_path / "openai-gpt-4o_rwgbench-sample_tag-oracle_bm25.jsonl")
    style = next(line for line in lines if line["paper_id"] == "p-style")
    assert set(style["candidates"]) == {"d-transfer", "d-delete", "d-absa", "d-bert"}
    assert style["retriever"] == "oracle" and style["oracle"] is True


def test_unknown_method_and_direct_oracle_are_clear_errors(tmp_path, tiny_split):
    with pytest.raises(ValueError, match="unknown RWGBench method 'magic'.*direct, rag, alce, tag, workflow"):
        run_rwgbench(cli_args(tmp_path, "--model", "openai:x", "--method", "rag", "magic"))
    with pytest.raises(ValueError, match="choose a method"):
        run_rwgbench(cli_args(tmp_path, "--model", "openai:x"))
    with pytest.raises(ValueError, match="direct method uses none"):
        run_rwgbench(cli_args(tmp_path, "--model", "openai:x", "--method", "direct", "--oracle"))
    assert resolve_methods(["all"]) == list(METHODS) and resolve_methods("tag,rag") == ["rag", "tag"]
    with pytest.raises(ValueError, match="unknown RWGBench method"):
        make_method("magic")


def test_empty_split_is_an_error(monkeypatch):
    monkeypatch.setattr("sciwrite.rwgbench.generation.plan.load_rwgbench", lambda config, source=None: [])
    with pytest.raises(ValueError, match="has no papers"):
        gen.load_split("sample", None, None)


def test_dry_run_prints_the_exact_prompt(tmp_path, tiny_split, capsys):
    run_rwgbench(cli_args(tmp_path, "--model", "openai:x", "--method", "alce", "workflow",
                                       "--k", "2", "--dry-run"))
    printed = capsys.readouterr().out
    record = prepare_records(PAPERS, CORPUS, SpyRetriever(), k=2)[0]
    assert prompt_text(ALCE("bm25", 2).prompt(record)) in printed
    assert prompt_text(Workflow().prompt(record)) in printed
    assert not list(tmp_path.iterdir())


def test_extractive_model_uses_the_extractive_floor(tmp_path, tiny_split, monkeypatch):
    extractive = pytest.importorskip("sciwrite.generation.extractive")
    import numpy as np

    def fake_embed(model, texts, **kwargs):  # bag of words hashed into 64 dims: no encoder to load
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, sum(map(ord, word)) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)

    monkeypatch.setattr("sciwrite.generation.extractive.embed", fake_embed)
    monkeypatch.setattr(extractive.ExtractiveRWGBench, "_model", lambda self: object())
    reports = run_rwgbench(cli_args(tmp_path, "--model", "extractive", "--k", "3", "--limit", "2"))
    assert reports[0].n_written == 2
    out = next(tmp_path.glob("extractive_rwgbench-sample_*_bm25.jsonl"))
    for line in read_jsonl(out):
        assert len(line["candidates"]) == 3 and line["retriever"] == "bm25" and line["k"] == 3
        assert all(1 <= int(n) <= 3 for n in re.findall(r"\[(\d+)\]", line["pred"]))
