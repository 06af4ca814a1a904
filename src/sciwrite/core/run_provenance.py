"""The provenance of one evaluation, built typed (`sciwrite.core.summary.Provenance`): what `score_systems` records
beside every summary's scores (see `sciwrite.core.provenance` for what each part means and how it is computed)."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from sciwrite.core.provenance import code_version, dataset_fingerprint, hardware, templates_hash
from sciwrite.core.summary import DatasetRef, JudgeRecord, Provenance


def run_provenance(*, benchmark: str, config: str, dataset: Any, profile: str | None, models: Mapping[str, Any],
                   judge: JudgeRecord | None, templates: Mapping[str, str], seeds: Mapping[str, Any], engine: str,
                   started: float, finished: float, model_plan: Mapping[str, Any] | None = None) -> Provenance:
    """The provenance block of one evaluation; `started`/`finished` are time.time(). `model_plan` is the run's
    `sciwrite.models.plan.ModelPlan.as_provenance()`: per role its id, revision, device, where it was chosen and the
    loaded weights' sha256."""
    version = code_version()
    return Provenance(
        sciwrite_version=version["sciwrite_version"], git_commit=version["git_commit"], benchmark=benchmark,
        dataset=DatasetRef(config=config, fingerprint=dataset_fingerprint(dataset),
                           n_papers=len(dataset) if dataset is not None else None),
        profile=profile, models=dict(models), model_plan=dict(model_plan or {}), judge=judge,
        prompt_templates_sha256=templates_hash(templates), seeds=dict(seeds), engine=engine, hardware=hardware(),
        started=datetime.datetime.fromtimestamp(started, datetime.UTC).isoformat(timespec="seconds"),
        wall_seconds=round(finished - started, 3))


__all__ = ["run_provenance"]
