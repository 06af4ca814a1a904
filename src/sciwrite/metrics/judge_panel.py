"""Judge panels and repeated judging: several judges (``sciwrite evaluate --judge A --judge B``), each asked
`samples` times per paper (``--judge-samples N``, seeds 42, 43, ...), and what a reviewer who doubts LLM judges asks
to see of them.

A `JudgePanel` stands where a benchmark's judge client stands. The shared send-read-retry loop
(`sciwrite.metrics.judge.read_replies`) gives it every conversation; it runs the loop once per judge and sample,
each through the judge's own `ChatClient` (capabilities, thinking-trace stripping, ledger, cache, budget), and the
reading it returns holds the panel's aggregate (each judge's mean over its samples, then the `mean` or `median`
over judges) and every value it was made from (`Reading.panel`). Each benchmark writes the latter into its rows as
``judge_panel``: judge -> criterion -> the per-sample values, on the metric's scale (None: no usable answer).

A panel never hides a dead judge. A judge fails on a paper when none of its samples gave a usable score (an API
error after the retries, a reply no score can be read from); the reading names each such judge and why
(`Reading.panel_errors`), each benchmark keeps that in its rows as ``judge_panel_errors`` (judge -> why), and the
aggregate is over the judges that answered. `failed_judges` reads a row's failures from its typed scores, the
suites count a paper in ``judge_failures`` when any judge failed on it, and the summary's block says per judge how
many papers it scored and failed on and whether the panel is ``complete``; the provenance's judge record and the
board say the same, and ``sciwrite evaluate`` exits 4 on an incomplete panel unless ``--accept-partial-panel``.

`panel_summary` turns those rows into the summary's ``judge_panel`` block, per criterion:
- each judge's mean over papers with its bootstrap interval (`sciwrite.stats.mean_interval`);
- the agreement among judges over papers: Krippendorff's alpha, ordinal (`sciwrite.stats_agreement.alpha`, the
  `krippendorff` package), on each judge's per-paper mean;
- with repeats, the within-paper spread (the standard deviation of a judge's samples on a paper, averaged) and the
  share of the variance of a paper's panel score that judge noise makes: with n samples a paper's score varies by
  sigma_paper^2 + sigma_noise^2 / n, sigma_noise^2 estimated by the mean within-paper sample variance; the share is
  (sigma_noise^2 / n) / that total, the part of the interval's width (squared) that more papers would not shrink.
`systems_agreement` gives Kendall's tau between judges across systems (`scipy.stats.kendalltau`).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats

from sciwrite.core.paper_row import PaperRow
from sciwrite.core.summary import JudgePanel as SummaryPanel
from sciwrite.core.summary import PanelJudgePapers, Summary
from sciwrite.stats import mean_interval
from sciwrite.stats_agreement import alpha

#: How a panel combines its judges' scores.
AGGREGATES = ("mean", "median")
#: A per-paper row's record of the panel judges that gave the paper no usable score: judge -> why (absent when
#: every judge scored it).
JUDGE_PANEL_ERRORS = "judge_panel_errors"
#: A per-paper row's record of the snapshots that answered each panel judge: judge -> the distinct snapshots (the
#: reply's ``model``), so that the provenance records every judge's, not only the first judge's first reply.
JUDGE_PANEL_SNAPSHOTS = "judge_panel_snapshots"
#: How many failed papers (with their reasons) the summary lists per judge; every paper's is in its row.
FAILURES_SHOWN = 3


@dataclass(frozen=True)
class PanelSpec:
    """Who judges and how often: the judges' model ids (none: the run's one judge, as its model plan names it),
    samples per judge and paper, and the aggregate over judges. One judge asked once is no panel (`is_panel`
    False): the single-judge path, today's numbers."""

    judges: tuple[str, ...]
    samples: int = 1
    aggregate: str = "mean"

    def __post_init__(self) -> None:
        if len(set(self.judges)) != len(self.judges):
            raise ValueError(f"a judge is named twice in the panel: {list(self.judges)}")
        if self.samples < 1:
            raise ValueError(f"--judge-samples must be >= 1, got {self.samples}")
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"unknown panel aggregate {self.aggregate!r}; choose from {', '.join(AGGREGATES)}")

    @property
    def is_panel(self) -> bool:
        return len(self.judges) > 1 or self.samples > 1

    def with_judge(self, model_id: str) -> PanelSpec:
        """The spec with the run's judge as its one judge when it names none."""
        return self if self.judges else replace(self, judges=(model_id,))

    @property
    def label(self) -> str:
        """The panel as one condition names it: its judges, and its samples when more than one."""
        members = " + ".join(self.judges)
        return f"panel({members})" + (f" x{self.samples}" if self.samples > 1 else "")


def combine(values: Sequence[Any], how: str = "mean") -> Any:
    """The mean (or median) of numbers, or per key of mappings of numbers (a key some values lack is combined
    over those that have it); None when there is nothing to combine."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    pick = statistics.fmean if how == "mean" else statistics.median
    if isinstance(values[0], Mapping):
        keys = dict.fromkeys(key for value in values for key in value)
        return {key: pick([value[key] for value in values if value.get(key) is not None]) for key in keys}
    return pick([float(v) for v in values])


class JudgePanel:
    """The judges' clients of one panel: what a benchmark's suite holds as its judge when `PanelSpec.is_panel`."""

    def __init__(self, spec: PanelSpec, clients: Sequence[Any]) -> None:
        self.spec = spec
        self.clients = list(clients)
        self.model = spec.label

    def __repr__(self) -> str:
        return f"JudgePanel({self.spec.label})"

    def provenance(self) -> dict[str, Any]:
        """Each judge's request provenance, the samples and the aggregate."""
        return {"panel": {client.model: client.provenance() for client in self.clients},
                "samples": self.spec.samples, "aggregate": self.spec.aggregate}

    def readings(self, read_replies: Callable[..., dict[Any, Any]], conversations: Mapping[Any, Any],
                 read: Callable[..., Any], follow_up: Callable[..., str], *, seed: int | None, desc: str = "LLM judge",
                 **options: Any) -> dict[Any, Any]:
        """`read_replies` once per judge and sample (sample k seeded `seed` + k), then one reading per conversation
        (`panel_reading`)."""
        runs: dict[str, list[dict[Any, Any]]] = {}
        for client in self.clients:
            runs[client.model] = [
                read_replies(client, conversations, read, follow_up, seed=None if seed is None else seed + k,
                             desc=f"{desc} {client.model}" + (f" sample {k + 1}" if self.spec.samples > 1 else ""),
                             **options)
                for k in range(self.spec.samples)]
        return {key: self.panel_reading({judge: [run[key] for run in samples] for judge, samples in runs.items()})
                for key in conversations}

    def panel_reading(self, samples: Mapping[str, Sequence[Any]]) -> Any:
        """One conversation's reading from each judge's sample readings: the aggregate value, the first judge's first
        reply (its reply, snapshot and error when no judge gave a value), ``panel`` (judge -> the value of each
        sample), ``panel_errors`` (judge -> why it gave no usable value, for each judge that gave none), so that a
        judge that failed is never hidden behind the others' aggregate, and ``panel_snapshots`` (judge -> each
        distinct snapshot that answered it: the reply's ``model``)."""
        panel = {judge: [reading.value for reading in readings] for judge, readings in samples.items()}
        failures = {judge: why for judge, readings in samples.items() if (why := judge_failure(readings)) is not None}
        first = samples[self.clients[0].model][0]
        value = combine([combine(values) for values in panel.values()], self.spec.aggregate)
        error = None if value is not None else "; ".join(f"{judge}: {why}" for judge, why in failures.items())
        snapshots = {judge: list(dict.fromkeys(r.snapshot for r in readings if r.snapshot))
                     for judge, readings in samples.items()}
        return type(first)(value=value, reply=first.reply, snapshot=first.snapshot,
                           system_fingerprint=first.system_fingerprint, error=error,
                           panel=panel, panel_errors=failures, panel_snapshots=snapshots)


def add_panel_snapshots(target: dict[str, list[str]], found: Mapping[str, Sequence[str]] | None) -> None:
    """Merge one reading's ``panel_snapshots`` (judge -> snapshots) into a row's `target`, each snapshot once."""
    for judge, snapshots in (found or {}).items():
        kept = target.setdefault(judge, [])
        kept.extend(s for s in snapshots if s not in kept)


def panel_snapshot_counts(rows: Sequence[PaperRow]) -> dict[str, dict[str, int]]:
    """Per panel judge, how many rows each snapshot answered (the rows' `JUDGE_PANEL_SNAPSHOTS`); empty when no row
    has a panel."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        found = row.details.get(JUDGE_PANEL_SNAPSHOTS)
        for judge, snapshots in (found.items() if isinstance(found, Mapping) else ()):
            per_judge = counts.setdefault(str(judge), {})
            for snapshot in dict.fromkeys(snapshots if isinstance(snapshots, list) else ()):
                if isinstance(snapshot, str) and snapshot:
                    per_judge[snapshot] = per_judge.get(snapshot, 0) + 1
    return counts


def judge_failure(readings: Sequence[Any]) -> str | None:
    """Why one judge gave a conversation no usable value in any of its samples (each sample's reason once, in
    order); None when a sample gave one."""
    if any(reading.value is not None for reading in readings):
        return None
    reasons = dict.fromkeys(reading.error or "no usable score" for reading in readings)
    return "; ".join(reasons)


def failed_judges(row: PaperRow, judges: Sequence[str] = ()) -> dict[str, str]:
    """The judges of a panel that gave the row's paper no usable score (every repeat of one of its criteria failed,
    or the judge is absent from a row that has a panel), each with why (the row's `JUDGE_PANEL_ERRORS`); empty for
    a row without a panel (one judge asked once, or a paper no judge was asked about)."""
    if not row.judge_panel:
        return {}
    reasons = row.details.get(JUDGE_PANEL_ERRORS)
    reasons = reasons if isinstance(reasons, Mapping) else {}
    failed = {}
    for judge in dict.fromkeys([*judges, *row.judge_panel]):
        scores = row.judge_panel.get(judge)
        if not scores or any(all(v is None for v in values) for values in scores.values()):
            failed[judge] = str(reasons.get(judge) or "no usable score")
    return failed


def judge_papers(rows: Sequence[PaperRow], judges: Sequence[str]) -> dict[str, PanelJudgePapers]:
    """Per judge, the papers asked (rows with a panel) it scored and those it failed on (`failed_judges`), with the
    first `FAILURES_SHOWN` failures' paper and reason."""
    asked = [row for row in rows if row.judge_panel]
    failures: dict[str, list[str]] = {judge: [] for judge in judges}
    for row in asked:
        for judge, why in failed_judges(row, judges).items():
            failures.setdefault(judge, []).append(f"{row.paper_id}: {why}")
    return {judge: PanelJudgePapers(papers_scored=len(asked) - len(failed), papers_failed=len(failed),
                                    failures=tuple(failed[:FAILURES_SHOWN]))
            for judge, failed in failures.items()}


def incomplete_text(papers_by_judge: Mapping[str, PanelJudgePapers], reasons: bool = True) -> str | None:
    """``panel incomplete: judge-b scored 0 of 2 papers`` for the judges that failed on some paper (with `reasons`,
    the first failure's paper and reason after each); None when every judge scored every paper."""
    missing = []
    for judge, papers in papers_by_judge.items():
        if papers.papers_failed:
            asked = (papers.papers_scored or 0) + papers.papers_failed
            first = f" (e.g. {papers.failures[0]})" if reasons and papers.failures else ""
            missing.append(f"{judge} scored {papers.papers_scored or 0} of {asked} papers{first}")
    return f"panel incomplete: {'; '.join(missing)}" if missing else None


def panel_mark(summary: Summary) -> str:
    """What a results table adds to a system's label when its judge panel is incomplete (a judge gave some paper
    no usable score): ``" (panel incomplete)"``, else ""."""
    panel = summary.judge_panel
    return " (panel incomplete)" if panel is not None and panel.complete is False else ""


def _matrix(rows: Sequence[PaperRow], judges: Sequence[str], criterion: str) -> np.ndarray:
    """judges x papers: each judge's per-paper mean of `criterion` (NaN where it has none)."""
    matrix = np.full((len(judges), len(rows)), np.nan)
    for p, row in enumerate(rows):
        for j, judge in enumerate(judges):
            values = [v for v in row.judge_panel.get(judge, {}).get(criterion, ()) if v is not None]
            if values:
                matrix[j, p] = statistics.fmean(values)
    return matrix


def ordinal_alpha(matrix: np.ndarray) -> float | None:
    """Krippendorff's alpha (ordinal) of a judges x papers matrix, NaN missing, over the values the judges gave;
    None when it is undefined (fewer than two judges, no paper two judged, a single value everywhere)."""
    if matrix.shape[0] < 2:
        return None
    values = np.unique(matrix[~np.isnan(matrix)])
    return alpha(matrix, "ordinal", value_domain=values) if len(values) >= 2 else None


def noise_share(rows: Sequence[PaperRow], judges: Sequence[str], criterion: str,
                samples: int) -> dict[str, float | None]:
    """The within-paper spread of the samples and the share of a paper score's variance that judge noise makes
    (see the module docstring); None without repeats or with fewer than two papers."""
    if samples < 2:
        return {"within_paper_sd": None, "judge_noise_share": None}
    variances, paper_scores = [], []
    for row in rows:
        means = []
        for judge in judges:
            values = [v for v in row.judge_panel.get(judge, {}).get(criterion, ()) if v is not None]
            if len(values) >= 2:
                variances.append(statistics.variance(values))
            if values:
                means.append(statistics.fmean(values))
        if means:
            paper_scores.append(statistics.fmean(means))
    if not variances or len(paper_scores) < 2:
        return {"within_paper_sd": None, "judge_noise_share": None}
    noise = statistics.fmean(variances)
    total = statistics.variance(paper_scores)
    noise_part = noise / (samples * len(judges))
    share = None if total <= 0 else float(min(1.0, noise_part / total))
    return {"within_paper_sd": float(np.sqrt(noise)), "judge_noise_share": share}


def panel_summary(rows: Sequence[PaperRow], spec: PanelSpec | None = None, n_resamples: int = 1000,
                  seed: int = 0) -> SummaryPanel | None:
    """The summary's ``judge_panel`` block from rows that carry judge panels (None when none does): the judges,
    the samples each gave per paper, the panel asked for (`spec`: its aggregate and samples), per criterion each
    judge's mean and interval with the panel's agreement and noise, what each judge scored (`judge_papers`) and
    whether every judge scored every paper (``complete``)."""
    panels = [row.judge_panel for row in rows if row.judge_panel]
    if not panels:
        return None
    judges = list(dict.fromkeys(judge for panel in panels for judge in panel))  # every judge asked is in each panel
    criteria = list(dict.fromkeys(c for panel in panels for scores in panel.values() for c in scores))
    samples = max((len(values) for panel in panels for scores in panel.values() for values in scores.values()),
                  default=1)
    blocks: dict[str, dict[str, Any]] = {}
    for criterion in criteria:
        matrix = _matrix(rows, judges, criterion)
        per_judge = {}
        for j, judge in enumerate(judges):
            values = [float(v) for v in matrix[j] if np.isfinite(v)]
            low, high = mean_interval(values, n_resamples, rng=np.random.default_rng([seed, j])) \
                if n_resamples > 0 else (None, None)
            per_judge[judge] = {"mean": statistics.fmean(values) if values else None, "interval": [low, high],
                                "n_papers": len(values)}
        blocks[criterion] = {"judges": per_judge, "krippendorff_alpha_ordinal": ordinal_alpha(matrix),
                             **noise_share(rows, judges, criterion, samples)}
    papers = judge_papers(rows, judges)
    return SummaryPanel(judges=tuple(judges), samples=samples, aggregate=spec.aggregate if spec else None,
                        samples_asked=spec.samples if spec else None, criteria=blocks,
                        complete=not any(p.papers_failed for p in papers.values()), papers_by_judge=papers)


def systems_agreement(panels: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Kendall's tau between each two judges over the systems' means, per criterion: `panels` maps a system to its
    summary's ``judge_panel`` block. Needs at least two systems and two judges."""
    systems = [s for s, block in panels.items() if block]
    out: dict[str, Any] = {"systems": systems, "criteria": {}}
    if len(systems) < 2:
        return out
    judges = list(dict.fromkeys(j for s in systems for j in panels[s]["judges"]))
    criteria = list(dict.fromkeys(c for s in systems for c in panels[s]["criteria"]))
    for criterion in criteria:
        pairs = {}
        for a, b in itertools.combinations(judges, 2):
            x = [(panels[s]["criteria"].get(criterion) or {}).get("judges", {}).get(a, {}).get("mean") for s in systems]
            y = [(panels[s]["criteria"].get(criterion) or {}).get("judges", {}).get(b, {}).get("mean") for s in systems]
            kept = [(u, v) for u, v in zip(x, y) if u is not None and v is not None]
            if len(kept) >= 2:
                tau = stats.kendalltau([u for u, _ in kept], [v for _, v in kept]).statistic
                pairs[f"{a} | {b}"] = None if not np.isfinite(tau) else float(tau)
        taus = [t for t in pairs.values() if t is not None]
        out["criteria"][criterion] = {"kendall_tau": pairs, "mean_tau": statistics.fmean(taus) if taus else None}
    return out


__all__ = ["AGGREGATES", "panel_mark", "FAILURES_SHOWN", "JUDGE_PANEL_ERRORS", "JUDGE_PANEL_SNAPSHOTS", "JudgePanel",
           "PanelSpec", "add_panel_snapshots", "combine", "failed_judges", "panel_snapshot_counts",
           "incomplete_text", "judge_failure", "judge_papers", "noise_share", "ordinal_alpha", "panel_summary",
           "systems_agreement"]
