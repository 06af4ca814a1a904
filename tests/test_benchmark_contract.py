"""The contract every benchmark keeps, checked the same way for each entry of `sciwrite.benchmarks.BENCHMARKS` and for
the tests' own third benchmark (`tests.toy_benchmark`), as mteb checks its tasks' metadata: each typed part of a
`sciwrite.benchmark.Benchmark` in turn, so that a new benchmark that forgets a part fails here, naming the part.
The published benchmarks also bring their repository folders (dataset card, evaluate module, baselines).
docs/contributing.md lists the files a benchmark brings."""

from __future__ import annotations

import argparse
import inspect
import re
from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from sciwrite.benchmark import (
    Benchmark,
    BenchmarkData,
    BenchmarkGeneration,
    BenchmarkSuite,
    Corpus,
    Drilldown,
    HubPart,
    Presentation,
    Sensitivity,
    Studies,
)
from sciwrite.benchmarks import BENCHMARKS
from sciwrite.cli import build_parser
from sciwrite.cli.generate import add_generate_arguments
from sciwrite.core.commands import BuildCommand, Option
from sciwrite.core.eval_results import HubTask
from sciwrite.core.paper_tables import PaperTable
from sciwrite.human_eval.study import HumanStudy
from sciwrite.models.registry import PROFILES, SHARED_ROLES, ModelRole, role_table
from sciwrite.scoring.stages import StageTable
from sciwrite.scoring.steps import EvaluationSteps, SuiteModels
from tests.toy_benchmark import TOY

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(BENCHMARKS)
#: Every benchmark the typed-part checks run over: the published ones and the toy.
ALL = {**BENCHMARKS, TOY.name: TOY}
PARTS = {"data": BenchmarkData, "suite": BenchmarkSuite, "generation": BenchmarkGeneration,
         "presentation": Presentation, "studies": Studies, "hub": HubPart}


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


def test_a_benchmark_is_its_identity_and_six_typed_parts():
    assert [f.name for f in fields(Benchmark)] == ["name", "title", "paper", *PARTS]


@pytest.mark.parametrize("name", sorted(ALL))
def test_identity_and_parts(name):
    bench = ALL[name]
    assert bench.name == name and re.fullmatch(r"[a-z][a-z0-9_]*", name), "a lower-case id, as typed on the CLI"
    assert bench.title and re.fullmatch(r"arXiv:\d{4}\.\d{4,5}", bench.paper)
    for part, kind in PARTS.items():
        assert isinstance(getattr(bench, part), kind), f"{name}: {part} must be a {kind.__name__}"


@pytest.mark.parametrize("name", sorted(ALL))
def test_data(name):
    data = ALL[name].data
    assert data.offline_config in data.configs and data.board_split in data.splits
    parameters = inspect.signature(data.load).parameters
    assert list(parameters)[0] == "config" and "source" in parameters
    assert data.prediction_fields[0] == "paper_id", "prediction records join the split by paper_id"
    assert callable(data.sample_dir) and callable(data.scored_papers)
    assert all(isinstance(command, BuildCommand) and callable(command.run) for command in data.builds)
    if data.corpus is not None:
        corpus = data.corpus
        assert isinstance(corpus, Corpus) and corpus.default in corpus.configs
        assert corpus.default_papers in corpus.paper_configs and callable(corpus.files)


@pytest.mark.parametrize("name", sorted(ALL))
def test_suite(name):
    suite = ALL[name].suite
    assert isinstance(suite.stages, StageTable) and isinstance(suite.steps, EvaluationSteps)
    keys = suite.metrics
    assert suite.table_groups and len(keys) == len(set(keys)), "one column per metric key"
    assert all(label for columns in suite.table_groups.values() for _, label in columns)
    assert keys == suite.stages.table_metrics, "the results table shows the stages' table metrics, in stage order"
    kept = suite.metrics_without_judge(None)
    assert set(kept) < set(suite.stages.metrics) and not set(kept) & set(suite.judge_metrics)
    assert set(suite.judge_metrics) <= set(keys), "the judge's metrics are columns of the results table"
    for stage in suite.stages:  # each stage and evaluate-module name stands for its metrics
        for alias in stage.names:
            assert suite.expand_metrics([alias]) == stage.metrics
    assert all(isinstance(option, Option) for option in suite.options)
    steps = suite.steps
    for step in ("open_split", "read", "load_models", "score", "summarize", "result_files"):
        assert callable(getattr(steps, step)), f"{name}: steps.{step}"
    assert steps.runs_on_ray, f"{name}: the Ray engine needs ray_items and score_items"
    assert set(suite.metrics) <= set(steps.metrics), "--cutoff splits every metric of the results table"
    for step in (steps.load_models, steps.score_items, steps.ray_items):  # Ray pickles them by reference
        assert step.__qualname__ == step.__name__ and "<lambda>" not in step.__name__, f"{name}: {step}"


@pytest.mark.parametrize("name", sorted(ALL))
def test_suite_declares_every_model_role_it_uses(name):
    """Each role a metric or a scorer names is declared once by the benchmark (`BenchmarkSuite.roles`), with what
    `sciwrite models` and the errors show of it, and none is declared that no metric needs."""
    suite = ALL[name].suite
    assert all(isinstance(role, ModelRole) for role in suite.roles)
    declared = suite.model_roles
    assert len(declared) == len(set(declared)), f"{name}: a role declared twice: {declared}"
    used = {role for spec in suite.specs for role in spec.roles} | set(suite.stages.roles)
    assert used <= set(declared), f"{name} uses model roles it does not declare: {sorted(used - set(declared))}"
    assert set(declared) <= used, f"{name} declares model roles no metric needs: {sorted(set(declared) - used)}"
    assert not set(declared) & {role.name for role in SHARED_ROLES}, "a shared role is shared code's to declare"
    for role in suite.roles:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", role.name) and role.description and role.basis, role.name
        assert "paper" in role.defaults and set(role.defaults) <= set(PROFILES), role.name


def test_no_two_benchmarks_declare_one_role_name_with_different_facts():
    """A role name means one model job everywhere: shared code's roles and every benchmark's, by name, agree (today
    no role is shared: RWGBench's BERTScore uses ``scibert``, SciIG's its own ``bertscore``)."""
    declared = [role for bench in ALL.values() for role in bench.suite.roles]
    table = role_table([*SHARED_ROLES, *declared])  # raises on a name declared with different facts
    assert len(table) == len(SHARED_ROLES) + len(declared), "no role is shared today: a new sharing is a choice"


@pytest.mark.parametrize("name", sorted(ALL))
def test_suite_models_say_what_is_not_computed(name):
    models = ALL[name].suite.steps.load_models(profile="lite", metrics=ALL[name].suite.metrics_without_judge())
    assert isinstance(models, SuiteModels) and models.STAGES is ALL[name].suite.stages
    assert all(models.not_computed.get(m) == "not requested" for m in ALL[name].suite.judge_metrics)
    described = models.description()
    assert type(described) is type(models) and described.model_ids == models.model_ids


@pytest.mark.parametrize("name", sorted(ALL))
def test_generation(name):
    generation = ALL[name].generation
    assert generation.prompts and len(generation.prompts) == len(set(generation.prompts))
    assert generation.help and callable(generation.plan)
    assert all(isinstance(option, Option) for option in generation.options)
    parser = add_generate_arguments(argparse.ArgumentParser(), ALL[name])  # raises on a clashing flag
    assert {option.name for option in generation.options} <= {a.dest for a in parser._actions}


@pytest.mark.parametrize("name", sorted(ALL))
def test_presentation(name):
    presentation = ALL[name].presentation
    assert callable(presentation.report)
    assert set(presentation.printed_labels) <= set(ALL[name].suite.metrics)
    assert presentation.paper_tables, f"{name}: paper_tables"
    for table in presentation.paper_tables:
        assert isinstance(table, PaperTable) and re.fullmatch(rf"{name}-table\d+", table.name)
        assert table.caption and table.inputs and callable(table.build)
    if presentation.board_groups:
        assert callable(presentation.board_values)
    if presentation.drilldown is not None:
        assert isinstance(presentation.drilldown, Drilldown)


@pytest.mark.parametrize("name", sorted(ALL))
def test_studies_and_hub(name):
    studies, hub = ALL[name].studies, ALL[name].hub
    assert studies.human_study is None or isinstance(studies.human_study, HumanStudy)
    if studies.sensitivity is not None:
        assert isinstance(studies.sensitivity, Sensitivity) and callable(studies.sensitivity.run)
        assert set(studies.sensitivity.expected) <= set(ALL[name].suite.stages.metrics)
    assert studies.quickstart is None or callable(studies.quickstart)
    assert hub.tasks and all(isinstance(task, HubTask) for task in hub.tasks)
    assert {task.key for task in hub.tasks} <= set(ALL[name].suite.stages.metrics)
    assert hub.configs and callable(hub.repo) and "/" in hub.repo()


# -- what the published benchmarks bring besides their package -----------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_configs_match_the_dataset_card(name):
    bench = BENCHMARKS[name]
    card = ROOT / "datasets" / name / "README.md"
    assert card.is_file(), f"datasets/{name}/README.md: the dataset card with its YAML configs"
    assert set(bench.data.configs) <= set(_card_configs(card)), "every scorable config is declared in the card"


@pytest.mark.parametrize("name", NAMES)
def test_evaluate_modules_and_baselines(name):
    bench = BENCHMARKS[name]
    suite = ROOT / "metrics" / name / f"{name}.py"
    assert suite.is_file(), f"metrics/{name}/{name}.py: the evaluate module of the whole suite"
    assert (ROOT / "metrics" / name / "README.md").is_file()
    for stage in bench.suite.stages:  # each stage that names an evaluate module has one
        if stage.module is not None:
            assert (ROOT / "metrics" / stage.module / f"{stage.module}.py").is_file(), stage.module
    configs = sorted((ROOT / "baselines" / name).glob("*.yaml"))
    assert configs, f"baselines/{name}/: one config per published run"
    for path in configs:
        assert yaml.safe_load(path.read_text(encoding="utf-8"))["benchmark"] == name, path.name


def test_commands_are_made_from_the_registry():
    """Each benchmark's evaluate, generate, build and paper-table commands, without a clash between them."""
    parser = build_parser()
    assert set(NAMES) <= _subcommands(parser, "generate") & _subcommands(parser, "evaluate")
    builds = [command.name for bench in BENCHMARKS.values() for command in bench.data.builds]
    assert len(builds) == len(set(builds)), f"two benchmarks declare the same `sciwrite build` name: {builds}"
    assert set(builds) <= _subcommands(parser, "build")
    tables = [table.name for bench in BENCHMARKS.values() for table in bench.presentation.paper_tables]
    assert len(tables) == len(set(tables)) and set(tables) <= _subcommands(parser, "paper-table")
