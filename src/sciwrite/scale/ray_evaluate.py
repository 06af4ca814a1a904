"""Scoring prediction files on Ray Data: papers partitioned across actors that each load the suite's models once.

Each actor (`SuiteScorer`, one class for every benchmark, told which by name) runs the very scorer one process
runs (`Benchmark.score_items`: `score_rwgbench`, `score_sciig`) on its share of the papers, with the models
`Benchmark.load_models` loads; the driver gathers the per-paper rows in the
order it sent them and the caller summarises them as it always does. Everything computed across papers is
computed from the gathered rows (means, SciIG's corpus BLEU from each row's sufficient statistics, bootstrap
intervals), so the summaries equal one process's. An RWGBench paper travels with the corpus records its
candidates and gold citations name (a prediction can cite nothing else), so actors need no copy of the corpus.
Records and rows travel pickled: they come back exactly as the scorer made them.
"""

from __future__ import annotations

import logging
import math
import pickle
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import ray
from datasets import Dataset

from sciwrite.benchmarks import get_benchmark
from sciwrite.rwgbench.benchmark import RWGBENCH
from sciwrite.rwgbench.data.corpus_files import CORPUS_COLUMNS
from sciwrite.rwgbench.metrics.suite import SuiteModels
from sciwrite.scale.ray_session import actor_options, data_context, pool_size, ray_session
from sciwrite.sciig.benchmark import SCIIG
from sciwrite.sciig.metrics.suite import SciIGModels

logger = logging.getLogger(__name__)

#: Papers per actor call at most (fewer when there are few papers, so that every actor gets some).
PAPERS_PER_CALL = 32
#: One job of RWGBench: the predictions' texts, their candidate lists and the target papers, aligned.
RWGBenchJob = tuple[Sequence[str], Sequence[Sequence[str] | None], Sequence[Mapping[str, Any]]]


class SuiteScorer:
    """A Ray Data actor for any benchmark: its suite's models, loaded once (`Benchmark.load_models`), scoring
    batches of self-contained papers (`Benchmark.score_items`)."""

    def __init__(self, benchmark: str, suite_options: Mapping[str, Any], batch_size: int) -> None:
        self.benchmark = get_benchmark(benchmark)
        if self.benchmark.load_models is None or self.benchmark.score_items is None:
            raise ValueError(f"benchmark {benchmark!r} declares no load_models / score_items: it cannot run on Ray")
        self.suite = self.benchmark.load_models(**suite_options)
        self.batch_size = batch_size

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        items = [pickle.loads(blob) for blob in batch["item"]]
        rows, timings = self.benchmark.score_items(items, self.suite, self.batch_size)
        return _output(batch["key"], rows, self.suite, timings)


def score_rwgbench(jobs: Sequence[RWGBenchJob], corpus: Dataset, suite_options: Mapping[str, Any], *,
                   batch_size: int = 64, address: str | None = None, actors: int | None = None,
                   papers_per_call: int | None = None,
                   show_progress: bool = True) -> tuple[list[list[dict[str, Any]]], SuiteModels]:
    """Per job (one prediction file), the rows `score_rwgbench` gives, scored on Ray; and the suite's models as the
    actors loaded them (ids, profile, what is not computed; no weights), for `summarize_rwgbench`.

    `suite_options` are `load_suite_models`' arguments (profile, models, metrics, judge_options)."""
    row_of = {doc_id: i for i, doc_id in enumerate(corpus["doc_id"])}
    items, wanted = [], []
    for texts, candidates, targets in jobs:
        for text, cands, target in zip(texts, candidates, targets, strict=True):
            gold = target.get("citations") if isinstance(target.get("citations"), list) else []
            rows = [row_of[d] for d in dict.fromkeys([*(cands or []), *gold]) if isinstance(d, str) and d in row_of]
            items.append({"text": text, "candidates": cands, "target": dict(target)})
            wanted.append(rows)
    needed = sorted({r for rows in wanted for r in rows})
    record_of = dict(zip(needed, corpus.select(needed).select_columns(list(CORPUS_COLUMNS)).to_list()))
    for item, rows in zip(items, wanted, strict=True):
        item["docs"] = [record_of[r] for r in rows]
    options = {"benchmark": RWGBENCH.name, "suite_options": dict(suite_options), "batch_size": batch_size}
    results = _run(SuiteScorer, options, items, address, actors, papers_per_call, show_progress)
    rows_per_job, start = [], 0
    for texts, _, _ in jobs:
        rows_per_job.append([r["row"] for r in results[start:start + len(texts)]])
        start += len(texts)
    return rows_per_job, _one_suite(results)


def score_sciig(predictions: Sequence[str], papers: Sequence[Mapping[str, Any]], suite_options: Mapping[str, Any], *,
                batch_size: int = 64, address: str | None = None, actors: int | None = None,
                papers_per_call: int | None = None,
                show_progress: bool = True) -> tuple[list[dict[str, Any]], dict[str, float], SciIGModels]:
    """The rows `score_sciig` gives, scored on Ray; the scorers' seconds summed over the actors' calls; and the
    suite's models as the actors loaded them (no weights), for `summarize_sciig`.

    `suite_options` are `load_sciig_models`' arguments (profile, models, metrics, judge_options)."""
    if len(predictions) != len(papers):
        raise ValueError(f"predictions ({len(predictions)}) and papers ({len(papers)}) must have the same length")
    items = [{"text": text, "target": dict(paper)} for text, paper in zip(predictions, papers, strict=True)]
    options = {"benchmark": SCIIG.name, "suite_options": dict(suite_options), "batch_size": batch_size}
    results = _run(SuiteScorer, options, items, address, actors, papers_per_call, show_progress)
    timings: dict[str, float] = {}
    for result in results:
        for stage, seconds in result["timings"].items():
            timings[stage] = timings.get(stage, 0.0) + seconds
    return [r["row"] for r in results], {k: round(v, 4) for k, v in timings.items()}, _one_suite(results)


def _run(scorer: type, options: Mapping[str, Any], items: Sequence[Mapping[str, Any]], address: str | None,
         actors: int | None, papers_per_call: int | None, show_progress: bool) -> list[dict[str, Any]]:
    """Score `items` (pickled) on an actor pool of `scorer`; the outputs, unpickled, in the order of `items`."""
    if not items:
        raise ValueError("nothing to score: no paper")
    with ray_session(address), data_context(show_progress):
        pool = actor_options(actors)
        per_call = papers_per_call or max(1, min(PAPERS_PER_CALL, math.ceil(len(items) / pool_size(pool))))
        papers = ray.data.from_items([{"key": k, "item": pickle.dumps(item)} for k, item in enumerate(items)],
                                     override_num_blocks=math.ceil(len(items) / per_call))
        scored = papers.map_batches(scorer, fn_constructor_kwargs=dict(options), batch_size=per_call,
                                    batch_format="numpy", **pool)
        outputs = scored.take_all()
    outputs.sort(key=lambda r: int(r["key"]))
    if [int(r["key"]) for r in outputs] != list(range(len(items))):
        raise RuntimeError(f"the actors returned {len(outputs)} rows for {len(items)} papers")
    return [{"row": pickle.loads(r["row"]), "timings": pickle.loads(r["timings"]), "models": pickle.loads(r["models"])}
            for r in outputs]


def _output(keys: np.ndarray, rows: Sequence[Mapping[str, Any]], suite: SuiteModels | SciIGModels,
            timings: Mapping[str, float] | None = None) -> dict[str, np.ndarray]:
    """An actor's batch of results: per paper its key, its pickled row and the suite's description; the batch's
    timings ride on its first paper."""
    models = pickle.dumps(type(suite)(profile=suite.profile, model_ids=dict(suite.model_ids),
                                      not_computed=dict(suite.not_computed), plan=suite.plan))
    return {"key": np.asarray(keys),
            "row": np.array([pickle.dumps(dict(r)) for r in rows], dtype=object),
            "timings": np.array([pickle.dumps(dict(timings or {}) if i == 0 else {}) for i in range(len(rows))],
                                dtype=object),
            "models": np.array([models] * len(rows), dtype=object)}


def _one_suite(results: Sequence[Mapping[str, Any]]) -> Any:
    """The suite description all actors agree on; actors that loaded different models (a node without one) are
    an error, since their rows would not be comparable."""
    first = results[0]["models"]
    for result in results[1:]:
        if result["models"] != first:
            other = result["models"]
            raise RuntimeError(f"the actors loaded different models: {first.model_ids} (not computed: "
                               f"{first.not_computed}) vs {other.model_ids} (not computed: {other.not_computed})")
    return first
