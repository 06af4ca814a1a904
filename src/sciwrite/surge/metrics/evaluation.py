"""SurGE's steps of the scoring core (`sciwrite.scoring.core`): a survey config and its corpus, how a system's
surveys join it, how a system is scored here or on Ray, and what its summary holds.

Predictions come in either of two layouts:

- SurGE's own: a folder holding one subfolder per survey id, each with the survey as one Markdown file (what the
  published baselines' ``output/`` folders hold; `sciwrite.surge.prediction_folder`);
- JSON Lines ``{"survey_id": ..., "text": <Markdown survey>}`` (``paper_id`` is accepted for ``survey_id``, as every
  sciwrite prediction file names its target).

A survey's references are resolved to the corpus twice: by normalised exact title, as SurGE does, for Coverage,
citation precision and the relevance levels; and by sciwrite's grounding resolver (fuzzy title, authors, year) for
the grounding block beside the table, whose grounded recall is Coverage as fuzzy matching finds it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from datasets import Dataset

from sciwrite.benchmark import ScoredPapers, Source
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.predictions import JoinReport, SystemPredictions, join_by_paper_id, read_system, rejected_line
from sciwrite.core.summary import GroundingSummary, Intervals, JoinSummary, Summary
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.corpus_check import lazy_checker
from sciwrite.grounding.resolver import DEFAULT_THRESHOLD, ReferenceResolver, lazy_resolver
from sciwrite.grounding.scoring import GROUNDING_KEYS, ground_reference_lists, summarize_grounding
from sciwrite.metrics.judge import llm_requests, llm_usage
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.steps import EvaluationSteps, OpenSplit, PredictionFile, ResultFiles, Scored
from sciwrite.stats import summary_intervals
from sciwrite.surge.data.configs import SCORED_SPLITS, corpus_location
from sciwrite.surge.data.loading import load_surge
from sciwrite.surge.data.schema import CORPUS_FEATURES
from sciwrite.surge.metrics.coverage import ExactTitleIndex
from sciwrite.surge.metrics.items import SurveyItem, prepare_items
from sciwrite.surge.metrics.judge import JUDGE_TEMPLATES
from sciwrite.surge.metrics.specs import CITATION_PRECISION, METRICS
from sciwrite.surge.metrics.suite import (
    SUITE_METRICS,
    SurgeModels,
    load_surge_models,
    merge_fields,
    score_items,
    summarize_surge,
)
from sciwrite.surge.prediction_folder import is_prediction_folder, read_prediction_folder

logger = logging.getLogger(__name__)

#: The per-survey metrics a summary reports and ``--cutoff`` splits (the grounding's are in its own block).
PER_SURVEY_METRICS: tuple[str, ...] = (*SUITE_METRICS, CITATION_PRECISION.key)


@dataclass(frozen=True)
class SurgeSplit(OpenSplit):
    """A survey config, its corpus (a `datasets.Dataset`), the corpus's exact-title index, and the grounding's
    resolver and reference checker over the corpus (each built once for the run, when a survey first lists a
    reference)."""

    corpus: Any = None
    titles: ExactTitleIndex | None = None
    rows_by_doc_id: Mapping[str, int] | None = None
    resolver: Callable[[], ReferenceResolver] | None = None
    checker: Callable[[], ReferenceChecker] | None = None

    @classmethod
    def of(cls, config: str, surveys: Any, corpus: Any) -> SurgeSplit:
        """A split of `surveys` (a `datasets.Dataset` or records) citing into `corpus` (a `datasets.Dataset` of
        corpus documents, or their records), with the corpus's exact-title index built once."""
        if isinstance(corpus, list | tuple):
            corpus = Dataset.from_list([dict(doc) for doc in corpus], features=CORPUS_FEATURES)
        doc_ids = corpus["doc_id"]
        return cls(config, surveys, corpus=corpus,
                   titles=ExactTitleIndex.from_records(zip(doc_ids, corpus["title"], strict=True)),
                   rows_by_doc_id={doc_id: row for row, doc_id in enumerate(doc_ids)},
                   resolver=lazy_resolver(corpus), checker=lazy_checker(corpus))

    def papers_of(self, doc_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """doc_id -> (title, abstract) of those the corpus holds, read in one selection."""
        if self.corpus is None or self.rows_by_doc_id is None:
            return {}
        wanted = [(doc_id, self.rows_by_doc_id[doc_id]) for doc_id in doc_ids if doc_id in self.rows_by_doc_id]
        if not wanted:
            return {}
        records = self.corpus.select([row for _, row in wanted]).select_columns(["doc_id", "title", "abstract"])
        return {r["doc_id"]: (r["title"] or "", r["abstract"] or "") for r in records}


@dataclass(frozen=True, kw_only=True)
class SurgeFile(PredictionFile):
    """One system's surveys joined to the config's surveys, and how they joined."""

    join: JoinReport


def open_split(request: ScoringRequest) -> SurgeSplit:
    """The survey config (``--split``: ``sample``, ``surveys`` or a fresh ``arxiv`` folder), its corpus (from
    ``--source``; a fresh folder's from the source its build recorded: `corpus_location`) and its title index."""
    config = request.split or "sample"
    if config not in SCORED_SPLITS:
        raise ValueError(f"unknown SurGE split {config!r}; choose one of {list(SCORED_SPLITS)}")
    corpus = corpus_location(config, request.source)
    return SurgeSplit.of(config, load_surge(config, source=request.source),
                         load_surge(corpus.config, source=corpus.source))


def surge_predictions(predictions: SystemPredictions) -> SystemPredictions:
    """The system's predictions with SurGE's ``survey_id`` read as ``paper_id``: a folder in SurGE's layout becomes
    one record per survey; a JSON Lines file keeps its line numbers."""
    if predictions.path is not None and Path(predictions.path).is_dir() and is_prediction_folder(predictions.path):
        surveys = read_prediction_folder(predictions.path)
        return SystemPredictions.from_records([{"paper_id": s.survey_id, "text": s.text} for s in surveys],
                                              predictions.system, origin=predictions.origin)
    lines = []
    for number, line, record, problem in predictions.lines():
        if isinstance(record, dict) and "paper_id" not in record and "survey_id" in record:
            record = {**record, "paper_id": str(record["survey_id"])}
        lines.append((number, line, record, problem))
    return SystemPredictions(predictions.system, predictions.origin, records=tuple(lines))


def read_file(predictions: SystemPredictions, split: SurgeSplit, request: ScoringRequest) -> SurgeFile:
    """One system's surveys joined to the config's surveys by survey id; surveys of other ids are reported and
    ignored, expert surveys without a prediction are left out of the means (and named in the join report)."""
    read = read_system(surge_predictions(predictions), text_is="the generated survey (Markdown)", candidates=False,
                       bad_records=request.bad_records)
    records = read.records
    join = join_by_paper_id([str(r["paper_id"]) for r in records], split.paper_ids)
    if join.missing:
        logger.warning("%d of %d surveys have no prediction (left out of the means), e.g. %s", len(join.missing),
                       len(split.paper_ids), join.missing[:5])
    if join.extra:
        logger.warning("%d prediction(s) name surveys the config does not hold (ignored), e.g. %s", len(join.extra),
                       join.extra[:5])
    if not join.matched:
        raise ValueError(f"no prediction in {predictions.origin} matches a survey of SurGE {split.config!r}")
    return SurgeFile(predictions.origin, [records[i]["text"] for i, _ in join.matched],
                     split.records([j for _, j in join.matched]), read.rejected, join=join)


def ray_items(file: SurgeFile, split: SurgeSplit) -> list[SurveyItem]:
    """Each survey as a Ray actor receives it: its text, its expert survey, its resolved references and their
    corpus papers (no actor holds the corpus)."""
    if split.titles is None:
        raise ValueError("the split has no corpus title index")
    return prepare_items(file.texts, file.targets, split.titles, split.papers_of)


def grounded(file: SurgeFile, split: SurgeSplit, rows: list[PaperRow], request: ScoringRequest) -> Scored:
    """The rows with each survey's reference list grounded by sciwrite's resolver, and checked by the reference
    checker (the corpus as a closed world, each reference against its survey's year), against the split's corpus."""
    items = ray_items(file, split)
    lists = [[{"n": ref.number, "title": ref.title} for ref in item.references] for item in items]
    gold = [list(item.target["all_cites"]) for item in items]
    grounding = ground_reference_lists(lists, gold, [f"survey {item.survey_id!r}" for item in items],
                                       split.resolver or lazy_resolver(split.corpus),
                                       show_progress=request.show_progress,
                                       checker=split.checker or lazy_checker(split.corpus),
                                       years=[item.target.get("year") for item in items])
    out = []
    for row, fields in zip(rows, grounding, strict=True):
        data = dict(row.to_json())
        merge_fields(data, fields)
        out.append(PaperRow.from_json(data))
    return Scored(out)


def score_file(file: SurgeFile, split: SurgeSplit, models: SurgeModels, request: ScoringRequest) -> Scored:
    rows, seconds = score_items(ray_items(file, split), models, batch_size=request.batch_size,
                                show_progress=request.show_progress)
    scored = grounded(file, split, rows, request)
    return Scored(scored.rows, seconds)


def after_ray(file: SurgeFile, split: SurgeSplit, rows: list[PaperRow], request: ScoringRequest) -> Scored:
    return grounded(file, split, rows, request)


def interval_fields(rows: Sequence[PaperRow], means: Mapping[str, Any], n_resamples: int, seed: int) -> Intervals:
    """The bootstrap intervals over surveys of every per-survey metric whose mean is reported."""
    return summary_intervals(rows, list(PER_SURVEY_METRICS), n_resamples, seed=seed, means=means)


def grounding_summary(rows: Sequence[PaperRow], bootstrap: int, seed: int) -> GroundingSummary | None:
    """The grounding resolver's verdicts over the surveys' reference lists (offline, the split's corpus), with a
    bootstrap interval of each rate and score over the surveys where it is defined; None when no survey lists a
    reference."""
    grounding = summarize_grounding(rows, threshold=DEFAULT_THRESHOLD)
    if grounding is None:
        return None
    listed = [r for r in rows if r.grounding is not None and r.grounding.source]
    found = summary_intervals(listed, GROUNDING_KEYS, bootstrap, seed=seed, means=grounding.metrics)
    return replace(grounding, intervals=found.bounds, interval_method=found.method, n_resamples=found.n_resamples,
                   confidence=found.confidence)


def summarize_file(file: SurgeFile, scored: Scored, models: SurgeModels, *, split: SurgeSplit,
                   request: ScoringRequest, system: str) -> Summary:
    """A system's summary: the means and intervals, the grounding block, the join report and the LLM record."""
    rows = scored.rows
    means = summarize_surge(rows, models)
    join = file.join
    return means.with_(
        system=system, split=split.config, predictions=file.origin,
        intervals=interval_fields(rows, means.metrics, request.bootstrap, request.seed),
        grounding=grounding_summary(rows, request.bootstrap, request.seed),
        join=JoinSummary(n_matched=len(join.matched), n_missing=len(join.missing), n_extra=len(join.extra),
                         n_rejected_lines=len(file.rejected), missing=tuple(join.missing), extra=tuple(join.extra),
                         rejected_lines=tuple(rejected_line(r) for r in file.rejected)),
        usage=llm_usage(request.ledger),
        llm_requests=llm_requests({"surge_judge": getattr(models, "judge", None)}),
        details={**means.details, "stage_seconds": dict(scored.seconds)})


def result_files(summary: Summary, system: str) -> ResultFiles:
    """``summary.csv``: one (group, metric, value, coverage) row per results-table metric."""
    coverage = summary.scored.fraction
    rows = [{"group": spec.group, "metric": spec.label, "value": summary.value(spec.key), "coverage": coverage}
            for spec in METRICS]
    return ResultFiles(rows)


def memorisation_texts(file: SurgeFile, split: SurgeSplit) -> list[tuple[str, list[str]]]:
    """Per survey: the expert survey's text and what a method is given of it (its title and abstract)."""
    return [("\n\n".join(s["content"] for s in survey["structure"]), [survey["title"], survey["abstract"]])
            for survey in file.targets]


def scored_papers(config: str, source: Source = None) -> ScoredPapers:
    """Every survey of `config` is scored."""
    return ScoredPapers(tuple(load_surge(config, source=source)["paper_id"]))


#: SurGE's steps of the scoring core.
EVALUATION = EvaluationSteps(open_split=open_split, read=read_file, load_models=load_surge_models, score=score_file,
                             summarize=summarize_file, result_files=result_files, metrics=PER_SURVEY_METRICS,
                             ray_items=ray_items, score_items=score_items, after_ray=after_ray,
                             memorisation_texts=memorisation_texts, intervals=interval_fields,
                             templates=JUDGE_TEMPLATES)

__all__ = ["EVALUATION", "PER_SURVEY_METRICS", "SurgeFile", "SurgeSplit", "open_split", "read_file",
           "scored_papers", "surge_predictions"]
