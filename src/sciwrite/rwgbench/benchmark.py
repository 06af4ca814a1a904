"""RWGBench as a `sciwrite.benchmark.Benchmark`."""

from __future__ import annotations

from sciwrite.benchmark import Benchmark
from sciwrite.rwgbench.data.build_commands import BUILD_COMMANDS
from sciwrite.rwgbench.data.configs import CONFIGS, default_data_dir, hub_repo_id
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.generation import plan
from sciwrite.rwgbench.generation.methods import METHODS
from sciwrite.rwgbench.hub_tasks import HUB_CONFIGS, HUB_TASKS
from sciwrite.rwgbench.human_eval import RWGBENCH_STUDY
from sciwrite.rwgbench.metrics import sensitivity
from sciwrite.rwgbench.metrics.drilldown import citation_view, drilldown_papers
from sciwrite.rwgbench.metrics.grounding import BOARD_GROUPS, board_values
from sciwrite.rwgbench.metrics.report import (
    EVALUATE_OPTIONS,
    SPLITS,
    evaluate_prediction_files,
    report_text,
    scored_papers,
)
from sciwrite.rwgbench.metrics.suite import (
    PAPER_LABELS,
    TABLE2_GROUPS,
    load_suite_models,
    metrics_without_judge,
    score_items,
)
from sciwrite.rwgbench.paper_tables import PAPER_TABLES
from sciwrite.rwgbench.quickstart import run_rwgbench_quickstart

RWGBENCH = Benchmark(
    name="rwgbench",
    title="RWGBench",
    paper="arXiv:2606.24894",
    configs=tuple(c for c, info in CONFIGS.items() if info.kind == "paper"),
    offline_config="sample",
    load=load_rwgbench,
    prediction_fields=("paper_id", "candidates"),
    table_groups=TABLE2_GROUPS,
    metrics_without_judge=metrics_without_judge,
    prompts=tuple(METHODS),
    evaluate=evaluate_prediction_files,
    report=report_text,
    splits=tuple(SPLITS),
    model_roles=("scibert", "nli", "citation_frame", "judge"),
    evaluate_flags={"missing_as_empty": "score papers without a prediction as empty sections"},
    evaluate_options=EVALUATE_OPTIONS,
    scored_papers=scored_papers,
    quickstart=run_rwgbench_quickstart,
    sample_dir=default_data_dir,
    sensitivity=sensitivity.run_sensitivity,
    sensitivity_expected=sensitivity.EXPECTED,
    sensitivity_reasons=sensitivity.REASONS,
    drilldown_papers=drilldown_papers,
    citation_view=citation_view,
    load_models=load_suite_models,
    score_items=score_items,
    printed_labels=PAPER_LABELS,
    board_groups=BOARD_GROUPS,
    board_values=board_values,
    generate_help="RWGBench related-work sections: Direct, RAG, ALCE, TAG, Workflow (+ Oracle)",
    generate_options=plan.GENERATE_OPTIONS,
    plan_generation=plan.plan_generation,
    builds=BUILD_COMMANDS,
    paper_tables=PAPER_TABLES,
    human_study=RWGBENCH_STUDY,
    hub_tasks=HUB_TASKS,
    hub_configs=HUB_CONFIGS,
    hub_repo=hub_repo_id,
)
