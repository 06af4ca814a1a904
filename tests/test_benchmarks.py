"""The `Benchmark` interface every benchmark implements, and the registry the CLI and quick start use."""

from __future__ import annotations

import pytest

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.rwgbench import load_rwgbench
from sciwrite.rwgbench.metrics.suite import SUITE_METRICS as RWGBENCH_METRICS
from sciwrite.sciig import load_sciig
from sciwrite.sciig.generation.prompts import LEVELS
from sciwrite.sciig.metrics.suite import SUITE_METRICS as SCIIG_METRICS
from sciwrite.surge.data.loading import load_surge


def test_the_benchmarks_are_registered_by_name():
    assert sorted(BENCHMARKS) == ["rwgbench", "sciig", "surge"]
    assert get_benchmark("rwgbench").data.load is load_rwgbench and get_benchmark("sciig").data.load is load_sciig
    assert get_benchmark("surge").data.load is load_surge
    with pytest.raises(ValueError, match=r"unknown benchmark 'x'; choose one of \['rwgbench', 'sciig', 'surge'\]"):
        get_benchmark("x")


def test_metrics_follow_each_papers_table_layout():
    rwg, sciig = BENCHMARKS["rwgbench"], BENCHMARKS["sciig"]
    assert rwg.suite.metrics == RWGBENCH_METRICS and list(rwg.suite.table_groups) == ["CQ", "CO", "CF", "TQ"]
    assert rwg.suite.table_groups["TQ"] == (("rougeL", "ROUGE-L"), ("bertscore_f1", "BERTScore"), ("llm_judge", "LLM"))
    # the paper's Table 2: CSC and TRT are Citation Quality, CO is density and balance only
    assert [k for k, _ in rwg.suite.table_groups["CQ"]] == ["precision", "recall", "soft_citation_recall",
                                                            "claim_support_consistency", "topical_relevance"]
    assert [k for k, _ in rwg.suite.table_groups["CO"]] == ["citation_density", "citation_distribution_balance"]
    assert sciig.suite.metrics == SCIIG_METRICS
    assert list(sciig.suite.table_groups) == ["Lexical", "Semantic", "Keyphrase", "Entailment", "QA", "Citation", "Fluency",
                                        "LLM judge"]


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_without_the_judge_drops_exactly_the_judge(name):
    bench = BENCHMARKS[name]
    kept = bench.suite.metrics_without_judge(None)
    dropped = set(bench.suite.metrics) - set(kept)
    judged = {metric for stage in bench.suite.stages if stage.judge for metric in stage.metrics}
    assert dropped and dropped == judged == set(bench.suite.judge_metrics)


def test_configs_prompts_and_prediction_fields():
    rwg, sciig = BENCHMARKS["rwgbench"], BENCHMARKS["sciig"]
    assert rwg.data.configs == ("papers", "test", "sample") and rwg.data.offline_config == "sample"
    assert sciig.data.configs == ("naacl_2025", "iclr_2025", "sample") and sciig.data.offline_config == "sample"
    assert rwg.generation.prompts == ("direct", "rag", "alce", "tag", "workflow", "agent") and sciig.generation.prompts == LEVELS
    assert "candidates" in rwg.data.prediction_fields and sciig.data.prediction_fields == ("paper_id",)
