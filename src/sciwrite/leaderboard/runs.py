"""Putting runs scored with `sciwrite evaluate` (or the quick start) on the board without scoring them again.

An evaluation folder holds ``summary.json`` and ``per_paper.jsonl``; the summary names its predictions file (an
absolute path, or one relative to where `evaluate` ran, looked for as `sciwrite.core.summary_files` says), whose
lines carry the run's metadata (model, method, retriever, as `sciwrite generate` writes them). The summary is not
trusted: it is checked with its rows as every door checks a result (`sciwrite.core.metric_scales.check_result`:
types, declared ranges, counts, intervals, finite numbers, and each results-table mean what the per-paper rows
give). Each run becomes a FINISHED submission with its predictions, summary and
per-paper rows, in one transaction; a run already on the board (same predictions, by sha256) is left as it is. A
batch of folders is read and checked whole before the first is added, so one bad folder adds nothing.

A method that keeps a trace per paper (the agent's tool calls: `sciwrite.generation.runner.traces_path_for`) leaves
``<stem>.traces.jsonl`` beside the predictions; each paper's trace joins its stored prediction record under
``trace`` (`with_traces`), so that it lives, is mirrored and is restored with the predictions, and the drill-down
shows it. The digest counts only what is scored, so a trace never makes a run "new".

The run's usage ledgers come with it, for the cost columns (`sciwrite.core.costs`): the generator's
(``usage.jsonl`` beside the predictions: the lines of this run, tagged with the predictions' stem) and the judge's
(the one the summary's ``llm_usage`` names, else ``usage.jsonl`` in the folder or the folder above it: its
evaluation lines). Each is checked against the predictions (`check_ledger`); a bad line refuses the run, naming the
file and line.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.core.costs import LedgerFile, evaluation_ledgers
from sciwrite.core.errors import InputError, Where
from sciwrite.core.jsonl import iter_json_lines
from sciwrite.core.metric_scales import check_result
from sciwrite.core.paper_row import SYSTEM, PaperRow
from sciwrite.core.predictions import with_text
from sciwrite.core.results import load_summary
from sciwrite.core.summary import Summary
from sciwrite.core.summary_files import predictions_file
from sciwrite.generation.runner import TRACE, traces_path_for
from sciwrite.leaderboard.store import FINISHED, ResultsStore, Submission, default_store_path
from sciwrite.leaderboard.submission import content_digest
from sciwrite.scoring.checks import result_rules

#: Who the board says submitted the quick start's runs.
QUICKSTART_SUBMITTER = "sciwrite quickstart"


@dataclass(frozen=True)
class EvaluationRun:
    """An evaluation folder read and checked: what one board submission is made of."""

    benchmark: str
    folder: Path
    split: str
    system: str
    summary: Summary
    rows: list[PaperRow]
    predictions_text: str
    records: list[dict[str, Any]]
    sha256: str
    form: dict[str, str]
    #: where the board says the run came from
    source: str = "sciwrite evaluate"
    #: the generator's and the judge's usage ledgers, checked against the predictions
    ledgers: tuple[LedgerFile, ...] = ()


def _objects(path: Path, what: str) -> tuple[list[dict[str, Any]], list[int]]:
    """The JSON objects of a JSON Lines file and the line of each; a line that is not one raises `InputError`."""
    if not path.is_file():
        raise InputError(f"no such file (the {what})", Where(path=path),
                         "import the whole folder `sciwrite evaluate` wrote for one system, beside its predictions")
    objects, lines = [], []
    for number, _, value, problem in iter_json_lines(path):
        if problem is not None or not isinstance(value, dict):
            raise InputError(problem or "not a JSON object", Where(path=path, line=number),
                             f"give the {what} as `sciwrite` wrote it, unedited")
        objects.append(value)
        lines.append(number)
    return objects, lines


def read_evaluation(benchmark: str, evaluation_dir: str | Path, *, predictions: str | Path | None = None,
                    system: str | None = None, fields: Mapping[str, str] | None = None,
                    generator_ledger: str | Path | None = None, judge_ledger: str | Path | None = None
                    ) -> EvaluationRun:
    """The run scored in `evaluation_dir`, checked (see the module docstring); `predictions` defaults to the file
    the summary names; `fields` override the form fields read from the predictions' first line; the ledgers
    default to those found beside the predictions and the summary (`sciwrite.core.costs.evaluation_ledgers`)."""
    bench = get_benchmark(benchmark)
    folder = Path(evaluation_dir)
    summary_path = folder / "summary.json" if folder.is_dir() else folder
    folder = summary_path.parent
    summary = load_summary(summary_path)
    split = summary.split
    if not split:
        raise InputError("no split field; is it a `sciwrite evaluate` summary?", Where(summary_path, field="split"))
    rows, lines = board_rows(folder / "per_paper.jsonl")
    check_result(summary, rows, result_rules(bench), summary_path=summary_path, rows_path=folder / "per_paper.jsonl",
                 row_lines=lines)
    predictions_path = Path(predictions) if predictions else predictions_file(summary.predictions, summary_path)
    records = [with_text(record) for record in _objects(predictions_path, "predictions file")[0]]
    text = predictions_path.read_bytes().decode("utf-8-sig")
    traces = read_traces(traces_path_for(predictions_path), {str(r.get("paper_id")) for r in records})
    text = with_traces(text, traces)
    # the digest an upload of the same file gets (`content_digest`), so that neither path adds it twice
    sha256 = content_digest(records, candidates="candidates" in bench.data.prediction_fields)
    ledgers = evaluation_ledgers(predictions_path, summary, folder, {str(r.get("paper_id")) for r in records},
                          generator_ledger, judge_ledger)
    form = {**run_fields(records[0] if records else {}), **(fields or {})}
    system = system or summary.system or predictions_path.stem
    # the board keeps the predictions themselves; of their path only the file name, so that a mirrored board
    # publishes no folder of the machine that scored them
    summary = summary.with_(system=system, predictions=predictions_path.name)
    return EvaluationRun(benchmark, folder, split, system, summary, rows, text, records, sha256, form,
                         ledgers=ledgers)


def board_row(record: Mapping[str, Any]) -> PaperRow:
    """A per-paper row's JSON as the board keeps it, typed: without its ``system`` (the board names the
    submission's, whatever the file or log called it)."""
    return PaperRow.from_json({key: value for key, value in record.items() if key != SYSTEM})


def board_rows(path: Path) -> tuple[list[PaperRow], list[int]]:
    """A ``per_paper.jsonl``'s rows as the board keeps them (`board_row`), and the line of each."""
    objects, lines = _objects(path, "per-paper rows")
    return [board_row(record) for record in objects], lines


def read_traces(path: Path, paper_ids: Collection[str]) -> dict[str, list[Any]]:
    """paper_id -> trace of a traces file (one ``{"paper_id", "trace": [...]}`` per line; a later line of a paper
    replaces an earlier one); {} when there is no file. A line that is not such an object, or names a paper with no
    prediction, raises `InputError` naming the file and line."""
    if not path.is_file():
        return {}
    fix = "give the traces file as `sciwrite generate` wrote it beside these predictions, unedited"
    traces: dict[str, list[Any]] = {}
    for number, _, value, problem in iter_json_lines(path):
        if problem is not None or not isinstance(value, dict):
            raise InputError(problem or "not a JSON object", Where(path=path, line=number), fix)
        paper_id = str(value.get("paper_id"))
        if not isinstance(value.get(TRACE), list):
            raise InputError("no list of turns", Where(path=path, line=number, record=paper_id, field=TRACE), fix)
        if "error" in value:  # the trace of a paper not written (it failed, or the budget stopped it)
            continue
        if paper_id not in paper_ids:
            raise InputError("no prediction of this paper in the predictions file beside it",
                             Where(path=path, line=number, record=paper_id, field="paper_id"),
                             "resume the run with `sciwrite generate` (it drops the traces of papers it did not "
                             "write and that did not fail) or remove the line")
        traces[paper_id] = value[TRACE]
    return traces


def with_traces(text: str, traces: Mapping[str, list[Any]]) -> str:
    """The predictions' JSON Lines `text` with each paper's trace from `traces` in its record under ``trace``;
    the lines of other papers stay as they were, and without traces the text is returned unchanged."""
    if not traces:
        return text
    lines = []
    for line in text.splitlines():
        record = json.loads(line) if line.strip() else None  # the predictions were read as JSON objects already
        if isinstance(record, dict) and str(record.get("paper_id")) in traces:
            line = json.dumps({**record, TRACE: traces[str(record["paper_id"])]}, ensure_ascii=False)
        lines.append(line)
    return "\n".join(lines) + "\n"


def add_evaluation(store: ResultsStore, run: EvaluationRun, submitter: str = QUICKSTART_SUBMITTER
                   ) -> tuple[Submission, bool]:
    """(submission, added) for a checked run; `added` is False when the same predictions were already there."""
    existing = store.find_by_sha256(run.benchmark, run.split, run.sha256)
    if existing is not None:
        return existing, False
    # text columns only (model, method, retriever, weights, ...), for `add_submission`'s `**form: Any`: typed so,
    # as mypy would otherwise match a `str` value against its other keywords (`now`, `rate_limit`)
    text_columns: dict[str, Any] = dict(run.form)
    created = store.add_submission(benchmark=run.benchmark, split=run.split, system=run.system, submitter=submitter,
                                   predictions_jsonl=run.predictions_text, sha256=run.sha256,
                                   n_predictions=len(run.records), status=FINISHED, summary=run.summary,
                                   rows=run.rows, profile=run.summary.profile or "",
                                   source=run.source, ledgers=run.ledgers, **text_columns)
    return created, True


def import_evaluation(store: ResultsStore, benchmark: str, evaluation_dir: str | Path, *,
                      predictions: str | Path | None = None, system: str | None = None,
                      submitter: str = QUICKSTART_SUBMITTER, fields: Mapping[str, str] | None = None
                      ) -> tuple[Submission, bool]:
    """(submission, added) for the run scored in `evaluation_dir` (`read_evaluation`, then `add_evaluation`)."""
    run = read_evaluation(benchmark, evaluation_dir, predictions=predictions, system=system, fields=fields)
    return add_evaluation(store, run, submitter)


def import_evaluations(store: ResultsStore, runs: Sequence[tuple[str, str | Path]]
                       ) -> list[tuple[Submission, bool]]:
    """Every (benchmark, folder) of `runs`, all or nothing: each is read and checked before the first is added."""
    checked = [read_evaluation(benchmark, folder) for benchmark, folder in runs]
    return [add_evaluation(store, run) for run in checked]


def run_fields(record: Mapping[str, Any]) -> dict[str, str]:
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
    return import_evaluations(store, [(benchmark, folder) for benchmark in BENCHMARKS
                                      for folder in sorted(p.parent for p in (out_dir / benchmark).glob("*/summary.json"))])


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
