"""The local-server configs of docs/evaluate-a-model.md (baselines/local/*.yaml) do what the page says: run with the
command their comment gives, against an OpenAI-compatible server (the tests' fake, standing in for vLLM or Ollama),
every request carries the model id, the sampling settings and the token limit the config sets, and the predictions
are written. The page shows each config verbatim."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

from sciwrite.cli import main
from tests.docs.snippets import DOCS, ROOT, snippets
from tests.fakes.openai_server import Reply, chat_server, isolate_from_real_endpoints

CONFIGS = {"vllm": ROOT / "baselines" / "local" / "vllm_rag_bm25.yaml",
           "ollama": ROOT / "baselines" / "local" / "ollama_rag_bm25.yaml"}
PAGE = DOCS / "evaluate-a-model.md"
#: Where each server listens by default (vLLM's `vllm serve`, Ollama's `ollama serve`).
DEFAULT_URLS = {"vllm": "http://localhost:8000/v1", "ollama": "http://localhost:11434/v1"}


def run_command(config: Path) -> list[str]:
    """The `sciwrite generate ...` words of the config's own "then run" comment (its environment variable dropped)."""
    lines = [line.lstrip("# ").strip() for line in config.read_text().splitlines() if line.startswith("#")]
    [command] = [line for line in lines if "sciwrite generate" in line]
    words = shlex.split(command)
    return words[words.index("sciwrite") + 1:]


def cite_the_first_candidate(body):
    return Reply("Earlier work framed the problem this way [1], and later work extended it [2].",
                 prompt_tokens=1200, completion_tokens=40)


@pytest.mark.parametrize("server_kind", sorted(CONFIGS))
def test_a_local_server_config_sends_what_it_says(server_kind, mini_sample_copy, tmp_path, monkeypatch, capsys):
    config_path = CONFIGS[server_kind]
    config = yaml.safe_load(config_path.read_text())
    assert config["base_url"] == DEFAULT_URLS[server_kind]
    argv = run_command(config_path)
    assert argv[:4] == ["generate", "rwgbench", "--config", str(config_path.relative_to(ROOT))]
    model = argv[argv.index("--model") + 1]
    isolate_from_real_endpoints(monkeypatch)
    monkeypatch.setenv("SCIWRITE_LLM_API_KEY", "EMPTY")  # a local server checks no key, but the client sends one
    out = tmp_path / "out"
    with chat_server(cite_the_first_candidate) as server:
        status = main(["generate", "rwgbench", "--config", str(config_path), "--model", model,
                       "--base-url", server.base_url, "--split", "sample", "--source", str(mini_sample_copy),
                       "--limit", "2", "--out", str(out)])
    assert status == 0, capsys.readouterr()
    assert len(server.requests) == 2
    for request in server.requests:
        assert request["model"] == model
        assert request["temperature"] == config["temperature"]
        assert request["max_tokens"] == config["max_tokens"]
        assert request["seed"] == config["seed"]
        assert "tools" not in request
        prompt = request["messages"][-1]["content"]
        assert re.search(r"^\[1\] Title: ", prompt, re.MULTILINE)  # the RAG prompt's numbered candidates
    assert {h["authorization"] for h in server.headers} == {"Bearer EMPTY"}
    [predictions] = [p for p in out.glob("*.jsonl") if p.name != "usage.jsonl"]
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert line["method"] == config["method"] and line["retriever"] == config["retriever"]
        assert line["model"] == model and line["candidates"] and "[1]" in line["pred"]
    meta = json.loads(predictions.with_name(f"{predictions.stem}.meta.json").read_text())
    assert meta["report"]["n_written"] == 2
    usage = [json.loads(line) for line in (out / "usage.jsonl").read_text().splitlines()]
    assert len(usage) == 2 and {u["prompt_tokens"] for u in usage} == {1200}


def test_the_page_shows_each_config_as_it_is():
    shown = [s.code for s in snippets(PAGE) if s.language == "yaml"]
    for config in CONFIGS.values():
        assert config.read_text() in shown, f"{PAGE.relative_to(ROOT)} has no ```yaml block equal to {config.name}"
