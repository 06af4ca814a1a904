"""RWGBench's steps of the scoring core (`sciwrite.scoring.core`): its split (the papers and their corpus), how a
system's predictions join it, how a system is scored here or on Ray, and what its summary holds.

The split, the corpus and the models are loaded once for all systems, and the models remember what they computed,
so the reference side is computed once however many systems are scored. Predictions join the split by paper_id.
Papers without a prediction are left out (and listed), or scored as empty sections with ``missing_as_empty``;
predictions for unknown papers are listed and ignored; a malformed line, or a paper_id predicted twice with
different content, is an error naming every such line (``--bad-records error``), or is left out, counted in the
join report and written to ``rejected.jsonl`` (``skip``; `sciwrite.core.predictions.read_system`).

Each summary's ``grounding`` resolves the references a prediction lists against the corpus's titles, offline by
default; ``verify_online`` (``semantic_scholar`` or ``openalex``) asks that service about the ones the corpus lacks
(`sciwrite.grounding.online`), its answers cached at ``online_cache``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from datasets import Dataset

from sciwrite.benchmark import ScoredPapers, Source
from sciwrite.core.paper_row import PaperRow, typed_rows
from sciwrite.core.predictions import (
    JoinReport,
    RecordCheck,
    SystemPredictions,
    join_by_paper_id,
    read_system,
    rejected_line,
)
from sciwrite.core.summary import GroundingSummary, Intervals, JoinSummary, RunDescription, Summary
from sciwrite.grounding.checker import ReferenceChecker
from sciwrite.grounding.corpus_check import lazy_checker
from sciwrite.grounding.online import ONLINE_OPTIONS, OnlineLookup
from sciwrite.grounding.resolver import DEFAULT_THRESHOLD, ReferenceResolver, lazy_resolver
from sciwrite.grounding.scoring import GROUNDING_KEYS, summarize_grounding
from sciwrite.metrics.judge import llm_requests, llm_usage
from sciwrite.metrics.summary import EMPTY_CITATION_RATE, UNRESOLVED_MARKERS
from sciwrite.retrieval.corpus_files import CORPUS_COLUMNS
from sciwrite.rwgbench.data.loading import load_rwgbench
from sciwrite.rwgbench.metrics.agent_analysis import AGENT, agent_analysis
from sciwrite.rwgbench.metrics.formulas import resolve_citations
from sciwrite.rwgbench.metrics.grounding import GROUNDING_COLUMNS, listed_references, score_reference_grounding
from sciwrite.rwgbench.metrics.judge import JUDGE_TEMPLATES
from sciwrite.rwgbench.metrics.scorers import corpus_abstracts, corpus_titles
from sciwrite.rwgbench.metrics.suite import (
    SUITE_METRICS,
    RWGBenchModels,
    load_rwgbench_models,
    score_items,
    score_rwgbench,
    summarize_rwgbench,
    table2_row,
)
from sciwrite.scoring.request import ScoringRequest
from sciwrite.scoring.steps import EvaluationSteps, OpenSplit, PredictionFile, ResultFiles, Scored
from sciwrite.stats import summary_intervals

logger = logging.getLogger(__name__)

#: The fields of a prediction line that say which run produced it.
RUN_FIELDS = ("model", "method", "retriever", "oracle")
#: split name -> (paper config, corpus config) of RWGBench.
SPLITS: dict[str, tuple[str, str]] = {"test": ("test", "corpus"), "sample": ("sample", "sample_corpus")}


@dataclass(frozen=True)
class RWGBenchOptions:
    """What RWGBench's evaluation takes besides the shared options (`Benchmark.suite.options`)."""

    missing_as_empty: bool = False  # score papers without a prediction as empty sections
    verify_online: str | None = None  # the grounding's second opinion online: semantic_scholar or openalex
    online_cache: str | Path | None = None

    @classmethod
    def of(cls, request: ScoringRequest) -> RWGBenchOptions:
        return cls(**{key: request.options[key] for key in ("missing_as_empty", "verify_online", "online_cache")
                      if key in request.options})


#: What `sciwrite evaluate rwgbench` takes besides the shared options: the grounding's second opinion online.
EVALUATE_OPTIONS = ONLINE_OPTIONS


@dataclass(frozen=True)
class RWGBenchSplit(OpenSplit):
    """An RWGBench split: its papers, its corpus (a `Dataset`, or a doc_id -> text mapping in memory), the corpus's
    doc_ids (a prediction citing another is refused as read), the resolver over its titles, the optional
    second opinion online and the reference checker over the corpus (each index built once for the run, when first
    needed)."""

    corpus: Any
    doc_ids: frozenset[str]
    resolver: Callable[[], ReferenceResolver]
    online: OnlineLookup | None = None
    checker: Callable[[], ReferenceChecker] | None = None

    @classmethod
    def of(cls, config: str, papers: Any, corpus: Any, online: OnlineLookup | None = None,
           show_progress: bool = True) -> RWGBenchSplit:
        doc_ids = frozenset(corpus) if isinstance(corpus, Mapping) else frozenset(corpus["doc_id"])
        return cls(config, papers, corpus, doc_ids, lazy_resolver(corpus, show_progress=show_progress), online,
                   lazy_checker(corpus))


@dataclass(frozen=True, kw_only=True)
class RWGBenchFile(PredictionFile):
    """One system's predictions joined to an RWGBench split: each paper's record, candidates and listed
    references (None: its candidates are its references), and how the file joined."""

    records: list[dict[str, Any]]
    candidates: list[list[str]]
    references: list[Any]
    join: JoinReport
    missing_as_empty: bool


def open_split(request: ScoringRequest) -> RWGBenchSplit:
    """The split's papers and corpus (`SPLITS`), with the online second opinion the request asks for."""
    split = request.split or "sample"
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {list(SPLITS)}")
    options = RWGBenchOptions.of(request)
    online = (OnlineLookup.for_service(options.verify_online, cache_path=options.online_cache)
              if options.verify_online else None)
    paper_config, corpus_config = SPLITS[split]
    corpus = load_rwgbench(corpus_config, source=request.source)
    return RWGBenchSplit.of(paper_config, load_rwgbench(paper_config, source=request.source), corpus, online)


def read_file(predictions: SystemPredictions, split: RWGBenchSplit, request: ScoringRequest) -> RWGBenchFile:
    """One system's predictions joined to the split, in the split's order: texts, candidate lists, papers."""
    missing_as_empty = RWGBenchOptions.of(request).missing_as_empty
    read = read_system(predictions, bad_records=request.bad_records,
                       check=cites_the_corpus(split.doc_ids, set(split.paper_ids)))
    records = read.records
    # the reader counted each paper predicted again, identically, once: the join report lists them
    join = replace(join_by_paper_id([r["paper_id"] for r in records], split.paper_ids), duplicates=read.repeated)
    report_join(join, len(split.paper_ids), missing_as_empty, predictions.origin)
    pairs = [(records[i], j) for i, j in join.matched]
    if missing_as_empty:
        index_of = {pid: j for j, pid in enumerate(split.paper_ids)}
        pairs += [({"paper_id": pid, "text": "", "candidates": []}, index_of[pid]) for pid in join.missing]
        pairs.sort(key=lambda pair: pair[1])
    if not pairs:
        raise ValueError(f"no prediction in {predictions.origin} matches a paper of the {split.config!r} split")
    return RWGBenchFile(predictions.origin, [r["text"] for r, _ in pairs], split.records([j for _, j in pairs]),
                        read.rejected,
                        records=[r for r, _ in pairs], candidates=[r.get("candidates") or [] for r, _ in pairs],
                        references=[listed_references(r) for r, _ in pairs], join=join,
                        missing_as_empty=missing_as_empty)


def score_file(file: RWGBenchFile, split: RWGBenchSplit, models: RWGBenchModels, request: ScoringRequest) -> Scored:
    """A system's rows in this process; its online lookups reported apart (one lookup, and its cache, serves every
    system of the run)."""
    before = split.online.counters() if split.online else None
    rows, seconds = score_rwgbench(file.texts, file.targets, models, candidates=file.candidates, corpus=split.corpus,
                                   batch_size=request.batch_size, show_progress=request.show_progress,
                                   references=file.references, resolver=split.resolver, online=split.online,
                                   checker=split.checker)
    return Scored(typed_rows(rows), seconds, split.online.report(since=before) if split.online else None)


def ray_items(file: RWGBenchFile, split: RWGBenchSplit) -> list[dict[str, Any]]:
    """Each paper as a Ray actor receives it (`score_items`): its text, candidates and target, with the corpus
    records its candidates and gold citations name (a prediction can cite nothing else), so no actor needs the
    corpus."""
    corpus = split.corpus if not isinstance(split.corpus, Mapping) else Dataset.from_list(
        [{"doc_id": d, "title": "", "abstract": text} for d, text in split.corpus.items()])
    row_of = {doc_id: i for i, doc_id in enumerate(corpus["doc_id"])}
    wanted = []
    for cands, target in zip(file.candidates, file.targets, strict=True):
        citations = target.get("citations")
        gold: list[Any] = citations if isinstance(citations, list) else []
        wanted.append([row_of[d] for d in dict.fromkeys([*cands, *gold]) if isinstance(d, str) and d in row_of])
    needed = sorted({r for rows in wanted for r in rows})
    record_of = dict(zip(needed, corpus.select(needed).select_columns(list(CORPUS_COLUMNS)).to_list()))
    return [{"text": text, "candidates": cands, "target": dict(target), "docs": [record_of[r] for r in rows]}
            for text, cands, target, rows in zip(file.texts, file.candidates, file.targets, wanted, strict=True)]


def after_ray(file: RWGBenchFile, split: RWGBenchSplit, rows: list[PaperRow], request: ScoringRequest) -> Scored:
    """The actors' rows with the reference grounding done here, against the split's one title index (an actor
    holds only its papers' corpus records)."""
    before = split.online.counters() if split.online else None
    grounding = score_reference_grounding(
        file.texts, file.candidates, file.references, [t["citations"] for t in file.targets],
        [t["paper_id"] for t in file.targets], lambda ids: corpus_titles(split.corpus, ids), split.resolver,
        split.online, request.show_progress, split.checker or lazy_checker(split.corpus),
        [t.get("year") for t in file.targets])
    done = [row.with_fields(extra) for row, extra in zip(rows, grounding, strict=True)]
    return Scored(done, {}, split.online.report(since=before) if split.online else None)


def summarize_file(file: RWGBenchFile, scored: Scored, models: RWGBenchModels, *, split: RWGBenchSplit,
                   request: ScoringRequest, system: str) -> Summary:
    """A system's summary: its run, the Table 2 means and intervals, the grounding, the join report and the LLM
    record."""
    rows = scored.rows
    run = run_metadata([record for record in file.records if "model" in record or "method" in record])
    means = summarize_rwgbench(rows, models)
    agent = agent_analysis(file.records, file.targets)
    return means.with_(
        system=system, split=request.split or split.config, predictions=file.origin, run=run,
        intervals=interval_fields(rows, means.metrics, request.bootstrap, request.seed),
        grounding=grounding_summary(rows, request.bootstrap, request.seed, split.online, scored.lookups),
        join=join_summary(file), usage=llm_usage(request.ledger),
        llm_requests=llm_requests({"judge": getattr(models, "judge", None)}),
        details={**means.details, **({AGENT: agent} if agent else {})})


def join_summary(file: RWGBenchFile) -> JoinSummary:
    """How the system's predictions joined the split, and the lines rejected."""
    join, rejected = file.join, file.rejected
    return JoinSummary(n_matched=len(join.matched), n_missing=len(join.missing), n_extra=len(join.extra),
                       n_duplicates=len(join.duplicates), missing=tuple(join.missing), extra=tuple(join.extra),
                       duplicates=tuple(join.duplicates), missing_scored_as_empty=file.missing_as_empty,
                       n_rejected_lines=len(rejected) if rejected else None,  # listed only when there are some
                       rejected_lines=tuple(rejected_line(r) for r in rejected) if rejected else None)


def interval_fields(rows: Sequence[PaperRow], means: Mapping[str, Any], n_resamples: int, seed: int) -> Intervals:
    """Table 2's bootstrap intervals over the papers (`summary_intervals`; a metric whose mean is None gets [None,
    None]): what the summary and the Inspect task report (`EvaluationSteps.intervals`)."""
    return summary_intervals(rows, SUITE_METRICS, n_resamples, seed=seed, means=means)


def grounding_summary(rows: Sequence[PaperRow], bootstrap: int, seed: int, online: OnlineLookup | None = None,
                      lookups: Mapping[str, Any] | None = None) -> GroundingSummary | None:
    """A system's reference grounding (`sciwrite.grounding.scoring.summarize_grounding`) with a bootstrap interval
    of each rate and score over the papers where it is defined, and what this system's `online` lookups did
    (`lookups`, `OnlineLookup.report`); None when no prediction has references."""
    grounding = summarize_grounding(rows, online=online.client.name if online else None, threshold=DEFAULT_THRESHOLD)
    if grounding is None:
        return None
    with_source = [r for r in rows if r.grounding is not None and r.grounding.source]
    found = summary_intervals(with_source, GROUNDING_KEYS, bootstrap, seed=seed, means=grounding.metrics)
    return replace(grounding, online=(dict(lookups) if lookups is not None else online.report()) if online else None,
                   intervals=found.bounds, interval_method=found.method, n_resamples=found.n_resamples,
                   confidence=found.confidence)


def result_files(summary: Summary, system: str) -> ResultFiles:
    return ResultFiles([summary_csv_row(summary, system)])


def summary_csv_row(summary: Summary, system: str) -> dict[str, Any]:
    """The one row of ``summary.csv``: the Table 2 row plus the coverage (``n/N`` papers) and the join counts (a
    metric not computed is empty)."""
    coverage, grounding = summary.scored, summary.grounding
    return {**table2_row(summary, system), "n_papers": summary.n_papers, "n_split": coverage.total,
            "coverage": coverage.fraction, EMPTY_CITATION_RATE: summary.reported(EMPTY_CITATION_RATE),
            UNRESOLVED_MARKERS: summary.reported(UNRESOLVED_MARKERS),
            "n_missing": summary.join.n_missing if summary.join is not None else None,
            **{f"Grounding {label}": grounding.reported(key) if grounding is not None else None
               for key, label in GROUNDING_COLUMNS}}


def memorisation_texts(file: RWGBenchFile, split: RWGBenchSplit) -> list[tuple[str, list[str]]]:
    """Per paper: the reference related-work section, and what a method was given: the target's title, abstract and
    introduction (when the paper has them), and the title and abstract of each candidate the prediction lists
    (retrieved or oracle)."""
    wanted = [doc_id for candidates in file.candidates for doc_id in candidates]
    titles = corpus_titles(split.corpus, wanted)
    abstracts = corpus_abstracts(split.corpus, titles)
    docs = {doc_id: f"{title}. {abstracts.get(doc_id, '')}" for doc_id, title in titles.items()}
    return [(paper["related_work"], [*(paper.get(field) or "" for field in ("title", "abstract", "introduction")),
                                     *(docs.get(doc_id, "") for doc_id in candidates)])
            for paper, candidates in zip(file.targets, file.candidates)]


#: RWGBench's steps of the scoring core.
EVALUATION = EvaluationSteps(open_split=open_split, read=read_file, load_models=load_rwgbench_models,
                             score=score_file, summarize=summarize_file, result_files=result_files,
                             templates=JUDGE_TEMPLATES, metrics=(*SUITE_METRICS, *GROUNDING_KEYS),
                             ray_items=ray_items, score_items=score_items, after_ray=after_ray,
                             memorisation_texts=memorisation_texts, intervals=interval_fields)


def run_metadata(records: Sequence[Mapping[str, Any]]) -> RunDescription:
    """The run a prediction file holds, as `sciwrite generate` writes it on every line: ``model``, ``method``,
    ``retriever`` and ``oracle``, each the value all lines agree on (None when absent or when lines differ)."""
    agreed = {}
    for key in RUN_FIELDS:
        values = {json.dumps(r.get(key)) for r in records}
        agreed[key] = json.loads(values.pop()) if len(values) == 1 else None
    return RunDescription.from_json(agreed)


def cites_the_corpus(doc_ids: Collection[str], paper_ids: Collection[str]) -> RecordCheck:
    """A record check: the doc_ids the markers of a prediction for one of `paper_ids` (the split's; the others are
    ignored) resolve to through its candidates are all in the corpus."""

    def check(record: dict[str, Any]) -> str | None:
        if record["paper_id"] not in paper_ids:
            return None
        unknown = [d for d in resolve_citations(record["text"], record["candidates"]).unique_ids if d not in doc_ids]
        if unknown:
            return (f"(paper_id {record['paper_id']!r}) field 'candidates' cites doc_id(s) that are not in the corpus: "
                    f"{unknown[:5]}")
        return None

    return check


def report_join(join: JoinReport, n_papers: int, missing_as_empty: bool, origin: str) -> None:
    """Say, before any model runs, how the predictions of `origin` matched the split."""
    if join.missing:
        what = "scored as empty sections" if missing_as_empty else "left out of the means"
        logger.warning("%s: %d of %d papers have no prediction (%s), e.g. %s", origin, len(join.missing), n_papers,
                       what, join.missing[:5])
    if join.extra:
        logger.warning("%s: %d prediction(s) name papers the split does not hold (ignored), e.g. %s", origin,
                       len(join.extra), join.extra[:5])
    if join.duplicates:
        logger.warning("%s: %d paper_id(s) appear more than once with identical predictions (counted once), e.g. %s",
                       origin, len(join.duplicates), join.duplicates[:5])


def scored_papers(split: str, source: Source = None) -> ScoredPapers:
    """The paper_ids of `split` a submission is scored on (every one), and none excluded."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {list(SPLITS)}")
    return ScoredPapers(tuple(load_rwgbench(SPLITS[split][0], source=source)["paper_id"]))


__all__ = ["EVALUATE_OPTIONS", "EVALUATION", "RUN_FIELDS", "RWGBenchFile", "RWGBenchOptions", "RWGBenchSplit",
           "SPLITS", "cites_the_corpus", "grounding_summary", "interval_fields", "open_split", "read_file", "run_metadata",
           "scored_papers", "summary_csv_row"]
