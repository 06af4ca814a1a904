"""`sciwrite generate` → `sciwrite evaluate` through the real command line and real HTTP, and `sciwrite push`."""

from __future__ import annotations

import json

import pytest

from sciwrite.cli import main
from sciwrite.core.hub import COST_CARD_COLUMNS
from tests.fakes.openai_server import chat_server


def _cite_first_two(body):
    """A model that cites the first two numbered candidates of any RAG prompt."""
    prompt = body["messages"][-1]["content"]
    assert "[1]" in prompt
    return "Prior work studied this problem [1]. Later methods improved on it [2]."


def test_generate_rwgbench_over_http_then_evaluate(mini_sample_copy, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "secret-key-123")
    out = tmp_path / "gen"
    with chat_server(_cite_first_two) as server:
        argv = ["generate", "rwgbench", "--model", "tiny-chat", "--base-url", server.base_url, "--method", "rag",
                "--split", "sample", "--source", str(mini_sample_copy), "--k", "5", "--out", str(out),
                "--concurrency", "2"]
        assert main(argv) == 0
        assert len(server.requests) == 2
        assert {r["temperature"] for r in server.requests} == {0.7}
        assert main(argv) == 0  # resumed: nothing left to send
        assert len(server.requests) == 2
    printed = capsys.readouterr().out
    assert "0 papers written" in printed and "2 already there" in printed
    [path] = [p for p in out.glob("*.jsonl") if p.name != "usage.jsonl"]
    assert path.name == "tiny-chat_rwgbench-sample_rag_bm25.jsonl"
    ledger = [json.loads(x) for x in (out / "usage.jsonl").read_text().splitlines()]
    assert len(ledger) == 2 and {x["purpose"] for x in ledger} == {"generate"}
    assert "secret-key-123" not in (out / "usage.jsonl").read_text()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert {x["model"] for x in lines} == {"tiny-chat"} and {x["method"] for x in lines} == {"rag"}
    assert all(len(x["candidates"]) == 5 and "[1]" in x["desc"] for x in lines)
    assert "secret-key-123" not in path.read_text()

    assert main(["evaluate", "rwgbench", "--predictions", str(path), "--split", "sample", "--source",
                 str(mini_sample_copy), "--profile", "lite", "--metrics", "precision", "recall", "citation_density",
                 "--out", str(tmp_path / "eval")]) == 0
    summary = json.loads((tmp_path / "eval" / path.stem / "summary.json").read_text())
    assert summary["n_papers"] == 2 and summary["join"]["n_missing"] == 0
    assert 0.0 <= summary["precision"] <= 1.0 and summary["citation_density"] > 0


def test_a_missing_api_key_names_the_variable(mini_sample_copy, tmp_path, capsys):
    code = main(["generate", "rwgbench", "--model", "openrouter:deepseek/deepseek-chat-v3-0324", "--method", "rag",
                 "--split", "sample", "--source", str(mini_sample_copy), "--out", str(tmp_path), "--limit", "1"])
    assert code == 2
    assert "OPENROUTER_API_KEY" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.jsonl"))


def test_an_unknown_model_id_is_a_clear_error(mini_sample_copy, tmp_path, capsys):
    code = main(["generate", "rwgbench", "--model", "anthropic:claude", "--method", "rag", "--split", "sample",
                 "--source", str(mini_sample_copy), "--out", str(tmp_path), "--limit", "1"])
    assert code == 2
    assert "unknown model provider 'anthropic'" in capsys.readouterr().err


def test_push_reads_the_run_from_the_file_and_pushes_it(tmp_path, monkeypatch, capsys):

    path = tmp_path / "openai-gpt-4o_sample_three_shot.jsonl"
    path.write_text(json.dumps({"paper_id": "p1", "pred": "Intro (Li et al., 2022).", "desc": "prompt",
                                "label": "ref", "benchmark": "sciig", "dataset": "sample", "model": "openai:gpt-4o",
                                "method": "THREE_SHOT", "retriever": None, "seed": 42}) + "\n")
    pushed = {}
    monkeypatch.setattr("sciwrite.cli.push.push_predictions",
                        lambda p, repo, fields, **kw: pushed.update(path=p, repo=repo, fields=fields, **kw) or
                        f"https://huggingface.co/datasets/{repo}")
    assert main(["push", "predictions", str(path), "--push-to-hub", "me/sciig-runs"]) == 0
    assert pushed["repo"] == "me/sciig-runs" and pushed["config_name"] is None
    run = {k: v for k, v in pushed["fields"].items() if k not in dict(COST_CARD_COLUMNS) and k != "cost_unknown"}
    assert run == {"benchmark": "sciig", "dataset": "sample", "split": "test", "model": "openai:gpt-4o",
                   "method": "THREE_SHOT", "seed": 42}
    # no usage.jsonl beside the file: its generator's cost is unknown, never 0
    assert pushed["fields"]["cost_gen_total"] == "unknown" and pushed["fields"]["gen_requests"] == "unknown"
    assert pushed["fields"]["cost_unknown"] == "no usage.jsonl beside the predictions"
    out = capsys.readouterr().out
    assert "--predictions me/sciig-runs:openai-gpt-4o_sample_three_shot" in out
    assert "generator cost unknown (no usage.jsonl beside the predictions)" in out


def test_push_refuses_a_file_without_run_metadata(tmp_path, capsys):
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"paper_id": "p1", "text": "x"}) + "\n")
    assert main(["push", "predictions", str(path), "--push-to-hub", "me/x"]) == 2
    assert "is it a file written by `sciwrite generate`" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["--limit=0"])
def test_quickstart_rejects_a_bad_limit(tmp_path, bad, capsys):
    with pytest.raises(SystemExit) as exit_info:  # a usage error, as --limit is in every command
        main(["quickstart", "--out", str(tmp_path), bad])
    assert exit_info.value.code == 2
    assert "argument --limit: expected a whole number 1 or more, got 0" in capsys.readouterr().err


def test_quickstart_with_a_model_runs_the_same_pipeline(mini_sample_copy, surge_mini_folder, tmp_path, monkeypatch,
                                                        capsys, patch_encoder):
    """`--model` swaps the extractive floor for a language model: RAG prompts for RWGBench and SurGE, three-shot for
    SciIG."""
    from sciwrite.sciig.data.builder import write_sciig_sample

    sciig = tmp_path / "sciig"
    write_sciig_sample(sciig)  # the whole sample: its 24 holdout papers are the three-shot exemplar pool
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")

    def answer(body):
        prompt = body["messages"][-1]["content"]
        if "related-work section" in prompt:
            return "Earlier systems addressed this task [1], and later ones refined it [2]."
        return "Scientific writing is hard. We propose a new method and evaluate it."

    out = tmp_path / "qs"
    with chat_server(answer) as server:
        assert main(["quickstart", "--source", f"rwgbench={mini_sample_copy}", "--source", f"sciig={sciig}",
                     "--source", f"surge={surge_mini_folder}", "--out", str(out), "--model", "tiny-chat",
                     "--base-url", server.base_url, "--limit", "2"]) == 0
        assert {r["model"] for r in server.requests} == {"tiny-chat"}
        assert len(server.requests) == 3 * 2 + 2 + 2  # three RWGBench systems, SciIG and SurGE, two papers each
    for system in ("rag-bm25", "rag-dense", "oracle"):
        lines = [json.loads(x) for x in (out / "generations" / "rwgbench" / f"{system}.jsonl").read_text().splitlines()]
        assert [x["method"] for x in lines] == ["rag", "rag"] and {x["model"] for x in lines} == {"tiny-chat"}
    [sciig_line, _] = [json.loads(x) for x in (out / "generations" / "sciig" / "three_shot.jsonl").read_text().splitlines()]
    assert sciig_line["method"] == "THREE_SHOT" and len(sciig_line["exemplars"]) == 3
    table2 = {r["system"]: r for r in json.loads((out / "rwgbench_table2.json").read_text())}
    assert table2["oracle"]["CQ P"] == pytest.approx(1.0)  # [1] and [2] of a gold-only list are gold
    summary = json.loads((out / "sciig" / "three_shot" / "summary.json").read_text())
    assert summary["n_papers"] == 2 and summary["no_citation_rate"] == 1.0
    surge_lines = [json.loads(x) for x in (out / "generations" / "surge" / "rag_bm25.jsonl").read_text().splitlines()]
    assert [x["method"] for x in surge_lines] == ["rag", "rag"] and {x["model"] for x in surge_lines} == {"tiny-chat"}
    printed = capsys.readouterr().out
    assert "tiny-chat writer" in printed


def test_generate_exits_4_when_papers_failed(mini_sample_copy, tmp_path, monkeypatch, capsys):
    """Issue 23: with the endpoint down every paper failed, and the command still exited 0."""
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "k")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    argv = ["generate", "rwgbench", "--model", "tiny-chat", "--base-url", "http://127.0.0.1:9/v1", "--method", "rag",
            "--split", "sample", "--source", str(mini_sample_copy), "--k", "3", "--out", str(tmp_path),
            "--max-retries", "0", "--timeout", "5"]
    assert main(argv) == 4
    printed = capsys.readouterr().out
    assert "0 papers written" in printed and "rerun with --retry-failed" in printed
    assert list(tmp_path.glob("failed_samples_*.jsonl"))


def test_generate_help_documents_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "sciig", "--help"])
    assert "exit status: 0 every paper written; 2 usage" in " ".join(capsys.readouterr().out.split())
