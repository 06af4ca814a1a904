"""One declaration per metric (issue 47): each benchmark lists its metrics once, as `MetricSpec`s in
``src/sciwrite/<benchmark>/metrics/specs.py`` (`BenchmarkSuite.specs`), and every table that names a metric is read
off that list. Two checks:

- what a benchmark exposes (results table, stages, scales, sensitivity expectations, Hub tasks, board columns)
  agrees with its specs;
- every metric key is written as a string literal in exactly one spec module (the benchmark's, or a shared one such
  as the grounding's), and nowhere else in ``src/sciwrite``: the scorers write a per-paper row's key as
  ``SPEC.key`` too (`OTHER_MEANINGS`: the few places where the same spelling means something else, each with why).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from sciwrite.benchmarks import BENCHMARKS
from sciwrite.core.metric_spec import board_groups, scales, table_groups
from sciwrite.metrics.sensitivity import PERTURBATIONS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "sciwrite"
NAMES = sorted(BENCHMARKS)

#: Shared modules that declare metrics a benchmark lists among its own specs: the reference grounding's, computed by
#: the shared grounding and listed by RWGBench.
SHARED_SPEC_MODULES = ("grounding/specs.py",)

#: The modules where a string spelled like a metric key means something else, with the keys and why. Anywhere else
#: a key is read from its spec (``SPEC.key``), scorers included.
OTHER_MEANINGS: dict[str, tuple[str, ...]] = {
    # rouge_score's own names for the scores it computes (``RougeScorer(["rouge1", "rouge2"])``, ``scores["rouge1"]``)
    "sciig/metrics/lexical.py": ("rouge1", "rouge2"),
    # HALLMARK's own JSON key for a tier's precision (its published baseline_results files), written as it writes it
    "meta_eval/hallmark_metrics.py": ("precision",),
}


def spec_module(benchmark: str) -> Path:
    return PACKAGE / benchmark / "metrics" / "specs.py"


def spec_modules(benchmark: str) -> list[Path]:
    """Where a benchmark's metrics may be declared: its spec module and the shared ones."""
    return [spec_module(benchmark), *(PACKAGE / module for module in SHARED_SPEC_MODULES)]


@cache
def string_constants(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                     and isinstance(node.value, str))


@pytest.mark.parametrize("name", NAMES)
def test_every_table_naming_a_metric_is_read_off_the_specs(name):
    benchmark = BENCHMARKS[name]
    suite, specs = benchmark.suite, benchmark.suite.specs
    assert specs, f"{name} declares no MetricSpec"
    keys = [spec.key for spec in specs]
    assert len(keys) == len(set(keys)), f"{name}: a metric is declared twice"
    assert dict(suite.table_groups) == table_groups(specs)
    assert dict(suite.scales) == scales(specs)
    assert suite.stages.table_metrics == suite.metrics
    for spec in specs:
        if spec.in_table:
            stage = suite.stages.stage_of(spec.key)
            assert stage.name == spec.stage_name and set(spec.roles) <= set(stage.roles), spec.key
    assert dict(benchmark.presentation.board_groups) == board_groups(specs)
    assert [(t.key, t.task_id, t.description, t.scale) for t in benchmark.hub.tasks] == \
        [(s.key, s.hub_task, s.hub_description, s.scale) for s in specs if s.hub_task]
    sensitivity = benchmark.studies.sensitivity
    assert list(sensitivity.expected) == list(suite.metrics)
    for spec in specs:
        if spec.in_table:
            assert sensitivity.expected[spec.key] == {p: spec.expected.get(p, "any") for p in PERTURBATIONS}
            assert {p: why for (key, p), why in sensitivity.reasons.items() if key == spec.key} == dict(spec.reasons)


def test_the_allowlist_names_declared_keys_only():
    declared = {spec.key for benchmark in BENCHMARKS.values() for spec in benchmark.suite.specs}
    for module, keys in OTHER_MEANINGS.items():
        assert (PACKAGE / module).is_file(), module
        assert set(keys) <= declared, (module, set(keys) - declared)
        assert set(keys) <= string_constants(PACKAGE / module), \
            f"{module} no longer writes {set(keys) - string_constants(PACKAGE / module)}: shorten OTHER_MEANINGS"


@pytest.mark.parametrize("name", NAMES)
def test_every_metric_key_is_declared_in_one_spec_module(name):
    for spec in BENCHMARKS[name].suite.specs:
        where = [path.relative_to(PACKAGE) for path in spec_modules(name) if spec.key in string_constants(path)]
        assert len(where) == 1, f"{name}'s {spec.key!r} is written in {where or 'no spec module'}"


@pytest.mark.parametrize("name", NAMES)
def test_a_metric_key_is_written_only_where_it_is_declared(name):
    """A string literal equal to one of the benchmark's metric keys, in shared code or its own package, outside its
    spec modules (and `OTHER_MEANINGS`), is a second declaration. A key that is also a model role's name
    (SciIG's ``bleurt``) cannot be told apart from the role and is left out."""
    keys = {spec.key for spec in BENCHMARKS[name].suite.specs} - set(BENCHMARKS[name].suite.model_roles)
    others = [PACKAGE / other for other in BENCHMARKS if other != name]
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in spec_modules(name) or any(path.is_relative_to(folder) for folder in others):
            continue
        allowed = set(OTHER_MEANINGS.get(str(path.relative_to(PACKAGE)), ()))
        found += [f"{path.relative_to(PACKAGE)}: {key!r}" for key in sorted(string_constants(path) & keys - allowed)]
    assert found == [], f"metric keys written outside {spec_module(name).relative_to(ROOT)}: read them from the " \
                        f"spec (SPEC.key) instead: {found}"


def card_keys(benchmark: str) -> list[str]:
    """The per-paper keys the benchmark's metric card lists, in order: the backticked names of the second column of
    the table under "What it measures" in ``metrics/<benchmark>/README.md``."""
    text = (ROOT / "metrics" / benchmark / "README.md").read_text(encoding="utf-8")
    section = text.split("## What it measures", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("|") and "`" in line]
    return [name for cells in rows for name in cells[2].split("`")[1::2]]


@pytest.mark.parametrize("name", NAMES)
def test_the_suite_card_lists_the_declared_metrics_in_their_order(name):
    """The card a user reads lists exactly the results table's metrics, as the specs declare them."""
    declared = [spec.key for spec in BENCHMARKS[name].suite.specs if spec.in_table]
    assert card_keys(name) == declared, f"metrics/{name}/README.md's table of metrics is not the specs'"
