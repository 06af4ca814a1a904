"""The toy benchmark's steps of the scoring core: three papers in memory, one metric, one rule-based "judge"."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from datasets import Dataset

from sciwrite.benchmark import ScoredPapers
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.predictions import SystemPredictions, join_by_paper_id, read_system
from sciwrite.core.summary import Summary
from sciwrite.llm.ledger import UsageLedger
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig
from sciwrite.models.plan import resolve_plan
from sciwrite.models.registry import ModelRole, roles_named
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.stages import Stage, StageTable
from sciwrite.scoring.steps import EvaluationSteps, OpenSplit, PredictionFile, ResultFiles, Scored, SuiteModels

PAPERS = Dataset.from_list([{"paper_id": f"p{i}", "reference": "word " * (i + 1)} for i in range(3)])
STAGES = StageTable("Toy", (Stage("length", ("length_ratio",)),
                            Stage("rule_judge", ("judged_short",), judge=True)))
#: The model roles its metrics need: none (a suite without weights).
ROLES: tuple[ModelRole, ...] = ()
TABLE_GROUPS = {"Length": (("length_ratio", "Ratio"),), "Judge": (("judged_short", "Short"),)}


@dataclass
class ToyModels(SuiteModels):
    """No model at all: what a suite without weights looks like."""

    STAGES: ClassVar[StageTable] = STAGES


def load_toy(config: str, source: Any = None, split: str | None = None) -> Dataset:
    if config != "toy":
        raise ValueError(f"unknown toy config {config!r}; choose one of ['toy']")
    return PAPERS


def open_split(request: ScoringRequest) -> OpenSplit:
    split = request.split or "toy"
    if split != "toy":
        raise ValueError(f"unknown split {split!r}")
    return OpenSplit("toy", load_toy(split, request.source))


def read(predictions: SystemPredictions, split: OpenSplit, request: ScoringRequest) -> PredictionFile:
    records = read_system(predictions, text_is="a toy text", candidates=False, bad_records=request.bad_records)
    join = join_by_paper_id([r["paper_id"] for r in records.records], split.paper_ids)
    if not join.matched:
        raise ValueError(f"no prediction in {predictions.origin} matches a toy paper")
    texts = [records.records[i]["text"] for i, _ in join.matched]
    if request.options.get("shout"):
        texts = [text.upper() for text in texts]
    return PredictionFile(predictions.origin, texts, split.records([j for _, j in join.matched]),
                          records.rejected, trailer={"toy_note": "after provenance"})


def load_models(profile: str | None = None, models: Mapping[str, str] | None = None,
                metrics: Iterable[str] | None = None, judge: JudgeConfig = DEFAULT_JUDGE,
                ledger: UsageLedger | None = None) -> ToyModels:
    wanted = set(STAGES.expand(metrics))
    plan = resolve_plan(roles_named(ROLES, STAGES.roles_for(wanted)), profile or "lite", models)
    return ToyModels(profile=plan.profile, plan=plan,
                     not_computed={m: "not requested" for m in STAGES.metrics if m not in wanted})


def ray_items(file: PredictionFile, split: OpenSplit) -> list[dict[str, Any]]:
    return [{"text": text, "target": target} for text, target in zip(file.texts, file.targets, strict=True)]


def score_items(items: Sequence[Mapping[str, Any]], models: ToyModels,
                batch_size: int = 64) -> tuple[list[PaperRow], dict[str, float]]:
    start = time.perf_counter()
    rows = []
    for item in items:
        ratio = len(item["text"].split()) / len(item["target"]["reference"].split())
        judged = {"judged_short": float(ratio < 1)} if models.wants("rule_judge") else {}
        rows.append(PaperRow(paper_id=item["target"]["paper_id"], values={"length_ratio": ratio, **judged}))
    return rows, {"length": time.perf_counter() - start}


def score(file: PredictionFile, split: OpenSplit, models: ToyModels, request: ScoringRequest) -> Scored:
    return Scored(*score_items(ray_items(file, split), models, request.batch_size))


def summarize(file: PredictionFile, scored: Scored, models: ToyModels, *, split: OpenSplit, request: ScoringRequest,
              system: str) -> Summary:
    rows = scored.rows
    means = {metric: None if metric in models.not_computed else sum(r.value(metric) or 0.0 for r in rows) / len(rows)
             for metric in STAGES.metrics}
    return Summary(system=system, split=request.split or split.config, predictions=file.origin,
                   profile=models.profile, models=dict(models.model_ids), n_papers=len(rows), metrics=means,
                   not_computed={m: why for m, why in models.not_computed.items() if why != "not requested"},
                   details={"stage_seconds": dict(scored.seconds)})


def result_files(summary: Summary, system: str) -> ResultFiles:
    return ResultFiles([{"system": system, "length_ratio": summary.value("length_ratio")}])


def scored_papers(split: str, source: Any = None) -> ScoredPapers:
    return ScoredPapers(tuple(load_toy(split, source)["paper_id"]))


STEPS = EvaluationSteps(open_split=open_split, read=read, load_models=load_models, score=score,
                        summarize=summarize, result_files=result_files, templates={"toy": "Score this."},
                        metrics=STAGES.metrics, ray_items=ray_items, score_items=score_items)
