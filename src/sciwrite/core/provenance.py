"""What a score was computed with, for every evaluation summary: a ``schema_version`` and a ``provenance`` block, so
that two numbers can be told comparable or not without guessing.

The block records the sciwrite version and git commit, the dataset config with its content fingerprint and number
of papers, the model profile and every model role's id (and the run's model plan: revision, device, why and
weights fingerprint per role), the LLM judge's model and the snapshots that answered, a
hash of the prompt templates the metrics send, the seeds, the engine, the hardware and the wall time. Summaries
written before it (no ``schema_version``) read as schema 0 (`schema_version_of`); `migrate_summary` brings an older
summary to the current layout, so that every reader sees one layout.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import subprocess
from collections.abc import Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

#: The layout of ``summary.json``: 1 adds ``schema_version`` and ``provenance``; files without it are schema 0.
#: 2: every benchmark names the split or config it scored under ``split`` (SciIG's summaries said ``dataset`` for
#: it, and ``split`` for the part of the config scored, now ``scored_split``).
SUMMARY_SCHEMA_VERSION = 2


def schema_version_of(summary: Mapping[str, Any]) -> int:
    """The summary's schema version (0 for summaries written before versions existed)."""
    value = summary.get("schema_version", 0)
    return value if isinstance(value, int) else 0


def migrate_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    """`summary` in the current layout (`SUMMARY_SCHEMA_VERSION`), keys in their order; its ``schema_version`` is
    left as written (it says which layout the file had). A current summary comes back as a copy."""
    if schema_version_of(summary) >= 2 or "dataset" not in summary:
        return dict(summary)
    renamed = {"dataset": "split", "split": "scored_split"}  # schema 0-1 SciIG summaries
    return {renamed.get(key, key): value for key, value in summary.items()}


@lru_cache(maxsize=1)
def code_version() -> dict[str, str | None]:
    """The installed sciwrite version and, when it runs from a git checkout, the commit (with ``+dirty`` when the
    tracked files differ from it)."""
    try:
        version = metadata.version("sciwrite")
    except metadata.PackageNotFoundError:
        version = None
    commit = None
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                                timeout=5, check=True).stdout.strip() or None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        if commit and dirty:
            commit += "+dirty"
    except (OSError, subprocess.SubprocessError):
        pass
    return {"sciwrite_version": version, "git_commit": commit}


def hardware() -> dict[str, Any]:
    """CPU, core count and the GPU when torch sees one."""
    gpu = None
    try:
        import torch

        if torch.cuda.is_available():
            gpu = torch.cuda.get_device_name(0)
    except ImportError:  # torch is a dependency; a stripped environment still gets a summary
        pass
    return {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(), "gpu": gpu,
            "python": platform.python_version()}


def templates_hash(templates: Mapping[str, str]) -> str:
    """sha256 over the named prompt templates (name and text), independent of their order."""
    digest = hashlib.sha256()
    for name in sorted(templates):
        digest.update(name.encode("utf-8") + b"\x00" + templates[name].encode("utf-8") + b"\x00")
    return digest.hexdigest()


def dataset_fingerprint(dataset: Any) -> str | None:
    """The `datasets` content fingerprint of a loaded split (changes with its rows), None when it has none."""
    return getattr(dataset, "_fingerprint", None)


def provenance(*, benchmark: str, config: str, dataset: Any, profile: str | None, models: Mapping[str, Any],
               judge: Mapping[str, Any] | None, templates: Mapping[str, str], seeds: Mapping[str, Any],
               engine: str, started: float, finished: float,
               model_plan: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance block of one evaluation (see the module docstring); `started`/`finished` are time.time().
    `model_plan` is the run's `sciwrite.models.plan.ModelPlan.as_provenance()`: per role its id, revision, device,
    where it was chosen and the loaded weights' sha256."""
    return {**code_version(), "benchmark": benchmark,
            "dataset": {"config": config, "fingerprint": dataset_fingerprint(dataset),
                        "n_papers": len(dataset) if dataset is not None else None},
            "profile": profile, "models": dict(models), "model_plan": dict(model_plan or {}),
            "judge": dict(judge) if judge else None,
            "prompt_templates_sha256": templates_hash(templates), "seeds": dict(seeds), "engine": engine,
            "hardware": hardware(),
            "started": datetime.datetime.fromtimestamp(started, datetime.UTC).isoformat(timespec="seconds"),
            "wall_seconds": round(finished - started, 3)}


def plan_provenance(models: Any) -> dict[str, Any] | None:
    """The model plan of a suite's loaded models (`ModelPlan.as_provenance`), None when it has none."""
    plan = getattr(models, "plan", None)
    return plan.as_provenance() if plan is not None else None


#: What must agree for two systems' scores to be compared: (label, path into the provenance block).
COMPARABLE = (("benchmark", ("benchmark",)), ("dataset config", ("dataset", "config")),
              ("dataset content", ("dataset", "fingerprint")), ("model profile", ("profile",)),
              ("models", ("models",)), ("judge model", ("judge", "model")),
              ("prompt templates", ("prompt_templates_sha256",)))


def _at(block: Mapping[str, Any] | None, path: tuple[str, ...]) -> Any:
    value: Any = block
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def provenance_differences(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> list[str]:
    """What makes two provenance blocks' scores incomparable (benchmark, dataset, profile, models, judge model,
    prompts, and the weights of a role both model plans fingerprinted), one line each; [] when they agree. Judge snapshots are not in it: `snapshot_changes` says those."""
    out = []
    for label, path in COMPARABLE:
        left, right = _at(a, path), _at(b, path)
        if left != right:
            out.append(f"{label}: {left!r} vs {right!r}")
    left, right = weights_of(a), weights_of(b)
    changed = sorted(role for role in left.keys() & right.keys() if left[role] != right[role])
    if changed:  # the same model ids, other weights: a Hub model updated under its name, a local copy retrained
        out.append(f"model weights: {', '.join(f'{role} {left[role][:12]} vs {right[role][:12]}' for role in changed)}")
    return out


def weights_of(block: Mapping[str, Any] | None) -> dict[str, str]:
    """role -> weights sha256 from a provenance block's model plan ({} for a summary written before plans)."""
    plan = _at(block, ("model_plan",)) or {}
    return {role: entry["weights_sha256"] for role, entry in plan.items()
            if isinstance(entry, Mapping) and entry.get("weights_sha256")}


def snapshot_changes(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> str | None:
    """A note when the two judges answered from different snapshots (same model name, different weights)."""
    left, right = set(_at(a, ("judge", "snapshots")) or {}), set(_at(b, ("judge", "snapshots")) or {})
    return None if left == right else f"judge snapshots {sorted(left)} vs {sorted(right)}"


__all__ = ["COMPARABLE", "SUMMARY_SCHEMA_VERSION", "code_version", "dataset_fingerprint", "hardware", "migrate_summary", "plan_provenance",
           "provenance", "provenance_differences", "schema_version_of", "snapshot_changes", "templates_hash", "weights_of"]
