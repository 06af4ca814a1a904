"""Scoring conditions: what a leaderboard row was scored under, so that rows are ranked only against rows whose
numbers are comparable.

A row's condition is its model profile (``paper``: the papers' models on a GPU; ``lite``: smaller offline models,
some metrics not computed) and its LLM judge's model, both read from the summary's ``provenance`` block
(`sciwrite.core.provenance`). A row whose judge did not run (judge metrics not computed) is its own condition,
and so is a summary written before provenance existed (schema 0): its judge is unknown, its profile is the
summary's ``profile`` field where present.

The judge's *snapshot* does not split conditions; it is only shown (the Judge column, the provenance text). This
follows the comparability rule of ``sciwrite compare`` and the Compare tab (`provenance_differences` leaves
snapshots out and `snapshot_changes` only notes them): a provider rolls a model name forward to new snapshots
without notice, and splitting on them would cut one judge's rows into many one-row rankings, each saying nothing.

Pure functions over plain data; nothing here builds HTML.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sciwrite.core.summary import Summary

#: The profile the papers report (its rows are listed first).
PAPER_PROFILE = "paper"


@dataclass(frozen=True)
class Condition:
    """A scoring condition: `profile` ("" when unknown) and `judge`, the judge's model ("" when no judge ran, None
    when unknown: the summary predates provenance)."""

    profile: str
    judge: str | None
    self_reported: bool = False  # scores read from a model repo's .eval_results, not scored by this board

    @property
    def label(self) -> str:
        """What the page shows: ``paper · judge gpt-5.5``, ``lite · no judge``, ``lite · judge unknown``, and
        ``self-reported on the Hub · ...`` for scores the board did not compute."""
        if self.self_reported:
            return f"self-reported on the Hub (.eval_results) \u00b7 {self.profile or 'profile unknown'}"
        profile = self.profile or "profile unknown"
        if self.judge is None:
            return f"{profile} \u00b7 judge unknown"
        return f"{profile} \u00b7 judge {self.judge}" if self.judge else f"{profile} \u00b7 no judge"

    @property
    def tier(self) -> int:
        """0 for the paper profile, 1 for another named profile, 2 when the profile is unknown, 3 for self-reported
        scores (listed after everything the board scored itself)."""
        if self.self_reported:
            return 3
        return 0 if self.profile == PAPER_PROFILE else 1 if self.profile else 2


def summary_condition(summary: Summary, profile: str = "") -> Condition:
    """The condition of a summary: the provenance's profile and judge model; without a provenance block (schema 0)
    the judge is unknown and the profile is `profile` (the submission's) or the summary's ``profile`` field."""
    block = summary.provenance
    fallback = str(profile or summary.profile or "")
    if summary.self_reported:
        return Condition(fallback, None, self_reported=True)
    if block is None:
        return Condition(fallback, None)
    if block.judge is None or not block.judge.to_json():  # no judge ran
        return Condition(block.profile or fallback, "")
    judge = block.judge.model
    if judge is not None and block.judge.panel_complete is False:  # never ranked with the complete panels
        judge = f"{judge} (panel incomplete)"
    return Condition(block.profile or fallback, judge)


def row_condition(row: Mapping[str, Any]) -> Condition:
    """The condition of a `leaderboard_rows` row (its ``profile``, ``judge_model`` and ``self_reported``)."""
    return Condition(str(row.get("profile") or ""), row.get("judge_model"), bool(row.get("self_reported")))


def condition_order(rows: Sequence[Mapping[str, Any]]) -> list[Condition]:
    """The distinct conditions of `rows`, as the page lists them: the paper profile first, then other named
    profiles, then unknown ones; within a tier known provenance before unknown, then the larger group first,
    then by label."""
    sizes = Counter(row_condition(r) for r in rows)
    return sorted(sizes, key=lambda c: (c.tier, c.judge is None, -sizes[c], c.label))


def provenance_text(summary: Summary | None, profile: str = "") -> str:
    """A summary's condition and provenance block as plain text (indented JSON) for the page; a summary without a
    block says so, with the profile and models it does record."""
    if summary is None:
        return "no summary: this submission has not been scored"
    condition = summary_condition(summary, profile)
    if summary.provenance is not None:
        shown: dict[str, Any] = {"scored under": condition.label, "schema_version": summary.schema_version,
                                 "provenance": summary.provenance.to_json()}
        return json.dumps(shown, indent=2, ensure_ascii=False, default=str)
    known = {"scored under": condition.label, "profile": condition.profile or None,
             "models": dict(summary.models) or None}
    return ("This summary predates provenance (schema 0): its judge and dataset fingerprint are unknown, so it is "
            "ranked only with other such rows of its profile.\n" + json.dumps(known, indent=2, ensure_ascii=False,
                                                                               default=str))


__all__ = ["PAPER_PROFILE", "Condition", "condition_order", "provenance_text", "row_condition", "summary_condition"]
