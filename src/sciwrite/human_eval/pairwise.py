"""The pairwise protocols of RWGBench §5.6 over A/B/tie answers: unique majorities, their winning-vote shares and
presentation-order consistency, and each metric's agreement with the human-majority direction.

- A **pair** is one paper's two systems; its votes are every annotator's answers to both of its tasks (the two
  presentation orders), each mapped from "A"/"B" to the system shown there. Ties are kept and are non-decisive.
- A pair has a **unique majority** on a dimension when one system gets more of its non-tie votes than the other;
  the **winning-vote share** is the winner's share of the non-tie votes. A 3-3 split has none.
- A pair **keeps its majority across orders** when the votes of each order alone give a unique majority, the same
  system both times (the sensitivity check; a pair shown in one order only cannot keep it).
- **Agreement** of a metric: on the pairs with a unique human majority (decisive), whether the system with the
  better metric value on that paper is the human winner. A pair whose two values are equal to `MARGIN_DECIMALS`
  decimals (a metric tie) or missing is left out of the count, and the tie counts are reported.
- **High-consensus** pairs: a winning share of at least `HIGH_CONSENSUS` (75% of the non-tie votes).
- **Clear-margin** pairs: the metric margin |difference| in the upper third of the non-tied margins of the
  dimension's decisive pairs: the ⌈n/3⌉ largest, and any pair tied with the smallest of them.
- **Non-direct**: neither system of the pair is a Direct run.

Why written here, not taken from a library: these are the paper's counting rules (majorities over votes with ties
kept, thresholds on shares and margins), a few lines each; no statistics library states them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

HIGH_CONSENSUS = 0.75
TIE = "tie"
MARGIN_DECIMALS = 9


@dataclass
class Pair:
    """One pair's votes on one dimension: per presentation order, votes per system and ties."""

    pair_id: str
    paper_id: str
    systems: tuple[str, str]
    votes: dict[int, Counter] = field(default_factory=dict)

    def counts(self, order: int | None = None) -> Counter:
        """Votes per system (and ``tie``) of one order, or of both (None)."""
        if order is not None:
            return self.votes.get(order, Counter())
        return sum(self.votes.values(), Counter())


def majority(counts: Mapping[str, int], systems: Sequence[str]) -> tuple[str, float] | tuple[None, None]:
    """(the unique majority's system or None, its share of the non-tie votes or None)."""
    x, y = (counts.get(s, 0) for s in systems)
    if x + y == 0 or x == y:
        return None, None
    return (systems[0], x / (x + y)) if x > y else (systems[1], y / (x + y))


def pairs_of(key: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]], dimension: str) -> list[Pair]:
    """Every pair of the key with its votes on `dimension` (a pair nobody answered has no votes), in key order."""
    by_task = {k["task_id"]: k for k in key}
    pairs: dict[str, Pair] = {}
    for k in key:
        pairs.setdefault(k["pair_id"], Pair(k["pair_id"], k["paper_id"], tuple(sorted((k["system_a"], k["system_b"])))))
    for answer in answers:
        if answer["dimension"] != dimension:
            continue
        k = by_task[answer["task_id"]]
        choice = answer["choice"]
        voted = TIE if choice == TIE else k["system_a"] if choice == "A" else k["system_b"]
        pairs[k["pair_id"]].votes.setdefault(int(k["order"]), Counter())[voted] += 1
    return list(pairs.values())


def keeps_majority(pair: Pair) -> bool:
    """Whether each presentation order alone gives the same unique majority."""
    if len(pair.votes) < 2:
        return False
    winners = {majority(pair.counts(order), pair.systems)[0] for order in pair.votes}
    return len(winners) == 1 and None not in winners


@dataclass(frozen=True)
class Consistency:
    """Human consistency on one dimension (`consistency`)."""

    n_pairs: int
    unique_majorities: int
    mean_winning_share: float | None  # over the unique majorities; None without one
    kept_across_orders: int
    n_pairs_in_both_orders: int
    n_votes: int  # ties included


def consistency(pairs: Sequence[Pair]) -> Consistency:
    """Human consistency on one dimension: pairs, unique majorities, their mean winning share, pairs keeping their
    majority across the two orders, and the votes (ties included)."""
    decided = [majority(p.counts(), p.systems) for p in pairs]
    shares = [share for winner, share in decided if share is not None]  # a share exactly when a winner
    return Consistency(n_pairs=len(pairs), unique_majorities=len(shares),
                       mean_winning_share=sum(shares) / len(shares) if shares else None,
                       kept_across_orders=sum(1 for p in pairs if keeps_majority(p)),
                       n_pairs_in_both_orders=sum(1 for p in pairs if len(p.votes) >= 2),
                       n_votes=sum(sum(p.counts().values()) for p in pairs))


@dataclass(frozen=True)
class Comparison:
    """One decisive pair against one metric."""

    pair_id: str
    human_winner: str
    share: float
    kept_across_orders: bool
    involves_direct: bool
    metric_winner: str | None  # None: a metric tie or a missing value
    margin: float | None
    missing: bool = False

    @property
    def agrees(self) -> bool:
        return self.metric_winner == self.human_winner


def comparisons(pairs: Sequence[Pair], values: Mapping[tuple[str, str], float | None], direct: Collection[str],
                higher_is_better: bool = True) -> list[Comparison]:
    """Each decisive pair's human winner beside the metric's (`values`: (system, paper_id) -> per-paper value)."""
    out = []
    for pair in pairs:
        decided = majority(pair.counts(), pair.systems)
        if decided[0] is None:
            continue
        winner, share = decided
        x, y = (values.get((s, pair.paper_id)) for s in pair.systems)
        if x is None or y is None or _is_nan(x) or _is_nan(y):
            metric_winner, margin, missing = None, None, True
        else:
            metric_winner, margin = _metric_winner(x, y, pair.systems, higher_is_better)
            missing = False
        out.append(Comparison(pair.pair_id, winner, share, keeps_majority(pair),
                              any(s in direct for s in pair.systems), metric_winner, margin, missing))
    return out


def _is_nan(value: float) -> bool:
    """Whether a per-paper value is a float NaN (a missing value)."""
    return isinstance(value, float) and math.isnan(value)


def _metric_winner(x: float, y: float, systems: tuple[str, str],
                   higher_is_better: bool) -> tuple[str, float] | tuple[None, None]:
    """(the system with the better value, the margin |x - y|), or (None, None) for a metric tie.

    Margins are rounded so that float noise neither breaks a tie nor moves a pair across the clear-margin cut
    (0.8 - 0.6 and 0.7 - 0.5 are one margin)."""
    margin = round(abs(x - y), MARGIN_DECIMALS)
    if not margin:
        return None, None
    better_first = (x > y) == higher_is_better
    return systems[0 if better_first else 1], margin


def clear_margin_cut(compared: Sequence[Comparison]) -> float | None:
    """The smallest margin of the upper third (⌈n/3⌉ largest) of the non-tied margins; None when there are none."""
    margins = sorted((c.margin for c in compared if c.margin is not None), reverse=True)
    return margins[math.ceil(len(margins) / 3) - 1] if margins else None


#: The bases a protocol starts from: every decisive pair, the high-consensus ones, the ones keeping their majority.
BASES = {"decisive": lambda c: True, "high_consensus": lambda c: c.share >= HIGH_CONSENSUS,
         "order_consistent": lambda c: c.kept_across_orders}
#: (protocol key, label, base, Direct pairs kept, clear-margin only), in the printed order; the labels are Table 5's
#: where the paper prints that protocol.
PROTOCOLS: tuple[tuple[str, str, str, bool, bool], ...] = (
    ("decisive", "decisive preference", "decisive", True, False),
    ("clear_margin", "clear-margin", "decisive", True, True),
    ("non_direct", "non-direct decisive", "decisive", False, False),
    ("non_direct_clear_margin", "non-direct clear-margin", "decisive", False, True),
    ("high_consensus", "high-consensus preference", "high_consensus", True, False),
    ("high_consensus_clear_margin", "high-consensus, clear-margin", "high_consensus", True, True),
    ("non_direct_high_consensus", "non-direct high-consensus", "high_consensus", False, False),
    ("non_direct_high_consensus_clear_margin", "non-direct high-consensus, clear-margin", "high_consensus", False,
     True),
    ("order_consistent", "presentation-order sensitivity", "order_consistent", True, False),
    ("order_consistent_clear_margin", "presentation-order sensitivity, clear-margin", "order_consistent", True, True),
    ("order_consistent_non_direct", "presentation-order sensitivity, non-direct", "order_consistent", False, False),
    ("order_consistent_non_direct_clear_margin", "presentation-order sensitivity, non-direct clear-margin",
     "order_consistent", False, True),
)


def agreement(compared: Sequence[Comparison]) -> list[dict[str, Any]]:
    """Per protocol: agree / n over the comparisons it keeps that the metric decides, and the metric ties left out."""
    cut = clear_margin_cut(compared)
    rows = []
    for name, label, base, with_direct, clear in PROTOCOLS:
        kept = [c for c in compared if BASES[base](c) and (with_direct or not c.involves_direct)]
        if clear:
            kept = [c for c in kept if c.margin is not None and cut is not None and c.margin >= cut]
        decided = [c for c in kept if c.metric_winner is not None]
        agree = sum(1 for c in decided if c.agrees)
        rows.append({"protocol": name, "label": label, "agree": agree, "n": len(decided),
                     "share": agree / len(decided) if decided else None,
                     "metric_ties": sum(1 for c in kept if c.metric_winner is None and not c.missing),
                     "missing": sum(1 for c in kept if c.missing),
                     **({"clear_margin_cut": cut} if clear else {})})
    return rows


def count_cell(agree: int, n: int) -> str:
    """A Table 5 cell: "8/11; 72.7%" ("0/0; –" without a case)."""
    return f"{agree}/{n}; {100 * agree / n:.1f}%" if n else f"{agree}/{n}; \u2013"


__all__ = ["BASES", "HIGH_CONSENSUS", "PROTOCOLS", "Comparison", "Consistency", "Pair", "agreement", "clear_margin_cut",
           "comparisons", "consistency", "count_cell", "keeps_majority", "majority", "pairs_of"]
