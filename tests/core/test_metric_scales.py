"""Each metric's range and direction, declared once per benchmark (`BenchmarkSuite.scales`), and the one check
(`check_value`) every writer and reader of results runs: NaN, infinity, a number out of range or text never passes,
and the error names the metric and the file."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.core.errors import InputError, Where
from sciwrite.core.eval_results import task_id
from sciwrite.core.metric_scales import MetricScale, check_value

ROOT = Path(__file__).resolve().parents[2]
WHERE = Where(path="run/summary.json", record="sys", field="precision")


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_metric_the_table_the_board_and_the_hub_show_has_one_declared_scale(name):
    bench = get_benchmark(name)
    assert set(bench.board_metrics) <= set(bench.suite.scales)
    assert all(isinstance(scale, MetricScale) for scale in bench.suite.scales.values())
    for task in bench.hub.tasks:  # the Hub task reads the suite's declaration: one object, not a copy
        assert task.scale is bench.suite.scales[task.key]


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_eval_yaml_and_the_card_print_the_declared_scale(name):
    bench = get_benchmark(name)
    tasks = {t["id"]: t for t in yaml.safe_load((ROOT / "datasets" / name / "eval.yaml").read_text())["tasks"]}
    card = (ROOT / "datasets" / name / "README.md").read_text()
    for config, _ in bench.hub.configs:
        for task in bench.hub.tasks:
            assert f"scale {task.scale.label}." in tasks[task_id(config, task)]["description"]
    for task in bench.hub.tasks:
        row = re.search(rf"^\| `{task.task_id}` \| `{task.key}` \|.*\| (\w+) \| ([^|]+) \|$", card, re.M)
        assert row and row.groups() == ("higher" if task.higher_is_better else "lower", task.scale.label)


def test_scales_the_paper_implies():
    rwg, sciig = get_benchmark("rwgbench").suite.scales, get_benchmark("sciig").suite.scales
    assert rwg["citation_density"].contains(2.5)  # distinct cited papers per sentence: a sentence may cite three
    assert not rwg["precision"].contains(1.7) and not rwg["recall"].contains(-0.2)
    assert sciig["summac_faithfulness"].contains(-0.0364)  # as the paper's Table 2 prints it
    assert sciig["perplexity"].contains(28.5) and not sciig["perplexity"].higher_is_better
    assert not sciig["perplexity"].contains(0.5)  # a perplexity is at least 1


@pytest.mark.parametrize(("value", "expected"), [(0.25, 0.25), (1, 1.0), (None, None),
                                                  (100.00000000000004 / 100, 100.00000000000004 / 100),
                                                  (1.0000002, 1.0000002)])  # a float32 cosine of a text with itself
def test_check_value_passes_numbers_in_range(value, expected):
    assert check_value("precision", value, MetricScale(0.0, 1.0), WHERE) == expected


def test_text_counts_as_a_number_only_where_the_format_writes_numbers_as_text():
    """YAML 1.1 (the Hub's eval results) reads 1e308 or 0.5e0 as text; JSON summaries and rows never hold a number
    as text, and one there would be stored unconverted and crash the mean recomputed from the rows."""
    assert check_value("precision", "0.5", MetricScale(0.0, 1.0), WHERE, text_numbers=True) == 0.5
    with pytest.raises(InputError, match="precision is the text '0.5', not a number"):
        check_value("precision", "0.5", MetricScale(0.0, 1.0), WHERE)


@pytest.mark.parametrize(("value", "problem"), [
    (1.7, "precision is 1.7, outside its range 0-1"),
    (-0.2, "precision is -0.2, outside its range 0-1"),
    (math.nan, "precision is nan, not a finite number"),
    (math.inf, "precision is inf, not a finite number"),
    (1e308, "precision is 1e+308, outside its range 0-1"),
    (1.0001, "precision is 1.0001, outside its range 0-1"),
    ("high", "precision is the text 'high', not a number"),
    (True, "precision is True, not a number"),
    ([0.5], "precision is [0.5], not a number"),
])
def test_check_value_refuses_the_impossible_naming_metric_file_and_record(value, problem):
    with pytest.raises(InputError) as caught:
        check_value("precision", value, MetricScale(0.0, 1.0), WHERE)
    message = str(caught.value)
    assert message.startswith("run/summary.json, record 'sys', field 'precision': ") and problem in message
    assert "\n" not in message


def test_a_percentage_on_a_0_1_metric_is_told_to_divide_by_100():
    with pytest.raises(InputError, match=r"on the 0-1 scale, not 0-100 \(write 0.452, not 45.2\)"):
        check_value("rougeL", 45.2, MetricScale(0.0, 1.0), WHERE)


def test_an_unbounded_side_takes_any_finite_number_there():
    assert check_value("bleurt", -3.5, MetricScale(None, None), WHERE) == -3.5
    assert check_value("perplexity", 1e308, MetricScale(1.0, None), WHERE) == 1e308
    with pytest.raises(InputError, match="not a finite number"):
        check_value("bleurt", "-inf", MetricScale(None, None), WHERE, text_numbers=True)
