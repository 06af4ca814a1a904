"""The typed summary (`sciwrite.core.summary.Summary`): every summary the project ever wrote loads, and writes back
as it was (an older layout's renamed keys aside); its typed fields hold what the JSON says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciwrite.core.coverage import Coverage
from sciwrite.core.provenance import SUMMARY_SCHEMA_VERSION, migrate_summary
from sciwrite.core.results import load_summary
from sciwrite.core.summary import (
    DatasetRef,
    GroundingSummary,
    Interval,
    Intervals,
    JoinSummary,
    MemorisationSummary,
    Provenance,
    Summary,
)

SUMMARIES = Path(__file__).parent / "summaries"
FILES = sorted(SUMMARIES.glob("*.json"))


def test_one_summary_of_each_version_of_each_benchmark_is_held():
    versions = {(json.loads(path.read_text()).get("schema_version", 0), path.name.split("_")[1].split(".")[0])
                for path in FILES}
    expected = {(version, bench) for version in range(SUMMARY_SCHEMA_VERSION + 1) for bench in ("rwgbench", "sciig")}
    assert expected <= versions


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_summary_ever_written_loads_and_writes_back_as_it_was(path):
    data = json.loads(path.read_text())
    summary = load_summary(path)
    written = summary.to_json()
    assert written == migrate_summary(data)
    assert list(written) == list(migrate_summary(data))  # the keys in the order read
    assert Summary.from_json(written) == summary


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_typed_fields_hold_what_the_json_says(path):
    data = migrate_summary(json.loads(path.read_text()))
    summary = Summary.from_json(data)
    assert summary.system == data.get("system") and summary.split == data.get("split")
    assert summary.schema_version == data.get("schema_version", 0)
    numbers = {k: v for k, v in data.items() if isinstance(v, int | float) and not isinstance(v, bool)
               and k not in ("schema_version", "n_papers", "n_resamples", "confidence")}
    assert {k: v for k, v in summary.metrics.items() if v is not None} == numbers
    for key, bounds in (data.get("intervals") or {}).items():
        assert summary.interval(key) == Interval(*bounds)
    if "provenance" in data:
        assert summary.benchmark == data["provenance"]["benchmark"]
        assert summary.config == data["provenance"]["dataset"]["config"]
    assert summary.not_computed == data.get("not_computed", {})


def test_a_schema_0_summary_reads_in_the_current_layout_and_keeps_its_version():
    old = {"system": "s", "dataset": "naacl_2025", "split": "test", "n_papers": 3, "rouge1": 0.4, "bleurt": None}
    summary = Summary.from_json(old)
    assert (summary.split, summary.details["scored_split"], summary.schema_version) == ("naacl_2025", "test", 0)
    assert summary.metrics == {"rouge1": 0.4, "bleurt": None}
    assert summary.provenance is None and summary.benchmark is None and summary.config == "naacl_2025"
    assert summary.scored == Coverage(3, None)  # no coverage record: the papers scored, the split's size unknown
    written = summary.to_json()
    assert "schema_version" not in written and "coverage" not in written and written["split"] == "naacl_2025"


def test_coverage_before_it_was_recorded_reads_the_split_size_from_the_provenance():
    summary = Summary.from_json({"schema_version": 1, "system": "s", "split": "sample", "n_papers": 3,
                                 "provenance": {"benchmark": "rwgbench", "dataset": {"config": "sample",
                                                                                     "n_papers": 144}}})
    assert summary.coverage is None and summary.scored == Coverage(3, 144) and not summary.scored.complete


def test_a_changed_typed_field_is_what_is_written():
    summary = Summary.from_json({"schema_version": 2, "system": "s", "split": "sample", "precision": 0.5,
                                 "predictions": "/abs/run.jsonl", "coverage": {"n_scored": 1, "n_split": 2,
                                                                               "complete": False}})
    moved = summary.with_(system="renamed", predictions=None, metrics={**summary.metrics, "precision": 0.25})
    assert moved.to_json() == {"schema_version": 2, "system": "renamed", "split": "sample", "precision": 0.25,
                               "predictions": None, "coverage": {"n_scored": 1, "n_split": 2, "complete": False}}


def test_a_summary_built_in_code_writes_its_layout():
    summary = Summary(system="s", split="sample", metrics={"precision": 0.5, "recall": None},
                      coverage=Coverage(2, 2), intervals=Intervals(bounds={}, method=None, n_resamples=0,
                                                                   confidence=0.95),
                      details={"not_applicable": {}})
    assert summary.to_json() == {
        "schema_version": SUMMARY_SCHEMA_VERSION, "system": "s", "split": "sample",
        "precision": 0.5, "recall": None,  # every metric, None: not computed
        "not_computed": {}, "models": {},  # nothing left out, no model: said, not left to guess
        "intervals": {}, "interval_method": None, "n_resamples": 0, "confidence": 0.95,  # no interval asked for
        "coverage": {"n_scored": 2, "n_split": 2, "complete": True}, "not_applicable": {}}
    assert list(summary.to_json())[:3] == ["schema_version", "system", "split"]
    assert Summary.from_json(summary.to_json()).to_json() == summary.to_json()


def test_a_block_built_in_code_writes_nulls_that_say_unknown_and_leaves_out_what_was_not_reported():
    provenance = Provenance(benchmark="rwgbench", dataset=DatasetRef(config="sample"), judge=None)
    assert provenance.to_json()["judge"] is None and provenance.to_json()["git_commit"] is None  # unknown, said
    assert "inspect" not in provenance.to_json() and "finished" not in provenance.to_json()  # not this run's
    assert provenance.to_json()["dataset"] == {"config": "sample", "fingerprint": None, "n_papers": None}
    rwgbench_join = JoinSummary(n_matched=1, missing=(), extra=(), duplicates=())
    sciig_join = JoinSummary(n_matched=1, missing=(), extra=(), holdout_excluded=(), rejected_lines=())
    assert rwgbench_join.to_json() == {"n_matched": 1, "missing": [], "extra": [], "duplicates": []}
    assert sciig_join.to_json() == {"n_matched": 1, "missing": [], "extra": [], "holdout_excluded": [],
                                    "rejected_lines": []}
    grounding = GroundingSummary(metrics={"grounding_found_rate": 1.0, "grounding_outside_rate": None})
    assert grounding.to_json()["grounding_outside_rate"] is None  # a rate offline cannot tell: None, written
    assert MemorisationSummary(n_papers=0, interval=Interval(None, None)).to_json() == {
        "mean": None, "interval": [None, None], "n_papers": 0}


def test_grounding_rates_read_as_metric_values_with_their_intervals():
    summary = Summary.from_json({"schema_version": 2, "grounding": {
        "grounding_found_rate": 0.9, "grounding_outside_rate": None, "counts": {"found": 9}, "n_references": 10,
        "threshold": 0.83, "intervals": {"grounding_found_rate": [0.8, 1.0]}}})
    assert summary.value("grounding_found_rate") == 0.9 and summary.value("grounding_outside_rate") is None
    assert summary.interval("grounding_found_rate") == Interval(0.8, 1.0)
    assert summary.grounding is not None and summary.grounding.counts == {"found": 9}
    assert "threshold" not in summary.grounding.metrics
