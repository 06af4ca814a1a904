"""The contract every entry of `sciwrite.benchmarks.BENCHMARKS` keeps, checked the same way for each (as mteb checks
its tasks' metadata): a new benchmark that forgets a part fails here, naming the part. CONTRIBUTING.md lists the
files a benchmark brings."""

from __future__ import annotations

import argparse
import inspect
import re
from pathlib import Path

import pytest
import yaml

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import build_parser
from sciwrite.cli.generate import add_generate_arguments
from sciwrite.core.commands import BuildCommand, Option
from sciwrite.core.paper_tables import PaperTable

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(BENCHMARKS)


def _subcommands(parser, *path):
    for name in path:
        action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
        parser = action.choices[name]
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return set(action.choices)


def _card_configs(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---")[1])
    return [c["config_name"] for c in front["configs"]]


@pytest.mark.parametrize("name", NAMES)
def test_identity(name):
    bench = BENCHMARKS[name]
    assert bench.name == name and re.fullmatch(r"[a-z][a-z0-9_]*", name), "a lower-case id, as typed on the CLI"
    assert bench.title and re.fullmatch(r"arXiv:\d{4}\.\d{4,5}", bench.paper)


@pytest.mark.parametrize("name", NAMES)
def test_configs_match_the_dataset_card(name):
    bench = BENCHMARKS[name]
    card = ROOT / "datasets" / name / "README.md"
    assert card.is_file(), f"datasets/{name}/README.md: the dataset card with its YAML configs"
    assert bench.offline_config in bench.configs
    assert set(bench.configs) <= set(_card_configs(card)), "every scorable config is declared in the card"
    parameters = inspect.signature(bench.load).parameters
    assert list(parameters)[0] == "config" and "source" in parameters


@pytest.mark.parametrize("name", NAMES)
def test_results_table_and_metrics(name):
    bench = BENCHMARKS[name]
    keys = bench.metrics
    assert bench.table_groups and len(keys) == len(set(keys)), "one column per metric key"
    assert all(label for columns in bench.table_groups.values() for _, label in columns)
    kept = bench.metrics_without_judge(None)
    assert set(kept) < set(keys) and all("judge" not in k for k in kept)
    suite = ROOT / "metrics" / name / f"{name}.py"
    assert suite.is_file(), f"metrics/{name}/{name}.py: the evaluate module of the whole suite"
    assert (ROOT / "metrics" / name / "README.md").is_file()
    assert bench.prediction_fields[0] == "paper_id", "prediction records join the split by paper_id"


@pytest.mark.parametrize("name", NAMES)
def test_commands_and_baselines(name):
    bench = BENCHMARKS[name]
    parser = build_parser()
    assert name in _subcommands(parser, "generate") and name in _subcommands(parser, "evaluate")
    assert bench.prompts and len(bench.prompts) == len(set(bench.prompts))
    configs = sorted((ROOT / "baselines" / name).glob("*.yaml"))
    assert configs, f"baselines/{name}/: one config per published run"
    for path in configs:
        assert yaml.safe_load(path.read_text(encoding="utf-8"))["benchmark"] == name, path.name


def test_generation_and_build_commands_are_declared():
    """Each benchmark plans its own generation and declares its options and builds as data; the command line adds
    them without a clash (an option of the shared run arguments, or a build name, taken twice)."""
    builds = [command.name for bench in BENCHMARKS.values() for command in bench.builds]
    assert len(builds) == len(set(builds)), f"two benchmarks declare the same `sciwrite build` name: {builds}"
    assert set(builds) <= _subcommands(build_parser(), "build")
    for bench in BENCHMARKS.values():
        assert callable(bench.plan_generation), f"{bench.name}: plan_generation"
        assert bench.generate_help, f"{bench.name}: generate_help"
        assert all(isinstance(option, Option) for option in bench.generate_options)
        assert all(isinstance(command, BuildCommand) and callable(command.run) for command in bench.builds)
        parser = add_generate_arguments(argparse.ArgumentParser(), bench)  # raises on a clashing flag
        dests = {a.dest for a in parser._actions}
        assert {option.name for option in bench.generate_options} <= dests


def test_paper_tables_are_declared():
    """Each benchmark names its paper's numbered tables (``<benchmark>-table<N>``), each reachable as a command."""
    names = [table.name for bench in BENCHMARKS.values() for table in bench.paper_tables]
    assert len(names) == len(set(names))
    assert set(names) <= _subcommands(build_parser(), "paper-table")
    for bench in BENCHMARKS.values():
        assert bench.paper_tables, f"{bench.name}: paper_tables"
        for table in bench.paper_tables:
            assert isinstance(table, PaperTable) and re.fullmatch(rf"{bench.name}-table\d+", table.name)
            assert table.caption and table.inputs and callable(table.build)
