"""Each metric's range and direction, declared once per benchmark (`BenchmarkSuite.scales`), the check of one value
(`check_value`: NaN, infinity, a number out of range or text never passes, and the error names the metric and the
file), and the one check of a result every door runs (`check_result`: a summary with its rows, nested blocks,
counts, intervals and every number included)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import yaml

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.core.errors import InputError, Where
from sciwrite.core.eval_results import task_id
from sciwrite.core.metric_scales import MetricScale, check_result, check_value
from sciwrite.core.paper_row import typed_rows
from sciwrite.core.results import load_summary
from sciwrite.core.summary import Summary
from sciwrite.scoring.checks import result_rules

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


# -- the one check of a result: a summary with its rows, nested blocks included (issue 48) -------------------------

def _result(**changes):
    """An RWGBench summary with every block a real one holds, and its two rows; `changes` set a field by its dotted
    path (``coverage.n_scored``), or a row's as ``row1.<path>``."""
    summary = {
        "schema_version": 2, "system": "sys", "split": "sample", "n_papers": 2, "precision": 0.5,
        "unresolved_markers": 0, "intervals": {"precision": [0.0, 1.0]}, "n_resamples": 100, "confidence": 0.95,
        "coverage": {"n_scored": 2, "n_split": 144, "complete": False},
        "grounding": {"grounding_found_rate": 1.0, "counts": {"found": 3, "not_found": 0}, "n_references": 3,
                      "n_papers": 2, "intervals": {"grounding_found_rate": [1.0, 1.0]}},
        "memorisation": {"n": 8, "n_papers": 2, "mean": 0.1, "interval": [0.0, 0.2], "median": 0.1,
                         "max_span_words": 3, "papers_at_least_half": 0,
                         "top": [{"paper_id": "p1", "memorisation": 0.2, "memorised_span_words": 3}]},
        "judge_panel": {"judges": ["a"], "samples": 2, "criteria": {"llm_judge": {
            "judges": {"a": {"mean": 0.5, "interval": [0.25, 0.75], "n_papers": 2}},
            "krippendorff_alpha_ordinal": 0.4}}},
        "cutoff": {"cutoff": "2024-01-01", "n_before": 1, "n_after": 1, "metrics": {"precision": {
            "mean_a": 0.0, "mean_b": 1.0, "difference": 1.0, "ci_low": 0.5, "ci_high": 1.0, "p_value": 0.5}}},
        "llm_usage": {"ledger": "usage.jsonl", "requests": 4, "prompt_tokens": 100, "cost_usd": 0.01,
                      "by_model": {"m": {"requests": 4, "cost_usd": 0.01}}},
        "provenance": {"benchmark": "rwgbench", "dataset": {"config": "sample", "n_papers": 144},
                       "wall_seconds": 1.5, "seeds": {"bootstrap": 0}}}
    rows = [{"paper_id": "p1", "precision": 0.0, "generated_frames": {"uses": 2},
             "judge_panel": {"a": {"llm_judge": [0.5]}}},
            {"paper_id": "p2", "precision": 1.0, "generated_frames": {"uses": 0}, "grounding_n_found": 1}]
    for path, value in changes.items():
        keys = path.split(".")
        node = rows[int(keys.pop(0)[3:])] if keys[0].startswith("row") else summary
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return Summary.from_json(json.loads(json.dumps(summary))), typed_rows(rows)


def _check(summary, rows):
    check_result(summary, rows, result_rules(get_benchmark("rwgbench")), summary_path="run/summary.json",
                 rows_path="run/per_paper.jsonl")


def test_a_result_with_every_block_passes():
    _check(*_result())


@pytest.mark.parametrize(("change", "problem"), [
    ({"coverage.n_scored": -1}, "field 'coverage.n_scored': coverage.n_scored is -1, outside its range >= 0"),
    ({"coverage.n_scored": 500}, "coverage.n_scored is 500, more than the split's 144 papers"),
    ({"coverage.n_scored": 2.5}, "coverage.n_scored is 2.5, not a whole number"),
    ({"coverage.n_scored": "2"}, "coverage.n_scored is the text '2', not a number"),  # read as no coverage at all
    ({"n_papers": 145}, "field 'n_papers': n_papers is 145, more than the split's 144 papers"),
    ({"unresolved_markers": -2}, "unresolved_markers is -2, outside its range >= 0"),
    ({"precision": "high"}, "field 'precision': precision is the text 'high', not a number"),
    ({"intervals.precision": [0.5, 0.1]}, "intervals.precision is [0.5, 0.1]: its low bound is above its high bound"),
    ({"intervals.precision": [0.6, 0.9]}, "intervals.precision is [0.6, 0.9], which does not hold its value "
                                          "precision 0.5"),
    ({"intervals.precision": [0.1]}, "intervals.precision is [0.1], not an interval [low, high]"),
    ({"intervals.precision": [0.0, 1.5]}, "intervals.precision[1] is 1.5, outside its range 0-1"),
    ({"grounding.grounding_found_rate": 1.5}, "grounding.grounding_found_rate is 1.5, outside its range 0-1"),
    ({"grounding.counts.found": -3}, "grounding.counts.found is -3, outside its range >= 0"),
    ({"grounding.n_papers": 500}, "grounding.n_papers is 500, more than the split's 144 papers"),
    ({"grounding.intervals.grounding_found_rate": [1.0, 0.5]}, "its low bound is above its high bound"),
    ({"memorisation.mean": math.inf}, "field 'memorisation.mean': memorisation.mean is inf, not a finite number"),
    ({"memorisation.mean": "high"}, "memorisation.mean is the text 'high', not a number"),
    ({"memorisation.interval": [0.3, 0.1]}, "memorisation.interval is [0.3, 0.1]: its low bound is above"),
    ({"memorisation.top": [{"memorisation": 1.2}]}, "memorisation.top[0].memorisation is 1.2, outside its range 0-1"),
    ({"judge_panel.criteria.llm_judge.judges.a.mean": 4.0},
     "judge_panel.criteria.llm_judge.judges.a.mean is 4.0, outside its range 0-1"),
    ({"judge_panel.criteria.llm_judge.judges.a.n_papers": -1}, "n_papers is -1, outside its range >= 0"),
    ({"cutoff.metrics.precision.p_value": 1.5}, "cutoff.metrics.precision.p_value is 1.5, outside its range 0-1"),
    ({"cutoff.metrics.precision.ci_low": 1.2}, "cutoff.metrics.precision.ci_low is [1.2, 1]: its low bound is above"),
    ({"cutoff.n_after": 900}, "cutoff.n_after is 900, more than the split's 144 papers"),
    ({"llm_usage.cost_usd": -0.5}, "field 'llm_usage.cost_usd': llm_usage.cost_usd is -0.5, outside its range >= 0"),
    ({"llm_usage.prompt_tokens": math.inf}, "llm_usage.prompt_tokens is inf, not a finite number"),
    ({"llm_usage.by_model.m.requests": -4}, "llm_usage.by_model.m.requests is -4, outside its range >= 0"),
    ({"provenance.wall_seconds": math.nan}, "provenance.wall_seconds is nan, not a finite number"),
])
def test_an_impossible_field_of_the_summary_is_refused_by_name(change, problem):
    with pytest.raises(InputError) as caught:
        _check(*_result(**change))
    message = str(caught.value)
    assert message.startswith("run/summary.json, record 'sys', field ") and problem in message and "\n" not in message


@pytest.mark.parametrize(("change", "problem"), [
    # out of range, the summary's mean unchanged: (1.7 - 0.7) / 2 = 0.5
    ({"row0.precision": 1.7, "row1.precision": -0.7}, ":1, record 'p1', field 'precision': precision is 1.7, outside"),
    ({"row1.precision": math.nan}, ":2, record 'p2', field 'precision': precision is nan, not a finite number"),
    ({"row1.generated_frames.uses": -1}, ":2, record 'p2', field 'generated_frames.uses': generated_frames.uses is "
                                         "-1, outside its range >= 0"),
    ({"row0.judge_panel.a.llm_judge": [0.5, 7.0]}, "field 'judge_panel.a.llm_judge[1]': judge_panel.a.llm_judge[1] "
                                                   "is 7.0, outside its range 0-1"),
    ({"row1.grounding_n_found": math.inf}, "grounding_n_found is inf, not a finite number"),
])
def test_an_impossible_per_paper_value_is_refused_with_its_line_and_paper(change, problem):
    with pytest.raises(InputError) as caught:
        _check(*_result(**change))
    assert str(caught.value).startswith("run/per_paper.jsonl:") and problem in str(caught.value)


def test_more_rows_than_the_split_has_papers_is_refused():
    summary, rows = _result(**{"coverage.n_split": 1, "coverage.n_scored": 1, "n_papers": 1,
                               "memorisation.n_papers": 1, "grounding.n_papers": 1,
                               "judge_panel.criteria.llm_judge.judges.a.n_papers": 1})
    with pytest.raises(InputError, match="run/per_paper.jsonl, record 'sys': holds 2 per-paper rows, more than the "
                                         "split's 1 papers"):
        _check(summary, rows)


def test_1e309_in_a_file_is_infinity_and_refused():
    """Python's JSON reads 1e309 as inf: a summary can hold it without any NaN or Infinity literal."""
    summary, rows = _result()
    text = json.dumps(summary.to_json()).replace('"cost_usd": 0.01,', '"cost_usd": 1e309,', 1)
    with pytest.raises(InputError, match="llm_usage.cost_usd is inf, not a finite number"):
        _check(Summary.from_json(json.loads(text)), rows)


def test_a_summary_without_rows_is_checked_alone():
    """A model's self-reported Hub scores come without rows: no mean is recomputed, every field still checked."""
    summary, _ = _result()
    check_result(summary, None, result_rules(get_benchmark("rwgbench")), summary_path="hub.yaml")
    with pytest.raises(InputError, match="coverage.n_scored is -1"):
        check_result(_result(**{"coverage.n_scored": -1})[0], None, result_rules(get_benchmark("rwgbench")),
                     summary_path="hub.yaml")


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "core" / "summaries").glob("*.json")),
                         ids=lambda path: path.name)
def test_every_summary_the_project_ever_wrote_passes(path):
    bench = get_benchmark("sciig" if "sciig" in path.name else "rwgbench")
    check_result(load_summary(path), None, result_rules(bench), summary_path=path)
