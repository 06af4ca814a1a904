"""The baseline configs under baselines/: each loads and names a valid setting, the published set is complete
(RWGBench Table 2 rows, SciIG Table 2/3 columns), `--config` sets the defaults and explicit flags win, bad configs
are errors naming the file and the key, and configs run end to end as dry runs on offline data."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from sciwrite.cli import baseline_config as cli_common
from sciwrite.cli import build_parser, main
from sciwrite.cli import generate as gen_cli
from sciwrite.generation.runner import prompt_text
from sciwrite.retrieval.build import RETRIEVERS
from sciwrite.rwgbench.benchmark import RWGBENCH
from sciwrite.rwgbench.generation.methods import resolve_methods
from sciwrite.sciig.benchmark import SCIIG
from sciwrite.sciig.generation import plan as gen_sciig
from sciwrite.sciig.generation.levels import SciIGMethod
from sciwrite.sciig.generation.prompts import FULL_INPUTS, INPUTS, LEVELS, parse_levels

# The offline fixtures and fakes of the generation tests, reused (pytest finds imported fixtures).
from tests.rwgbench.test_generation import FakeBackend, read_jsonl, tiny_split  # noqa: F401  (the fixture)
from tests.sciig.test_generation import (
    HOLDOUT,
    TEST,
    sciig_folder,  # noqa: F401  (the fixture, asked for by name)
)

BASELINES = Path(__file__).resolve().parents[2] / "baselines"
RWGBENCH_CONFIGS = sorted((BASELINES / "rwgbench").glob("*.yaml"))
SCIIG_CONFIGS = sorted((BASELINES / "sciig").glob("*.yaml"))
BENCHMARKS = {"rwgbench": RWGBENCH, "sciig": SCIIG}


def generate_parser(benchmark: str) -> argparse.ArgumentParser:
    return gen_cli.add_generate_arguments(argparse.ArgumentParser(), BENCHMARKS[benchmark])


def load(path: Path) -> dict:
    benchmark = path.parent.name
    return cli_common.load_config(path, benchmark, generate_parser(benchmark))


def parse(*argv: str) -> argparse.Namespace:
    return cli_common.parse_args(build_parser(), list(argv))


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "my_run.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("path", RWGBENCH_CONFIGS + SCIIG_CONFIGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_config_loads_and_names_a_valid_setting(path):
    import yaml

    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert raw["benchmark"] == path.parent.name and raw["paper_row"] and raw["description"]
    assert "model" not in raw
    values = load(path)
    if path.parent.name == "rwgbench":
        assert len(resolve_methods(values["method"])) == 1
        assert values.get("retriever", "bm25") in RETRIEVERS
        assert values["split"] == "test" and isinstance(values["oracle"], bool)
    else:
        assert len(parse_levels(values["level"])) == 1
        assert values["split"] in gen_sciig.DATASETS and values["seed"] == 42
    assert (values["temperature"], values["max_tokens"]) == (0.7, 2048)


def rwgbench_row(values: dict) -> tuple[str, str | None]:
    [method] = resolve_methods(values["method"])
    return method, None if method == "direct" else ("oracle" if values["oracle"] else values["retriever"])


def test_the_published_rwgbench_set_is_table_2():
    # the agent configs are sciwrite's own baseline (issue 40), not rows of the paper (tests/rwgbench/test_agent.py)
    published = [path for path in RWGBENCH_CONFIGS if not path.stem.startswith("agent_")]
    rows = {rwgbench_row(load(path)): path.stem for path in published}
    expected = {(m, r) for m in ("rag", "alce", "tag", "workflow") for r in ("bm25", "dense", "oracle")}
    assert set(rows) == expected | {("direct", None)} and len(published) == 13
    for (method, retriever), stem in rows.items():
        values = load(BASELINES / "rwgbench" / f"{stem}.yaml")
        assert stem == (method if method == "direct" else f"{method}_{retriever}")
        if method == "workflow":
            assert values["workflow_k"] == 20  # k=20 per query (Sec. 5.2)
        elif retriever in ("bm25", "dense"):
            assert values["k"] == 50  # both retrieve k=50 papers (Sec. 5.1)
        if retriever == "dense":
            assert values["profile"] == "paper"  # BGE-large-en-v1.5


def test_the_published_sciig_set_is_every_level_both_datasets_and_the_ablation():
    runs = [(load(path)["split"], parse_levels(load(path)["level"])[0], load(path).get("inputs", FULL_INPUTS))
            for path in SCIIG_CONFIGS]
    full = [(dataset, level) for dataset, level, inputs in runs if inputs == FULL_INPUTS]
    assert sorted(level for dataset, level in full if dataset == "naacl_2025") == sorted(LEVELS)  # Table 3
    assert [level for dataset, level in full if dataset == "iclr_2025"] == ["ELABORATE"]  # Table 2, ICLR 2025
    ablation = {(level, inputs) for dataset, level, inputs in runs if dataset == "naacl_2025"
                and level in ("ELABORATE", "MEDIUM")}
    assert ablation == {(level, inputs) for level in ("ELABORATE", "MEDIUM") for inputs in INPUTS}  # Table 4
    assert len(runs) == len(set(runs)) == len(LEVELS) + 1 + 4


def test_config_sets_the_defaults_and_explicit_flags_win():
    config = str(BASELINES / "rwgbench" / "rag_dense.yaml")
    args = parse("generate", "rwgbench", "--config", config, "--model", "m")
    assert (args.method, args.retriever, args.k, args.split, args.oracle, args.profile) == \
        (["rag"], "dense", 50, "test", False, "paper")
    args = parse("generate", "rwgbench", "--k", "7", "--config", config, "--model", "m", "--split", "sample",
                 "--method", "alce", "--retriever", "bm25")
    assert (args.method, args.retriever, args.k, args.split, args.profile) == (["alce"], "bm25", 7, "sample", "paper")
    args = parse("generate", "rwgbench", "--config", str(BASELINES / "rwgbench" / "tag_oracle.yaml"), "--model", "m",
                 "--no-oracle")
    assert (args.method, args.oracle) == (["tag"], False)
    args = parse("generate", "sciig", "--model", "m", "--config", str(BASELINES / "sciig" / "three_shot.yaml"))
    assert (args.level, args.split, args.seed) == (["THREE_SHOT"], "naacl_2025", 42)
    args = parse("generate", "sciig", "--seed", "7", "--model", "m", "--config",
                 str(BASELINES / "sciig" / "elaborate_iclr_2025.yaml"), "--level", "short")
    assert (args.level, args.split, args.seed) == (["short"], "iclr_2025", 7)
    assert parse("generate", "sciig", "--model", "m").level is None  # no config: the plain defaults


def test_the_command_line_is_parsed_once_and_the_config_read_once(monkeypatch):
    parser, reads, parses = build_parser(), [], []
    real_parse, real_load = parser.parse_args, cli_common.load_config
    monkeypatch.setattr(parser, "parse_args", lambda argv: parses.append(argv) or real_parse(argv))
    monkeypatch.setattr(cli_common, "load_config", lambda *a: reads.append(a[0]) or real_load(*a))
    config = str(BASELINES / "rwgbench" / "rag_dense.yaml")
    args = cli_common.parse_args(parser, ["generate", "rwgbench", "--k", "7", "--config", config, "--model", "m"])
    assert (args.k, args.retriever, args.config) == (7, "dense", config)
    assert len(parses) == 1 and reads == [config]
    reads.clear()
    assert cli_common.parse_args(build_parser(), ["generate", "rwgbench", "--model", "m"]).config is None
    assert cli_common.parse_args(build_parser(), ["evaluate", "rwgbench", "--predictions", "p.jsonl"]).split
    assert reads == []


def test_a_former_option_name_in_a_config_is_an_unknown_key(tmp_path):
    path = write_config(tmp_path, "benchmark: sciig\ndataset: iclr_2025\nlevel: SHORT\n")
    with pytest.raises(cli_common.ConfigError, match="unknown key 'dataset'"):
        cli_common.load_config(path, "sciig", generate_parser("sciig"))


@pytest.mark.parametrize("text, message", [
    ("benchmark: rwgbench\nmethod: rag\ntopk: 5\n", "unknown key 'topk'"),
    ("benchmark: rwgbench\nmethod: rag\nmodel: openai:gpt-4o\n", "key 'model': the model is not part"),
    ("benchmark: rwgbench\nretriever: sparse\n", "key 'retriever': 'sparse' is not one of bm25, dense"),
    ("benchmark: rwgbench\nk: many\n", "key 'k':"),
    ("benchmark: rwgbench\noracle: 1\n", "key 'oracle': expected true or false"),
    ("benchmark: sciig\nlevel: SHORT\n", "key 'benchmark' is 'sciig'.*sciwrite generate sciig"),
    ("method: rag\n", "key 'benchmark' is None"),
    ("- rag\n", "expected a mapping"),
])
def test_a_bad_config_is_an_error_naming_the_file_and_the_key(tmp_path, capsys, text, message):
    path = write_config(tmp_path, text)
    with pytest.raises(SystemExit) as exit_info:
        main(["generate", "rwgbench", "--model", "m", "--config", str(path)])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert f"config {path}: " in error
    with pytest.raises(cli_common.ConfigError, match=message):
        cli_common.load_config(path, "rwgbench", generate_parser("rwgbench"))


def test_a_bad_sciig_level_and_a_missing_file_are_errors(tmp_path):
    parser = generate_parser("sciig")
    path = write_config(tmp_path, "benchmark: sciig\nlevel: [SHORT, FOUR_SHOT]\n")
    with pytest.raises(cli_common.ConfigError, match=f"config {path}: key 'level': unknown SciIG prompt level"):
        cli_common.load_config(path, "sciig", parser)
    with pytest.raises(cli_common.ConfigError, match="cannot read it"):
        cli_common.load_config(tmp_path / "absent.yaml", "sciig", parser)


def test_help_lists_config(capsys):
    for what in ("rwgbench", "sciig"):
        with pytest.raises(SystemExit):
            main(["generate", what, "--help"])
        assert "--config FILE" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------- end to end


DRY_RUN_RWGBENCH = ["direct", "rag_bm25", "alce_bm25", "tag_bm25", "workflow_bm25", "rag_oracle", "workflow_oracle",
                    "rag_dense"]


@pytest.mark.parametrize("stem", DRY_RUN_RWGBENCH)
def test_rwgbench_config_dry_run_on_the_offline_sample(stem, mini_sample_folder, tmp_path, capsys, request):
    argv = ["generate", "rwgbench", "--config", str(BASELINES / "rwgbench" / f"{stem}.yaml"), "--model",
            "openai:gpt-4o", "--split", "sample", "--source", str(mini_sample_folder), "--out", str(tmp_path / "out"),
            "--dry-run"]
    if stem.endswith("_dense"):
        request.getfixturevalue("patch_encoder")  # the packaged MiniLM stands in for BGE-large
        argv += ["--profile", "lite"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    method = stem.split("_")[0]
    assert f"· method {method} · exact prompt ===" in printed
    if method in ("rag", "alce", "tag"):
        assert "[1]" in printed  # a numbered candidate list (retrieved, or the gold set)
    if method == "workflow":
        assert '{"themes":' in printed  # its first request plans themes; retrieval comes after
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("level", LEVELS)
def test_sciig_config_dry_run(level, tmp_path, capsys, request):
    folder = request.getfixturevalue("sciig_folder")  # the synthetic SciIG folder of test_sciig_generation
    argv = ["generate", "sciig", "--config", str(BASELINES / "sciig" / f"{level.lower()}.yaml"), "--model",
            "openai:gpt-4o", "--split", "sample", "--source", str(folder), "--out", str(tmp_path), "--dry-run"]
    assert main(argv) == 0
    expected = prompt_text(SciIGMethod(level, HOLDOUT[:3], seed=42).prompt(TEST[0]))
    assert f"=== paper t1 · method {level} · exact prompt ===\n{expected}\n" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("stem", ["elaborate_title", "elaborate_title_abstract", "medium_title",
                                  "medium_title_abstract"])
def test_sciig_ablation_config_dry_run_names_the_choice(stem, tmp_path, capsys, request):
    """Table 4's runs: the prompt lacks the inputs the configuration leaves out, and the command says it is ours."""
    folder = request.getfixturevalue("sciig_folder")
    argv = ["generate", "sciig", "--config", str(BASELINES / "sciig" / f"{stem}.yaml"), "--model", "openai:gpt-4o",
            "--split", "sample", "--source", str(folder), "--out", str(tmp_path), "--dry-run"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    level, inputs = stem.split("_", 1)[0].upper(), stem.split("_", 1)[1].replace("_", "-")
    method = SciIGMethod(level, seed=42, inputs=inputs)
    assert method.name == f"{level}_{inputs.replace('-', '_').upper()}"
    assert f"note: {method.name}: the paper does not print its ablation prompts" in printed
    prompt = prompt_text(method.prompt(TEST[0]))
    assert f"· method {method.name} · exact prompt ===\n{prompt}\n" in printed
    assert "RELATED PAPERS:" not in prompt and TEST[0]["title"] in prompt
    assert (TEST[0]["abstract"] in prompt) == (inputs == "title-abstract")


@pytest.mark.usefixtures("tiny_split")
def test_rwgbench_config_run_with_a_fake_backend(tmp_path, monkeypatch):
    monkeypatch.setattr("sciwrite.generation.writer.WriterModel.backend", lambda writer: FakeBackend())
    args = parse("generate", "rwgbench", "--config", str(BASELINES / "rwgbench" / "rag_bm25.yaml"), "--model",
                 "openai:gpt-4o", "--out", str(tmp_path), "--concurrency", "1")
    [report] = gen_cli.run_generate(args)
    assert report.n_written == 2
    lines = read_jsonl(tmp_path / "openai-gpt-4o_rwgbench-test_rag_bm25.jsonl")
    assert {(x["method"], x["retriever"], x["k"], x["split"], x["oracle"]) for x in lines} == \
        {("rag", "bm25", 50, "test", False)}


# ------------------------------------------------ the commands that replace scripts/build_rwgbench.py, build_sciig.py


def test_build_rwgbench_upstream_imports_the_release(tmp_path, monkeypatch, capsys):
    from datasets import Dataset

    from sciwrite.rwgbench.data.loading import load_rwgbench
    from tests.rwgbench.test_upstream import upstream_papers

    corpus = Dataset.from_dict({"corpus_id": [f"d{i}" for i in range(1, 6)], "title": [f"T{i}" for i in range(1, 6)],
                                "abstract": ["x"] * 5, "authors": ["A. B"] * 5, "year": ["2020"] * 5})
    asked = []

    def fake_load_dataset(repo_id, config, split=None, **kwargs):
        asked.append((repo_id, config, split))
        return corpus if config == "corpus" else upstream_papers()

    monkeypatch.setattr("sciwrite.rwgbench.data.upstream.load_dataset", fake_load_dataset)
    out = tmp_path / "upstream"
    assert main(["build", "rwgbench-upstream", "--out", str(out)]) == 0
    assert asked == [("BFTree/RWGBench", None, "train"), ("BFTree/RWGBench", None, "test"),
                     ("BFTree/RWGBench", "corpus", "train")]
    assert load_rwgbench("test", source=str(out))["paper_id"] == ["p1", "p2"]
    assert len(load_rwgbench("corpus", source=str(out))) == 5


def test_build_sciig_release_imports_an_upstream_file(tmp_path, capsys):
    release = tmp_path / "naacl.json"
    neighbors = {"Li et al., 2022": {"title": "T", "authors": ["A B"], "abstract": "Ab."}}
    release.write_text(json.dumps([{"title": f"P{i}", "abstract": "A.", "introduction": f"Intro {i} (Li et al., 2022).",
                                    "neighbors": neighbors} for i in range(12)]), encoding="utf-8")
    out = tmp_path / "sciig"
    argv = ["build", "sciig", "--release", str(release), "--split", "naacl_2025", "--out", str(out)]
    assert main(argv) == 2 and "--release needs --venue" in capsys.readouterr().err
    assert main([*argv, "--venue", "NAACL", "--year", "2025"]) == 0
    assert "SciIG config 'naacl_2025' written to" in capsys.readouterr().out
    assert len(gen_sciig.load_split("naacl_2025", str(out), "test")) + \
        len(gen_sciig.load_split("naacl_2025", str(out), "holdout")) == 12
