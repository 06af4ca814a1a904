"""RWGBench prompt templates: every file is attributed, the loader drops the note, and every method's request is
its template filled (nothing added, nothing lost); the shared loader SciIG uses too."""

from __future__ import annotations

import asyncio
import itertools
import re
from importlib import resources

import pytest

from sciwrite.generation.corpus_lookup import CorpusLookup
from sciwrite.generation.runner import prompt_text
from sciwrite.generation.templates import TEMPLATE_FOLDER, fill_placeholders, read_template
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.rwgbench.generation import prompts
from sciwrite.rwgbench.generation.methods import ALCE, RAG, TAG, Direct, Workflow
from sciwrite.sciig.generation import prompts as sciig_prompts

PAPER = "RWGBench (Xie et al., \"RWGBench: Evaluating Scholarly Positioning in Related Work Generation\", arXiv:2606.24894)"
CORPUS = [
    {"doc_id": "d-transfer", "title": "Style transfer from non-parallel text by cross-alignment",
     "abstract": "Sentiment style transfer of sentences without parallel data."},
    {"doc_id": "d-delete", "title": "Delete, retrieve, generate: sentiment style transfer",
     "abstract": "Sentiment transfer by deleting attribute markers."},
    {"doc_id": "d-absa", "title": "SemEval task: aspect based sentiment analysis", "abstract": ""},
    {"doc_id": "d-parse", "title": "Dependency parsing with graph neural networks",
     "abstract": "A graph based dependency parser."},
]
RECORD = {"paper_id": "p-style", "title": "Aspect level {draft} sentiment style transfer",
          "abstract": "We rewrite sentences [2] to change aspect level sentiment {target}.",
          "introduction": "Style transfer changes sentiment.", "candidate_docs": CORPUS[:3]}


def template_header(package: str, name: str) -> list[str]:
    """The ``#`` note lines at the top of a packaged template file (its attribution), as written."""
    text = resources.files(package).joinpath(TEMPLATE_FOLDER, name).read_text(encoding="utf-8")
    return list(itertools.takewhile(lambda line: line.startswith("#"), text.splitlines()))


def template_files() -> list[str]:
    folder = resources.files(prompts.TEMPLATE_PACKAGE).joinpath("templates")
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".txt"))


def filled_by(name: str, text: str) -> re.Match | None:
    """`text` is template `name` with each placeholder replaced by some text, and nothing else."""
    chunks = re.split(r"\{(?:" + "|".join(prompts.PLACEHOLDERS) + r")\}", prompts.template(name))
    return re.fullmatch("(.*?)".join(re.escape(c) for c in chunks), text, re.DOTALL)


def test_every_template_file_is_listed_and_opens_with_its_attribution():
    assert template_files() == sorted(prompts.TEMPLATE_FILES.values())
    for name in template_files():
        header = template_header(prompts.TEMPLATE_PACKAGE, name)
        note = " ".join(line.lstrip("# ") for line in header)
        assert header and header[0].startswith("# RWGBench (Xie et al."), name
        assert PAPER in note, name
        # The paper prints no RWGBench prompt: each file says so, where the paper describes the method, and whose
        # wording it is.
        assert "Not printed in the paper (§5." in note and "our wording" in note, name
        assert "this note, not the prompt" in note, name


def test_the_loader_drops_the_note_and_keeps_the_prompt_whole():
    for key, name in prompts.TEMPLATE_FILES.items():
        raw = resources.files(prompts.TEMPLATE_PACKAGE).joinpath("templates", name).read_text(encoding="utf-8")
        header = template_header(prompts.TEMPLATE_PACKAGE, name)
        text = prompts.template(key)
        assert not text.startswith("#") and text.strip() == text
        assert all(line not in text for line in header)
        assert raw == "\n".join(header) + "\n" + text + "\n"
    with pytest.raises(ValueError, match="unknown RWGBench prompt template 'nope'"):
        prompts.template("nope")


def test_every_placeholder_of_a_template_is_a_known_one():
    for key in prompts.TEMPLATE_FILES:
        names = set(re.findall(r"\{([a-z_]+)\}", prompts.template(key)))
        assert names <= set(prompts.PLACEHOLDERS), (key, names - set(prompts.PLACEHOLDERS))


def test_single_prompt_methods_send_their_template_filled():
    for method, name in ((Direct(), "direct"), (RAG("bm25", 3), "rag"), (ALCE("bm25", 3), "alce"),
                         (TAG("bm25", 3), "tag")):
        text = prompt_text(method.prompt(RECORD))
        assert filled_by(name, text), name
        assert prompts.target_block(RECORD) in text
        # The paper's own braces are not placeholders: they reach the prompt as they are, once.
        assert "Aspect level {draft} sentiment" in text and "sentiment {target}." in text
    rag = prompt_text(RAG("bm25", 3).prompt(RECORD))
    assert prompts.MARKER_INSTRUCTION in rag and prompts.OUTPUT_INSTRUCTION in rag
    assert filled_by("marker_instruction", prompts.MARKER_INSTRUCTION).group(1) == "numbered list"
    assert prompts.ALCE_MARKER_INSTRUCTION in prompt_text(ALCE("bm25", 3).prompt(RECORD))
    assert "numbered documents above" in prompts.ALCE_MARKER_INSTRUCTION


class StepLLM:
    """Plan, draft, one coverage check naming a theme whose query finds nothing new, the revision, a clean check."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.checks = 0

    async def __call__(self, messages, **overrides):
        text = prompt_text(messages)
        self.requests.append(text)
        if text.startswith("You are planning"):
            return '{"themes": [{"theme": "Style transfer", "queries": ["sentiment style transfer"]}]}'
        if text.startswith("You are checking"):
            self.checks += 1
            return ('{"uncovered": [{"theme": "Parsing", "queries": ["dependency parsing"]}]}' if self.checks == 1
                    else '{"uncovered": [{"theme": "Nothing", "queries": ["zzqxv"]}]}' if self.checks == 2
                    else '{"uncovered": []}')
        return "Related Work\nA draft {themes} citing [1] and [2]."


def test_every_workflow_step_sends_its_template_filled():
    retriever = BM25Retriever.from_corpus(CORPUS, show_progress=False)
    llm = StepLLM()
    record = {**RECORD, "candidate_docs": []}
    result = asyncio.run(Workflow(retriever, CorpusLookup(CORPUS), retriever_name="bm25").run(record, llm))
    steps = ["workflow_plan", "workflow_write", "workflow_coverage", "workflow_revise", "workflow_coverage",
             "workflow_revise"]
    assert len(llm.requests) == len(steps) and result.extra["refinements"] == 2
    for name, text in zip(steps, llm.requests):
        assert filled_by(name, text), name
    assert "at most 6" in llm.requests[0] and "1 to 2 search queries" in llm.requests[0]
    added, none = llm.requests[3], llm.requests[5]
    assert filled_by("workflow_revise_added", filled_by("workflow_revise", added).group(1))
    assert prompts.template("workflow_revise_none") in none
    assert "A draft {themes} citing [1] and [2]." in llm.requests[2]  # the draft's braces are not re-filled
    assert prompts.target_block(record, introduction=False) in llm.requests[2]


def test_fill_placeholders_is_one_pass_and_strict():
    assert fill_placeholders('{a} {"json": 1} {b}', ("a", "b"), {"a": "{b}", "b": "x"}) == '{b} {"json": 1} x'
    assert fill_placeholders("{a} {c}", ("a",), {"a": "1"}) == "1 {c}"
    assert fill_placeholders("no {fields}", (), {}) == "no {fields}"
    with pytest.raises(KeyError):
        fill_placeholders("{a}", ("a",), {})


def test_sciig_reads_its_templates_through_the_shared_loader():
    for level, name in sciig_prompts.TEMPLATE_FILES.items():
        assert sciig_prompts.load_template(level) == read_template(sciig_prompts.TEMPLATE_PACKAGE, name)
        assert template_header(sciig_prompts.TEMPLATE_PACKAGE, name)[0].startswith("# Source: Garg")
    filled = sciig_prompts.fill_template("{title}: {abstract} {other}", title="T {abstract}", abstract="A")
    assert filled == "T {abstract}: A {other}"
