"""The board's Rank cells: ``2 (1–3) ↑ n.s.``: each row's rank, its interval among its scoring condition's rows and
whether it differs significantly from the row above (`sciwrite.core.rank_intervals`, the statistic ``compare`` and
``paper-table`` use too), from each submission's per-paper scores, read from the store once per version of the
submission (`stored_paper_scores`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from sciwrite.core.conditions import row_condition
from sciwrite.core.rank_intervals import NOT_SIGNIFICANT, SIGNIFICANT, TOO_FEW, finite, rank_intervals
from sciwrite.leaderboard.store import ResultsStore, Submission

#: The row field `leaderboard_rows` fills with a submission's per-paper scores (metric -> paper_id -> value).
PAPER_SCORES = "paper_scores"
#: What a Rank cell says for a row whose per-paper scores of the ranked metric are not in the store.
NO_SCORES = "no per-paper scores"

_CACHE: dict[tuple[str, str, float, tuple[str, ...]], Mapping[str, Mapping[str, float]]] = {}
_CACHE_SIZE = 4096


def stored_paper_scores(store: ResultsStore, submission: Submission,
                        metrics: Sequence[str]) -> Mapping[str, Mapping[str, float]]:
    """A scored submission's per-paper scores: metric -> paper_id -> finite value (a metric with none: absent;
    no per-paper rows: empty). Read from the store once per version of the submission (its ``updated_at``), so
    the page's filter changes, which rebuild the rows, do not read them again."""
    key = (str(store.path), submission.id, submission.updated_at, tuple(metrics))
    if key not in _CACHE:
        found: dict[str, dict[str, float]] = {}
        for row in store.paper_rows(submission.id):
            for metric in metrics:
                value = row.values.get(metric)
                if finite(value) and row.paper_id is not None:
                    found.setdefault(metric, {})[str(row.paper_id)] = float(value)  # type: ignore[arg-type]
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = MappingProxyType({m: MappingProxyType(v) for m, v in found.items()})
    return _CACHE[key]


def rank_cells(ranked: Sequence[tuple[int, Mapping[str, Any]]], metric: str, higher_is_better: bool, *,
               n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0) -> list[str]:
    """The Rank cell of each (rank, row) of `ranked` (`sciwrite.leaderboard.tables.ranked_rows`' order), ranked
    on `metric`: ``2 (1–3) ↑ n.s.``: the rank, its interval among the condition's rows with per-paper scores on
    the papers they all scored, and whether the difference to the row above (the one before it with scores) is
    significant (`rank_intervals`, `order` the board's). A row without per-paper scores of `metric` keeps its
    bare rank and says so; a row alone in its condition, or the only one there with scores, shows its bare rank;
    with fewer than 2 shared papers, the cells say that."""
    cells = [str(rank) for rank, _ in ranked]
    groups: dict[Any, list[int]] = {}
    for i, (_, row) in enumerate(ranked):
        groups.setdefault(row_condition(row), []).append(i)
    for members in groups.values():
        if len(members) < 2:  # alone in its condition: nothing to rank it against
            continue
        scored = [i for i in members if (ranked[i][1].get(PAPER_SCORES) or {}).get(metric)]
        for i in members:
            if i not in scored:
                cells[i] = f"{ranked[i][0]} ({NO_SCORES})"
        if len(scored) < 2:
            continue
        scores = {str(i): ranked[i][1][PAPER_SCORES][metric] for i in scored}
        found = rank_intervals(scores, higher_is_better=higher_is_better, order=list(scores),
                               n_resamples=n_resamples, confidence=confidence, rng=[seed, 0])
        for i in scored:
            interval = found.rank(str(i)).interval
            cell = f"{ranked[i][0]} ({interval or TOO_FEW})"
            above = found.vs_above(str(i))
            if above is not None and interval:
                cell += f" {SIGNIFICANT if above.significant else NOT_SIGNIFICANT}"
            cells[i] = cell
    return cells


__all__ = ["NO_SCORES", "PAPER_SCORES", "rank_cells", "stored_paper_scores"]
