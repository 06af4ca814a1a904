"""SurGE as a `sciwrite.benchmark.Benchmark`: survey generation over SurGE's corpus (Su et al., arXiv 2508.15658)."""

from __future__ import annotations

from sciwrite.benchmark import (
    Benchmark,
    BenchmarkData,
    BenchmarkGeneration,
    BenchmarkSuite,
    Corpus,
    HubPart,
    Presentation,
    Sensitivity,
    Studies,
)
from sciwrite.core.metric_spec import board_groups, scales
from sciwrite.surge.data.build_commands import BUILD_COMMANDS
from sciwrite.surge.data.configs import SCORED_SPLITS, SURGE_CONFIGS, default_surge_dir, surge_repo_id
from sciwrite.surge.data.corpus_files import corpus_files, default_folder
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.generation import plan
from sciwrite.surge.generation.methods import METHODS
from sciwrite.surge.generation.records import ANSWER_FIELDS
from sciwrite.surge.hub_tasks import HUB_CONFIGS, HUB_TASKS
from sciwrite.surge.metrics import sensitivity
from sciwrite.surge.metrics.board import board_values
from sciwrite.surge.metrics.drilldown import DRILLDOWN
from sciwrite.surge.metrics.evaluation import EVALUATION, scored_papers
from sciwrite.surge.metrics.judge_check import JUDGE_CHECK
from sciwrite.surge.metrics.model_roles import ROLES
from sciwrite.surge.metrics.report import report_text
from sciwrite.surge.metrics.specs import METRICS
from sciwrite.surge.metrics.suite import STAGES
from sciwrite.surge.paper_tables import PAPER_TABLES
from sciwrite.surge.quickstart import run_surge_quickstart

SURVEY_CONFIGS = tuple(c for c, info in SURGE_CONFIGS.items() if info.kind == "survey")
CORPUS_CONFIGS = tuple(c for c, info in SURGE_CONFIGS.items() if info.kind == "corpus")

SURGE = Benchmark(
    name="surge",
    title="SurGE",
    paper="arXiv:2508.15658",
    data=BenchmarkData(
        configs=SURVEY_CONFIGS,
        offline_config="sample",
        board_split="surveys",
        load=load_surge,
        splits=SCORED_SPLITS,
        prediction_fields=("paper_id",),
        sample_dir=default_surge_dir,
        scored_papers=scored_papers,
        builds=BUILD_COMMANDS,
        corpus=Corpus(configs=CORPUS_CONFIGS, default="sample_corpus", paper_configs=SURVEY_CONFIGS,
                      default_papers="sample", files=corpus_files, default_folder=default_folder),
        # what a method never sees: the expert survey's text and tree, its citations and its sections' cite lists
        # (the first, the Markdown text, is the reference an Inspect sample's target holds)
        answer_fields=ANSWER_FIELDS,
    ),
    suite=BenchmarkSuite(
        stages=STAGES,
        table_groups={group: tuple((s.key, s.label) for s in METRICS if s.in_table and s.group == group)
                      for group in dict.fromkeys(s.group for s in METRICS if s.in_table)},
        steps=EVALUATION,
        scales=scales(METRICS),
        specs=METRICS,
        roles=ROLES,
    ),
    generation=BenchmarkGeneration(
        prompts=METHODS,
        help="SurGE surveys: Naive, RAG, the AutoSurvey-style outline pipeline (and the agent)",
        options=plan.GENERATE_OPTIONS,
        plan=plan.plan_generation,
    ),
    presentation=Presentation(
        report=report_text,
        board_groups=board_groups(METRICS),
        board_values=board_values,
        paper_tables=PAPER_TABLES,
        drilldown=DRILLDOWN,
    ),
    studies=Studies(
        sensitivity=Sensitivity(run=sensitivity.run_sensitivity, expected=sensitivity.EXPECTED,
                                reasons=sensitivity.REASONS),
        judge_check=JUDGE_CHECK,
        quickstart=run_surge_quickstart,
    ),
    hub=HubPart(tasks=HUB_TASKS, configs=HUB_CONFIGS, repo=surge_repo_id),
)

__all__ = ["SURGE"]
