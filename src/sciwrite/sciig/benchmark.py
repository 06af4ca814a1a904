"""SciIG as a `sciwrite.benchmark.Benchmark`."""

from __future__ import annotations

from sciwrite.benchmark import Benchmark
from sciwrite.sciig.data.build_command import BUILD_COMMANDS
from sciwrite.sciig.data.configs import ALL_CONFIGS, SCIIG_CONFIGS, default_sciig_dir, sciig_repo_id
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation import plan
from sciwrite.sciig.generation.prompts import LEVELS
from sciwrite.sciig.hub_tasks import HUB_CONFIGS, HUB_TASKS
from sciwrite.sciig.human_eval import SCIIG_STUDY
from sciwrite.sciig.metrics import sensitivity
from sciwrite.sciig.metrics.citations import BOARD_GROUPS, board_values
from sciwrite.sciig.metrics.drilldown import citation_view, drilldown_papers
from sciwrite.sciig.metrics.report import evaluate_sciig_files, report_text, scored_papers
from sciwrite.sciig.metrics.suite import STAGES, TABLE2_GROUPS, load_sciig_models, metrics_without_judge, score_items
from sciwrite.sciig.paper_tables import PAPER_TABLES
from sciwrite.sciig.quickstart import run_sciig_quickstart

SCIIG = Benchmark(
    name="sciig",
    title="SciIG",
    paper="arXiv:2508.14273",
    configs=SCIIG_CONFIGS,
    offline_config="sample",
    load=load_sciig,
    prediction_fields=("paper_id",),
    table_groups=TABLE2_GROUPS,
    metrics_without_judge=metrics_without_judge,
    prompts=LEVELS,
    evaluate=evaluate_sciig_files,
    report=report_text,
    splits=ALL_CONFIGS,
    model_roles=("bertscore", "bleurt", "contextual_encoder", "keyphrase_encoder", "summac_nli", "question_generation",
                 "question_answering", "gpt2", "citation_extractor", "sciig_judge"),
    stage_names=tuple(STAGES),
    evaluate_flags={"upstream": "the prediction file is in the upstream SciIG pred/label/desc format (joined by "
                                "label)"},
    split_aliases=("--dataset",),
    scored_papers=scored_papers,
    quickstart=run_sciig_quickstart,
    sample_dir=default_sciig_dir,
    sensitivity=sensitivity.run_sensitivity,
    sensitivity_expected=sensitivity.EXPECTED,
    sensitivity_reasons=sensitivity.REASONS,
    drilldown_papers=drilldown_papers,
    citation_view=citation_view,
    load_models=load_sciig_models,
    score_items=score_items,
    summary_split_key="dataset",
    prediction_split="test",
    per_paper_notes={"bleu": "sentence BLEU per paper"},
    board_groups=BOARD_GROUPS,
    board_values=board_values,
    generate_help="SciIG introductions with one or more of the seven prompting regimes",
    generate_options=plan.GENERATE_OPTIONS,
    plan_generation=plan.plan_generation,
    builds=BUILD_COMMANDS,
    paper_tables=PAPER_TABLES,
    human_study=SCIIG_STUDY,
    hub_tasks=HUB_TASKS,
    hub_configs=HUB_CONFIGS,
    hub_repo=sciig_repo_id,
)
