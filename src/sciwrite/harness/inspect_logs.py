"""Putting an Inspect run of sciwrite's tasks (``inspect eval sciwrite/rwgbench``, ``sciwrite/sciig``) on the board
as an evaluation folder is put there (`sciwrite.leaderboard.runs`), without scoring it again.

The log (`inspect_ai.log.read_eval_log`) must be a finished (status ``success``) run of one of the tasks of
`sciwrite.harness.inspect_tasks`, every sample scored. It becomes an `EvaluationRun`: the per-paper rows are the
scored rows the samples' scores keep (``metadata["row"]``), the summary's values the task's metrics, the predictions
the samples' outputs as ``sciwrite generate`` writes its lines. The same check as for a folder applies
(`sciwrite.core.metric_scales.check_result`): every value of the summary and of each row in its range, nested
ones included, each mean what the rows give: a log edited out of range, or whose means no longer match its rows, is
refused; an in-range edit of rows and means together is not caught (nothing is scored again). A sample whose model
gave a request no answer (an error, a context overflow) is refused too. The log keeps no usage ledger but each
model call's token usage: `model_calls` reads them (the evaluated model's as the generator's, a grader's as the
judge's) and `sciwrite.core.costs.priced_ledgers` prices them with the board's price table, where the log
reports no cost, for the cost columns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

from sciwrite.benchmarks import BENCHMARKS, get_benchmark
from sciwrite.core.costs import GENERATOR, JUDGE, ModelCall, priced_ledgers
from sciwrite.core.errors import InputError, Where
from sciwrite.core.metric_scales import check_result
from sciwrite.core.paper_row import PaperRow
from sciwrite.core.predictions import with_text
from sciwrite.core.summary import Summary
from sciwrite.generation.runner import TRACE
from sciwrite.harness.inspect_model import output_failure
from sciwrite.harness.inspect_scorers import ROW, interval_metric_names, logged_intervals
from sciwrite.harness.inspect_solvers import GENERATED
from sciwrite.leaderboard.runs import QUICKSTART_SUBMITTER, EvaluationRun, add_evaluation, board_row, run_fields
from sciwrite.leaderboard.store import ResultsStore, Submission
from sciwrite.leaderboard.submission import content_digest
from sciwrite.scoring.checks import result_rules

#: The task names of an Inspect log of sciwrite's tasks, and the benchmark each runs.
TASKS = {**{name: name for name in BENCHMARKS}, **{f"sciwrite/{name}": name for name in BENCHMARKS}}
#: Where the board says an imported log's run came from.
SOURCE = "inspect eval"
HINT = (f"give the .eval (or .json) log {' or '.join(f'`inspect eval sciwrite/{name}`' for name in BENCHMARKS)} "
        "wrote, unedited")


def read_log(path: str | Path) -> EvalLog:
    """The Inspect log at `path`; anything else raises `InputError` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file (an Inspect log)", Where(path=path), HINT)
    try:
        return read_eval_log(str(path))
    except Exception as error:  # a zip, JSON or schema error: whichever it is, the file is no Inspect log
        raise InputError(f"is not an Inspect log ({type(error).__name__}: {str(error).splitlines()[0][:120]})",
                         Where(path=path), HINT) from None


def sample_records(log: EvalLog, benchmark: str, path: Path) -> tuple[list[PaperRow], list[dict[str, Any]],
                                                                      dict[str, int]]:
    """(scored rows as the board keeps them, prediction records, not computed: reason -> papers) of the log's
    samples; a sample without its score raises `InputError` naming it. The rows' JSON (the scores' metadata) is
    read here, once."""
    name = f"{benchmark}_scores"
    rows: list[PaperRow] = []
    records: list[dict[str, Any]] = []
    not_computed: dict[str, int] = {}
    for sample in log.samples or []:
        score = (sample.scores or {}).get(name)
        if score is None or not isinstance(score.metadata, Mapping) or not isinstance(score.metadata.get(ROW), Mapping):
            raise InputError(f"sample has no {name} score with its scored row", Where(path=path, record=str(sample.id)),
                             "import a run whose every sample was scored (an errored sample has no score)")
        if (why := model_failure(sample)) is not None:
            raise InputError(f"the model did not answer one of the sample's requests ({why}); its score would be of "
                             "the error's text", Where(path=path, record=str(sample.id)),
                             "generate that paper again (this version of the task fails such a sample)")
        rows.append(board_row(score.metadata[ROW]))
        records.append(prediction(log, sample))
        for reason, count in (score.metadata.get("not_computed") or {}).items():
            not_computed[reason] = not_computed.get(reason, 0) + (count if isinstance(count, int) else 1)
    if not rows:
        raise InputError("holds no sample", Where(path=path), HINT)
    return rows, records, not_computed


def model_failure(sample: EvalSample) -> str | None:
    """Why the evaluated model gave one of the sample's requests no answer (`output_failure`: a model error, a
    request its context cannot hold), or None. A log written before the task failed such samples scored the error's
    text."""
    for event in sample.events or []:
        if isinstance(event, ModelEvent) and event.role is None and (why := output_failure(event.output)) is not None:
            return why
    return None


def prediction(log: EvalLog, sample: EvalSample) -> dict[str, Any]:
    """The sample's prediction as a ``sciwrite generate`` line: what the method added, paper_id, pred, desc, and
    the run's model, method and retriever; a method's trace (an agent's tool calls) under ``trace``, where the
    leaderboard keeps a CLI run's trace (read from its ``<run>.traces.jsonl``)."""
    generated = (sample.metadata or {}).get(GENERATED) or {}
    meta = log.eval.metadata or {}
    run = {"model": log.eval.model, "method": generated.get("method") or meta.get("method"),
           "retriever": meta.get("retriever"), "oracle": bool((log.eval.task_args or {}).get("oracle"))}
    record = {**(generated.get("extra") or {}), **{k: v for k, v in run.items() if v},
              **({TRACE: generated["trace"]} if generated.get("trace") is not None else {}),
              "paper_id": str((sample.metadata or {}).get("paper_id") or sample.id),
              "pred": sample.output.completion if sample.output else "", "desc": generated.get("desc")}
    return with_text(record)


def task_metrics(log: EvalLog, benchmark: str) -> dict[str, Any]:
    """The task's metrics (its scorer's) by name, and their bootstrap intervals as a summary's interval fields
    (`sciwrite.harness.inspect_scorers.logged_intervals`)."""
    for score in (log.results.scores if log.results else []):
        if score.name == f"{benchmark}_scores":
            bounds = interval_metric_names(score.metrics)
            return {**{name: metric.value for name, metric in score.metrics.items() if name not in bounds},
                    **logged_intervals(score.metrics)}
    return {}


def model_snapshots(log: EvalLog) -> dict[str, int]:
    """The snapshots of the evaluated model that answered (the model each reply names, e.g. a dated version of the
    model the run asked for) and how many calls each answered, from the samples' model events ({} when the log
    keeps none). A call of a model in another role (a grader) is not counted."""
    counts: dict[str, int] = {}
    for sample in log.samples or []:
        for event in sample.events or []:
            if isinstance(event, ModelEvent) and event.role is None and event.output and event.output.model:
                counts[event.output.model] = counts.get(event.output.model, 0) + 1
    return counts


def model_calls(log: EvalLog) -> list[ModelCall]:
    """Each model call of the log's samples with its token usage: the evaluated model's (no role) as the
    generator's, any other role's (the grader) as the judge's; a call whose reply keeps no usage is left out."""
    calls = []
    for sample in log.samples or []:
        paper = str((sample.metadata or {}).get("paper_id") or sample.id)
        for event in sample.events or []:
            if not isinstance(event, ModelEvent) or event.output is None or event.output.usage is None:
                continue
            usage = event.output.usage
            calls.append(ModelCall(paper, GENERATOR if event.role is None else JUDGE, str(event.model),
                                   usage.input_tokens, usage.output_tokens, usage.reasoning_tokens,
                                   usage.input_tokens_cache_read, usage.total_cost))
    return calls


def code_provenance(log: EvalLog) -> dict[str, Any]:
    """What the run was made with and when, as a folder's provenance says it: the sciwrite version and git commit
    the task recorded in its metadata (the version Inspect lists among the packages for a log written before), and
    the run's start and end."""
    meta = log.eval.metadata or {}
    return {"sciwrite_version": meta.get("sciwrite_version") or (log.eval.packages or {}).get("sciwrite"),
            "git_commit": meta.get("git_commit"), "started": log.eval.created,
            "finished": log.stats.completed_at if log.stats else None}


def read_inspect_log(path: str | Path, *, system: str | None = None) -> EvaluationRun:
    """The run of the Inspect log at `path`, checked (see the module docstring)."""
    path = Path(path)
    log = read_log(path)
    benchmark = TASKS.get(log.eval.task)
    if benchmark is None:
        raise InputError(f"is a log of the task {log.eval.task!r}, not of sciwrite's ({', '.join(sorted(TASKS))})",
                         Where(path=path), HINT)
    if log.status != "success":
        raise InputError(f"the run's status is {log.status!r}, not 'success'", Where(path=path),
                         "import a run that finished (`inspect eval-retry` the log first)")
    bench = get_benchmark(benchmark)
    rows, records, not_computed = sample_records(log, benchmark, path)
    args = dict(log.eval.task_args or {})
    meta = dict(log.eval.metadata or {})
    split = str(args.get("split") or meta.get("dataset") or "sample")
    method = meta.get("method") or args.get("method") or args.get("level")
    system = system or (f"{log.eval.model} {method}" if method else (log.eval.task_display_name or log.eval.task))
    text = "".join(json.dumps(record, ensure_ascii=False, default=str) + "\n" for record in records)
    summary = Summary.from_json({**task_metrics(log, benchmark), "system": system, "split": split, "n_papers": len(rows),
               "profile": args.get("profile"), "not_computed": not_computed, "predictions": f"{path.stem}.jsonl",
               "provenance": {"benchmark": benchmark, "profile": args.get("profile"), "dataset": {"config": split},
                              "sciwrite": (log.eval.packages or {}).get("sciwrite"), **code_provenance(log),
                              "inspect": {"model": log.eval.model, "snapshots": model_snapshots(log),
                                          "task": log.eval.task, "task_args": args,
                                          "inspect_ai": (log.eval.packages or {}).get("inspect_ai"),
                                          "run_id": log.eval.run_id, "created": log.eval.created,
                                          "log": path.name}}})
    check_result(summary, rows, result_rules(bench), summary_path=path, rows_path=path)
    sha256 = content_digest(records, candidates="candidates" in bench.data.prediction_fields)
    return EvaluationRun(benchmark, path.parent, split, system, summary, rows, text, records, sha256,
                         run_fields(records[0]), source=SOURCE, ledgers=priced_ledgers(model_calls(log)))


def import_inspect_logs(store: ResultsStore, paths: Sequence[str | Path], submitter: str = QUICKSTART_SUBMITTER
                        ) -> list[tuple[Submission, bool]]:
    """(submission, added) for each log, all or nothing: every log is read and checked before the first is added."""
    checked = [read_inspect_log(path) for path in paths]
    return [add_evaluation(store, run, submitter) for run in checked]


__all__ = ["SOURCE", "TASKS", "code_provenance", "model_calls", "import_inspect_logs", "model_snapshots", "read_inspect_log",
           "read_log"]
