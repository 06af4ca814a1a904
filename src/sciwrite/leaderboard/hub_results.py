"""Putting a model's self-reported Hub scores on the board: the ``.eval_results/*.yaml`` of a model repo (a local
folder or a Hub repo id), read with `huggingface_hub.parse_eval_result_entries`.

Entries for a benchmark's dataset repo whose task ids this benchmark defines (``<config>_<task id>``,
`sciwrite.core.eval_results.task_id`) become one FINISHED submission per file and config, with the values as its
summary, ``self_reported`` set and no predictions or per-paper rows: the board shows them, ranked apart from what
it scored itself (their own scoring condition, listed last), with no intervals and no drill-down. An entry for
another dataset or task is left out and counted. The same file imported again is left as it is (by sha256).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.core.eval_results import read_results_files, task_id
from sciwrite.leaderboard.store import FINISHED, ResultsStore, Submission

SOURCE = "hub .eval_results (self-reported)"


@dataclass
class HubImport:
    """What one import did: submissions added, already there, and entries left out (with why)."""

    added: list[Submission] = field(default_factory=list)
    existing: list[Submission] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def note_field(notes: str | None, name: str) -> str:
    """One ``name: value`` field of the notes `sciwrite push results` writes ("" when absent)."""
    match = re.search(rf"(?:^|; ){re.escape(name)}: ([^;]+)", notes or "")
    return match.group(1).strip() if match else ""


def import_hub_results(store: ResultsStore, bench: Benchmark, source: str | Path, *,
                       dataset_ids: Sequence[str] = (), token: str | None = None,
                       files: Mapping[str, Sequence[Any]] | None = None) -> HubImport:
    """Import the `.eval_results` of the model repo `source` for `bench` (entries whose dataset is the benchmark's
    Hub repo or one of `dataset_ids`); `files`, when the repo's files were already read (`read_results_files`),
    saves reading them again for each benchmark."""
    wanted = {bench.hub.repo(), *dataset_ids}
    by_task = {task_id(config, task): (config, task) for config, _ in bench.hub.configs for task in bench.hub.tasks}
    model = Path(source).name if Path(source).is_dir() else str(source)
    report = HubImport()
    for name, entries in (files if files is not None else read_results_files(source, token=token)).items():
        groups: dict[str, list[Any]] = {}
        for entry in entries:
            if entry.dataset_id not in wanted or entry.task_id not in by_task:
                report.skipped.append(f"{name}: {entry.dataset_id} / {entry.task_id} is not a {bench.title} task")
                continue
            groups.setdefault(by_task[entry.task_id][0], []).append(entry)
        for config, found in groups.items():
            values = {by_task[e.task_id][1].key: e.value for e in found}
            notes = next((e.notes for e in found if e.notes), "")
            variant = Path(name).stem
            summary = {"system": f"{model} ({variant})", "self_reported": True, "source": SOURCE,
                       "model_repo": str(source), "file": name, "notes": notes, "profile": note_field(notes, "profile"),
                       "date": next((e.date for e in found if e.date), None), **values}
            digest = hashlib.sha256(json.dumps([str(source), name, config, sorted(values.items())],
                                               default=str).encode()).hexdigest()
            existing = store.find_by_sha256(bench.name, config, digest)
            if existing is not None:
                report.existing.append(existing)
                continue
            url = next((e.source_url for e in found if e.source_url), "") or ""
            report.added.append(store.add_submission(
                benchmark=bench.name, split=config, system=summary["system"], submitter=f"{model} (self-reported)",
                predictions_jsonl="", sha256=digest, n_predictions=0, status=FINISHED, summary=summary, rows=[],
                profile=summary["profile"], source=SOURCE, model=note_field(notes, "model") or model,
                method=note_field(notes, "method"), retriever=note_field(notes, "retriever"), url=url))
    return report


__all__ = ["SOURCE", "HubImport", "import_hub_results", "note_field"]
