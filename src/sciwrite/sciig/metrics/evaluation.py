"""SciIG's steps of the scoring core (`sciwrite.scoring.core`): a config's test papers and holdout split, how a
system's introductions join them, how a system is scored here or on Ray, and what its summary holds.

Predictions are JSON Lines ``{"paper_id": ..., "text": <generated introduction>}`` (other fields ignored), or, with
the ``upstream`` option, the upstream ``pred/label/desc`` format, joined to the papers by label = introduction. A
malformed line is handled by one policy for every benchmark (``--bad-records``, `sciwrite.core.predictions`). Only
the ``test`` split is scored; predictions for ``holdout`` papers (the few-shot exemplar pool) are reported and left
out. For ``naacl_2025`` / ``iclr_2025`` the holdout is the paper's: the first 52 papers of the data file (its
README: "The first 52 generations are treated as the holdout split and excluded"), so an upstream prediction file,
joined by label, loses exactly its rows for those papers; ``summary["join"]["holdout_rule"]`` says which rule
applied.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sciwrite.benchmark import ScoredPapers, Source
from sciwrite.core.paper_row import PaperRow, typed_rows
from sciwrite.core.predictions import (
    JoinReport,
    SystemPredictions,
    join_by_paper_id,
    read_system,
    reject_or_keep,
    rejected_line,
)
from sciwrite.core.results import SideFiles
from sciwrite.core.summary import Interval, Intervals, JoinSummary, Summary, encode
from sciwrite.metrics.judge import llm_requests, llm_usage
from sciwrite.sciig.data.configs import ALL_CONFIGS, holdout_rule
from sciwrite.sciig.data.llm_map import TABLE8_HEAD, TABLE8_RECORD, TABLE8_TASK
from sciwrite.sciig.data.loading import load_sciig
from sciwrite.sciig.data.upstream import import_upstream_predictions
from sciwrite.sciig.metrics.citations import UNMATCHED_INTERVAL
from sciwrite.sciig.metrics.judge import JUDGE_TEMPLATES
from sciwrite.sciig.metrics.row_fields import SENTENCE_BLEU
from sciwrite.sciig.metrics.specs import BLEU, UNMATCHED_CITATION_RATE
from sciwrite.sciig.metrics.suite import (
    SUITE_METRICS,
    SciIGModels,
    load_sciig_models,
    score_items,
    score_sciig,
    summarize_sciig,
    table2_rows,
)
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.steps import EvaluationSteps, OpenSplit, PredictionFile, ResultFiles, Scored, paper_ids
from sciwrite.stats import summary_intervals

logger = logging.getLogger(__name__)

#: Per-paper keys written to keyphrase_outputs/<paper_id>.json instead of per_paper.jsonl.
KEYPHRASE_KEYS = ("generated_keyphrases", "reference_keyphrases", "source_keyphrases", "keyphrase_log")


@dataclass(frozen=True)
class SciIGSplit(OpenSplit):
    """A SciIG config's test papers (the ones scored) and its holdout split (never scored)."""

    holdout: Any = ()  # a `datasets.Dataset`, or records given in memory

    @classmethod
    def of(cls, config: str, test: Any, holdout: Any = ()) -> SciIGSplit:
        return cls(config, test, holdout)

    @property
    def holdout_ids(self) -> set[str]:
        return set(paper_ids(self.holdout))


@dataclass(frozen=True, kw_only=True)
class SciIGFile(PredictionFile):
    """One system's introductions joined to a config's test papers, and how they joined."""

    join: JoinReport
    extra: list[str]  # predictions for papers the config does not hold
    holdout: list[str]  # predictions for holdout papers (left out)


def open_split(request: ScoringRequest) -> SciIGSplit:
    """The config's test papers (the ones scored) and its holdout split."""
    config = request.split or "sample"
    if config not in ALL_CONFIGS:
        raise ValueError(f"unknown SciIG config {config!r}; choose one of {list(ALL_CONFIGS)}")
    splits = load_sciig(config, source=request.source, split="all")
    return SciIGSplit.of(config, splits["test"], splits["holdout"])


def read_file(predictions: SystemPredictions, split: SciIGSplit, request: ScoringRequest) -> SciIGFile:
    """One system's introductions (or, with the ``upstream`` option, an upstream pred/label/desc file joined by
    label) joined to the test papers; predictions for holdout papers are reported and left out."""
    papers, holdout_ids = split.papers, split.holdout_ids
    trailer: dict[str, Any] = {}
    if request.options.get("upstream"):
        if predictions.path is None:
            raise ValueError(f"{predictions.origin}: the upstream pred/label/desc format is read from a file")
        records, upstream_report = import_upstream_predictions(predictions.path, [*papers, *split.holdout])
        upstream_report["papers_without_prediction"] = [p for p in upstream_report["papers_without_prediction"]
                                                        if p not in holdout_ids]
        rejected = [{"line": u["row"], "problem": "label matches no paper's introduction", "desc": u.get("desc")}
                    for u in upstream_report["unmatched"]]
        rejected += [{"line": a["row"], "problem": f"label matches several papers {a['paper_ids']}", "desc": a.get("desc")}
                     for a in upstream_report["ambiguous"]]
        reject_or_keep(predictions.origin, rejected, request.bad_records)
        trailer["upstream"] = upstream_report
    else:
        read = read_system(predictions, text_is="the generated introduction", candidates=False,
                           bad_records=request.bad_records)
        records, rejected = read.records, read.rejected
    join = join_by_paper_id([r["paper_id"] for r in records], split.paper_ids)
    holdout = [pid for pid in join.extra if pid in holdout_ids]
    extra = [pid for pid in join.extra if pid not in holdout_ids]
    _report_join(join.missing, extra, holdout, len(split.paper_ids))
    if not join.matched:
        raise ValueError(f"no prediction in {predictions.origin} matches a paper of the {split.config!r} test split")
    return SciIGFile(predictions.origin, [records[i]["text"] for i, _ in join.matched],
                     split.records([j for _, j in join.matched]), rejected,
                     trailer=trailer, join=join, extra=extra, holdout=holdout)


def score_file(file: SciIGFile, split: SciIGSplit, models: SciIGModels, request: ScoringRequest) -> Scored:
    rows, seconds = score_sciig(file.texts, file.targets, models, show_progress=request.show_progress,
                                batch_size=request.batch_size)
    return Scored(typed_rows(rows), seconds)


def ray_items(file: SciIGFile, split: SciIGSplit) -> list[dict[str, Any]]:
    """Each paper as a Ray actor receives it (`score_items`): its text and its paper."""
    return [{"text": text, "target": dict(paper)} for text, paper in zip(file.texts, file.targets, strict=True)]


def summarize_file(file: SciIGFile, scored: Scored, models: SciIGModels, *, split: SciIGSplit,
                   request: ScoringRequest, system: str) -> Summary:
    """A system's summary: the Table 2 means and intervals, the scorers' seconds, the join report and the LLM
    record."""
    rows = scored.rows
    means = summarize_sciig(rows, models)
    unmatched = unmatched_interval(rows, means.metrics, request.bootstrap, request.seed)
    join, rejected = file.join, file.rejected
    return means.with_(
        system=system, split=split.config, predictions=file.origin,
        intervals=interval_fields(rows, means.metrics, request.bootstrap, request.seed),
        join=JoinSummary(n_matched=len(join.matched), n_missing=len(join.missing), n_extra=len(file.extra),
                         n_holdout=len(file.holdout), holdout_rule=holdout_rule(split.config),
                         n_rejected_lines=len(rejected), missing=tuple(join.missing), extra=tuple(file.extra),
                         holdout_excluded=tuple(file.holdout), rejected_lines=tuple(rejected_line(r) for r in rejected)),
        usage=llm_usage(request.ledger),
        llm_requests=llm_requests({"sciig_judge": getattr(models, "judge", None),
                                   "citation_extractor": getattr(models, "citation_extractor", None)}),
        details={SCORED_SPLIT: "test", **means.details, METRIC_TIMINGS: dict(scored.seconds),
                 **({UNMATCHED_INTERVAL: encode(unmatched)} if unmatched is not None else {})})


def unmatched_interval(rows: Sequence[PaperRow], means: Mapping[str, Any], n_resamples: int,
                       seed: int) -> Interval | None:
    """The unmatched-citation rate's bootstrap interval over the papers (SciIG's own, apart from Table 2's); None
    when the rate is not computed or intervals are off."""
    if means.get(UNMATCHED_CITATION_RATE.key) is None or n_resamples <= 0:
        return None
    return summary_intervals(rows, [UNMATCHED_CITATION_RATE.key], n_resamples, seed=seed).of(UNMATCHED_CITATION_RATE.key)


def interval_fields(rows: Sequence[PaperRow], means: Mapping[str, Any], n_resamples: int, seed: int) -> Intervals:
    """Table 2's bootstrap intervals over the papers (`summary_intervals`): what the summary and the Inspect task
    report (`EvaluationSteps.intervals`).

    BLEU is corpus BLEU (sacrebleu over all scored papers), not a mean of per-paper values, so no interval of
    per-paper means is an interval of it: its interval is left None and the notes say why. The mean of the
    per-paper sentence BLEU (``sentence_bleu``) gets its interval instead, when BLEU is computed (`means` is read
    for the per-paper metrics only, which every front end has)."""
    found = summary_intervals([r.with_values({SENTENCE_BLEU: r.value(BLEU.key)}) for r in rows],
                              [*SUITE_METRICS, SENTENCE_BLEU], n_resamples, seed=seed,
                              means={**means, BLEU.key: None, SENTENCE_BLEU: means.get(BLEU.key)})
    if n_resamples <= 0:
        return found
    return replace(found, notes={BLEU.key: "corpus BLEU is not a mean over papers: no interval; sentence_bleu holds "
                                           "the interval of the mean per-paper sentence BLEU"})


#: The join's count of predictions for holdout papers (the few-shot pool, never scored).
N_HOLDOUT = "n_holdout"

#: SciIG's summary field of each metric's wall seconds (also written as ``metric_timings.json``).
METRIC_TIMINGS = "metric_timings"
#: The split the summary's scores are over (the config's ``test``; its holdout is the few-shot pool).
SCORED_SPLIT = "scored_split"


def result_files(summary: Summary, system: str) -> ResultFiles:
    return ResultFiles(summary_csv_rows(summary), {"metric_timings.json": summary.details.get(METRIC_TIMINGS, {})},
                       SideFiles("keyphrase_outputs", KEYPHRASE_KEYS))


def _report_join(missing: list[str], extra: list[str], holdout: list[str], n_papers: int) -> None:
    if missing:
        logger.warning("%d of %d test papers have no prediction (left out of the means), e.g. %s", len(missing),
                       n_papers, missing[:5])
    if extra:
        logger.warning("%d prediction(s) name papers the config does not hold (ignored), e.g. %s", len(extra), extra[:5])
    if holdout:
        logger.warning("%d prediction(s) are for holdout papers (the few-shot pool; not scored), e.g. %s",
                       len(holdout), holdout[:5])


def summary_csv_rows(summary: Summary) -> list[dict[str, Any]]:
    """The rows of ``summary.csv``: one (category, metric, value) per Table 2 metric, each with the papers it is
    over (``coverage``, n/N of the test split), then the unmatched-citation rate under "Grounding" when computed
    (apart from Table 2, as the report prints it)."""
    coverage = summary.scored.fraction
    rows = [{"category": row["category"], "metric": row["metric"], "value": row["value"], "coverage": coverage}
            for row in table2_rows(summary)]
    if summary.reported(UNMATCHED_CITATION_RATE.key) is not None:
        rows.append({"category": "Grounding", "metric": "Unmatched citation rate",
                     "value": summary.reported(UNMATCHED_CITATION_RATE.key), "coverage": coverage})
    return rows


def memorisation_texts(file: SciIGFile, split: SciIGSplit) -> list[tuple[str, list[str]]]:
    """Per paper: the reference introduction, and what every prompt level gives the model: the title, the abstract
    and each cited work's key, title and abstract (few-shot levels add holdout papers' introductions, other papers'
    text, which is not counted)."""
    return [(paper["introduction"], [paper["title"], paper["abstract"],
                                     *(f"{n['key']}. {n['title']}. {n['abstract']}" for n in paper["neighbors"])])
            for paper in file.targets]


#: SciIG's steps of the scoring core.
EVALUATION = EvaluationSteps(open_split=open_split, read=read_file, load_models=load_sciig_models, score=score_file,
                             summarize=summarize_file, result_files=result_files,
                             metrics=(*SUITE_METRICS, UNMATCHED_CITATION_RATE.key), ray_items=ray_items,
                             score_items=score_items, memorisation_texts=memorisation_texts, intervals=interval_fields,
                             templates={**JUDGE_TEMPLATES, "table8_head": TABLE8_HEAD, "table8_record": TABLE8_RECORD,
                                        "table8_task": TABLE8_TASK})


def scored_papers(config: str, source: Source = None) -> ScoredPapers:
    """The test papers of SciIG `config` a submission is scored on, and the holdout papers, never scored."""
    splits = load_sciig(config, source=source, split="all")
    why = "a holdout paper (the few-shot exemplar pool), never scored"
    return ScoredPapers(tuple(splits["test"]["paper_id"]), {pid: why for pid in splits["holdout"]["paper_id"]})


__all__ = ["EVALUATION", "KEYPHRASE_KEYS", "SciIGFile", "SciIGSplit", "interval_fields", "open_split", "read_file", "scored_papers",
           "summary_csv_rows"]
