"""SciIG as a `sciwrite.benchmark.Benchmark`."""

from __future__ import annotations

from sciwrite.benchmark import (
    Benchmark,
    BenchmarkData,
    BenchmarkGeneration,
    BenchmarkSuite,
    Drilldown,
    HubPart,
    Presentation,
    Sensitivity,
    Studies,
)
from sciwrite.core.commands import Option
from sciwrite.sciig.data.build_commands import BUILD_COMMANDS
from sciwrite.sciig.data.configs import ALL_CONFIGS, SCIIG_CONFIGS, default_sciig_dir, sciig_repo_id
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.generation import plan
from sciwrite.sciig.generation.prompts import LEVELS
from sciwrite.sciig.hub_tasks import HUB_CONFIGS, HUB_TASKS
from sciwrite.sciig.human_eval import SCIIG_STUDY
from sciwrite.sciig.metrics import sensitivity
from sciwrite.sciig.metrics.citations import BOARD_GROUPS, board_values
from sciwrite.sciig.metrics.drilldown import citation_view, drilldown_papers
from sciwrite.sciig.metrics.evaluation import EVALUATION, scored_papers
from sciwrite.sciig.metrics.judge_check import JUDGE_CHECK
from sciwrite.sciig.metrics.model_roles import ROLES
from sciwrite.sciig.metrics.report import report_text
from sciwrite.sciig.metrics.specs import BLEU, METRICS
from sciwrite.sciig.metrics.suite import STAGES, TABLE2_GROUPS
from sciwrite.sciig.paper_tables import PAPER_TABLES
from sciwrite.sciig.quickstart import run_sciig_quickstart
from sciwrite.sciig.scales import SCALES

SCIIG = Benchmark(
    name="sciig",
    title="SciIG",
    paper="arXiv:2508.14273",
    data=BenchmarkData(
        configs=SCIIG_CONFIGS,
        offline_config="sample",
        board_split="naacl_2025",
        load=load_sciig,
        splits=ALL_CONFIGS,
        prediction_fields=("paper_id",),
        sample_dir=default_sciig_dir,
        scored_papers=scored_papers,
        builds=BUILD_COMMANDS,
        prediction_split="test",
        answer_fields=("introduction",),  # the introduction a method writes: never among its inputs
    ),
    suite=BenchmarkSuite(
        stages=STAGES,
        table_groups=TABLE2_GROUPS,
        steps=EVALUATION,
        scales=SCALES,
        specs=METRICS,
        roles=ROLES,
        options=(Option("upstream", "the prediction file is in the upstream SciIG pred/label/desc format (joined by "
                                    "label)", switch=True),),
    ),
    generation=BenchmarkGeneration(
        prompts=LEVELS,
        help="SciIG introductions with one or more of the seven prompting regimes",
        options=plan.GENERATE_OPTIONS,
        plan=plan.plan_generation,
    ),
    presentation=Presentation(
        report=report_text,
        per_paper_notes={BLEU.key: "sentence BLEU per paper"},
        board_groups=BOARD_GROUPS,
        board_values=board_values,
        paper_tables=PAPER_TABLES,
        drilldown=Drilldown(papers=drilldown_papers, citation_view=citation_view),
    ),
    studies=Studies(
        human_study=SCIIG_STUDY,
        sensitivity=Sensitivity(run=sensitivity.run_sensitivity, expected=sensitivity.EXPECTED,
                                reasons=sensitivity.REASONS),
        judge_check=JUDGE_CHECK,
        quickstart=run_sciig_quickstart,
    ),
    hub=HubPart(tasks=HUB_TASKS, configs=HUB_CONFIGS, repo=sciig_repo_id),
)
