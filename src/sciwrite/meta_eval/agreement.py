"""Do metrics agree with people, and judges with each other?

Human ratings (and a judge's scores) are JSON Lines, one object per line::

    {"paper_id": "2401.01234", "system": "gpt-rag", "criterion": "coherence", "score": 4, "rater": "r1"}

``paper_id``, ``system`` and ``criterion`` are non-empty strings, ``score`` a finite number, ``rater`` an optional
string. Several lines for one (paper, system, criterion) — several raters — are averaged. Metric scores come from
the ``per_paper.jsonl`` files ``sciwrite evaluate`` writes, one per system (rows carry ``paper_id`` and the
metric keys).

`metric_agreement` correlates each metric with each criterion at two levels, each with a seeded percentile
bootstrap interval: system level (Kendall tau and Spearman rho between per-system means over the items both
cover; papers resampled, system means recomputed) and item level (tau and rho over (paper, system) items; items
resampled, human and metric score kept paired). `judge_agreement` compares two judges' scores on the items both
scored, as the RWGBench judge audit does: Goodman-Kruskal gamma and pairwise-order agreement."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from sciwrite.core.jsonl import line_ref, strict_json_lines
from sciwrite.core.paper_row import PaperRow

#: (paper_id, system): one rated output.
Item = tuple[str, str]

RATING_FIELDS = ("paper_id", "system", "criterion")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def read_ratings(path: str | Path) -> dict[str, dict[Item, float]]:
    """Criterion -> (paper_id, system) -> mean score, from a ratings file in the format above; the first bad line
    raises `ValueError` naming the file, the line and the field."""
    sums: dict[str, dict[Item, list[float]]] = defaultdict(lambda: defaultdict(list))
    for number, value in strict_json_lines(path):
        where = line_ref(path, number)
        for field in RATING_FIELDS:
            if not isinstance(value.get(field), str) or not value[field].strip():
                raise ValueError(f"{where}: field {field!r} must be a non-empty string, got {value.get(field)!r}")
        if not _is_number(value.get("score")):
            raise ValueError(f"{where}: field 'score' must be a finite number, got {value.get('score')!r}")
        if "rater" in value and value["rater"] is not None and not isinstance(value["rater"], str):
            raise ValueError(f"{where}: field 'rater' must be a string, got {value['rater']!r}")
        sums[value["criterion"]][(value["paper_id"], value["system"])].append(float(value["score"]))
    if not sums:
        raise ValueError(f"{path}: no ratings")
    return {c: {item: sum(s) / len(s) for item, s in items.items()} for c, items in sums.items()}


def read_per_paper(paths: Mapping[str, str | Path]) -> dict[str, list[PaperRow]]:
    """System -> the rows of its ``per_paper.jsonl`` (the JSON edge: each line read once into a `PaperRow`); a row
    without a ``paper_id`` string is an error naming the line."""
    rows: dict[str, list[PaperRow]] = {}
    for system, path in paths.items():
        rows[system] = []
        for number, record in strict_json_lines(path):
            row = PaperRow.from_json(record)
            if row.paper_id is None:
                raise ValueError(f"{line_ref(path, number)}: field 'paper_id' missing or not a string")
            rows[system].append(row)
    return rows


def _finite_keys(rows: Sequence[PaperRow]) -> set[str]:
    """The keys of the finite numbers some row holds."""
    return {key for row in rows for key, value in row.values.items() if _is_number(value)}


def default_metrics(per_paper: Mapping[str, Sequence[PaperRow]]) -> list[str]:
    """The keys every system holds a finite number for in some row, in the order the rows first name them."""
    per_system = [_finite_keys(rows) for rows in per_paper.values()]
    common = set.intersection(*per_system) if per_system else set()
    first = [key for rows in per_paper.values() for row in rows for key in row.to_json()]
    return [key for key in dict.fromkeys(first) if key in common]


def metric_scores(per_paper: Mapping[str, Sequence[PaperRow]],
                  metrics: Sequence[str] | None = None) -> dict[str, dict[Item, float]]:
    """Metric -> (paper_id, system) -> score. By default the metrics are `default_metrics`; rows where a metric is
    None or not a finite number (and rows without a paper_id) leave that item out."""
    metrics = default_metrics(per_paper) if metrics is None else metrics
    return {m: {(row.paper_id, system): score for system, rows in per_paper.items() for row in rows
                if row.paper_id is not None and (score := _score(row, m)) is not None} for m in metrics}


def _score(row: PaperRow, metric: str) -> float | None:
    """The row's value of `metric` as a float; None when it has no finite number for it."""
    value = row.value(metric)
    return float(value) if value is not None and math.isfinite(value) else None


def _correlations(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(Kendall tau-b, Spearman rho); NaN when either side is constant (checked first: scipy would warn)."""
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan, math.nan
    return float(stats.kendalltau(x, y).statistic), float(stats.spearmanr(x, y).statistic)


def _interval(samples: np.ndarray, confidence: float) -> tuple[float | None, float | None]:
    """Percentile interval of the defined bootstrap statistics; None when most resamples were undefined."""
    defined = samples[~np.isnan(samples)]
    if len(defined) == 0 or len(defined) < 0.5 * len(samples):
        return None, None
    alpha = (1 - confidence) / 2
    low, high = np.quantile(defined, [alpha, 1 - alpha])
    return float(low), float(high)


def _none(value: float) -> float | None:
    return None if math.isnan(value) else value


def _system_means(items: Sequence[Item], values: np.ndarray, systems: list[str], weights: np.ndarray) -> np.ndarray:
    """Per-system mean of `values`, each item weighted (by how often its paper was drawn)."""
    index = {s: i for i, s in enumerate(systems)}
    which = np.array([index[s] for _, s in items], dtype=int)  # int even when empty (np.bincount)
    totals = np.bincount(which, weights=values * weights, minlength=len(systems))
    counts = np.bincount(which, weights=weights, minlength=len(systems))
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals / counts


def correlate(human: Mapping[Item, float], metric: Mapping[Item, float], n_resamples: int = 1000,
              confidence: float = 0.95, seed: int = 0) -> list[dict[str, Any]]:
    """System- and item-level Kendall tau and Spearman rho between `human` and `metric` scores over the items
    both have, each with a percentile bootstrap interval (`n_resamples` resamples, numpy generator `seed`)."""
    items = sorted(set(human) & set(metric))
    h = np.array([human[i] for i in items], dtype=float)
    m = np.array([metric[i] for i in items], dtype=float)
    rng = np.random.default_rng(seed)
    rows = []
    # Item level: resample (paper, system) items, each keeping its human and metric score together.
    boot = np.full((n_resamples, 2), np.nan)
    if len(items) >= 2:
        for r in range(n_resamples):
            pick = rng.integers(0, len(items), len(items))
            boot[r] = _correlations(h[pick], m[pick])
    rows.append(_row("item", len(items), _correlations(h, m), boot, confidence))
    # System level: resample papers (a system's outputs on one paper move together), recompute system means.
    systems = sorted({s for _, s in items})
    papers = sorted({p for p, _ in items})
    paper_index = {p: i for i, p in enumerate(papers)}
    item_paper = np.array([paper_index[p] for p, _ in items], dtype=int)
    ones = np.ones(len(items))
    full = _correlations(_system_means(items, h, systems, ones), _system_means(items, m, systems, ones))
    boot = np.full((n_resamples, 2), np.nan)
    if len(systems) >= 2 and papers:
        for r in range(n_resamples):
            drawn = np.bincount(rng.integers(0, len(papers), len(papers)), minlength=len(papers))
            weights = drawn[item_paper].astype(float)
            hs, ms = _system_means(items, h, systems, weights), _system_means(items, m, systems, weights)
            keep = ~(np.isnan(hs) | np.isnan(ms))  # a system whose papers were all left out of this resample
            boot[r] = _correlations(hs[keep], ms[keep]) if keep.sum() >= 2 else (math.nan, math.nan)
    rows.append(_row("system", len(systems), full, boot, confidence))
    return rows


def _row(level: str, n: int, point: tuple[float, float], boot: np.ndarray, confidence: float) -> dict[str, Any]:
    tau_low, tau_high = _interval(boot[:, 0], confidence)
    rho_low, rho_high = _interval(boot[:, 1], confidence)
    return {"level": level, "n": n, "kendall_tau": _none(point[0]), "tau_low": tau_low, "tau_high": tau_high,
            "spearman": _none(point[1]), "spearman_low": rho_low, "spearman_high": rho_high}


def metric_agreement(ratings: Mapping[str, Mapping[Item, float]], scores: Mapping[str, Mapping[Item, float]],
                     n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0) -> list[dict[str, Any]]:
    """One row per (criterion, metric, level) with `correlate`'s numbers; None where undefined (constant scores,
    fewer than two items or systems)."""
    rows = []
    for criterion, human in ratings.items():
        for metric, values in scores.items():
            for row in correlate(human, values, n_resamples, confidence, seed):
                rows.append({"criterion": criterion, "metric": metric, **row})
    return rows


@dataclass(frozen=True)
class PairCounts:
    """Item pairs of two score lists: concordant (ordered the same way by both), discordant (opposite ways),
    tied in a, in b, or in both; `pairs` is n(n-1)/2."""

    concordant: int
    discordant: int
    tied_a: int
    tied_b: int
    tied_both: int
    pairs: int

    @property
    def gamma(self) -> float | None:
        """Goodman-Kruskal gamma, (C - D) / (C + D): pairs tied in either list are left out. None if C + D = 0."""
        untied = self.concordant + self.discordant
        return (self.concordant - self.discordant) / untied if untied else None

    @property
    def agreement(self) -> float | None:
        """Pairwise-order agreement: the share of pairs untied in both lists ordered the same way, C / (C + D);
        pairs tied in either list are left out (the RWGBench audit's "non-tied item pairs"). gamma = 2A - 1."""
        untied = self.concordant + self.discordant
        return self.concordant / untied if untied else None

    @property
    def coverage(self) -> float | None:
        """The share of all item pairs that the agreement covers, (C + D) / pairs."""
        return (self.concordant + self.discordant) / self.pairs if self.pairs else None


def pair_counts(a: Sequence[float], b: Sequence[float], block: int = 2048) -> PairCounts:
    """Count concordant, discordant and tied pairs over all i < j.

    scipy has no Goodman-Kruskal gamma (`kendalltau` gives tau-b or tau-c, whose denominators count tied pairs),
    so the pairs are counted here, vectorised with numpy: for a block of rows i, sign(a_i - a_j) * sign(b_i - b_j)
    over j > i is +1 for a concordant pair, -1 for a discordant one, 0 for a tie — O(n^2) work in O(block * n)
    memory."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"the two score lists must be 1-D and equally long, got {x.shape} and {y.shape}")
    n = len(x)
    c = d = ta = tb = tboth = 0
    for start in range(0, n, block):
        stop = min(start + block, n)
        sa = np.sign(x[start:stop, None] - x[None, :])
        sb = np.sign(y[start:stop, None] - y[None, :])
        upper = np.arange(n)[None, :] > np.arange(start, stop)[:, None]  # each pair once: j > i
        prod = (sa * sb)[upper]
        za, zb = (sa == 0)[upper], (sb == 0)[upper]
        c += int((prod > 0).sum())
        d += int((prod < 0).sum())
        tboth += int((za & zb).sum())
        ta += int((za & ~zb).sum())
        tb += int((zb & ~za).sum())
    return PairCounts(c, d, ta, tb, tboth, n * (n - 1) // 2)


def goodman_kruskal_gamma(a: Sequence[float], b: Sequence[float]) -> float | None:
    """(concordant - discordant) / (concordant + discordant) over all item pairs; None if every pair is tied."""
    return pair_counts(a, b).gamma


def pairwise_agreement(a: Sequence[float], b: Sequence[float]) -> float | None:
    """The share of item pairs, untied in both lists, that both order the same way (ties in either: left out)."""
    return pair_counts(a, b).agreement


def judge_agreement(a: Mapping[str, Mapping[Item, float]],
                    b: Mapping[str, Mapping[Item, float]]) -> list[dict[str, Any]]:
    """Per criterion both judges scored: pair counts, gamma, pairwise agreement and its coverage over the items
    both scored; items only one judge scored are counted, not compared."""
    rows = []
    for criterion in [c for c in a if c in b]:
        items = sorted(set(a[criterion]) & set(b[criterion]))
        counts = pair_counts([a[criterion][i] for i in items], [b[criterion][i] for i in items])
        rows.append({"criterion": criterion, "n_items": len(items),
                     "only_a": len(set(a[criterion]) - set(items)), "only_b": len(set(b[criterion]) - set(items)),
                     "pairs": counts.pairs, "concordant": counts.concordant, "discordant": counts.discordant,
                     "tied": counts.tied_a + counts.tied_b + counts.tied_both, "gamma": counts.gamma,
                     "pairwise_agreement": counts.agreement, "coverage": counts.coverage})
    if not rows:
        raise ValueError(f"the two judges share no criterion: {sorted(a)} vs {sorted(b)}")
    return rows
