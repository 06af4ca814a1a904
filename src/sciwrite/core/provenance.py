"""What a score was computed with, for every evaluation summary: a ``schema_version`` and a ``provenance`` block, so
that two numbers can be told comparable or not without guessing.

The block records the sciwrite version and git commit, the dataset config with its content fingerprint
(`dataset_fingerprint`: a hash of the split's rows, equal for equal data whatever file or loader held it) and number
of papers, the model profile and every model role's id (and the run's model plan: revision, device, why and
weights fingerprint per role), the LLM judge's model and the snapshots that answered, a
hash of the prompt templates the metrics send, the seeds, the engine, the hardware and the wall time. Summaries
written before it (no ``schema_version``) read as schema 0 (`schema_version_of`); `migrate_summary` brings an older
summary to the current layout, so that every reader sees one layout.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Iterable, Iterator, Mapping
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


#: The rule `dataset_fingerprint` follows; its fingerprints start with ``rows-sha256:``. A fingerprint without it is
#: the `datasets` cache fingerprint summaries held before, which changes whenever a parquet file is rewritten.
FINGERPRINT_METHOD = "rows-sha256"
#: Rows converted from Arrow at a time (bounded memory on a large split).
_BATCH_ROWS = 1000
#: Content fingerprints of the `Dataset` objects seen in this process, by their `datasets` fingerprint (one state of
#: one table): every system scored in one run hashes its split once.
_SEEN: dict[str, str] = {}


def _canonical(value: Any) -> Any:
    """`value` as JSON-ready data in which equal content is equal: a mapping's null fields dropped (Arrow fills a
    field a record lacks with null), integral floats as integers (a loader may read ``2020`` as 2020.0)."""
    if isinstance(value, Mapping):
        return {str(key): _canonical(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _rows(dataset: Any) -> Iterator[Mapping[str, Any]]:
    """The rows of a `datasets.Dataset` (read from Arrow a batch at a time, in its selected order) or of a list of
    records given in memory."""
    if hasattr(dataset, "with_format") and hasattr(dataset, "iter"):
        for batch in dataset.with_format("arrow").iter(batch_size=_BATCH_ROWS):
            yield from batch.to_pylist()
        return
    yield from dataset


def rows_fingerprint(rows: Iterable[Mapping[str, Any]]) -> str:
    """``rows-sha256:<hex>``: sha256 over the sorted sha256 digests of each row's canonical JSON (`_canonical`, keys
    sorted). Equal rows give equal fingerprints whatever their order, their file (parquet written twice, JSON Lines)
    or their loader (a local folder, the Hub, records in memory); a changed value, row or field changes it."""
    digests = sorted(hashlib.sha256(json.dumps(_canonical(dict(row)), sort_keys=True, ensure_ascii=False,
                                               separators=(",", ":"), default=str).encode("utf-8")).digest()
                     for row in rows)
    total = hashlib.sha256(len(digests).to_bytes(8, "big"))
    for digest in digests:
        total.update(digest)
    return f"{FINGERPRINT_METHOD}:{total.hexdigest()}"


def dataset_fingerprint(dataset: Any) -> str | None:
    """The content fingerprint of a split (`rows_fingerprint` of its rows); None for no split. A `Dataset` is
    hashed once per process (`_SEEN`)."""
    if dataset is None:
        return None
    state = getattr(dataset, "_fingerprint", None)
    if state is not None and state in _SEEN:
        return _SEEN[state]
    fingerprint = rows_fingerprint(_rows(dataset))
    if state is not None:
        _SEEN[state] = fingerprint
    return fingerprint


def is_row_fingerprint(fingerprint: Any) -> bool:
    """Whether a summary's dataset fingerprint follows `rows_fingerprint` (False for the `datasets` cache
    fingerprint older summaries hold, or none)."""
    return isinstance(fingerprint, str) and fingerprint.startswith(f"{FINGERPRINT_METHOD}:")


def plan_provenance(models: Any) -> dict[str, Any] | None:
    """The model plan of a suite's loaded models (`ModelPlan.as_provenance`), None when it has none."""
    plan = getattr(models, "plan", None)
    return plan.as_provenance() if plan is not None else None


#: What must agree for two systems' scores to be compared: (label, path into the provenance block).
COMPARABLE = (("benchmark", ("benchmark",)), ("dataset config", ("dataset", "config")),
              ("dataset content", ("dataset", "fingerprint")), ("model profile", ("profile",)),
              ("models", ("models",)), ("judge model", ("judge", "model")),
              ("prompt templates", ("prompt_templates_sha256",)))


_CONTENT = ("dataset", "fingerprint")


def _at(block: Mapping[str, Any] | None, path: tuple[str, ...]) -> Any:
    value: Any = block
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def provenance_differences(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> list[str]:
    """What makes two provenance blocks' scores incomparable (benchmark, dataset, profile, models, judge model,
    prompts, and the weights of a role both model plans fingerprinted), one line each; [] when they agree. The
    dataset content counts only when both fingerprints hash the rows (`content_unchecked` says why it did not); the
    number of papers counts whenever both blocks give it. Judge snapshots are not in it: `snapshot_changes` says
    those."""
    out = []
    for label, path in COMPARABLE:
        left, right = _at(a, path), _at(b, path)
        if path == _CONTENT and not (is_row_fingerprint(left) and is_row_fingerprint(right)):
            continue  # an older summary's fingerprint says nothing of the content: `content_unchecked` says so
        if left != right:
            out.append(f"{label}: {left!r} vs {right!r}")
    left, right = _at(a, ("dataset", "n_papers")), _at(b, ("dataset", "n_papers"))
    if isinstance(left, int) and isinstance(right, int) and left != right:
        out.append(f"dataset size: {left} vs {right} papers")
    left, right = weights_of(a), weights_of(b)
    changed = sorted(role for role in left.keys() & right.keys() if left[role] != right[role])
    if changed:  # the same model ids, other weights: a Hub model updated under its name, a local copy retrained
        out.append(f"model weights: {', '.join(f'{role} {left[role][:12]} vs {right[role][:12]}' for role in changed)}")
    return out


def content_unchecked(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> str | None:
    """Why the two blocks' dataset content was not compared, naming the rule (None when it was, or when neither block
    has a fingerprint): a summary written before fingerprints hashed the rows holds the `datasets` cache
    fingerprint, which changes whenever a parquet file is rewritten, so equal data could look different."""
    left, right = _at(a, _CONTENT), _at(b, _CONTENT)
    if left == right or (is_row_fingerprint(left) and is_row_fingerprint(right)):
        return None
    return (f"dataset content not compared ({left!r} vs {right!r}): the rule is that only fingerprints of the rows "
            f"({FINGERPRINT_METHOD}:...) are compared, and an older summary holds the `datasets` cache fingerprint, "
            "which changes whenever a parquet file is rewritten; evaluate again to compare the content")


def weights_of(block: Mapping[str, Any] | None) -> dict[str, str]:
    """role -> weights sha256 from a provenance block's model plan ({} for a summary written before plans)."""
    plan = _at(block, ("model_plan",)) or {}
    return {role: entry["weights_sha256"] for role, entry in plan.items()
            if isinstance(entry, Mapping) and entry.get("weights_sha256")}


def snapshot_changes(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> str | None:
    """A note when the two judges answered from different snapshots (same model name, different weights)."""
    left, right = set(_at(a, ("judge", "snapshots")) or {}), set(_at(b, ("judge", "snapshots")) or {})
    return None if left == right else f"judge snapshots {sorted(left)} vs {sorted(right)}"


__all__ = ["COMPARABLE", "FINGERPRINT_METHOD", "SUMMARY_SCHEMA_VERSION", "code_version", "content_unchecked",
           "dataset_fingerprint", "hardware", "is_row_fingerprint", "migrate_summary", "plan_provenance",
           "provenance_differences", "rows_fingerprint", "schema_version_of", "snapshot_changes", "templates_hash",
           "weights_of"]
