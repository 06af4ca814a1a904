"""Putting runs scored with `sciwrite evaluate` (or the quick start) on the board without scoring them again.

An evaluation folder holds ``summary.json`` and ``per_paper.jsonl``; the summary names its predictions file, whose
lines carry the run's metadata (model, method, retriever, as `sciwrite generate` writes them). Each run becomes a
FINISHED submission with its predictions, summary and per-paper rows, in one transaction; a run already on the
board (same predictions, by sha256) is left as it is.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.core.jsonl import read_json_lines
from sciwrite.core.predictions import with_text
from sciwrite.core.results import read_summary
from sciwrite.leaderboard.store import FINISHED, ResultsStore, Submission, default_store_path
from sciwrite.leaderboard.submission import content_digest

#: Who the board says submitted the quick start's runs.
QUICKSTART_SUBMITTER = "sciwrite quickstart"


def import_evaluation(store: ResultsStore, benchmark: str, evaluation_dir: str | Path, *,
                      predictions: str | Path | None = None, system: str | None = None,
                      submitter: str = QUICKSTART_SUBMITTER, fields: Mapping[str, str] | None = None
                      ) -> tuple[Submission, bool]:
    """(submission, added) for the run scored in `evaluation_dir`; `added` is False when the same predictions
    were already on the board. `predictions` defaults to the file the summary names; `fields` override the form
    fields (model, method, retriever, weights, url) read from the predictions' first line."""
    folder = Path(evaluation_dir)
    summary = read_summary(folder)
    rows = [{k: v for k, v in r.items() if k != "system"} for r in read_json_lines(folder / "per_paper.jsonl")]
    predictions_path = Path(predictions or summary["predictions"])
    content = predictions_path.read_bytes()
    split = summary.get("split")
    if not split:
        raise ValueError(f"{folder / 'summary.json'}: no split field; is it a `sciwrite evaluate` summary?")
    text = content.decode("utf-8-sig")
    records = [with_text(json.loads(line)) for line in text.splitlines() if line.strip()]
    # the digest an upload of the same file gets (`content_digest`), so that neither path adds it twice
    sha256 = content_digest(records, candidates="candidates" in get_benchmark(benchmark).data.prediction_fields)
    existing = store.find_by_sha256(benchmark, split, sha256)
    if existing is not None:
        return existing, False
    form = {**_run_fields(records[0] if records else {}), **(fields or {})}
    system = system or summary.get("system") or predictions_path.stem
    created = store.add_submission(benchmark=benchmark, split=split, system=system, submitter=submitter,
                                   predictions_jsonl=text, sha256=sha256, n_predictions=len(records), status=FINISHED,
                                   summary={**summary, "system": system}, rows=rows,
                                   profile=summary.get("profile") or "", source="sciwrite evaluate", **form)
    return created, True


def _run_fields(record: Mapping[str, Any]) -> dict[str, str]:
    """Form fields from a `sciwrite generate` line: model, method, retriever ("oracle" for Oracle runs), and
    open weights for the extractive floor (it has no weights to close)."""
    fields = {key: str(record[key]) for key in ("model", "method", "retriever") if record.get(key)}
    if record.get("oracle"):
        fields["retriever"] = "oracle"
    if record.get("model") == "extractive":
        fields["weights"] = "open"
    return fields


def import_quickstart(store: ResultsStore, out_dir: str | Path) -> list[tuple[Submission, bool]]:
    """Every run the quick start scored under `out_dir` (``rwgbench/<system>/`` and ``sciig/<system>/``)."""
    out_dir = Path(out_dir)
    imported = []
    for benchmark in BENCHMARKS:
        for folder in sorted(p.parent for p in (out_dir / benchmark).glob("*/summary.json")):
            imported.append(import_evaluation(store, benchmark, folder))
    return imported


def serve_command(store: str | Path | None = None, sources: Mapping[str, str | Path | None] | None = None) -> str:
    """The one command that opens the leaderboard on `store` (defaults left out), as a shell line; `sources` gives
    a benchmark's dataset folder by name (``--source BENCHMARK=DIR``; None: its default)."""
    exe = Path(sys.executable).parent / "sciwrite"
    program = os.path.relpath(exe) if exe.exists() and not os.path.relpath(exe).startswith("..") else "sciwrite"
    argv = [program, "leaderboard", "serve"]
    if store is not None and Path(store).resolve() != default_store_path().resolve():
        argv += ["--store", str(store)]
    given = dict(sources or {})
    for name in BENCHMARKS:
        if given.get(name) is not None:
            argv += ["--source", f"{name}={given[name]}"]
    return shlex.join(argv)
