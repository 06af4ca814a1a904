"""One scoring run's options, for every benchmark and every front end: what ``sciwrite evaluate`` parses, what the
leaderboard's evaluator, the evaluate modules, the quick start and an Inspect scorer pass, in one typed object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from sciwrite.core.engine import LOCAL, check_engine
from sciwrite.core.predictions import DEFAULT_BAD_RECORDS, check_bad_records
from sciwrite.core.summary import HumanAgreementRecord, JudgeCheckRecord
from sciwrite.llm.ledger import UsageLedger
from sciwrite.metrics.judge_config import DEFAULT_JUDGE, JudgeConfig


def metric_names(value: Any) -> tuple[str, ...] | None:
    """A metric subset as a request keeps it: a tuple of names, None for all; a string or a non-sequence is a
    `ValueError` (a bare ``"precision"`` would read as its letters)."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"metrics must be a list of metric names, got {value!r}")
    return tuple(value)

@dataclass(frozen=True)
class ScoringRequest:
    """What to score against and how: the options of one scoring run, as `sciwrite evaluate` takes them.

    The fields mirror `sciwrite evaluate`'s flags; a request is checked when it is made (a `ValueError` names
    the bad field).

    Attributes:
        split: The benchmark's split or config to score against (``--split``); None: the benchmark's default.
        source: A local dataset folder or Hub dataset repo id the split is read from (``--source``).
        profile: The model profile, ``lite`` or ``paper`` (``--profile``); None: ``$SCIWRITE_PROFILE``.
        models: Role -> model id overrides (``--model-role ROLE=ID``).
        metrics: Metric keys, stage names or evaluate-module names to compute; None: all.
        judge: How the LLM clients are made: endpoint, reply cache, request parameters, a client factory, a panel.
        ledger: The usage ledger every LLM request of the run is written to (and budgeted by); None: none.
        batch_size: Examples per model batch.
        show_progress: Show progress bars.
        bootstrap: Resamples of the 95% intervals over papers; 0 for none.
        seed: The bootstrap's seed.
        engine: ``local`` (the default: this process) or ``ray`` (Ray Data; see `ray_address` and `ray_actors`).
        ray_address: The Ray cluster to join; None starts a local Ray.
        ray_actors: The size of the Ray actor pool; None: one per GPU, else one per CPU.
        bad_records: ``error`` (the default: refuse a file with a malformed line, naming every one) or ``skip``
            (score the other lines and keep the bad ones in `SystemResult.rejected`).
        require_complete: Make a system that leaves papers of the split out an error.
        cutoff: Split every metric into papers published before and after this date.
        options: The keyword options only this benchmark takes (`Benchmark.suite.options`).
        judge_check: The judge check of the run's judge (``--judge-check DIR``), recorded in the provenance's judge.
        human_agreement: The run's judge's agreement with people (``--human-agreement DIR``), recorded beside it.
    """

    split: str | None = None
    source: str | Path | None = None
    profile: str | None = None
    models: Mapping[str, str] = field(default_factory=dict)  # role -> model id overrides
    metrics: tuple[str, ...] | None = None
    judge: JudgeConfig = DEFAULT_JUDGE  # how the LLM clients are made
    ledger: UsageLedger | None = None  # where the run's LLM usage is written, and its budget
    batch_size: int = 64
    show_progress: bool = True
    bootstrap: int = 1000  # resamples of the 95% intervals over papers; 0: none
    seed: int = 0
    engine: str = LOCAL
    ray_address: str | None = None
    ray_actors: int | None = None
    bad_records: str = DEFAULT_BAD_RECORDS
    require_complete: bool = False  # a system that leaves papers of the split out is an error
    cutoff: date | None = None  # split every metric into papers published before and after it
    options: Mapping[str, Any] = field(default_factory=dict)
    judge_check: JudgeCheckRecord | None = None  # the judge's check, recorded in the provenance (--judge-check)
    #: the judge's agreement with people, recorded in the provenance (--human-agreement)
    human_agreement: HumanAgreementRecord | None = None

    def __post_init__(self) -> None:
        check_engine(self.engine)
        check_bad_records(self.bad_records)
        object.__setattr__(self, "metrics", metric_names(self.metrics))
        object.__setattr__(self, "models", dict(self.models or {}))
        if self.bootstrap < 0:
            raise ValueError(f"bootstrap must be >= 0 resamples, got {self.bootstrap}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}")

    def with_(self, **changes: Any) -> ScoringRequest:
        """A copy with `changes` (`dataclasses.replace`)."""
        return replace(self, **changes)

    def model_options(self) -> dict[str, Any]:
        """What a suite's `load_models` takes: profile, models, metrics, the judge's config and the ledger."""
        return {"profile": self.profile, "models": dict(self.models), "metrics": self.metrics, "judge": self.judge,
                "ledger": self.ledger}


__all__ = ["ScoringRequest", "metric_names"]
