"""``sciwrite generate surge``: the extractive floor's surveys on the offline sample (rag and outline), the outline
method against a scripted model (a failure mid-survey, then a rerun that re-sends only the missing sections), the
agent's cutoff and reference list, what reaches a prompt (never the expert survey's sections or cites), and the
survey text's assembly worked out by hand."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from sciwrite.generation.generate import build_request, generate
from sciwrite.generation.runner import TRACE, prompt_text
from sciwrite.generation.writer import RunOptions, WriterModel
from sciwrite.llm.types import Completion, GenerationError, GenerationSettings, ToolCall
from sciwrite.retrieval.bm25 import BM25Retriever
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.generation import plan
from sciwrite.surge.generation.agent import SurveyAgent
from sciwrite.surge.generation.methods import Naive
from sciwrite.surge.generation.outline import SectionPlan, parse_outline
from sciwrite.surge.generation.prompts import fill
from sciwrite.surge.generation.survey_text import WrittenSection, assemble, normalize_reference_lines
from sciwrite.surge.metrics.coverage import ExactTitleIndex, surge_normalize
from sciwrite.surge.survey_markdown import parse_survey

BENCH = SimpleNamespace(name="surge", generation=SimpleNamespace(options=plan.GENERATE_OPTIONS,
                                                                 plan=plan.plan_generation))
QUIET = RunOptions(settings=GenerationSettings(concurrency=1), show_progress=False)


@pytest.fixture(scope="module")
def surge_sample(surge_sample_folder):
    """The SurGE sample built from the packaged ACL papers (read-only)."""
    return surge_sample_folder


@pytest.fixture(scope="module")
def corpus_titles(surge_sample):
    corpus = load_surge("sample_corpus", source=str(surge_sample))
    return dict(zip(corpus["doc_id"], corpus["title"]))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def request(out: Path, sample: Path, model: str = "extractive", **options):
    limit = options.pop("limit", 2)
    dry_run = options.pop("dry_run", False)
    return build_request(BENCH, model=model, out=out, limit=limit, dry_run=dry_run,
                         options={"source": str(sample), **options})


def check_survey(line: dict, title: str, corpus_titles: dict[str, str]) -> None:
    """A survey as SurGE reads it: '# title', sections, markers [1..n] in order of first appearance (one per
    bracket), and a reference list whose n-th title is the n-th cited corpus paper's, verbatim."""
    text = line["pred"]
    doc = parse_survey(text)
    [top] = doc.root.children
    assert (top.level, top.title) == (1, " ".join(title.split()))
    headings = [h.title for h in top.children]
    assert len(headings) >= 2 and headings[-1] == "References" and all(h.strip() for h in headings)
    candidates = line["candidates"]
    assert candidates and len(set(candidates)) == len(candidates) and line["paper_id"] not in candidates
    refs = doc.reference_entries
    assert [r.number for r in refs] == list(range(1, len(candidates) + 1))
    assert [r.title for r in refs] == [" ".join(corpus_titles[c].split()).rstrip(".").strip() for c in candidates]
    index = ExactTitleIndex.from_records(corpus_titles.items())
    assert all(index.resolve(r.title) is not None for r in refs)
    assert all(surge_normalize(title) != surge_normalize(r.title) for r in refs)  # never the survey itself
    # SurGE's own marker reading (one number per bracket) sees every citation; the first appearances run 1..n
    cited = [m.number for m in doc.markers(upstream=False)]
    assert list(dict.fromkeys(cited)) == list(range(1, len(candidates) + 1))
    assert not re.search(r"\[\d+\s*[,;-]", text)
    body = text[: text.index("## References")]
    assert sorted(set(int(n) for n in re.findall(r"\[(\d+)\]", body))) == list(range(1, len(candidates) + 1))


@pytest.mark.parametrize("method", ["rag", "outline"])
def test_extractive_floor_writes_surveys_that_parse_on_the_sample(surge_sample, corpus_titles, tmp_path, method):
    run = generate(BENCH, request(tmp_path, surge_sample, method=[method]), None, QUIET)
    [job] = run.jobs
    assert job.report is not None and (job.report.n_written, job.report.n_failed) == (2, 0)
    out = tmp_path / f"extractive_sample_{method}_bm25.jsonl"
    assert job.job.out_path == out
    surveys = {s["paper_id"]: s for s in load_surge("sample", source=str(surge_sample)).to_list()[:2]}
    lines = read_jsonl(out)
    assert sorted(line["paper_id"] for line in lines) == sorted(surveys)
    for line in lines:
        assert (line["benchmark"], line["dataset"], line["method"], line["model"], line["retriever"], line["k"]) == \
            ("surge", "sample", method, "extractive", "bm25", 50)
        check_survey(line, surveys[line["paper_id"]]["title"], corpus_titles)
    if method == "outline":  # the outline step's trace beside the output; no section left in progress
        traces = read_jsonl(out.with_name(f"{out.stem}.traces.jsonl"))
        assert [t["trace"][0]["step"] for t in traces] == ["outline", "outline"]
        assert all(s["retrieved"] for t in traces for s in t["trace"][1:])
        assert not out.with_name(f"{out.stem}.sections.jsonl").exists()


def test_extractive_refuses_methods_that_need_a_model(surge_sample, tmp_path, caplog):
    with pytest.raises(ValueError, match="need"):
        list(plan.plan_generation(request(tmp_path, surge_sample, method=["naive", "agent"])))
    jobs = list(plan.plan_generation(request(tmp_path, surge_sample, method=["naive", "outline"])))
    assert [job.method.name for job in jobs] == ["outline"] and "skipping naive" in caplog.text
    [job] = plan.plan_generation(request(tmp_path, surge_sample))  # no --method: the extractive rag
    assert job.method.name == "rag"
    with pytest.raises(ValueError, match="choose a method"):
        list(plan.plan_generation(request(tmp_path, surge_sample, model="openai:gpt-4o")))


# -- the outline method against a scripted model ----------------------------------------------------------------

OUTLINE_REPLY = ('```json\n{"sections": [{"heading": "1. Style transfer", "description": "unsupervised text style '
                 'transfer"}, {"heading": "Aspect sentiment", "description": "aspect based sentiment analysis"}, '
                 '{"heading": "Evaluation", "description": "evaluation of text generation"}]}\n```')


class SurveyBackend:
    """The writer model: answers the outline request and each section request; fails on one section if asked."""

    model = "openai:gpt-4o"

    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.requests: list[tuple[str, str, int]] = []  # (kind, heading or prompt, max_tokens)
        self.prompts: list[str] = []

    async def complete(self, messages, settings, params=None):
        text = prompt_text(messages)
        self.prompts.append(text)
        if text.startswith("You are planning the outline"):
            self.requests.append(("outline", "", settings.max_tokens))
            return Completion(OUTLINE_REPLY, self.model, 100, 50)
        heading = re.search(r"^Heading: (.+)$", text, re.MULTILINE).group(1)
        self.requests.append(("section", heading, settings.max_tokens))
        if heading == self.fail_on:
            raise GenerationError("the endpoint failed")
        return Completion(f"## {heading}\n\n{heading} work [1] builds on [2, 1] and [99].\n\n### Details\n\nMore "
                          "[2].\n\nReferences\n[1] A title the model made up", self.model, 100, 50)

    async def aclose(self):
        pass


def run_outline(tmp_path, surge_sample, monkeypatch, backend, retry_failed=False):
    monkeypatch.setattr("sciwrite.generation.writer.WriterModel.backend", lambda writer: backend)
    req = request(tmp_path, surge_sample, model="openai:gpt-4o", method=["outline"], limit=1, sections=3,
                  section_k=4, section_max_tokens=321, k=5)
    req = dataclasses.replace(req, retry_failed=retry_failed)
    [job] = generate(BENCH, req, WriterModel("openai:gpt-4o"), QUIET).jobs
    return job


@pytest.mark.parametrize("retry_failed", [False, True], ids=["rerun", "retry-failed"])
def test_outline_resumes_a_failed_survey_resending_only_the_missing_sections(surge_sample, corpus_titles, tmp_path,
                                                                              monkeypatch, retry_failed):
    first = SurveyBackend(fail_on="Aspect sentiment")
    job = run_outline(tmp_path, surge_sample, monkeypatch, first)
    assert job.report is not None and (job.report.n_written, job.report.n_failed) == (0, 1)
    # the outline with the run's --max-tokens, each section with --section-max-tokens; nothing after the failure
    assert first.requests == [("outline", "", 2048), ("section", "Style transfer", 321),
                              ("section", "Aspect sentiment", 321)]
    out = job.job.out_path
    assert out.name == "openai-gpt-4o_sample_outline_bm25.jsonl"
    cache = out.with_name(f"{out.stem}.sections.jsonl")
    steps = read_jsonl(cache)
    assert [(s["step"], s.get("index")) for s in steps] == [("outline", None), ("section", 0)]
    [failure] = read_jsonl(job.report.failures_path)
    assert "the endpoint failed" in failure["error"]
    [failed_trace] = read_jsonl(out.with_name(f"{out.stem}.traces.jsonl"))
    assert "error" in failed_trace and [s["step"] for s in failed_trace["trace"]] == ["outline", "section"]

    second = SurveyBackend()
    job = run_outline(tmp_path, surge_sample, monkeypatch, second, retry_failed)
    assert job.report is not None and (job.report.n_written, job.report.n_failed) == (1, 0)
    assert second.requests == [("section", "Aspect sentiment", 321), ("section", "Evaluation", 321)]
    assert not cache.exists() and not job.report.failures_path.exists()
    [line] = read_jsonl(out)
    assert line["outline"] == ["Style transfer", "Aspect sentiment", "Evaluation"] and line["cached_sections"] == 1
    assert line["unresolved_markers"] == 3  # one [99] per section
    assert (line["sections"], line["section_k"], line["section_max_tokens"], line["k"]) == (3, 4, 321, 5)
    survey = load_surge("sample", source=str(surge_sample))[0]
    check_survey(line, survey["title"], corpus_titles)
    doc = parse_survey(line["pred"])
    [top] = doc.root.children
    assert [h.title for h in top.children] == ["Style transfer", "Aspect sentiment", "Evaluation", "References"]
    assert all([c.title for c in h.children] == ["Details"] and c.level == 3 for h in top.children[:3]
               for c in h.children)
    assert "made up" not in line["pred"]  # the model's own reference list is never kept
    [trace] = [t for t in read_jsonl(out.with_name(f"{out.stem}.traces.jsonl")) if "error" not in t]
    steps = trace["trace"]
    assert [(s["step"], s["cached"]) for s in steps] == [("outline", True), ("section", True), ("section", False),
                                                         ("section", False)]
    assert steps[2]["query"] == "Aspect sentiment\naspect based sentiment analysis"
    assert all(1 <= len(s["retrieved"]) <= 4 for s in steps[1:])
    # each section cites its own hits: its [1] and [2] are the first two papers retrieved for it, merged over the
    # survey in order of first appearance
    expected = list(dict.fromkeys(d for s in steps[1:] for d in s["retrieved"][:2]))
    assert line["candidates"] == expected


# -- the agent ----------------------------------------------------------------------------------------------------

SURVEY = {"paper_id": "7", "title": "A Survey of Text Style Transfer", "year": 2021, "date": "2021-03-01T10:00:00Z",
          "category": "cs.CL"}
AGENT_CORPUS = [
    # doc_id "7" is the survey's id, but another paper: SurGE's survey ids are corpus doc_ids too
    {"doc_id": "7", "title": "Style transfer from non-parallel text by cross-alignment", "abstract": "Style transfer.",
     "authors": ["T. Shen"], "year": 2017, "source": "t"},
    {"doc_id": "s-copy", "title": "A survey of text style-transfer", "abstract": "The survey itself, style transfer.",
     "authors": [], "year": 2020, "source": "t"},
    {"doc_id": "d-future", "title": "Text style transfer revisited", "abstract": "A later style transfer paper.",
     "authors": [], "year": 2023, "source": "t"},
    {"doc_id": "d-delete", "title": "Delete, retrieve, generate: sentiment style transfer", "abstract": "Deletion.",
     "authors": ["J. Li"], "year": 2018, "source": "t"},
    {"doc_id": "d-parse", "title": "Dependency parsing", "abstract": "A parser.", "authors": [], "year": 2019,
     "source": "t"},
]


class ScriptedAgentLLM:
    def __init__(self, *replies: Completion) -> None:
        self.replies = list(replies)
        self.requests: list[dict] = []

    async def complete(self, messages, tools=None, tool_choice=None, **overrides):
        self.requests.append({"messages": copy.deepcopy(list(messages)), "tool_choice": tool_choice})
        return self.replies.pop(0)


def test_agent_never_shows_the_survey_or_later_papers_and_lists_the_cited_titles():
    search = ToolCall("c1", "search", json.dumps({"query": "style transfer"}))
    read = ToolCall("c2", "read", json.dumps({"doc_id": "d-future"}))
    answer = "# A Survey of Text Style Transfer\n\n## Methods\n\nDeletion [2] and cross-alignment [1, 2].\n\nReferences\n[1] X"
    llm = ScriptedAgentLLM(Completion("", "scripted", 10, 5, tool_calls=(search, read)),
                           Completion(answer, "scripted", 10, 5))
    agent = SurveyAgent(BM25Retriever.from_corpus(AGENT_CORPUS, show_progress=False), AGENT_CORPUS,
                        retriever_name="bm25", max_tool_calls=1)
    result = asyncio.run(agent.run(SURVEY, llm))
    record = result.extra["agent"]
    assert record["searched"] == ["7", "d-delete"] or record["searched"] == ["d-delete", "7"]
    assert (record["cutoff"], record["cutoff_source"], record["budget_exhausted"]) == ("2021-03-01", "date", True)
    # the read past the budget is not run; the last request is told, in SurGE's words, to write the survey
    last = llm.requests[-1]
    assert last["tool_choice"] == "none"
    assert last["messages"][-1] == {"role": "user", "content": fill("agent_budget", max_tool_calls=1)}
    assert "Write the survey now" in last["messages"][-1]["content"]
    seen = record["seen"]
    assert result.extra["candidates"] == [seen[1], seen[0]]
    titles = {d["doc_id"]: d["title"] for d in AGENT_CORPUS}
    assert result.pred == ("# A Survey of Text Style Transfer\n\n## Methods\n\nDeletion [1] and cross-alignment "
                           f"[2][1].\n\n## References\n\n[1] {titles[seen[1]]}\n[2] {titles[seen[0]]}")
    assert result.extra[TRACE][-1]["forced"] is True


# -- what reaches a prompt ---------------------------------------------------------------------------------------

SECRET = "ZZSECRET"


def doctored_surveys(surge_sample) -> list[dict]:
    """The sample's first surveys with every answer field marked: section titles and texts, queries, cite lists, the
    expert survey's text."""
    surveys = load_surge("sample", source=str(surge_sample)).to_list()[:2]
    for survey in surveys:
        survey["structure"] = [{**s, "title": f"{SECRET} heading {s['title']}", "content": f"{SECRET} text"}
                               for s in survey["structure"]]
        survey["queries"] = [{**q, "query": f"{SECRET} query"} for q in survey["queries"]]
        survey["text"] = f"{SECRET} {survey['text']}"
    return surveys


def test_prompts_never_hold_the_expert_surveys_sections_or_cites(surge_sample, tmp_path, monkeypatch):
    surveys = doctored_surveys(surge_sample)
    monkeypatch.setattr(plan, "load_surveys", lambda split, source: copy.deepcopy(surveys))
    cites = {c for s in surveys for c in s["all_cites"]} | {c for s in surveys for q in s["queries"] for c in q["cites"]}
    req = request(tmp_path, surge_sample, model="openai:gpt-4o", method=["all"], dry_run=True, limit=2)
    run = generate(BENCH, req, None, QUIET)
    assert [job.job.method.name for job in run.jobs] == ["naive", "rag", "outline", "agent"]
    prompts = [text for job in run.jobs for _, text in job.prompts]
    for job in run.jobs:  # what a method is handed: the topic and, for rag/outline, the retrieved papers
        assert all(set(r) <= {"paper_id", "title", "year", "date", "category", "candidate_docs"}
                   for r in job.job.records)
    # the sections' prompts too, written by a scripted model
    backend = SurveyBackend()
    monkeypatch.setattr("sciwrite.generation.writer.WriterModel.backend", lambda writer: backend)
    outline = request(tmp_path, surge_sample, model="openai:gpt-4o", method=["outline"], limit=2, section_k=5)
    generate(BENCH, outline, WriterModel("openai:gpt-4o"), QUIET)
    prompts += backend.prompts
    assert len(backend.prompts) == 8  # per survey: the outline and 3 sections
    for text in prompts:
        assert SECRET not in text
        assert not cites & set(re.findall(r"[\w.-]+", text))  # no doc_id at all: papers are shown by number
    # the topic is the title alone (SurGE's task) unless --topic title-abstract asks for the abstract
    survey = surveys[0]
    assert survey["title"] in prompts[0] and survey["abstract"][:60] not in prompts[0]
    with_abstract = Naive("title-abstract").prompt(survey)[0]["content"]
    assert survey["abstract"][:60] in with_abstract


# -- the survey text, by hand ------------------------------------------------------------------------------------


def test_assemble_renumbers_sections_over_the_survey_and_lists_titles():
    a, b, c = ({"doc_id": d, "title": t} for d, t in (("a", "Title A"), ("b", "Title  B\n(2020)"), ("c", "Title C")))
    sections = [WrittenSection("One", "x [2] y [1][3].", (a, b)), WrittenSection("[2] Two", "z [1, 2].", (b, c))]
    survey = assemble("My  survey", sections)
    # Section One: [3] names no paper (removed, counted). Over the survey: a=1, b=2 (One), b=3, c=4 (Two). First
    # appearances: 2 (b) -> 1, 1 (a) -> 2, 3 (b again) -> 1, 4 (c) -> 3; "[1, 3]" is written one per bracket.
    assert survey.text == ("# My survey\n\n## One\n\nx [1] y [2].\n\n## (2) Two\n\nz [1][3].\n\n## References\n\n"
                           "[1] Title B (2020)\n[2] Title A\n[3] Title C")
    assert survey.cited == ("b", "a", "c") and survey.unresolved == 1


def test_parse_outline_reads_json_or_lines():
    assert parse_outline(OUTLINE_REPLY, 2) == [SectionPlan("Style transfer", "unsupervised text style transfer"),
                                               SectionPlan("Aspect sentiment", "aspect based sentiment analysis")]
    lines = ("Here is the outline.\nSection 1: Introduction\nDescription 1: What the survey covers.\n"
             "## 2. Methods\nDescription: Neural methods.\n- not a heading\n3) Methods\n4. Open problems\n5. References")
    assert parse_outline(lines) == [SectionPlan("Introduction", "What the survey covers."),
                                    SectionPlan("Methods", "Neural methods."), SectionPlan("Open problems", "")]


def test_naive_reference_list_is_read_as_surge_lines():
    text = ("# T\n\nBody [1].\n\n## References\n\n1. A. Author. (2020). *Real Title: Part*.\n"
            "[2] B. Author, *Second Title*.\n- [3] Third title\nnot a reference")
    assert normalize_reference_lines(text).split("## References")[1] == \
        "\n\n[1] Real Title: Part\n[2] Second Title\n[3] Third title\nnot a reference"


class OneRequestBackend:
    """Naive: a survey with its own (APA-style) reference list; RAG: a survey without a title heading that cites
    papers 3, 1 and 2 (and 60, which names none: removed with the space before it) and writes a reference list of its own anyway."""

    model = "openai:gpt-4o"

    async def complete(self, messages, settings, params=None):
        text = prompt_text(messages)
        if "You are given no papers" in text:
            reply = ("```markdown\n# Made-up title\n\n## Intro\n\nWork [1] and [2].\n\n## References\n\n"
                     "1. A. Author. (2020). *First Real Title*.\n2. Second Real Title\n```")
        else:
            reply = "## Intro\n\nFirst [3] then [1, 2] and [60].\n\n## References\n[1] A made-up title"
        return Completion(reply, self.model, 100, 50)

    async def aclose(self):
        pass


def test_naive_keeps_its_titles_and_rag_lists_the_retrieved_titles(surge_sample, corpus_titles, tmp_path,
                                                                   monkeypatch):
    monkeypatch.setattr("sciwrite.generation.writer.WriterModel.backend", lambda writer: OneRequestBackend())
    req = request(tmp_path, surge_sample, model="openai:gpt-4o", method=["rag", "naive"], limit=1, k=5)
    naive, rag = generate(BENCH, req, WriterModel("openai:gpt-4o"), QUIET).jobs
    [line] = read_jsonl(naive.job.out_path)
    assert naive.job.out_path.name == "openai-gpt-4o_sample_naive.jsonl" and line["retriever"] is None
    assert line["pred"] == ("# Made-up title\n\n## Intro\n\nWork [1] and [2].\n\n## References\n\n"
                            "[1] First Real Title\n[2] Second Real Title")
    assert line["references"] == [{"n": 1, "title": "First Real Title"}, {"n": 2, "title": "Second Real Title"}]
    [line] = read_jsonl(rag.job.out_path)
    assert len(line["retrieved"]) == 5 and line["unresolved_markers"] == 1
    retrieved = line["retrieved"]
    assert line["candidates"] == [retrieved[2], retrieved[0], retrieved[1]]
    title = load_surge("sample", source=str(surge_sample))[0]["title"]
    assert line["pred"] == (f"# {title}\n\n## Intro\n\nFirst [1] then [2][3] and.\n\n## References\n\n"
                            + "\n".join(f"[{n}] {' '.join(corpus_titles[d].split())}"
                                        for n, d in enumerate(line["candidates"], 1)))
    check_survey(line, title, corpus_titles)


# -- the baseline configs ----------------------------------------------------------------------------------------

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "baselines" / "surge").glob("*.yaml"))


def test_every_surge_config_loads_and_names_one_method_and_its_retriever():
    import argparse

    from sciwrite.cli import baseline_config
    from sciwrite.cli import generate as gen_cli
    from sciwrite.surge.benchmark import SURGE

    assert {p.stem for p in CONFIGS} == {"naive", "rag_bm25", "rag_dense", "outline_bm25", "outline_dense",
                                         "agent_bm25", "agent_dense"}
    for path in CONFIGS:
        values = baseline_config.load_config(path, "surge", gen_cli.add_generate_arguments(argparse.ArgumentParser(),
                                                                                            SURGE))
        [method] = values["method"]
        assert path.stem.split("_")[0] == method and values["split"] == "surveys" and values["topic"] == "title"
        assert values.get("retriever") == (None if method == "naive" else path.stem.split("_")[1])
        assert (values["seed"], values["temperature"]) == (42, 0.7)
