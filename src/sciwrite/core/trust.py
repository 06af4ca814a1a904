"""A trust card per leaderboard row: how far a row's judge scores can be trusted, built from its summary alone.

The card says which judge model(s) scored the row and the snapshots that answered each (the reply's ``model``;
"unknown" for a summary written before they were recorded), the judge check's verdict with its pass rate and
interval (``sciwrite evaluate --judge-check``; "no check recorded" otherwise), for a panel or repeated judging the
agreement among judges (Krippendorff's alpha, ordinal) and the share of a paper score's variance that judge noise
makes, per criterion ("single judge" otherwise), the judge's agreement with people (``sciwrite evaluate
--human-agreement``: Kendall tau and Spearman with their intervals per criterion, judge metric and level, with the
study and its date; "no human study recorded" otherwise) and the scoring condition. A row whose judge failed its check is marked
(`FAILED_MARK`), in its card and in its Judge cell.

Plain text only: the page shows it in the row's provenance box.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sciwrite.core.conditions import Condition, summary_condition
from sciwrite.core.summary import (
    HumanAgreementRecord,
    HumanAgreementRow,
    JudgeCheckRecord,
    JudgePanel,
    JudgeRecord,
    Summary,
)

#: What marks a row scored by a judge that failed its check (in its Judge cell and its card).
FAILED_MARK = "\u26a0 judge failed its check"
NO_CHECK = "no check recorded"
SINGLE_JUDGE = "single judge"
NO_HUMAN_STUDY = "no human study recorded"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class JudgeSnapshots:
    """One judge's model and the snapshots that answered it (empty: unknown, not recorded)."""

    model: str
    snapshots: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return f"{self.model} (snapshots: {', '.join(self.snapshots) or UNKNOWN})"


@dataclass(frozen=True)
class CriterionAgreement:
    """A panel's agreement on one criterion: Krippendorff's alpha (ordinal) and the judge-noise share (None: not
    defined, e.g. one judge, or no repeats)."""

    criterion: str
    alpha: float | None
    noise_share: float | None

    @property
    def text(self) -> str:
        return f"{self.criterion}: alpha {_fmt(self.alpha)}, judge-noise share {_fmt(self.noise_share)}"


@dataclass(frozen=True)
class TrustCard:
    """What a row's judge scores rest on (see the module docstring); `as_text` for the provenance box."""

    condition: str
    judges: tuple[JudgeSnapshots, ...] = ()  # empty: no LLM judge ran (or not recorded)
    check: JudgeCheckRecord | None = None
    panel: str = SINGLE_JUDGE  # the panel's judges and samples, or SINGLE_JUDGE
    agreement: tuple[CriterionAgreement, ...] = ()
    human_agreement: HumanAgreementRecord | None = None  # None: no human study recorded
    failed_check: bool = False

    def check_text(self) -> str:
        """``passes: pass rate 0.917 [0.800, 0.970] (95%, 24 pairs; kinds a, b; 2026-05-01; judge X)``."""
        check = self.check
        if check is None:
            return NO_CHECK
        low, high = check.interval
        details = [f"{check.confidence:.0%}" if check.confidence is not None else None,
                   f"{check.n_pairs} pairs" if check.n_pairs is not None else None,
                   f"kinds {', '.join(check.kinds)}" if check.kinds else None, check.date,
                   f"judge {check.judge}" if check.judge else None]
        text = f"{check.verdict or UNKNOWN}: pass rate {_fmt(check.pass_rate)} [{_fmt(low)}, {_fmt(high)}]"
        shown = "; ".join(d for d in details if d)
        return text + (f" ({shown})" if shown else "") + (f" {FAILED_MARK}" if self.failed_check else "")

    def human_agreement_lines(self) -> tuple[str, ...]:
        """The study (``study S (ratings.jsonl, 2026-05-01; judge X; 95% intervals)``), then a line per criterion,
        judge metric and level (`agreement_row_text`); (`NO_HUMAN_STUDY`,) without a record."""
        record = self.human_agreement
        if record is None:
            return (NO_HUMAN_STUDY,)
        details = [record.ratings, record.date]
        about = [", ".join(d for d in details if d), f"judge {' + '.join(record.judges) or UNKNOWN}",
                 f"{record.confidence:.0%} intervals" if record.confidence is not None else None]
        head = f"study {record.study or UNKNOWN} ({'; '.join(a for a in about if a)})"
        return (head, *(agreement_row_text(row) for row in record.rows))

    def human_agreement_text(self) -> str:
        """`human_agreement_lines` on one line: ``study S (...): quality ~ llm_judge: Kendall tau ...; ...``."""
        head, *rows = self.human_agreement_lines()
        return head + (f": {'; '.join(rows)}" if rows else "")

    def as_text(self) -> str:
        """The card as plain text, one field a line."""
        judges = "; ".join(j.text for j in self.judges) or "none (no LLM judge ran)"
        lines = ["Trust card" + (f" \u2014 {FAILED_MARK}" if self.failed_check else ""),
                 f"  scored under: {self.condition}",
                 f"  judge{'s' if len(self.judges) > 1 else ''}: {judges}",
                 f"  judge check: {self.check_text()}",
                 f"  panel: {self.panel}"]
        lines += [f"    {a.text}" for a in self.agreement]
        head, *rows = self.human_agreement_lines()
        lines.append(f"  agreement with people: {head}")
        lines += [f"    {row}" for row in rows]
        return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def agreement_row_text(row: HumanAgreementRow) -> str:
    """``quality ~ llm_judge: Kendall tau 0.410 [0.220, 0.580], Spearman 0.520 [0.300, 0.700] over 60 items``."""
    unit = "systems" if row.level == "system" else "items"
    tau_low, tau_high = row.tau_interval
    rho_low, rho_high = row.spearman_interval
    return (f"{row.criterion} ~ {row.metric}: Kendall tau {_fmt(row.kendall_tau)} [{_fmt(tau_low)}, "
            f"{_fmt(tau_high)}], Spearman {_fmt(row.spearman)} [{_fmt(rho_low)}, {_fmt(rho_high)}] over "
            f"{row.n if row.n is not None else UNKNOWN} {unit}")


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _judges(record: JudgeRecord | None, panel: JudgePanel | None) -> tuple[JudgeSnapshots, ...]:
    """Each judge with its snapshots: every panel judge's (the record's ``snapshots_by_judge``), else the one
    judge's (the record's ``snapshots``)."""
    if record is None or not record.model:
        return ()
    names = list(dict.fromkeys([*(panel.judges if panel is not None else ()), *record.snapshots_by_judge]))
    if len(names) > 1 or (names and record.snapshots_by_judge):
        older = not record.snapshots_by_judge  # written before every judge's were kept: the first judge's only
        return tuple(JudgeSnapshots(name, tuple(record.snapshots if older and i == 0
                                                else record.snapshots_by_judge.get(name, {})))
                     for i, name in enumerate(names))
    return (JudgeSnapshots(record.model, tuple(record.snapshots)),)


def _panel(panel: JudgePanel | None) -> tuple[str, tuple[CriterionAgreement, ...]]:
    """The panel's line and its per-criterion agreement; `SINGLE_JUDGE` without a panel block."""
    if panel is None:
        return SINGLE_JUDGE, ()
    samples = f" x{panel.samples} samples" if panel.samples and panel.samples > 1 else ""
    aggregate = f", {panel.aggregate}" if panel.aggregate else ""
    judges = f"{len(panel.judges)} judge{'s' if len(panel.judges) != 1 else ''}"
    agreement = tuple(
        CriterionAgreement(str(criterion), _number(block.get("krippendorff_alpha_ordinal")),
                           _number(block.get("judge_noise_share")))
        for criterion, block in panel.criteria.items() if isinstance(block, Mapping))
    return f"{judges}{samples}{aggregate}", agreement


def failed_check(summary: Summary) -> bool:
    """Whether the summary's judge failed the judge check recorded with it."""
    record = summary.provenance.judge if summary.provenance is not None else None
    return record is not None and record.check is not None and record.check.failed


def trust_card(summary: Summary, condition: Condition) -> TrustCard:
    """The row's trust card, from its summary and its scoring condition."""
    record = summary.provenance.judge if summary.provenance is not None else None
    panel_text, agreement = _panel(summary.judge_panel)
    return TrustCard(condition=condition.label, judges=_judges(record, summary.judge_panel),
                     check=record.check if record is not None else None, panel=panel_text, agreement=agreement,
                     human_agreement=record.human_agreement if record is not None else None,
                     failed_check=failed_check(summary))


def card_text(summary: Summary | None, profile: str = "") -> str:
    """The trust card of a stored summary under its condition (`summary_condition`, `profile` the submission's),
    as the provenance box shows it above the provenance; "" without a summary (not scored yet)."""
    return "" if summary is None else trust_card(summary, summary_condition(summary, profile)).as_text() + "\n"


__all__ = ["FAILED_MARK", "NO_CHECK", "NO_HUMAN_STUDY", "SINGLE_JUDGE", "UNKNOWN", "CriterionAgreement",
           "JudgeSnapshots", "TrustCard", "agreement_row_text", "card_text", "failed_check", "trust_card"]
