"""SciIG generation: the seven prompt levels (inputs, cited-works JSON, seeded shuffle, holdout exemplars),
AUTOCOT's steps, end-to-end runs through the runner with a fake backend, dry run, bad input, and the Hub card."""

from __future__ import annotations

import argparse
import asyncio
import functools
import json

import pytest

from sciwrite.cli import generate as gen_cli
from sciwrite.generation.runner import prompt_text
from sciwrite.generation.writer import WriterModel
from sciwrite.llm.types import Completion
from sciwrite.sciig.benchmark import SCIIG
from sciwrite.sciig.generation import plan as sciig_generate
from sciwrite.sciig.generation import prompts as sciig_prompts
from sciwrite.sciig.generation.levels import SciIGMethod


def paper(pid: str, n_cited: int = 6, *, split: str = "test", venue: str = "NAACL", year: int = 2025) -> dict:
    neighbors = [{"key": f"Author{i} et al., {2010 + i}", "title": f"Cited work {i} of {pid}",
                  "authors": [f"A. Author{i}", f"B. Coauthor{i}"], "abstract": f"Abstract of cited work {i} ({pid})."}
                 for i in range(n_cited)]
    return {"paper_id": pid, "title": f"Title of {pid}", "abstract": f"We study problem {pid} and propose a method.",
            "introduction": f"INTRO-{split}-{pid}: the published introduction of {pid}.\n\nSecond paragraph.",
            "neighbors": neighbors, "venue": venue, "year": year}


TEST = [paper("t1", 8), paper("t2", 3), paper("t3", 0)]
HOLDOUT = [paper(f"h{i}", 2, split="holdout") for i in range(1, 7)]


def cited_json(messages, record, seed=42) -> dict:
    """The cited-works object as it appears in the prompt (parsed back)."""
    text = messages[-1]["content"]
    rendered = sciig_prompts.render_cited_works(record, seed)
    assert rendered in text
    return json.loads(rendered)


def run(coro):
    return asyncio.run(coro)


class FakeLLM:
    """`await llm(messages)` recording every request."""

    def __init__(self, replies=None):
        self.calls: list[list[dict]] = []
        self.replies = list(replies or [])

    async def __call__(self, messages, **overrides):
        self.calls.append([dict(m) for m in messages])
        return self.replies.pop(0) if self.replies else f"reply {len(self.calls)}"


class FakeBackend:
    """The runner's Backend protocol without a network: echoes which paper it was asked about."""

    def __init__(self, model="fake:model"):
        self.model = model
        self.requests: list[list[dict]] = []
        self.closed = False

    async def complete(self, messages, settings):
        self.requests.append([dict(m) for m in messages])
        text = messages[-1]["content"]
        title = next(line for line in text.splitlines()[::-1] if line.startswith("Title: "))
        return Completion(f"Introduction\nGenerated introduction for {title[7:]} (Author0 et al., 2010).",
                          self.model, prompt_tokens=len(text) // 4, completion_tokens=12)

    async def aclose(self):
        self.closed = True


# ------------------------------------------------------------------------------------------------ levels


def test_levels_and_unknown_level():
    assert sciig_prompts.LEVELS == ("SHORT", "MEDIUM", "ELABORATE", "ONE_SHOT", "TWO_SHOT", "THREE_SHOT", "AUTOCOT")
    assert sciig_prompts.ALL_LEVELS == sciig_prompts.LEVELS + ("ZERO_SHOT", "AUTOCOT_PIPELINE", "TWO_SHOT_INLINE",
                                                              "THREE_SHOT_INLINE")
    assert sciig_prompts.normalize_level("three-shot") == "THREE_SHOT"
    assert sciig_prompts.normalize_level("zero-shot") == "ZERO_SHOT" and sciig_prompts.normalize_level("autocot_pipeline") == "AUTOCOT_PIPELINE"
    assert "ZERO_SHOT" not in sciig_prompts.parse_levels(["all"])
    assert sciig_prompts.parse_levels(["all"]) == list(sciig_prompts.LEVELS)
    assert sciig_prompts.parse_levels(["short", "SHORT", "autocot,medium"]) == ["SHORT", "AUTOCOT", "MEDIUM"]
    with pytest.raises(ValueError, match="unknown SciIG prompt level 'FOUR_SHOT'.*SHORT, MEDIUM, ELABORATE"):
        SciIGMethod("FOUR_SHOT")
    parser = gen_cli.add_generate_arguments(argparse.ArgumentParser(), SCIIG)
    with pytest.raises(SystemExit):
        parser.parse_args(["--model", "x", "--level", "tiny"])
    args = parser.parse_args(["--model", "x"])
    with pytest.raises(ValueError, match="--level is required.*AUTOCOT"):
        sciig_generate.plan_levels(gen_cli.generation_request(args, SCIIG))


@pytest.mark.parametrize("level", ["SHORT", "MEDIUM", "ELABORATE"])
def test_zero_shot_prompt_contains_the_inputs(level):
    record = TEST[0]
    messages = SciIGMethod(level).prompt(record)
    assert [m["role"] for m in messages] == ["user"]
    text = messages[0]["content"]
    assert record["title"] in text and record["abstract"] in text
    cited = cited_json(messages, record)
    assert set(cited) == {n["key"] for n in record["neighbors"]}
    for n in record["neighbors"]:
        assert cited[n["key"]] == {"title": n["title"], "authors": n["authors"], "abstract": n["abstract"]}
    assert "INTRO-" not in text  # the reference never leaks into the prompt


def test_levels_grow_in_detail():
    record = TEST[0]
    short, medium, elaborate = (SciIGMethod(lv).prompt(record)[0]["content"] for lv in ("SHORT", "MEDIUM", "ELABORATE"))
    assert len(short) < len(medium) < len(elaborate)
    assert "IMPORTANT FORMAT REQUIREMENTS:" in medium and "IMPORTANT FORMAT REQUIREMENTS:" not in short
    assert "EXACTLY FOUR PARAGRAPHS" in elaborate and "DO NOT invent or hallucinate citations." in elaborate
    assert "must be cited" in short and "must be cited" in medium


def test_cited_works_shuffle_is_seeded_and_keeps_content():
    record = TEST[0]
    original = [n["key"] for n in record["neighbors"]]
    order42 = [n["key"] for n in sciig_prompts.shuffled_cited_works(record, 42)]
    assert sorted(order42) == sorted(original) and order42 != original
    assert order42 == [n["key"] for n in sciig_prompts.shuffled_cited_works(record, 42)]  # stable
    assert order42 != [n["key"] for n in sciig_prompts.shuffled_cited_works(record, 7)]  # another seed, another order
    assert list(sciig_prompts.cited_works_object(record, 42)) == order42
    assert sciig_prompts.cited_works_object(record, 7) == sciig_prompts.cited_works_object(record, 42)  # same content
    assert record["neighbors"][0]["key"] == original[0]  # the record itself is untouched
    # the order depends on the paper too: two papers with the same keys are not shuffled alike
    twin = {**paper("t1-twin", 8)}
    assert [n["key"] for n in sciig_prompts.shuffled_cited_works(twin, 42)] != order42


@pytest.mark.parametrize("level,k", [("ONE_SHOT", 1), ("TWO_SHOT", 2), ("THREE_SHOT", 3)])
def test_few_shot_exemplars_from_holdout(level, k):
    record = TEST[1]
    method = SciIGMethod(level, HOLDOUT + [record], seed=42)  # the paper itself is in the pool: never drawn
    exemplars = method.exemplars(record)
    assert len(exemplars) == k
    assert {e["paper_id"] for e in exemplars} <= {h["paper_id"] for h in HOLDOUT}
    text = method.prompt(record)[0]["content"]
    assert sum(line.startswith("Example ") for line in text.splitlines()) == k
    for e in exemplars:
        assert e["introduction"].strip() in text and e["title"] in text
    assert "INTRO-test" not in text
    assert text.count("INTRO-holdout") == k
    assert record["title"] in text and record["abstract"] in text
    assert set(cited_json(method.prompt(record), record)) == {n["key"] for n in record["neighbors"]}
    assert "DO NOT invent or hallucinate citations." in text  # built on the ELABORATE instructions
    # deterministic for the seed, nested across k, different for another seed
    assert method.prompt(record) == SciIGMethod(level, HOLDOUT, seed=42).prompt(record)
    three = SciIGMethod("THREE_SHOT", HOLDOUT, seed=42).exemplars(record)
    assert [e["paper_id"] for e in exemplars] == [e["paper_id"] for e in three[:k]]
    assert SciIGMethod(level, HOLDOUT, seed=1).prompt(record) != method.prompt(record)
    # the holdout's load order does not matter
    assert SciIGMethod(level, HOLDOUT[::-1], seed=42).prompt(record) == method.prompt(record)


def test_exemplar_pool_too_small():
    with pytest.raises(ValueError, match="THREE_SHOT needs 3 exemplar.*2 usable"):
        SciIGMethod("THREE_SHOT", HOLDOUT[:2])
    with pytest.raises(ValueError, match="ONE_SHOT needs 1 exemplar.*0 usable"):
        SciIGMethod("ONE_SHOT", [])
    method = SciIGMethod("TWO_SHOT", HOLDOUT[:2])
    with pytest.raises(ValueError, match="only 1 usable paper"):
        method.exemplars(HOLDOUT[0])  # excluding the paper itself leaves one


def test_autocot_pipeline_steps_against_a_fake_llm():
    record = TEST[0]
    method = SciIGMethod("AUTOCOT_PIPELINE", seed=42, dataset="sample")
    llm = FakeLLM(["1. draft step A\n2. draft step B", "1. refined step A (Author3 et al., 2013)\n2. refined B",
                   "## Introduction\nThe final introduction (Author0 et al., 2010)."])
    result = run(method.run(record, llm))
    assert len(llm.calls) == 3
    assert llm.calls[0] == method.prompt(record)  # the dry-run prompt is step 1
    assert "guiding prompts" in llm.calls[0][0]["content"] and record["title"] in llm.calls[0][0]["content"]
    assert "draft step A" in llm.calls[1][0]["content"]
    assert "refined step A" in llm.calls[2][0]["content"] and "draft step A" not in llm.calls[2][0]["content"]
    assert result.desc == prompt_text(llm.calls[2]) == llm.calls[2][0]["content"]
    assert result.pred == "The final introduction (Author0 et al., 2010)."
    steps = result.extra["steps"]
    assert [s["name"] for s in steps] == list(sciig_prompts.AUTOCOT_STEPS)
    assert steps[0]["prompt"] == llm.calls[0][0]["content"] and steps[0]["reply"].startswith("1. draft")
    assert steps[1]["reply"].startswith("1. refined")
    assert result.extra["label"] == record["introduction"] and result.extra["level"] == "AUTOCOT_PIPELINE"
    assert result.extra["dataset"] == "sample"
    assert llm.calls[2][0]["content"].endswith(sciig_prompts.level_prompt("ELABORATE", record, 42))  # the paper's prompt
    for call in llm.calls:
        assert set(cited_json(call, record)) == {n["key"] for n in record["neighbors"]}


def test_single_step_levels_call_once_and_desc_is_the_prompt():
    record = TEST[1]
    method = SciIGMethod("TWO_SHOT", HOLDOUT, seed=42, dataset="sample")
    llm = FakeLLM(["  Some introduction.  "])
    result = run(method.run(record, llm))
    assert llm.calls == [method.prompt(record)]
    assert result.desc == llm.calls[0][0]["content"] and result.pred == "Some introduction."
    assert result.extra["exemplars"] == [e["paper_id"] for e in method.exemplars(record)]
    assert result.extra["cited_order"] == [n["key"] for n in sciig_prompts.shuffled_cited_works(record, 42)]


def test_paper_without_cited_works_gets_a_documented_prompt():
    record = TEST[2]
    for level in ("SHORT", "ELABORATE", "AUTOCOT", "AUTOCOT_PIPELINE"):
        text = SciIGMethod(level).prompt(record)[0]["content"]
        assert "\n{}\n" in text and sciig_prompts.NO_CITED_WORKS in text
    assert sciig_prompts.NO_CITED_WORKS not in SciIGMethod("SHORT").prompt(TEST[0])[0]["content"]


def test_bad_records_raise():
    with pytest.raises(ValueError, match="has no abstract"):
        SciIGMethod("SHORT").prompt({**TEST[0], "abstract": " "})
    dup = {**TEST[1], "neighbors": TEST[1]["neighbors"] + TEST[1]["neighbors"][:1]}
    with pytest.raises(ValueError, match="appears twice"):
        SciIGMethod("SHORT").prompt(dup)


def test_clean_introduction():
    assert sciig_prompts.clean_introduction("**Introduction**\n\nText.") == "Text."
    assert sciig_prompts.clean_introduction("1 Introduction\nText.") == "Text."
    assert sciig_prompts.clean_introduction("Introductions matter.\nText.") == "Introductions matter.\nText."
    assert sciig_prompts.clean_introduction("Introduction") == "Introduction"


# ---------------------------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def sciig_folder(tmp_path_factory):
    from sciwrite.sciig.data.configs import card_configs_block, write_sciig_config

    folder = tmp_path_factory.mktemp("sciig_synthetic")
    write_sciig_config(folder, "sample", {"test": TEST, "holdout": HOLDOUT[:3]})
    (folder / "README.md").write_text("---\n" + card_configs_block(["sample"]) + "---\n", encoding="utf-8")
    return folder


def parse(argv):
    parser = gen_cli.add_generate_arguments(argparse.ArgumentParser(), SCIIG)
    return parser.parse_args(argv)


def test_end_to_end_with_a_fake_backend(sciig_folder, tmp_path, monkeypatch):
    backends: list[FakeBackend] = []

    def fake_backend(writer):
        backends.append(FakeBackend(writer.model))
        return backends[-1]

    monkeypatch.setattr(WriterModel, "backend", fake_backend)
    out = tmp_path / "gen"
    args = parse(["--model", "openrouter:vendor/model-x", "--split", "sample", "--source", str(sciig_folder),
                  "--level", "short", "two-shot", "--out", str(out), "--concurrency", "2"])
    reports = gen_cli.run_generate(args, SCIIG)
    assert [r.n_written for r in reports] == [3, 3] and [r.n_failed for r in reports] == [0, 0]
    assert all(b.closed for b in backends)
    short = out / "openrouter-vendor_model-x_sample_short.jsonl"
    two = out / "openrouter-vendor_model-x_sample_two_shot.jsonl"
    assert short.exists() and two.exists()
    for path, level in ((short, "SHORT"), (two, "TWO_SHOT")):
        rows = {r["paper_id"]: r for r in map(json.loads, path.read_text().splitlines())}
        assert set(rows) == {"t1", "t2", "t3"}  # the paper without cited works is generated, not lost
        by_id = {p["paper_id"]: p for p in TEST}
        for pid, row in rows.items():
            assert row["label"] == by_id[pid]["introduction"]
            assert row["pred"] == f"Generated introduction for {by_id[pid]['title']} (Author0 et al., 2010)."
            assert row["desc"] == SciIGMethod(level, HOLDOUT[:3], seed=42).prompt(by_id[pid])[0]["content"]
            assert (row["model"], row["method"], row["seed"], row["benchmark"]) == (
                "openrouter:vendor/model-x", level, 42, "sciig")
            assert row["dataset"] == "sample" and row["retriever"] is None and row["level"] == level
            assert row["usage"]["requests"] == 1
        if level == "TWO_SHOT":
            assert all(set(r["exemplars"]) <= {"h1", "h2", "h3"} and len(r["exemplars"]) == 2 for r in rows.values())
        assert rows["t3"]["n_cited_works"] == 0
    # resume: nothing left to do
    again = gen_cli.run_generate(args, SCIIG)
    assert [r.n_written for r in again] == [0, 0] and [r.n_already_done for r in again] == [3, 3]


def test_end_to_end_failures_are_recorded(tmp_path, monkeypatch):
    bad = {**TEST[1], "paper_id": "bad", "abstract": ""}
    monkeypatch.setattr(sciig_generate, "load_split", lambda d, s, split: [TEST[0], bad] if split == "test" else [])
    monkeypatch.setattr(WriterModel, "backend", lambda writer: FakeBackend(writer.model))
    args = parse(["--model", "m", "--base-url", "http://x", "--split", "sample", "--level", "AUTOCOT",
                  "--out", str(tmp_path)])
    [report] = gen_cli.run_generate(args, SCIIG)
    assert (report.n_written, report.n_failed) == (1, 1)
    [failure] = [json.loads(line) for line in report.failures_path.read_text().splitlines()]
    assert failure["paper_id"] == "bad" and "has no abstract" in failure["error"]
    [row] = [json.loads(line) for line in report.out_path.read_text().splitlines()]
    # AUTOCOT is the paper's single prompt (Table 10): one request, the whole reply is pred
    assert "steps" not in row and row["usage"]["requests"] == 1
    assert row["desc"].startswith("You are an advanced AI assistant performing AUTOCOT prompting")
    assert row["pred"].startswith("Introduction\nGenerated introduction for")
    args = parse(["--model", "m", "--base-url", "http://x", "--split", "sample", "--level", "autocot_pipeline",
                  "--out", str(tmp_path)])
    [report] = gen_cli.run_generate(args, SCIIG)
    assert report.out_path.name == "m_sample_autocot_pipeline.jsonl"
    [row] = [json.loads(line) for line in report.out_path.read_text().splitlines()]
    assert len(row["steps"]) == 2 and row["usage"]["requests"] == 3
    assert row["desc"].startswith("Reason through the following guiding prompts") and "guiding prompts" in row["desc"]


def test_dry_run_prints_the_exact_prompt(sciig_folder, tmp_path, monkeypatch, capsys):
    def no_backend(writer):
        raise AssertionError("a dry run must not build a backend")

    monkeypatch.setattr(WriterModel, "backend", no_backend)
    args = parse(["--model", "openai:gpt-4o", "--split", "sample", "--source", str(sciig_folder), "--level",
                  "THREE_SHOT", "AUTOCOT", "--dry-run", "--out", str(tmp_path)])
    assert gen_cli.run_generate(args, SCIIG) == [None, None]
    printed = capsys.readouterr().out
    first = TEST[0]
    for level in ("THREE_SHOT", "AUTOCOT"):
        expected = prompt_text(SciIGMethod(level, HOLDOUT[:3], seed=42).prompt(first))
        assert f"=== paper t1 · method {level} · exact prompt ===\n{expected}\n" in printed
    assert not list(tmp_path.iterdir())


def test_empty_split(monkeypatch, tmp_path):
    monkeypatch.setattr(sciig_generate, "load_split", lambda d, s, split: [])
    args = parse(["--model", "m", "--split", "sample", "--level", "SHORT", "--out", str(tmp_path)])
    with pytest.raises(ValueError, match="has no papers: nothing to generate"):
        gen_cli.run_generate(args, SCIIG)


class FakeEncoder:
    """Just enough of a sentence-transformers model for `sciwrite.models.encoders.embed`: hashed bags of words."""

    device = "cpu"
    max_seq_length = 128

    def tokenizer(self, texts, verbose=False):
        return {"input_ids": [t.split() for t in texts]}

    def get_embedding_dimension(self):
        return 64

    def encode(self, texts, **kwargs):
        import zlib

        import numpy as np

        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, zlib.crc32(word.encode()) % 64] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_extractive_path(sciig_folder, tmp_path, monkeypatch):
    """The wiring of --model extractive (the writer itself is tested in test_extractive.py)."""
    extractive = pytest.importorskip("sciwrite.generation.extractive")
    from sciwrite.sciig.data.configs import ALL_CONFIGS

    assert sciig_generate.DATASETS == ALL_CONFIGS  # the published configs and the locally built `arxiv`
    writer = functools.partial(extractive.ExtractiveSciIG, encoder=FakeEncoder())
    monkeypatch.setattr(extractive, "ExtractiveSciIG", writer)
    monkeypatch.setattr(WriterModel, "backend", lambda writer: pytest.fail("the extractive floor calls no model"))
    args = parse(["--model", "extractive", "--split", "sample", "--source", str(sciig_folder),
                  "--out", str(tmp_path)])
    [report] = gen_cli.run_generate(args, SCIIG)
    assert report.n_written + report.n_failed == len(TEST)
    assert report.out_path.name.startswith("extractive_sample_")
    rows = [json.loads(line) for line in report.out_path.read_text().splitlines()]
    assert rows and all(r["model"] == "extractive" and r["benchmark"] == "sciig" for r in rows)


# --------------------------------------------------------------------------------------------------- hub


def test_hub_dataset_and_card(tmp_path):
    import yaml

    from sciwrite.core.hub import prediction_card, predictions_dataset

    path = tmp_path / "m_sample_short.jsonl"
    rows = [{"paper_id": "t1", "pred": "p1", "label": "l1", "desc": "d1", "model": "m", "method": "SHORT",
             "retriever": None, "usage": {"requests": 1}},
            {"paper_id": "t2", "pred": "p2", "label": "l2", "desc": "d2", "model": "m", "method": "SHORT",
             "retriever": None, "usage": {"requests": 1}, "exemplars": ["h1"]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    ds = predictions_dataset(path)
    assert len(ds) == 2 and ds["pred"] == ["p1", "p2"] and ds["exemplars"] == [None, ["h1"]]
    fields = {"benchmark": "sciig", "dataset": "sample", "split": "test", "model": "m", "method": "SHORT", "seed": 42}
    card = prediction_card(fields, config_name="m_sample_short", n_rows=2)
    assert card.data.sciwrite_runs == {"m_sample_short": {**fields, "rows": 2}}
    assert "sciig" in card.data.tags and "| `m_sample_short` | sciig | sample | test | m | SHORT | 2 |" in card.text
    # a second run is added to the card the Hub already has, whose metadata is kept
    configs = [{"config_name": "m_sample_short", "data_files": [{"split": "test", "path": "m_sample_short/*"}]}]
    hub_card = "---\n" + yaml.safe_dump({**card.data.to_dict(), "configs": configs}) + "---\nold body\n"
    merged = prediction_card({**fields, "method": "AUTOCOT"}, config_name="m_sample_autocot", existing=hub_card)
    assert merged.data.configs[0]["config_name"] == "m_sample_short"
    assert set(merged.data.sciwrite_runs) == {"m_sample_short", "m_sample_autocot"}
    assert "m_sample_autocot" in merged.text and "old body" not in merged.text
    with pytest.raises(ValueError, match="missing \\['model'\\]"):
        prediction_card({**fields, "model": ""}, config_name="x")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(ValueError, match="no predictions"):
        predictions_dataset(empty)


def test_push_predictions_calls_push_to_hub(tmp_path, monkeypatch):
    """The push itself, with the Hub calls replaced (no network)."""
    import datasets
    import huggingface_hub

    from sciwrite.core import hub

    path = tmp_path / "m_sample_short.jsonl"
    path.write_text(json.dumps({"paper_id": "t1", "pred": "p", "label": "l", "desc": "d"}) + "\n")
    calls = {}
    monkeypatch.setattr(datasets.Dataset, "push_to_hub",
                        lambda self, repo_id, **kw: calls.setdefault("dataset", (repo_id, len(self), kw)))
    monkeypatch.setattr(huggingface_hub.DatasetCard, "load", classmethod(
        lambda cls, repo_id, **kw: (_ for _ in ()).throw(huggingface_hub.utils.EntryNotFoundError("none"))))
    monkeypatch.setattr(huggingface_hub.DatasetCard, "push_to_hub",
                        lambda self, repo_id, **kw: calls.setdefault("card", (repo_id, self.text, kw)))
    fields = {"benchmark": "sciig", "dataset": "sample", "model": "m", "method": "SHORT"}
    url = hub.push_predictions(path, "me/preds", fields)
    assert url == "https://huggingface.co/datasets/me/preds"
    assert calls["dataset"][:2] == ("me/preds", 1) and calls["dataset"][2]["config_name"] == "m_sample_short"
    assert calls["dataset"][2]["split"] == "test"
    assert calls["card"][0] == "me/preds"
    assert "| `m_sample_short` | sciig | sample | test | m | SHORT | 1 |" in calls["card"][1]


def test_restrict_inputs_leaves_out_the_lacking_lines_only():
    medium = sciig_prompts.load_template("MEDIUM")
    title_abstract = sciig_prompts.restrict_inputs(medium, "title-abstract")
    title = sciig_prompts.restrict_inputs(medium, "title")
    assert sciig_prompts.restrict_inputs(medium, "title-abstract-related") == medium
    assert "{cited_nodes_pretty}" not in title_abstract and "RELATED PAPERS:\n" not in title_abstract
    assert "Abstract: {abstract}" in title_abstract and "Abstract: {abstract}" not in title
    removed = set(medium.splitlines()) - set(title.splitlines())
    assert all("RELATED PAPERS" in line or "{" in line or "JSON dictionary" in line for line in removed if line)
    assert title_abstract.splitlines()[0] == medium.splitlines()[0]  # the instructions are the paper's
    assert title_abstract.endswith("Abstract: {abstract}\n\nIntroduction:")
    with pytest.raises(ValueError, match="single-prompt level"):
        SciIGMethod("TWO_SHOT", HOLDOUT, inputs="title")
    with pytest.raises(ValueError, match="unknown input configuration"):
        SciIGMethod("SHORT", inputs="abstract")
