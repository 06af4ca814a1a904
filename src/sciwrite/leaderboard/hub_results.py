"""Putting a model's self-reported Hub scores on the board: the ``.eval_results/*.yaml`` of a model repo (a local
folder or a Hub repo id), read with `huggingface_hub.parse_eval_result_entries`.

Entries for a benchmark's dataset repo whose task ids this benchmark defines (``<config>_<task id>``,
`sciwrite.core.eval_results.task_id`) become one FINISHED submission per file and config, with the values as its
summary, ``self_reported`` set and no predictions or per-paper rows: the board shows them, ranked apart from what
it scored itself (their own scoring condition, listed last), with no intervals and no drill-down. Each value is
checked against its metric's declared scale (`BenchmarkSuite.scales`): NaN, infinity, a number out of range or text
is refused with the repo, file, line and task named. An entry for another dataset or an unknown task is left out,
and said so. The same file imported again is left as it is (by sha256).

`import_hub_repos` imports a batch of repos all or nothing: every repo is read and every value checked before
the first submission is added, so a bad file in the last repo leaves the board as it was.

The other way, `board_run` reads one scored submission of the board for ``sciwrite push results --store S
--submission ID``: its summary, and its `RunFacts` as the board shows them (the cost the store holds, "unknown"
without a ledger; the trust card; the Rank cell of the board's default table, `leaderboard_frame`, with its
interval among the rows of its scoring condition), so that the notes on the Hub say what the board says.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sciwrite.benchmark import Benchmark
from sciwrite.benchmarks import get_benchmark
from sciwrite.core.costs import unknown_cost
from sciwrite.core.errors import InputError, Where
from sciwrite.core.eval_results import HubTask, ResultsFile, read_results_files, run_of, task_id, with_run_fields
from sciwrite.core.metric_scales import check_result, check_value
from sciwrite.core.run_facts import RunFacts, summary_facts
from sciwrite.core.summary import Summary
from sciwrite.leaderboard.store import FINISHED, ResultsStore, Submission
from sciwrite.leaderboard.tables import leaderboard_frame, leaderboard_rows, metric_labels
from sciwrite.scoring.checks import result_rules

SOURCE = "hub .eval_results (self-reported)"


@dataclass
class HubImport:
    """What one import did: submissions added, already there, and entries left out (each with why)."""

    added: list[Submission] = field(default_factory=list)
    existing: list[Submission] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PlannedResult:
    """One file's checked values for one benchmark and config: what becomes one self-reported submission."""

    bench: Benchmark
    source: str
    file: ResultsFile
    config: str
    values: dict[str, float | None]  # metric -> value; None: not computed
    notes: str
    date: Any
    url: str


@dataclass
class RepoImport:
    """One model repo of a batch: its submissions added and already there, and its entries left out."""

    repo: str
    added: list[Submission] = field(default_factory=list)
    existing: list[Submission] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def lines(self, titles: Sequence[str]) -> list[str]:
        """What the command prints for this repo: each submission added or already there, each entry left out."""
        out = [f"added (self-reported): {s.benchmark} {s.split} {s.system}" for s in self.added]
        out += [f"already there: {s.benchmark} {s.split} {s.system}" for s in self.existing]
        out += [f"left out: {why}" for why in self.skipped]
        if not self.added and not self.existing:
            out.append(f"{self.repo}: no {' or '.join(titles)} results ({len(self.skipped)} entries left out)")
        return out


def note_field(notes: str | None, name: str) -> str:
    """One ``name: value`` field of the notes `sciwrite push results` writes ("" when absent)."""
    match = re.search(rf"(?:^|; ){re.escape(name)}: ([^;]+)", notes or "")
    return match.group(1).strip() if match else ""


def _tasks(bench: Benchmark) -> dict[str, tuple[str, HubTask]]:
    return {task_id(config, task): (config, task) for config, _ in bench.hub.configs for task in bench.hub.tasks}


def plan_results(bench: Benchmark, source: str, files: Mapping[str, ResultsFile], dataset_ids: Sequence[str] = ()
                 ) -> tuple[list[PlannedResult], set[tuple[str, int]]]:
    """The submissions `files` give `bench` (values checked: `InputError` on the first impossible one or on a task
    given twice), and the (file, line) of each entry taken."""
    wanted = {bench.hub.repo(), *dataset_ids}
    by_task = _tasks(bench)
    planned, taken = [], set()
    for name, results in files.items():
        groups: dict[str, dict[str, tuple[Any, int]]] = {}
        for entry, line in zip(results.entries, results.lines, strict=True):
            if entry.dataset_id not in wanted or entry.task_id not in by_task:
                continue
            config, task = by_task[entry.task_id]
            earlier = groups.setdefault(config, {}).get(task.key)
            if earlier is not None:
                raise InputError(f"task {entry.task_id} is given twice (lines {earlier[1]} and {line})",
                                 Where(results.origin, line, entry.task_id), "keep one result per task in a file")
            groups[config][task.key] = (entry, line)
            taken.add((name, line))
        for config, found in groups.items():
            values = {key: check_value(key, entry.value, bench.suite.scales.get(key),
                                       Where(results.origin, line, entry.task_id, "value"), text_numbers=True)
                      for key, (entry, line) in found.items()}
            # the one validator every door runs (a self-reported score has no per-paper rows to check it against)
            check_result(Summary.from_json(dict(values)), None, result_rules(bench), summary_path=results.origin)
            entries = [entry for entry, _ in found.values()]
            planned.append(PlannedResult(
                bench, source, results, config, values, notes=next((e.notes for e in entries if e.notes), ""),
                date=next((e.date for e in entries if e.date), None),
                url=next((e.source_url for e in entries if e.source_url), "") or ""))
    return planned, taken


def left_out(benches: Sequence[Benchmark], files: Mapping[str, ResultsFile], taken: set[tuple[str, int]],
             dataset_ids: Sequence[str] = ()) -> list[str]:
    """Why each entry no benchmark took is left out: another dataset, or a task no benchmark defines."""
    repos = {bench.hub.repo(): bench for bench in benches} | {d: None for d in dataset_ids}
    titles = " or ".join(bench.title for bench in benches)
    known = sorted({tid for bench in benches for tid in _tasks(bench)})
    skipped = []
    for name, results in files.items():
        skipped += list(results.invalid)
        for entry, line in zip(results.entries, results.lines, strict=True):
            if (name, line) in taken:
                continue
            where = f"{results.origin}:{line}: {entry.dataset_id} / {entry.task_id}"
            if entry.dataset_id not in repos:
                skipped.append(f"{where} is not a {titles} task (another dataset)")
                continue
            skipped.append(f"{where} is not a {titles} task (no such task id; they are <config>_<task>, such as "
                           f"{', '.join(known[:3])})")
    return skipped


def add_planned(store: ResultsStore, planned: PlannedResult) -> tuple[Submission, bool]:
    """(submission, added) for one planned result: added as a FINISHED self-reported row, or the one already there
    (same repo, file, config and values)."""
    source, name, values, notes = planned.source, planned.file.name, planned.values, planned.notes
    model = Path(source).name if Path(source).is_dir() else str(source)
    summary = Summary.from_json({
        "system": f"{model} ({Path(name).stem})", "self_reported": True, "source": SOURCE, "model_repo": str(source),
        "file": name, "notes": notes, "profile": note_field(notes, "profile"), "date": planned.date, **values})
    digest = hashlib.sha256(json.dumps([str(source), name, planned.config, sorted(values.items())],
                                       default=str).encode()).hexdigest()
    existing = store.find_by_sha256(planned.bench.name, planned.config, digest)
    if existing is not None:
        return existing, False
    return store.add_submission(
        benchmark=planned.bench.name, split=planned.config, system=summary.system or model,
        submitter=f"{model} (self-reported)", predictions_jsonl="", sha256=digest, n_predictions=0, status=FINISHED,
        summary=summary, rows=[], profile=summary.profile or "", source=SOURCE,
        model=note_field(notes, "model") or model, method=note_field(notes, "method"),
        retriever=note_field(notes, "retriever"), url=planned.url), True


def import_hub_results(store: ResultsStore, bench: Benchmark, source: str | Path, *,
                       dataset_ids: Sequence[str] = (), token: str | None = None,
                       files: Mapping[str, ResultsFile] | None = None) -> HubImport:
    """Import the `.eval_results` of the model repo `source` for `bench` (entries whose dataset is the benchmark's
    Hub repo or one of `dataset_ids`); `files`, when the repo's files were already read (`read_results_files`),
    saves reading them again. Every value is checked before anything is added."""
    files = files if files is not None else read_results_files(source, token=token)
    planned, taken = plan_results(bench, str(source), files, dataset_ids)
    report = HubImport(skipped=left_out([bench], files, taken, dataset_ids))
    for one in planned:
        submission, added = add_planned(store, one)
        (report.added if added else report.existing).append(submission)
    return report


def import_hub_repos(store: ResultsStore, benches: Sequence[Benchmark], sources: Sequence[str | Path], *,
                     dataset_ids: Sequence[str] = (), token: str | None = None,
                     read: Callable[..., Mapping[str, ResultsFile]] = read_results_files) -> list[RepoImport]:
    """Import every repo of `sources` for `benches`, all or nothing: every file is read and every value checked
    (an `InputError` names the repo, file and line of the first problem) before the first submission is added."""
    batch = []
    for source in sources:
        files = read(source, token=token)
        plans, taken = [], set()
        for bench in benches:
            planned, took = plan_results(bench, str(source), files, dataset_ids)
            plans += planned
            taken |= took
        batch.append((str(source), plans, left_out(benches, files, taken, dataset_ids)))
    reports = []
    for source, plans, skipped in batch:
        report = RepoImport(source, skipped=skipped)
        for one in plans:
            submission, added = add_planned(store, one)
            (report.added if added else report.existing).append(submission)
        reports.append(report)
    return reports


@dataclass(frozen=True)
class BoardRun:
    """One scored submission of the board, to push as ``.eval_results``: its benchmark, its summary (with the run's
    model, method and retriever) and its facts as the board shows them (`board_facts`)."""

    bench: Benchmark
    submission: Submission
    summary: Summary
    facts: RunFacts


#: Why a board row's cost is unknown when the store holds none (the board's own words: `unknown_fields`).
NO_LEDGER = "no usage ledger came with this run"


def board_facts(store: ResultsStore, submission: Submission, summary: Summary) -> RunFacts:
    """`submission`'s facts as its board row shows them: its `RunCost` from the store (unknown without one, never
    0), its trust card, and its Rank cell in the board's default table (`leaderboard_frame` of its benchmark and
    split, ranked on the first headline metric) with where it was counted: ``of N in <condition> on <metric>``."""
    bench = get_benchmark(submission.benchmark)
    cost = store.cost(submission.id) or unknown_cost(summary.n_papers or submission.n_predictions, NO_LEDGER)
    facts = summary_facts(summary, cost, system=submission.system, profile=submission.profile)
    frame = leaderboard_frame(leaderboard_rows(store, bench, submission.split), bench)
    at = list(frame.attrs["ids"]).index(submission.id)
    condition = str(frame["Scored under"].iloc[at])
    among = int((frame["Scored under"] == condition).sum())
    metric = bench.suite.metrics[0]
    return replace(facts, rank=str(frame["Rank"].iloc[at]),
                   rank_scope=f"of {among} in {condition} on {metric_labels(bench)[metric]} ({metric})")


def board_run(store: ResultsStore, submission_id: str) -> BoardRun:
    """The scored submission `submission_id` of `store` with its facts (`board_facts`); an id the store lacks, a
    submission not scored yet, or a self-reported one (read from a model repo's ``.eval_results``, not scored by
    the board) raises `InputError` naming the store and the id."""
    where = Where(path=store.path, record=submission_id, field="--submission")
    try:
        submission = store.get(submission_id)
    except KeyError:
        raise InputError("no such submission in the store", where,
                         "give the id of a row of the board (its provenance box shows it)") from None
    summary = store.summary(submission.id)
    if submission.status != FINISHED or summary is None:
        raise InputError(f"is {submission.status}, not scored yet", where, "push a FINISHED submission")
    if summary.self_reported:
        raise InputError("is self-reported (read from a model repo's .eval_results), not scored by the board", where,
                         "push the runs the board scored")
    record = run_of({"model": submission.model or None, "method": submission.method or None,
                     "retriever": submission.retriever or None})
    summary = with_run_fields(summary.with_(system=summary.system or submission.system,
                                            split=summary.split or submission.split), record=record)
    return BoardRun(get_benchmark(submission.benchmark), submission, summary,
                    board_facts(store, submission, summary))


__all__ = ["NO_LEDGER", "SOURCE", "BoardRun", "HubImport", "PlannedResult", "RepoImport", "add_planned", "board_facts",
           "board_run", "import_hub_repos", "import_hub_results", "left_out", "note_field", "plan_results"]
