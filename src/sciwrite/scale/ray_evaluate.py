"""Scoring any benchmark's papers on Ray Data: papers partitioned across actors that each load the suite's models
once.

The caller (`sciwrite.scoring.core`) gives the benchmark's own two functions, `load_models` and `score_items`
(`EvaluationSteps`), and one batch of self-contained, picklable items per system (`EvaluationSteps.ray_items`: a
paper, its prediction and whatever of the split scoring it reads). Every system's papers go through one Ray Data run;
each actor (`SuiteScorer`) runs the very scorer one process runs on its share, and the driver gathers the rows in
the order it sent them. Everything computed across papers is computed afterwards from the gathered rows (means,
SciIG's corpus BLEU from each row's sufficient statistics, bootstrap intervals), so the summaries equal one
process's. This module names no benchmark: the functions travel pickled by reference, and an actor imports their
module itself. Records and rows travel pickled: they come back exactly as the scorer made them.
"""

from __future__ import annotations

import logging
import math
import pickle
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import ray

from sciwrite.core.paper_row import PaperRow
from sciwrite.scale.ray_session import actor_options, data_context, pool_size, ray_session

logger = logging.getLogger(__name__)

#: Papers per actor call at most (fewer when there are few papers, so that every actor gets some).
PAPERS_PER_CALL = 32

#: score_items(items, models, batch_size) -> (the papers' rows, seconds per stage): a suite's Ray step.
ScoreItems = Callable[..., tuple[Sequence[PaperRow], Mapping[str, float]]]


class SuiteScorer:
    """A Ray Data actor for any benchmark: its suite's models, loaded once (`load_models(**model_options)`),
    scoring batches of self-contained papers (`score_items(items, models, batch_size)`)."""

    def __init__(self, load_models: Callable[..., Any], score_items: ScoreItems,
                 model_options: Mapping[str, Any], batch_size: int) -> None:
        self.models = load_models(**model_options)
        self.score_items = score_items
        self.batch_size = batch_size

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        items = [pickle.loads(blob) for blob in batch["item"]]
        rows, seconds = self.score_items(items, self.models, self.batch_size)
        return _output(batch["key"], rows, self.models.description(), seconds)


def score_on_ray(load_models: Callable[..., Any], score_items: ScoreItems, model_options: Mapping[str, Any],
                 batches: Sequence[Sequence[Any]], *, batch_size: int = 64, address: str | None = None,
                 actors: int | None = None, papers_per_call: int | None = None, show_progress: bool = True
                 ) -> tuple[list[list[PaperRow]], list[dict[str, float]], Any]:
    """Per batch (one system), the rows `score_items` gives, scored in one Ray Data run; per batch, the stages'
    seconds (each actor call's seconds shared among its papers, so a system gets the share of its papers); and the
    suite's models as the actors loaded them (ids, profile, plan, what is not computed; no weights)."""
    items = [item for batch in batches for item in batch]
    options = {"load_models": load_models, "score_items": score_items, "model_options": dict(model_options),
               "batch_size": batch_size}
    results = _run(SuiteScorer, options, items, address, actors, papers_per_call, show_progress)
    rows: list[list[PaperRow]] = []
    seconds: list[dict[str, float]] = []
    start = 0
    for batch in batches:
        mine = results[start:start + len(batch)]
        rows.append([r["row"] for r in mine])
        totals: dict[str, float] = {}
        for result in mine:
            for stage, value in result["seconds"].items():
                totals[stage] = totals.get(stage, 0.0) + value
        seconds.append({k: round(v, 4) for k, v in totals.items()})
        start += len(batch)
    return rows, seconds, _one_suite(results)


def _run(scorer: type, options: Mapping[str, Any], items: Sequence[Any], address: str | None,
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
    return [{"row": pickle.loads(r["row"]), "seconds": pickle.loads(r["seconds"]), "models": pickle.loads(r["models"])}
            for r in outputs]


def _output(keys: np.ndarray, rows: Sequence[PaperRow], models: Any,
            seconds: Mapping[str, float] | None = None) -> dict[str, np.ndarray]:
    """An actor's batch of results: per paper its key, its pickled row, its share of the call's seconds and the
    suite's description."""
    share = {stage: value / len(rows) for stage, value in (seconds or {}).items()} if rows else {}
    described = pickle.dumps(models)
    return {"key": np.asarray(keys),
            "row": np.array([pickle.dumps(row) for row in rows], dtype=object),
            "seconds": np.array([pickle.dumps(share) for _ in rows], dtype=object),
            "models": np.array([described] * len(rows), dtype=object)}


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
