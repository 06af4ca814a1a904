"""`sciwrite generate` and both judges against endpoints that answer as OpenAI, OpenRouter and thinking models do:
every paper is written, no reasoning trace reaches a prediction or a judge's parser, the usage ledger and the run's
metadata say what was spent and what was not applied, and --max-cost stops and resumes with nothing written twice."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.llm.client import ChatClient
from sciwrite.rwgbench.metrics.judge import judge_sections
from sciwrite.sciig.metrics.judge import judge_sciig
from tests.fakes.openai_server import Reply, chat_server, isolate_from_real_endpoints, like_real_endpoints
from tests.sciig.test_judge import scripted

KEY = "sk-live-DO-NOT-LEAK-9f8e7d"
TRACE = "Hmm, Score: 2 at first. Candidates [1] [2] [3] [4] [5] all look relevant. Title: Made Up Paper."
MODELS = ("gpt-5.5", "deepseek/deepseek-r1", "openai/gpt-5.5")


def related_work(body):
    """A model that cites [1] and lists a reference, for Direct and RAG prompts alike."""
    return Reply("Prior work studied this problem [1].\n\nReferences\n[1] A study of the problem.",
                 prompt_tokens=1000, completion_tokens=100)


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    isolate_from_real_endpoints(monkeypatch)
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", KEY)


def generate(server, source, out, model, method, *extra):
    return main(["generate", "rwgbench", "--model", model, "--base-url", server.base_url, "--method", method,
                 "--split", "sample", "--source", str(source), "--k", "5", "--out", str(out), "--concurrency", "1",
                 *extra])


def output_lines(out):
    [path] = [p for p in out.glob("*.jsonl") if p.name != "usage.jsonl"]
    return path, [json.loads(x) for x in path.read_text().splitlines()]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("method", ["direct", "rag"])
def test_every_paper_is_written_and_no_trace_reaches_it(mini_sample_copy, tmp_path, capsys, model, method):
    out = tmp_path / "gen"
    with chat_server(like_real_endpoints(related_work, trace=TRACE)) as server:
        assert generate(server, mini_sample_copy, out, model, method) == 0
    path, lines = output_lines(out)
    assert len(lines) == 2 == len(server.requests)
    for line in lines:
        assert "<think>" not in line["pred"] and "Made Up Paper" not in line["pred"] and "reasoning" not in line
        assert line["model_snapshot"] == f"{model}-2026-04-23"
        if method == "rag":
            assert line["candidates"][:1] and "[1]" in line["pred"] and "[5]" not in line["pred"]
        else:
            assert [r["title"] for r in line["references"]] == ["A study of the problem."]
    ledger = [json.loads(x) for x in (out / "usage.jsonl").read_text().splitlines()]
    assert [x["paper_id"] for x in ledger] == [x["paper_id"] for x in lines]
    assert sum(x["prompt_tokens"] for x in ledger) == 2000 and all(x["cost_usd"] for x in ledger)
    meta = json.loads(path.with_name(f"{path.stem}.meta.json").read_text())
    assert meta["report"]["n_written"] == 2 and meta["usage"]["session"]["requests"] == 2
    printed = capsys.readouterr().out
    if model.endswith("gpt-5.5"):
        assert all("temperature" not in r and "max_tokens" not in r for r in server.requests)
        not_applied = {a["parameter"]: a for a in meta["requests"]["adjustments"]}
        assert not_applied["temperature"]["requested"] == 0.7  # the paper's temperature, recorded, never silent
        assert "not applied as asked: temperature=0.7 not sent" in printed
    else:
        assert {r["temperature"] for r in server.requests} == {0.7} and meta["requests"]["adjustments"] == []
    assert KEY not in printed
    for file in out.iterdir():
        assert KEY not in file.read_text()


def test_keep_reasoning_keeps_the_trace_apart(mini_sample_copy, tmp_path):
    out = tmp_path / "gen"
    with chat_server(like_real_endpoints(related_work, trace=TRACE)) as server:
        assert generate(server, mini_sample_copy, out, "deepseek/deepseek-r1", "direct", "--keep-reasoning") == 0
    _, lines = output_lines(out)
    assert all(line["reasoning"] == [TRACE] and "Made Up" not in line["pred"] for line in lines)


def test_max_cost_stops_cleanly_and_resumes(mini_sample_copy, tmp_path, capsys):
    out = tmp_path / "gen"
    answer = like_real_endpoints(related_work, cost_per_token=1e-5)  # 1,100 tokens: $0.011 a paper
    # A request's worst case at the packaged gpt-4o price is ~$0.039: after one paper ($0.011) the next no longer
    # fits in $0.045, so it is not sent.
    with chat_server(answer) as server:
        assert generate(server, mini_sample_copy, out, "openai/gpt-4o", "rag", "--max-cost", "0.045") == 3
        _, lines = output_lines(out)
        assert len(lines) == 1 and len(server.requests) == 1
        assert not list(out.glob("failed_samples_*"))  # a budget stop is not a failure
        printed = capsys.readouterr().out
        assert "stopped at the budget: spent $0.0110 of $0.045" in printed and "1 papers left undone" in printed
        assert generate(server, mini_sample_copy, out, "openai/gpt-4o", "rag", "--max-cost", "0.045") == 3
        assert len(server.requests) == 1  # the next request still does not fit: nothing sent
        assert generate(server, mini_sample_copy, out, "openai/gpt-4o", "rag", "--max-cost", "1") == 0
    _, lines = output_lines(out)
    assert len(lines) == 2 == len({x["paper_id"] for x in lines}) == len(server.requests)
    ledger = [json.loads(x) for x in (out / "usage.jsonl").read_text().splitlines()]
    assert len(ledger) == 2 and sum(x["cost_usd"] for x in ledger) == pytest.approx(0.022)


@pytest.mark.parametrize("model", MODELS)
def test_rwgbench_judge_reads_only_the_answer(model):
    answer = like_real_endpoints(lambda r: '{"score": 4, "rationale": "Coherent."}', trace=TRACE)
    with chat_server(answer) as server:
        client = ChatClient(model, base_url=server.base_url, max_retries=0)
        rows = judge_sections(["A related-work section.", "Another one."], client, show_progress=False)
    assert [r["llm_judge_raw"] for r in rows] == [4, 4] and all(r["judge_error"] is None for r in rows)
    assert all("<think>" not in r["judge_reply"] and "Score: 2" not in r["judge_reply"] for r in rows)
    assert len(server.requests) == 2 and rows[0]["judge_snapshot"] == f"{model}-2026-04-23"


@pytest.mark.parametrize("model", MODELS)
def test_sciig_judge_reads_only_the_answer(model):
    answer = like_real_endpoints(scripted, trace='Draft: {"Coverage": 0.0, "Consistency": 0.0}')
    with chat_server(answer) as server:
        client = ChatClient(model, base_url=server.base_url, max_retries=0)
        [row] = judge_sciig(["Intro WANT=0.75."], ["Reference intro."], ["Title"], ["Abstract."], client,
                            [["Cited work."]], show_progress=False)
    assert row["judge_errors"] == {} and row["judge_coverage"] == 0.75 and row["judge_consistency"] == 0.75
    assert all("<think>" not in reply for reply in row["judge_replies"].values())
    assert set(row["judge_snapshots"].values()) == {f"{model}-2026-04-23"}


def test_model_options_from_a_config_and_the_command_line(mini_sample_copy, tmp_path):
    config = tmp_path / "gpt55_direct.yaml"
    config.write_text("benchmark: rwgbench\nmethod: direct\ntemperature: 0.7\n"
                      "model_options: {reasoning_effort: high, seed: null}\n")
    with chat_server(like_real_endpoints(related_work)) as server:
        assert generate(server, mini_sample_copy, tmp_path / "a", "gpt-5.5", "direct", "--config", str(config),
                        "--model-option", "verbosity=low") == 0
    assert all(r["reasoning_effort"] == "high" and r["verbosity"] == "low" and "seed" not in r
               for r in server.requests)
    path, lines = output_lines(tmp_path / "a")
    assert lines[0]["model_options"] == {"reasoning_effort": "high", "seed": None, "verbosity": "low"}
    config.write_text("benchmark: rwgbench\nmodel_options: [reasoning_effort]\n")
    with pytest.raises(SystemExit):
        main(["generate", "rwgbench", "--model", "gpt-5.5", "--config", str(config), "--dry-run"])
    with pytest.raises(SystemExit):
        main(["generate", "rwgbench", "--model", "gpt-5.5", "--model-option", "no-value", "--dry-run"])


def rwgbench_model(body):
    """Related work for generation prompts; a JSON score for the RWGBench judge's rubric."""
    if "publication-readiness" in body["messages"][0]["content"]:
        return Reply('{"score": 4, "rationale": "Coherent."}', prompt_tokens=2000, completion_tokens=50)
    return related_work(body)


def test_evaluate_with_a_reasoning_judge_records_spend_and_snapshots(mini_sample_copy, tmp_path, capsys):
    snapshot = {"name": None}

    def answer(body):
        reply = rwgbench_model(body)
        reply.model = snapshot["name"]
        return reply

    cache = tmp_path / "judge.jsonl"
    with chat_server(like_real_endpoints(answer, trace=TRACE)) as server:
        assert generate(server, mini_sample_copy, tmp_path / "gen", "deepseek/deepseek-r1", "rag") == 0
        path, _ = output_lines(tmp_path / "gen")
        argv = ["evaluate", "rwgbench", "--predictions", str(path), "--split", "sample", "--source",
                str(mini_sample_copy), "--profile", "lite", "--metrics", "llm_judge", "precision",
                "--model-role", "judge=gpt-5.5", "--judge-base-url", server.base_url, "--judge-cache", str(cache),
                "--judge-option", "reasoning_effort=low", "--out", str(tmp_path / "eval")]
        assert main(argv) == 0
        judged = [r for r in server.requests if "publication-readiness" in r["messages"][0]["content"]]
        assert len(judged) == 2 and all(r["reasoning_effort"] == "low" and r["seed"] == 42 and
                                        "temperature" not in r for r in judged)
        summary = json.loads((tmp_path / "eval" / path.stem / "summary.json").read_text())
        assert summary["llm_judge"] == 0.75 and summary["judge_snapshots"] == {"gpt-5.5-2026-04-23": 2}
        assert summary["judge_system_fingerprints"] == {"fp_2026a": 2}
        assert summary["provenance"]["judge"] == {"model": "gpt-5.5", "snapshots": {"gpt-5.5-2026-04-23": 2},
                                                  "system_fingerprints": {"fp_2026a": 2}}
        usage = summary["llm_usage"]
        assert (usage["requests"], usage["prompt_tokens"], usage["reasoning_tokens"]) == (2, 4000, 80)
        assert usage["cost_usd"] == pytest.approx(2 * (2000 * 5 + 90 * 30) / 1e6)  # the packaged GPT-5.5 price
        not_applied = {a["parameter"]: a for a in summary["llm_requests"]["judge"]["adjustments"]}
        assert not_applied["temperature"]["requested"] == 0.0 and not_applied["max_tokens"]["sent"] == 25_000
        assert "judge: not applied as asked: temperature=0.0 not sent" in capsys.readouterr().out
        # a rerun whose judge is a newer snapshot for one paper: visible in the summary and on screen
        cache.write_text(cache.read_text().splitlines()[0] + "\n")
        snapshot["name"] = "gpt-5.5-2026-09-30"
        assert main(argv) == 0
    summary = json.loads((tmp_path / "eval" / path.stem / "summary.json").read_text())
    assert summary["judge_snapshots"] == {"gpt-5.5-2026-04-23": 1, "gpt-5.5-2026-09-30": 1}
    assert summary["llm_usage"]["requests"] == 1  # this evaluation's own spend: one paper was cached
    assert "the judge answered from 2 snapshots" in capsys.readouterr().out
    ledger = [json.loads(x) for x in (tmp_path / "eval" / "usage.jsonl").read_text().splitlines()]
    assert [x["purpose"] for x in ledger] == ["judge"] * 3 and len({x["run"] for x in ledger}) == 2
    assert KEY not in (tmp_path / "eval" / "usage.jsonl").read_text()


def test_evaluate_sciig_judge_and_extractor_on_thinking_and_reasoning_models(sciig_mini_folder, tmp_path,
                                                                             monkeypatch):
    from sciwrite.sciig.data.loading import load_sciig

    def answer(body):
        if body["messages"][0]["content"].startswith("Objective: Extract citations"):
            return json.dumps({"neighbors": []})
        return scripted(body)

    papers = load_sciig("sample", source=sciig_mini_folder, split="test").to_list()
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text("".join(json.dumps({"paper_id": p["paper_id"], "text": "An intro WANT=0.75."}) + "\n"
                                   for p in papers))
    with chat_server(like_real_endpoints(answer, trace='{"Coverage": 0.0}')) as server:
        monkeypatch.setenv("SCIWRITE_LLM_BASE_URL", server.base_url)  # the extractor's endpoint
        assert main(["evaluate", "sciig", "--predictions", str(predictions), "--split", "sample", "--source",
                     str(sciig_mini_folder), "--profile", "lite", "--metrics", "judge", "citations",
                     "--model-role", "sciig_judge=gpt-5.5", "--model-role", "citation_extractor=deepseek/deepseek-r1",
                     "--judge-base-url", server.base_url, "--bootstrap", "0", "--out", str(tmp_path / "eval")]) == 0
    summary = json.loads((tmp_path / "eval" / "preds" / "summary.json").read_text())
    assert summary["judge_coverage"] == 0.75 and summary["judge_failures"] == 0
    assert summary["citation_extractor"] == "deepseek/deepseek-r1" and summary["citation_extractor_errors"] == 0
    assert set(summary["judge_snapshots"]) == {"gpt-5.5-2026-04-23"}
    purposes = {json.loads(x)["purpose"] for x in (tmp_path / "eval" / "usage.jsonl").read_text().splitlines()}
    assert purposes == {"sciig_judge", "citation_extractor"}
    assert set(summary["llm_requests"]) == {"sciig_judge", "citation_extractor"}
    block = summary["provenance"]
    assert block["benchmark"] == "sciig" and block["dataset"]["n_papers"] == len(papers)
    assert set(block["judge"]["snapshots"]) == {"gpt-5.5-2026-04-23"} and summary["schema_version"] == 2


def test_the_ledger_is_not_taken_for_predictions(mini_sample_copy, tmp_path, capsys):
    with chat_server(like_real_endpoints(related_work)) as server:
        assert generate(server, mini_sample_copy, tmp_path / "gen", "gpt-4o", "direct") == 0
    assert main(["evaluate", "rwgbench", "--predictions", str(tmp_path / "gen" / "usage.jsonl"), "--split", "sample",
                 "--source", str(mini_sample_copy), "--profile", "lite", "--metrics", "precision"]) == 2
    assert "a usage-ledger line (usage.jsonl" in capsys.readouterr().err
