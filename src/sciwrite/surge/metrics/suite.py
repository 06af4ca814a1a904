"""The SurGE suite: every survey-generation metric over one batch of surveys, each model loaded once.

`STAGES` lists the scorers (read off `sciwrite.surge.metrics.specs`); `load_surge_models` resolves and loads the
models of a profile (a metric whose model the profile lacks is recorded as not computed, naming the model);
`score_items` scores prepared surveys (`sciwrite.surge.metrics.items`) and returns the per-survey rows and each
scorer's wall seconds; `summarize_surge` averages the rows.

A survey a scorer cannot score never aborts the batch: its metrics of that scorer are None on its row and
``errors[<scorer>]`` says why. Means are over the surveys each metric scored.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from tqdm.auto import tqdm

from sciwrite.core.paper_row import ERRORS, PAPER_ID, PaperRow, typed_rows
from sciwrite.core.summary import Summary
from sciwrite.llm.ledger import UsageLedger
from sciwrite.metrics.judge import load_chat_model, snapshot_counts
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig
from sciwrite.metrics.judge_panel import failed_judges
from sciwrite.metrics.summary import JUDGE_FAILURES
from sciwrite.models.encoders import embed, load_sentence_encoder
from sciwrite.models.nli import NLIModel, load_nli
from sciwrite.models.plan import resolve_plan
from sciwrite.models.registry import roles_named
from sciwrite.scoring.stages import StageTable
from sciwrite.scoring.steps import SuiteModels
from sciwrite.surge.metrics import coverage as coverage_metric
from sciwrite.surge.metrics import relevance
from sciwrite.surge.metrics.items import SurveyItem
from sciwrite.surge.metrics.judge import JUDGE_ERRORS, JUDGE_SNAPSHOTS, judge_input, judge_surveys
from sciwrite.surge.metrics.lexical import expert_sections, surge_rouge_bleu
from sciwrite.surge.metrics.model_roles import ROLES
from sciwrite.surge.metrics.sh_recall import soft_heading_recall, target_headings
from sciwrite.surge.metrics.specs import (
    BLEU,
    CITATION_PRECISION,
    COVERAGE,
    LOGIC,
    METRICS,
    RELEVANCE_PAPER,
    RELEVANCE_SECTION,
    RELEVANCE_SENTENCE,
    ROUGE1,
    ROUGE2,
    ROUGE_L,
    SCORERS,
    SH_RECALL,
    STRUCTURE_QUALITY,
)

logger = logging.getLogger(__name__)

STAGES = StageTable.from_specs("SurGE", METRICS, SCORERS)
#: The results table's metric keys, in its order.
SUITE_METRICS: tuple[str, ...] = STAGES.table_metrics
#: What each row counts of its survey (numbers beside the metrics).
N_REFERENCES, N_RESOLVED, N_MARKERS, N_HEADINGS, N_PARAGRAPHS = (
    "n_references", "n_references_resolved", "n_markers", "n_headings", "n_paragraphs")
#: The summary field of the surveys each scorer could not score, with why (scorer -> survey id -> error).
SCORING_ERRORS = "scoring_errors"


@dataclass
class SurgeModels(SuiteModels):
    """The loaded models of one profile, and why any metric cannot be computed."""

    nli: NLIModel | None = None
    heading_encoder: Any = None
    judge: Any = None

    STAGES: ClassVar[StageTable] = STAGES


def load_surge_models(profile: str | None = None, models: Mapping[str, str] | None = None,
                      metrics: Iterable[str] | None = None, judge: JudgeConfig = DEFAULT_JUDGE,
                      ledger: UsageLedger | None = None) -> SurgeModels:
    """Load every model the requested `metrics` need (all by default), once; `models` overrides role -> id (a plain
    ``judge=X`` is taken as the SurGE judge). A role the profile has no model for (offline `lite`: the NLI model and
    the judge) marks its metrics not computed, naming the model; a model that is named but cannot be loaded
    raises `ModelUnavailableError`, never a silent substitute."""
    wanted = set(STAGES.expand(metrics))
    models = dict(models or {})
    overrides = {**models, "surge_judge": models.get("surge_judge", models.get("judge"))}
    plan = resolve_plan(roles_named(ROLES, STAGES.roles_for(wanted)), profile, overrides)
    suite = SurgeModels(profile=plan.profile, plan=plan,
                        not_computed={metric: "not requested" for metric in SUITE_METRICS if metric not in wanted})
    if suite.wants("relevance"):
        suite.nli, why = plan.load("surge_nli", load_nli)
        _record(suite, "surge_nli", suite.nli, why, ("relevance",))
    if suite.wants(SH_RECALL.stage_name):
        suite.heading_encoder, why = plan.load("heading_encoder",
                                               lambda model_id: load_sentence_encoder(model_id, role="heading encoder"))
        _record(suite, "heading_encoder", suite.heading_encoder, why, (SH_RECALL.stage_name,))
    judged = tuple(stage for stage in (STRUCTURE_QUALITY.stage_name, LOGIC.stage_name) if suite.wants(stage))
    if judged:
        suite.judge, why = load_chat_model(plan, "surge_judge", judge, ledger)
        _record(suite, "surge_judge", suite.judge, why, judged)
    return suite


def _record(suite: SurgeModels, role: str, model: Any, why: str | None, stages: Sequence[str]) -> None:
    """The role's model id in the suite's list, or its stages' metrics not computed with the reason (the plan's,
    which names the paper profile's model)."""
    if model is not None:
        # model_id first: an NLIModel's `model` is the network itself (a chat client's `model` is its id)
        suite.model_ids[role] = getattr(model, "model_id", None) or getattr(model, "model", None) or \
            (suite.plan.model_id(role) if suite.plan is not None else role)
        return
    for stage in stages:
        for metric in STAGES[stage].metrics:
            suite.not_computed.setdefault(metric, why or f"no {role} model")


def _nli_scorer(model: NLIModel, batch_size: int) -> relevance.NLIScorer:
    """SurGE's NLI call (logits in its label order: contradiction, entailment, neutral) on our NLI model, whose
    probabilities come as entailment, neutral, contradiction (the rule compares the three, so softmax changes
    nothing)."""
    def scores(pairs: list[tuple[str, str]]) -> np.ndarray:
        probabilities = model.probabilities([p for p, _ in pairs], [h for _, h in pairs], batch_size)
        return probabilities[:, [2, 0, 1]]

    return scores


def _stage_rows(name: str, items: Sequence[SurveyItem], models: SurgeModels,
                batch_size: int) -> list[dict[str, Any]]:
    """One stage's fields for every survey (a ValueError on one survey becomes its error, not the batch's)."""
    if name in (STRUCTURE_QUALITY.stage_name, LOGIC.stage_name):
        return _judge_rows(name, items, models)
    out = []
    for item in items:
        try:
            out.append(_score_one(name, item, models, batch_size))
        except ValueError as err:
            out.append({ERRORS: {name: str(err)}})
    return out


def _score_one(name: str, item: SurveyItem, models: SurgeModels, batch_size: int) -> dict[str, Any]:
    survey, document = item.target, item.document()
    gold = list(survey["all_cites"])
    doc_ids = item.doc_id_of()
    if name == COVERAGE.stage_name:
        resolved = [doc_ids[n] for n in sorted(doc_ids)]
        return {COVERAGE.key: coverage_metric.coverage(gold, [d for d in resolved if d is not None]),
                CITATION_PRECISION.key: coverage_metric.reference_precision(resolved, gold)}
    if name == "relevance":
        if models.nli is None:
            raise ValueError("no NLI model")
        nli = _nli_scorer(models.nli, batch_size)
        markers = document.markers(upstream=True)
        paper = item.papers.__getitem__
        sections = relevance.resolve_markers([(m.number, m.heading) for m in markers], doc_ids)
        sentences = relevance.resolve_markers([(m.number, m.sentence) for m in markers], doc_ids)
        return {RELEVANCE_PAPER.key: relevance.paper_relevance([doc_ids[n] for n in sorted(doc_ids)], gold,
                                                               survey["title"], paper, nli),
                RELEVANCE_SECTION.key: relevance.section_relevance(sections, paper, nli),
                RELEVANCE_SENTENCE.key: relevance.sentence_relevance(sentences, paper, nli)}
    if name == SH_RECALL.stage_name:
        encoder = models.heading_encoder

        def vectors(texts: list[str]) -> np.ndarray:
            return embed(encoder, texts, batch_size=batch_size)

        generated = document.heading_titles()
        value = soft_heading_recall(target_headings(survey["structure"]), generated, vectors) if generated else 0.0
        return {SH_RECALL.key: value}
    if name == "lexical":
        scores = surge_rouge_bleu(document.paragraphs(min_chars=100), expert_sections(survey["structure"]))
        if scores is None:
            raise ValueError("no paragraph of 100 characters or more in the generated or the expert survey")
        return {ROUGE1.key: scores.rouge1, ROUGE2.key: scores.rouge2, ROUGE_L.key: scores.rouge_l,
                BLEU.key: scores.bleu}
    raise KeyError(name)


def _judge_rows(name: str, items: Sequence[SurveyItem], models: SurgeModels) -> list[dict[str, Any]]:
    inputs = []
    for item in items:
        document = item.document()
        inputs.append(judge_input(item.target["structure"], document.outline(), document.paragraphs(min_chars=100)))
    rows = judge_surveys(inputs, models.judge, structure=name == STRUCTURE_QUALITY.stage_name,
                         logic=name == LOGIC.stage_name)
    for row in rows:
        failed = {metric: why for metric, why in row.get(JUDGE_ERRORS, {}).items() if metric == name}
        if failed:
            row[ERRORS] = {name: failed[name]}
    return rows


def _counts(item: SurveyItem) -> dict[str, Any]:
    document = item.document()
    return {N_REFERENCES: len(item.references), N_RESOLVED: sum(r.doc_id is not None for r in item.references),
            N_MARKERS: len(document.markers(upstream=True)), N_HEADINGS: len(document.heading_titles()),
            N_PARAGRAPHS: len(document.paragraphs(min_chars=100))}


def score_items(items: Sequence[SurveyItem], models: SurgeModels,
                batch_size: int = 64, show_progress: bool = False) -> tuple[list[PaperRow], dict[str, float]]:
    """One typed row per survey (in order) with every computable metric, and each scorer's wall seconds."""
    rows: list[dict[str, Any]] = [{PAPER_ID: item.survey_id, ERRORS: {}, **_counts(item)} for item in items]
    seconds: dict[str, float] = {}
    stages = [stage.name for stage in STAGES if models.wants(stage.name)]
    for name in tqdm(stages, desc="SurGE metrics", disable=not show_progress):
        start = time.perf_counter()
        for row, fields in zip(rows, _stage_rows(name, items, models, batch_size), strict=True):
            errors = fields.pop(ERRORS, {})
            for metric in STAGES[name].metrics:
                row.setdefault(metric, None)
            merge_fields(row, fields)
            row[ERRORS].update(errors)
        seconds[name] = time.perf_counter() - start
    return typed_rows(rows), seconds


def merge_fields(row: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """A stage's fields into a row: nested mappings (judge replies, panels) merged key by key."""
    for key, value in fields.items():
        if isinstance(value, Mapping) and isinstance(row.get(key), Mapping):
            row[key] = {**row[key], **value}
        else:
            row[key] = value


def _mean(rows: Sequence[PaperRow], metric: str) -> float | None:
    values = [value for row in rows if (value := row.value(metric)) is not None]
    return float(sum(values) / len(values)) if values else None


def summarize_surge(rows: Sequence[PaperRow], models: SurgeModels) -> Summary:
    """Per metric: the mean over the surveys it scored (None, with the reason, when not computed); the judge's
    failures and snapshots when it ran; the surveys each scorer could not score."""
    means: dict[str, float | None] = {metric: None if metric in models.not_computed else _mean(rows, metric)
                                      for metric in SUITE_METRICS}
    if COVERAGE.key not in models.not_computed:
        means[CITATION_PRECISION.key] = _mean(rows, CITATION_PRECISION.key)
    for count in (N_REFERENCES, N_RESOLVED, N_MARKERS, N_HEADINGS):
        means[f"mean_{count}"] = _mean(rows, count)
    judged = models.wants(STRUCTURE_QUALITY.stage_name) or models.wants(LOGIC.stage_name)
    if judged:
        means[JUDGE_FAILURES] = sum(1 for r in rows if r.details.get(JUDGE_ERRORS) or failed_judges(r))
    errors: dict[str, dict[str, str]] = {}
    for row in rows:
        for stage, why in row.errors.items():
            errors.setdefault(stage, {})[str(row.paper_id)] = why
    return Summary(n_papers=len(rows), profile=models.profile, metrics=means,
                   not_computed={m: why for m, why in models.not_computed.items() if why != "not requested"},
                   models=dict(models.model_ids),
                   judge_snapshots=snapshot_counts(rows, JUDGE_SNAPSHOTS) if judged else None,
                   details={SCORING_ERRORS: errors})


__all__ = ["N_HEADINGS", "N_MARKERS", "N_PARAGRAPHS", "N_REFERENCES", "N_RESOLVED", "SCORING_ERRORS", "STAGES",
           "SUITE_METRICS", "SurgeModels", "load_surge_models", "merge_fields", "score_items", "summarize_surge"]
