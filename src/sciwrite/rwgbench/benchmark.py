"""RWGBench as a `sciwrite.benchmark.Benchmark`."""

from __future__ import annotations

from pathlib import Path

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
from sciwrite.core.commands import Option
from sciwrite.rwgbench.data.build_commands import BUILD_COMMANDS
from sciwrite.rwgbench.data.configs import RWGBENCH_CONFIGS, SAMPLE_CONFIGS, default_rwgbench_dir, rwgbench_repo_id
from sciwrite.rwgbench.data.corpus_files import corpus_files
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.generation import plan
from sciwrite.rwgbench.generation.methods import METHODS
from sciwrite.rwgbench.generation.records import ANSWER_FIELDS
from sciwrite.rwgbench.hub_tasks import HUB_CONFIGS, HUB_TASKS
from sciwrite.rwgbench.human_eval import RWGBENCH_STUDY
from sciwrite.rwgbench.metrics import sensitivity
from sciwrite.rwgbench.metrics.drilldown import citation_view, drilldown_papers
from sciwrite.rwgbench.metrics.evaluation import EVALUATE_OPTIONS, EVALUATION, SPLITS, scored_papers
from sciwrite.rwgbench.metrics.grounding import BOARD_GROUPS, board_values
from sciwrite.rwgbench.metrics.judge_check import JUDGE_CHECK
from sciwrite.rwgbench.metrics.model_roles import ROLES
from sciwrite.rwgbench.metrics.report import report_text
from sciwrite.rwgbench.metrics.specs import METRICS
from sciwrite.rwgbench.metrics.suite import PAPER_LABELS, STAGES, TABLE2_GROUPS
from sciwrite.rwgbench.paper_tables import PAPER_TABLES
from sciwrite.rwgbench.quickstart import run_rwgbench_quickstart
from sciwrite.rwgbench.scales import SCALES


def _sample_folder(config: str) -> Path | None:
    """The local folder a corpus or paper config is read from when no source is named: the sample's own."""
    return default_rwgbench_dir() if config in SAMPLE_CONFIGS else None


RWGBENCH = Benchmark(
    name="rwgbench",
    title="RWGBench",
    paper="arXiv:2606.24894",
    data=BenchmarkData(
        configs=tuple(c for c, info in RWGBENCH_CONFIGS.items() if info.kind == "paper"),
        offline_config="sample",
        board_split="test",
        load=load_rwgbench,
        splits=tuple(SPLITS),
        prediction_fields=("paper_id", "candidates"),
        sample_dir=default_rwgbench_dir,
        scored_papers=scored_papers,
        builds=BUILD_COMMANDS,
        corpus=Corpus(configs=tuple(c for c, info in RWGBENCH_CONFIGS.items() if info.kind == "corpus"),
                      default="sample_corpus",
                      paper_configs=tuple(c for c, info in RWGBENCH_CONFIGS.items() if info.kind == "paper"),
                      default_papers="sample", files=corpus_files, default_folder=_sample_folder),
        answer_fields=ANSWER_FIELDS,
    ),
    suite=BenchmarkSuite(
        stages=STAGES,
        table_groups=TABLE2_GROUPS,
        steps=EVALUATION,
        scales=SCALES,
        specs=METRICS,
        roles=ROLES,
        options=(Option("missing_as_empty", "score papers without a prediction as empty sections", switch=True),
                 *EVALUATE_OPTIONS),
    ),
    generation=BenchmarkGeneration(
        prompts=tuple(METHODS),
        help="RWGBench related-work sections: Direct, RAG, ALCE, TAG, Workflow (+ Oracle)",
        options=plan.GENERATE_OPTIONS,
        plan=plan.plan_generation,
    ),
    presentation=Presentation(
        report=report_text,
        printed_labels=PAPER_LABELS,
        board_groups=BOARD_GROUPS,
        board_values=board_values,
        paper_tables=PAPER_TABLES,
        drilldown=Drilldown(papers=drilldown_papers, citation_view=citation_view),
    ),
    studies=Studies(
        human_study=RWGBENCH_STUDY,
        sensitivity=Sensitivity(run=sensitivity.run_sensitivity, expected=sensitivity.EXPECTED,
                                reasons=sensitivity.REASONS),
        judge_check=JUDGE_CHECK,
        quickstart=run_rwgbench_quickstart,
    ),
    hub=HubPart(tasks=HUB_TASKS, configs=HUB_CONFIGS, repo=rwgbench_repo_id),
)
