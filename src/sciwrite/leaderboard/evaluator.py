"""Scoring one submission with its benchmark's suite, as `sciwrite evaluate` does.

The suite's profile is ``paper`` on a GPU (the papers' models) and ``lite`` otherwise, unless one is named; the
LLM judge runs only when the board is given an endpoint for it. The predictions are written to a private temporary
folder under a name made of the submission's id (never a name a user chose), scored, and the summary and per-paper
rows returned; the folder is removed whatever happens.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import get_benchmark
from sciwrite.core.paper_row import PaperRow, typed_rows
from sciwrite.core.predictions import SystemPredictions
from sciwrite.core.results import SideFiles, per_paper_record
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.store import Submission
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig
from sciwrite.scoring.core import ModelCache, score_systems
from sciwrite.scoring.request import ScoringRequest, metric_names

#: Why a metric the board did not run has no value: the LLM judge without an endpoint, or a metric left out.
JUDGE_NOT_RUN = "not run on this board (the LLM judge needs an endpoint the board was not given)"
NOT_RUN = "not run on this board (left out of its metric list)"


def default_profile() -> str:
    """``paper`` when a CUDA GPU is there, ``lite`` otherwise."""
    import torch

    return "paper" if torch.cuda.is_available() else "lite"


@dataclass
class SuiteEvaluator:
    """Scores a submission on its benchmark; one instance serves every submission of a worker, and the suites'
    models stay loaded between submissions (the model loaders remember what they loaded)."""

    sources: Mapping[str, str | Path | None] = field(default_factory=dict)  # benchmark -> local folder / Hub id
    profile: str | None = None  # None: `default_profile()`
    metrics: Mapping[str, Sequence[str] | None] = field(default_factory=dict)  # benchmark -> metric subset
    judge: JudgeConfig | None = None  # how the LLM judge's clients are made; None: no LLM judge
    bootstrap: int = 1000
    batch_size: int = 64

    models: ModelCache = field(default_factory=ModelCache, repr=False, compare=False)

    def resolved_profile(self) -> str:
        return self.profile or default_profile()

    def __call__(self, submission: Submission, predictions_jsonl: str) -> tuple[Summary, list[PaperRow]]:
        """(summary, per-paper rows) of `submission`; an error says what went wrong and is the FAILED reason."""
        benchmark = get_benchmark(submission.benchmark)
        metrics = metric_names(self.metrics.get(benchmark.name))  # as `ScoringRequest` keeps them
        if self.judge is None:
            metrics = benchmark.suite.metrics_without_judge(metrics)
        request = ScoringRequest(split=submission.split, source=self.sources.get(benchmark.name),
                                 profile=self.resolved_profile(), metrics=metrics, judge=self.judge or DEFAULT_JUDGE,
                                 show_progress=False, batch_size=self.batch_size, bootstrap=self.bootstrap)
        # the submission's hex id names it in messages: never a name a user chose
        predictions = SystemPredictions.from_text(predictions_jsonl, submission.id, origin=f"submission {submission.id}")
        [result] = score_systems(benchmark, [predictions], request, models=self.models.get(benchmark, request))
        summary = _board_summary(result.summary, submission.system)
        without_judge = set(benchmark.suite.metrics_without_judge(None))
        skipped = {key: NOT_RUN if key in without_judge else JUDGE_NOT_RUN for key in benchmark.suite.metrics
                   if summary.reported(key) is None and key not in summary.not_computed
                   and metrics is not None and key not in metrics}
        summary = summary.with_(not_computed={**summary.not_computed, **skipped})
        # checked by the worker before it is stored (`sciwrite.leaderboard.worker.checked`)
        return summary, _board_rows(result.rows, benchmark, result.files.side_files)


def _board_rows(rows: Sequence[PaperRow], benchmark: Benchmark, side_files: SideFiles | None) -> list[PaperRow]:
    """The rows as the board keeps them: as ``per_paper.jsonl`` holds them (`per_paper_record`: the benchmark
    first, no system, without the fields moved to side files), every value one JSON can hold (a path as text)."""
    records = [per_paper_record(row, None, side_files, benchmark.name) for row in rows]
    return typed_rows(json.loads(json.dumps(records, default=str)))


def _board_summary(summary: Summary, system: str) -> Summary:
    """The summary as the board keeps it: under the submission's system name, without the predictions' origin (the
    submission's id, which the board keeps anyway), every value one JSON can hold (a path as text)."""
    kept = {k: v for k, v in summary.to_json().items() if k != "predictions"}
    return Summary.from_json(json.loads(json.dumps({**kept, "system": system}, default=str)))
