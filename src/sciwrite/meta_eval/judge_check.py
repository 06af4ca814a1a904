"""The judge check: does a judge score a reference section above a copy of it damaged in a known way?

The pairs (`sciwrite.meta_eval.judge_pairs`) are built from the offline sample's reference sections (the field
`Benchmark.data.answer_fields` names first). Every distinct side is judged once, as its paper's, by the benchmark's
own judge (`JudgeCheck.score`: the paper's prompt, built by the benchmark's judge code, every request through the
chat client the caller made). A pair passes when the good side's score is strictly higher than the damaged side's:
a tie fails (a judge that cannot tell them apart has not caught the damage). A pair with a side the judge gave no
score (an unreadable reply after the retry, an API error, a request the budget did not allow) is not judged: it is
counted apart and left out of the pass rate.

Per kind of damage: the pass rate with its Wilson interval (`scipy.stats.binomtest(...).proportion_ci`), the pairs,
ties and unjudged pairs, and whether the interval lies above 0.5, the best a judge that cannot tell the sides apart
does on average (a coin; with ties counted as failures it does worse). The check passes when every kind the
judge's rubric covers is above chance; kinds outside its rubric (`JudgeCheck.outside_rubric`) are reported beside.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scipy.stats import binomtest

from sciwrite.benchmark import Benchmark, Source
from sciwrite.meta_eval.judge_pairs import (
    KINDS,
    JudgeCheck,
    JudgedText,
    Judgement,
    JudgePair,
    build_pairs,
    pairs_digest,
)

#: The criterion the headline rows compare: the mean of the judge's criteria (RWGBench's judge has one).
OVERALL = "overall"
ALL_KINDS, IN_RUBRIC = "all", "in rubric"
CHANCE = 0.5
#: What `sciwrite.llm.client.ChatClient` writes in the error of a request the budget did not let it send.
NOT_SENT = "not sent: "


@dataclass(frozen=True)
class PairOutcome:
    """A pair and what the judge gave each side."""

    pair: JudgePair
    good: Judgement
    damaged: Judgement

    def scores(self, criterion: str = OVERALL) -> tuple[float | None, float | None]:
        if criterion == OVERALL:
            return self.good.overall, self.damaged.overall
        return self.good.scores.get(criterion), self.damaged.scores.get(criterion)

    def passed(self, criterion: str = OVERALL) -> bool | None:
        """Good strictly above damaged; None when either side has no score."""
        good, damaged = self.scores(criterion)
        return None if good is None or damaged is None else good > damaged

    def tied(self, criterion: str = OVERALL) -> bool:
        good, damaged = self.scores(criterion)
        return good is not None and good == damaged

    @property
    def errors(self) -> list[str]:
        return [e for e in (self.good.error, self.damaged.error) if e]

    @property
    def not_sent(self) -> bool:
        """Whether a side's request was never sent (the budget, ``--max-cost``, did not allow it)."""
        return any(NOT_SENT in e for e in self.errors)

    def as_dict(self) -> dict[str, Any]:
        good, damaged = self.scores()
        return {**self.pair.as_dict(), "good_scores": dict(self.good.scores), "damaged_scores": dict(self.damaged.scores),
                "good_score": good, "damaged_score": damaged, "passed": self.passed(), "errors": self.errors}


@dataclass(frozen=True)
class JudgeCheckRun:
    """The check's outcome: the pairs judged, their digest, one row per kind (and criterion) and the verdict."""

    benchmark: str
    n_papers: int
    digest: str
    outcomes: list[PairOutcome]
    rows: list[dict[str, Any]]
    outside_rubric: Mapping[str, str]
    confidence: float

    def headline(self) -> list[dict[str, Any]]:
        """The rows of the overall score (one per kind, then all kinds, then the kinds in the rubric)."""
        return [r for r in self.rows if r["criterion"] == OVERALL]

    @property
    def below(self) -> list[str]:
        """Kinds in the rubric whose interval does not lie above chance."""
        return [r["kind"] for r in self.headline() if r["kind"] in KINDS and r["in_rubric"] and r["n_judged"]
                and not r["above_chance"]]

    @property
    def passes(self) -> bool:
        judged = [r for r in self.headline() if r["kind"] in KINDS and r["in_rubric"] and r["n_judged"]]
        return bool(judged) and not self.below


def judge_role(bench: Benchmark) -> str:
    """The model role of the benchmark's LLM judge (its stage table's first judge stage)."""
    roles = [role for stage in bench.suite.stages if stage.judge for role in stage.roles]
    if not roles:
        raise ValueError(f"benchmark {bench.name!r} has no LLM judge stage")
    return roles[0]


def check_of(bench: Benchmark) -> JudgeCheck:
    check = bench.studies.judge_check
    if check is None:
        raise ValueError(f"benchmark {bench.name!r} declares no judge check")
    return check


def sample_papers(bench: Benchmark, source: Source = None) -> list[dict[str, Any]]:
    """The offline sample's papers (built on first use; no network), in the loader's order."""
    data = bench.data
    return [dict(p) for p in data.load(data.offline_config, source, split=data.prediction_split)]


def sample_pairs(bench: Benchmark, papers: Sequence[Mapping[str, Any]], limit: int | None = None,
                 kinds: Sequence[str] = tuple(KINDS)) -> list[JudgePair]:
    """The pairs of the first `limit` papers that have a reference section (partners drawn from all `papers`)."""
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be 1 or more, got {limit}")
    pairs = build_pairs(papers, bench.data.answer_fields[0], check_of(bench), kinds)
    kept = list(dict.fromkeys(p.paper_id for p in pairs))[:limit]
    return [p for p in pairs if p.paper_id in set(kept)]


def judge_pairs(check: JudgeCheck, pairs: Sequence[JudgePair], papers: Sequence[Mapping[str, Any]], client: Any,
                show_progress: bool = True) -> list[PairOutcome]:
    """Every distinct (paper, side) of `pairs` judged once, in one call of the benchmark's judge."""
    by_id = {str(p["paper_id"]): p for p in papers}
    sides: dict[tuple[str, str], JudgedText] = {}
    for pair in pairs:
        for side in (pair.good, pair.damaged):
            sides.setdefault((pair.paper_id, side.key()), side)
    keys = list(sides)
    judged = check.score([sides[k] for k in keys], [by_id[k[0]] for k in keys], client, show_progress=show_progress)
    found = dict(zip(keys, judged, strict=True))
    return [PairOutcome(pair, found[pair.paper_id, pair.good.key()], found[pair.paper_id, pair.damaged.key()])
            for pair in pairs]


def pass_row(outcomes: Sequence[PairOutcome], criterion: str, confidence: float) -> dict[str, Any]:
    """Pairs, passes, ties and unjudged pairs of `outcomes` on `criterion`; the pass rate and its Wilson interval."""
    verdicts = [o.passed(criterion) for o in outcomes]
    judged = [v for v in verdicts if v is not None]
    passed = sum(judged)
    ties = sum(1 for o in outcomes if o.tied(criterion))
    row: dict[str, Any] = {"n_pairs": len(outcomes), "n_judged": len(judged), "passed": passed, "ties": ties,
                           "unjudged": len(verdicts) - len(judged), "pass_rate": None, "ci_low": None, "ci_high": None,
                           "above_chance": None}
    if judged:
        interval = binomtest(passed, len(judged)).proportion_ci(confidence_level=confidence, method="wilson")
        row.update(pass_rate=passed / len(judged), ci_low=float(interval.low), ci_high=float(interval.high),
                   above_chance=bool(interval.low > CHANCE))
    return row


def check_rows(outcomes: Sequence[PairOutcome], criteria: Sequence[str], outside_rubric: Mapping[str, str],
               confidence: float = 0.95) -> list[dict[str, Any]]:
    """One row per criterion (the overall score first, then each of the judge's when it has several) and kind of
    damage present, then all kinds and the kinds in the rubric."""
    kinds = [k for k in KINDS if any(o.pair.kind == k for o in outcomes)]
    rows = []
    for criterion in [OVERALL, *(criteria if len(criteria) > 1 else ())]:
        for kind in kinds:
            rows.append({"criterion": criterion, "kind": kind, "in_rubric": kind not in outside_rubric,
                         **pass_row([o for o in outcomes if o.pair.kind == kind], criterion, confidence)})
        rows.append({"criterion": criterion, "kind": ALL_KINDS, "in_rubric": None,
                     **pass_row(outcomes, criterion, confidence)})
        rows.append({"criterion": criterion, "kind": IN_RUBRIC, "in_rubric": True,
                     **pass_row([o for o in outcomes if o.pair.kind not in outside_rubric], criterion, confidence)})
    return rows


@dataclass(frozen=True)
class PairSet:
    """The pairs of a check and the sample's papers they were built from."""

    papers: list[dict[str, Any]]
    pairs: list[JudgePair]

    @property
    def digest(self) -> str:
        return pairs_digest(self.pairs)


def pair_set(bench: Benchmark, source: Source = None, limit: int | None = None,
             kinds: Sequence[str] = tuple(KINDS)) -> PairSet:
    """The pairs of the offline sample's first `limit` papers (no model is called)."""
    papers = sample_papers(bench, source)
    return PairSet(papers, sample_pairs(bench, papers, limit, kinds))


def run_judge_check(bench: Benchmark, pairs: PairSet, client: Any, *, confidence: float = 0.95,
                    show_progress: bool = True) -> JudgeCheckRun:
    """Judge the pairs with `client` through the benchmark's judge, and tally them."""
    check = check_of(bench)
    outcomes = judge_pairs(check, pairs.pairs, pairs.papers, client, show_progress=show_progress)
    return JudgeCheckRun(bench.name, len({p.paper_id for p in pairs.pairs}), pairs.digest, outcomes,
                         check_rows(outcomes, check.criteria, check.outside_rubric, confidence),
                         dict(check.outside_rubric), confidence)


__all__ = ["ALL_KINDS", "CHANCE", "IN_RUBRIC", "NOT_SENT", "OVERALL", "JudgeCheckRun", "PairOutcome", "PairSet", "check_of",
           "check_rows", "judge_pairs", "pair_set", "judge_role", "pass_row", "run_judge_check", "sample_pairs", "sample_papers"]
