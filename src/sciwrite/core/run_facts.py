"""What every front end says beside a run's scores: what the run cost, which judge scored it and how far to trust
that judge, and (among other runs) its rank with its interval, so that the board, ``sciwrite compare``,
``sciwrite paper-table``, the ``.eval_results`` notes and the Hub cards say the same thing.

`evaluation_facts` reads them from an evaluation folder as `sciwrite evaluate` wrote it: the summary (its judge
record, judge check and panel: `sciwrite.core.trust`) and the usage ledgers beside it and beside its predictions
(`sciwrite.core.costs.evaluation_ledgers`, priced and summed by `run_cost`). A cost that cannot be known (no
ledger, or a request no price covers) stays unknown with the reason, never 0. `with_rank` adds a rank from
`sciwrite.core.rank_intervals`, written as the board's Rank cell: ``2 (1–3) ↑ n.s.``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sciwrite.core.conditions import summary_condition
from sciwrite.core.costs import (
    UNKNOWN,
    RunCost,
    cost_text,
    evaluation_ledgers,
    paper_ids_of,
    run_cost,
    unknown_cost,
)
from sciwrite.core.rank_intervals import NOT_SIGNIFICANT, SIGNIFICANT, TOO_FEW, RankIntervals
from sciwrite.core.summary import Summary
from sciwrite.core.summary_files import predictions_file
from sciwrite.core.tables import write_table
from sciwrite.core.trust import FAILED_MARK, JudgeSnapshots, TrustCard, trust_card


@dataclass(frozen=True)
class RunFacts:
    """A run's cost, judge and trust card, and its rank cell once ranked among other runs ("" before)."""

    system: str
    cost: RunCost
    card: TrustCard
    rank: str = ""
    #: where `rank` was counted, when said: ``of 4 in lite · judge x on CQ · Prec. (precision)`` (the board's)
    rank_scope: str = ""

    @property
    def judge(self) -> str:
        """The judge model(s) with their snapshots (``none`` when no LLM judge ran), marked when the judge failed
        its check."""
        judges = "; ".join(j.text for j in self.card.judges) or "none"
        return judges + (f" {FAILED_MARK}" if self.card.failed_check else "")

    @property
    def cost_line(self) -> str:
        """``$0.0123/paper (gen) + $0.004/paper (judge) = $1.23 total (prices: TABLE)``; unknown parts say so."""
        fields = self.cost.fields()
        text = (f"{cost_text('cost_gen_per_paper', fields['cost_gen_per_paper'])}/paper (gen) + "
                f"{cost_text('cost_judge_per_paper', fields['cost_judge_per_paper'])}/paper (judge) = "
                f"{cost_text('cost_total', fields['cost_total'])} total over {self.cost.n_papers} papers")
        if self.cost.price_table:
            text += f" (prices: {self.cost.price_table})"
        if fields["cost_unknown"]:
            text += f" [unknown: {fields['cost_unknown']}]"
        return text

    def fields(self) -> dict[str, Any]:
        """The facts as flat JSON / CSV fields: the cost fields (`RunCost.fields`: None where unknown), the
        judge, the check's verdict, the condition and the rank cell."""
        return {"system": self.system, **self.cost.fields(), "judge": self.judge,
                "judge_check": self.card.check_text(), "human_agreement": self.card.human_agreement_text(),
                "condition": self.card.condition, "rank": self.rank}


#: What a rank cell says when its systems share papers enough but no resamples were drawn (``--bootstrap 0``).
NO_RESAMPLES = "no bootstrap resamples"


def rank_cell(ranks: RankIntervals, system: str) -> str:
    """`system`'s rank as the board's Rank cell writes it: ``2 (1–3) ↑ n.s.`` (the rank, its interval, and
    against the system above); the bare rank and why when there is no interval."""
    found = ranks.rank(system)
    if not found.interval:
        return f"{found.rank} ({TOO_FEW if ranks.n_papers < 2 else NO_RESAMPLES})"
    above = ranks.vs_above(system)
    marker = "" if above is None else f" {SIGNIFICANT if above.significant else NOT_SIGNIFICANT}"
    return f"{found.rank} ({found.interval}){marker}"


def with_rank(facts: RunFacts, ranks: RankIntervals) -> RunFacts:
    """`facts` with its rank among `ranks` (`rank_cell`)."""
    return replace(facts, rank=rank_cell(ranks, facts.system))


def summary_facts(summary: Summary, cost: RunCost, *, system: str | None = None, profile: str = "") -> RunFacts:
    """The facts of a scored run whose cost is already summed (the board's `RunCost`, an Inspect log's ledgers):
    its trust card from `summary` under its condition (`profile`: the submission's, else the summary's)."""
    card = trust_card(summary, summary_condition(summary, profile or (summary.scoring_profile or "")))
    return RunFacts(system or summary.system or UNKNOWN, cost, card)


def _paper_ids(summary: Summary, summary_file: Path | None) -> tuple[Path | None, Collection[str]]:
    """(the run's predictions file, its paper ids); (None, ()) when the file is not at hand."""
    path = predictions_file(summary.predictions, summary_file, required=False) if summary.predictions else None
    if path is None or not path.is_file():
        return None, ()
    return path, paper_ids_of(path.read_bytes().decode("utf-8-sig"))


def evaluation_facts(summary: Summary, summary_file: str | Path | None = None, *, system: str | None = None,
                     profile: str = "") -> RunFacts:
    """The facts of a scored run: its cost from the ledgers beside its predictions (the generator's) and beside
    `summary_file` (the judge's; else the summary's ``llm_usage``), checked against the predictions
    (`InputError` naming the ledger's file and line); its trust card from the summary."""
    file = Path(summary_file) if summary_file is not None else None
    predictions, paper_ids = _paper_ids(summary, file)
    folder = file.parent if file is not None else Path(".")
    ledgers = evaluation_ledgers(predictions, summary, folder, paper_ids) if predictions is not None else ()
    cost = run_cost(ledgers, summary, paper_ids)
    if predictions is None and not cost.generator.known:
        cost = replace(cost, generator=replace(cost.generator, why="the predictions file is not at hand, nor "
                                                                    "the usage.jsonl beside it"))
    return summary_facts(summary, cost, system=system or summary.system or (predictions.stem if predictions else None),
                         profile=profile)


def unrecorded_facts(system: str, why: str) -> RunFacts:
    """The facts of a run with no summary at hand (per-paper rows alone): its cost, judge and condition unknown,
    saying `why` (never 0, never "no judge")."""
    return RunFacts(system, unknown_cost(0, why), TrustCard(UNKNOWN, judges=(JudgeSnapshots(UNKNOWN),)))


def runs_stem(stem: str | Path) -> Path:
    """Where the runs of a table written to `stem` go: ``<stem>.runs`` (``.json`` and ``.csv``), beside the table's
    ``<stem>.json`` and ``<stem>.csv`` (a suffix of `stem` replaced as `write_table` replaces it)."""
    return Path(stem).with_suffix(".runs.json")


def write_runs(facts: Sequence[RunFacts], stem: str | Path) -> tuple[Path, Path]:
    """``<stem>.runs.json`` and ``<stem>.runs.csv``: one row per run (`RunFacts.fields`: unknown costs null)."""
    return write_table([f.fields() for f in facts], runs_stem(stem))


__all__ = ["NO_RESAMPLES", "RunFacts", "evaluation_facts", "rank_cell", "runs_stem", "summary_facts",
           "unrecorded_facts", "with_rank", "write_runs"]
